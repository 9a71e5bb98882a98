// SQLite to SQLite twins (issue 31): a database whose values a declared type does not tell
// (datetime text in every form, unix integers, an untyped and a STRICT ANY column holding
// INTEGER, REAL, TEXT and BLOB values, REALs in NUMERIC columns, TEXT in a BLOB column...),
// with generated columns (VIRTUAL and STORED), AUTOINCREMENT, STRICT and WITHOUT ROWID tables,
// is dumped and loaded with --trust-dump into a new file: `sqlite3 .dump` of the replica
// equals the source's, and so does typeof() of every value. Untrusted, the values and their
// storage classes come back too (the tables from their column types). The sample databases of
// tests/data/ make twins the same way.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fakes/cli_run.h"
#include "fakes/sqlite_shell.h"
#include "fakes/temp_dir.h"

namespace lakedump {
namespace {

using testing_cli::Quote;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_sqlite_shell::Exec;
using testing_sqlite_shell::Sqlite3Cli;

// Every value of every table as typeof(c) || ':' || quote(c), in the table's order.
std::string TypedValues(const std::string& db) {
  std::string out;
  const std::string tables = Sqlite3Cli(
      db, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
          "ORDER BY name");
  std::istringstream names(tables);
  std::string table;
  while (std::getline(names, table)) {
    const std::string cols = Sqlite3Cli(
        db, fmt::format("SELECT group_concat('typeof(\"' || name || '\") || '':'' || "
                        "quote(\"' || name || '\")', ' || ''|'' || ') FROM "
                        "pragma_table_xinfo('{}')",
                        table));
    out += table + "\n" +
           Sqlite3Cli(db, fmt::format("SELECT {} FROM \"{}\"", cols.substr(0, cols.size() - 1),
                                      table));
  }
  return out;
}

constexpr const char* kSchema = R"SQL(
CREATE TABLE events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at DATETIME,
  day DATE,
  tod TIME,
  stamp TIMESTAMPTZ,
  anything,
  price NUMERIC(10,2),
  flag BOOLEAN,
  ratio FLOAT4,
  u UUID,
  bin BLOB,
  name TEXT COLLATE NOCASE,
  doubled REAL GENERATED ALWAYS AS (price * 2) VIRTUAL,
  shout TEXT GENERATED ALWAYS AS (upper(name)) STORED,
  CHECK (flag IN (0, 1, 'true', 'false'))
);
CREATE TABLE strict_any (k INTEGER PRIMARY KEY, v ANY, w TEXT) STRICT;
CREATE TABLE pairs (k TEXT PRIMARY KEY, v) WITHOUT ROWID;
CREATE INDEX events_at ON events (at);
CREATE VIEW recent AS SELECT id, at FROM events WHERE at > '2024';
CREATE TRIGGER events_touch AFTER UPDATE ON events BEGIN UPDATE pairs SET v = NEW.id; END;
INSERT INTO events (at, day, tod, stamp, anything, price, flag, ratio, u, bin, name) VALUES
  ('2024-01-01', '2024-01-01', '10:00', '2024-01-01 10:00:00+02:00', 1, 9.99, 1, 0.1,
   'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', x'00ff', 'alpha'),
  ('2024-01-01T10:00:00', '2024-02-29', '10:00:00.500', '2024-01-01T08:00:00Z', 2.5, 10, 0,
   0.123456789012, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'text in a blob column', 'Beta'),
  ('2024-01-01 10:00:00+02:00', '2024-03-01', '23:59:59', 1704067200, 'text', '12.50', 'true',
   1.5, x'a0eebc999c0b4ef8bb6d6bb9bd380a11', x'', 'gamma'),
  (1704067200, NULL, NULL, NULL, x'00ff10', NULL, 'false', NULL, NULL, NULL, NULL),
  ('2024-01-01 10:00', '2024-01-01', '10:00:00', '2024-01-01T10:00:00Z', '5', 3, NULL, 2, NULL, NULL,
   'delta'),
  ('2024-01-01 10:00:00', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'gone');
DELETE FROM events WHERE name = 'gone';
INSERT INTO strict_any VALUES (1, 1, 'a'), (2, 'one', 'b'), (3, x'01', 'c'), (4, 1.5, NULL),
  (5, '1', ''), (6, NULL, 'f');
INSERT INTO pairs VALUES ('x', 1), ('y', 'text'), ('z', x'02'), ('w', 0.5);
)SQL";

// Dumps `source` and loads it into `replica` (with --trust-dump when `trusted`).
void Twin(TempDir& dir, const std::string& source, const std::string& replica, bool trusted) {
  const std::string d = dir.Sub(std::filesystem::path(replica).stem().string() + "-dump");
  RunResult dumped = RunLakedump(fmt::format("dump {} {} --progress none", Quote(source),
                                             Quote(d)), dir);
  ASSERT_EQ(dumped.code, 0) << dumped.out << dumped.err;
  RunResult loaded = RunLakedump(fmt::format("load {} {} --progress none{}", Quote(d),
                                             Quote(replica), trusted ? " --trust-dump" : ""),
                                 dir);
  ASSERT_EQ(loaded.code, 0) << loaded.out << loaded.err;
}

TEST(SqliteTwinCliTest, TrustedLoadGivesTheSameDumpAndStorageClasses) {
  TempDir dir;
  const std::string source = dir.Sub("source.db"), replica = dir.Sub("replica.db");
  Exec(source, kSchema);
  Twin(dir, source, replica, true);
  EXPECT_EQ(Sqlite3Cli(replica, ".dump"), Sqlite3Cli(source, ".dump"));
  EXPECT_EQ(TypedValues(replica), TypedValues(source));
  // The generated columns are generated in the replica, and AUTOINCREMENT goes on after the
  // deleted row's key, as in the source.
  const std::string next = "INSERT INTO events (price, name) VALUES (4, 'new'); "
                           "SELECT id, doubled, shout FROM events WHERE name = 'new'";
  EXPECT_EQ(Sqlite3Cli(replica, next), Sqlite3Cli(source, next));
  EXPECT_EQ(Sqlite3Cli(replica, "SELECT name, seq FROM sqlite_sequence"),
            Sqlite3Cli(source, "SELECT name, seq FROM sqlite_sequence"));
}

TEST(SqliteTwinCliTest, UntrustedLoadKeepsEveryValueAndItsStorageClass) {
  TempDir dir;
  const std::string source = dir.Sub("source.db"), replica = dir.Sub("replica.db");
  Exec(source, kSchema);
  Twin(dir, source, replica, false);
  // Without the recorded DDL the tables are made from the column types (generated columns
  // become plain ones holding the dumped values): every value and its storage class match.
  EXPECT_EQ(TypedValues(replica), TypedValues(source));
}

// Dumps `source` into `dump` and returns the text of `table`'s _table.json.
std::string TableJson(TempDir& dir, const std::string& source, const std::string& dump,
                      const std::string& table) {
  RunResult d = RunLakedump(fmt::format("dump {} {} --progress none", Quote(source), Quote(dump)), dir);
  EXPECT_EQ(d.code, 0) << d.out << d.err;
  std::ifstream in(dump + "/main/" + table + "/_table.json");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(SqliteTwinCliTest, TheExactValuesAreOneColumnOtherReadersMaySkip) {
  TempDir dir;
  const std::string source = dir.Sub("source.db");
  Exec(source, kSchema);
  // The typed columns stay as they were (a timestamp for DATETIME), the values column last.
  const std::string events = TableJson(dir, source, dir.Sub("d"), "events");
  EXPECT_NE(events.find("\"_lakedump_sqlite_values\""), std::string::npos) << events;
  EXPECT_NE(events.find("\"timestamp\""), std::string::npos) << events;
  // A table whose columns' affinities keep every value needs none.
  Exec(source, "CREATE TABLE plain (a INTEGER, b TEXT, c REAL); INSERT INTO plain VALUES (1, 'x', 1.5)");
  const std::string plain = TableJson(dir, source, dir.Sub("d2"), "plain");
  EXPECT_EQ(plain.find("_lakedump_sqlite_values"), std::string::npos) << plain;
  // Nor one whose values are all in the forms `load` writes back (the demo's, mostly): 0/1
  // booleans, lower-case UUID text, timestamps as 'YYYY-MM-DD HH:MM:SS', REALs in NUMERIC.
  Exec(source,
       "CREATE TABLE tidy (b BOOLEAN, u UUID, t TIMESTAMP, z TIMESTAMPTZ, n NUMERIC(10,2), "
       "w FLOAT4, g BLOB); INSERT INTO tidy VALUES (1, '0f0e0d0c-0b0a-4908-8706-050403020100', "
       "'2024-01-31 10:00:00', '2024-01-31T10:00:00.5Z', 12.5, 0.25, x'00')");
  const std::string tidy = TableJson(dir, source, dir.Sub("d3"), "tidy");
  EXPECT_EQ(tidy.find("_lakedump_sqlite_values"), std::string::npos) << tidy;
  // One value in another form gives the table the column.
  Exec(source, "INSERT INTO tidy (b) VALUES ('true')");
  const std::string untidy = TableJson(dir, source, dir.Sub("d4"), "tidy");
  EXPECT_NE(untidy.find("_lakedump_sqlite_values"), std::string::npos) << untidy;
}

// The Sakila sample database (tests/data/sakila-sqlite: foreign keys, CHECKs, DEFAULTs, views,
// triggers, DECIMAL and TIMESTAMP columns) makes its twin.
TEST(SqliteTwinCliTest, TheSakilaSampleMakesItsTwin) {
  TempDir dir;
  const std::string source = dir.Sub("sakila.db"), replica = dir.Sub("sakila-replica.db");
  const std::string script = std::string(LAKEDUMP_SOURCE_DIR) + "/tests/data/sakila-sqlite/sakila.sql";
  ASSERT_TRUE(std::filesystem::exists(script)) << script;
  Sqlite3Cli(source, ".read " + script);
  ASSERT_EQ(Sqlite3Cli(source, "SELECT count(*) FROM payment"), "14\n");
  Twin(dir, source, replica, true);
  EXPECT_EQ(Sqlite3Cli(replica, ".dump"), Sqlite3Cli(source, ".dump"));
  EXPECT_EQ(TypedValues(replica), TypedValues(source));
  EXPECT_EQ(Sqlite3Cli(replica, "SELECT * FROM film_list ORDER BY FID, actors"),
            Sqlite3Cli(source, "SELECT * FROM film_list ORDER BY FID, actors"));
}

}  // namespace
}  // namespace lakedump
