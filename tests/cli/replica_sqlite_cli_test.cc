// A SQLite restore that is a replica (issue 11): a database with indexes (plain,
// on an expression, partial), a view, a trigger, a WITHOUT ROWID table and an
// AUTOINCREMENT table whose sqlite_sequence is past its largest key, dumped and
// loaded with --trust-dump into a new file: `.schema` and every row (of every table,
// sqlite_sequence included) are equal, and the trigger did not fire during the load.
// Untrusted: no recorded SQL runs, the plain-column indexes come across, one line
// says what was not restored. A forged entry (an index, view or trigger whose recorded SQL is
// another statement) fails a trusted load with one line naming it, and its statement did
// nothing: no ATTACH, no VACUUM INTO, no DROP, no PRAGMA.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

constexpr const char* kSchema = R"SQL(
CREATE TABLE items (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, qty INTEGER);
CREATE TABLE pairs (k TEXT PRIMARY KEY, v INTEGER) WITHOUT ROWID;
CREATE TABLE log (id INTEGER PRIMARY KEY, what TEXT);
CREATE INDEX items_qty ON items (qty);
CREATE INDEX items_lower_name ON items (lower(name));
CREATE INDEX items_big ON items (qty) WHERE qty > 10;
CREATE VIEW big_items AS SELECT id, name FROM items WHERE qty > 10;
CREATE TRIGGER items_log AFTER INSERT ON items BEGIN INSERT INTO log (what) VALUES ('added ' || NEW.name); END;
INSERT INTO items (name, qty) VALUES ('a', 1), ('b', 20), ('c', 30), ('gone', 5);
DELETE FROM items WHERE name = 'gone';
INSERT INTO pairs VALUES ('x', 1), ('y', NULL);
)SQL";

std::string EveryRow(const std::string& db) {
  std::string out;
  for (const char* t : {"items", "pairs", "log", "sqlite_sequence", "big_items"}) {
    out += Sqlite3Cli(db, fmt::format("SELECT * FROM {} ORDER BY 1", t));
  }
  return out;
}

TEST(ReplicaSqliteCliTest, TrustedLoadReplaysTheSchemaAfterTheData) {
  TempDir dir;
  const std::string source = dir.Sub("source.db"), replica = dir.Sub("replica.db");
  Exec(source, kSchema);
  RunResult d = RunLakedump(fmt::format("dump {} {} --progress none", Quote(source),
                                        Quote(dir.Sub("d"))), dir);
  ASSERT_EQ(d.code, 0) << d.out << d.err;
  RunResult l = RunLakedump(fmt::format("load {} {} --progress none --trust-dump",
                                        Quote(dir.Sub("d")), Quote(replica)), dir);
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  EXPECT_EQ(Sqlite3Cli(replica, ".schema"), Sqlite3Cli(source, ".schema"));
  EXPECT_EQ(EveryRow(replica), EveryRow(source));
  // The next AUTOINCREMENT key continues after the deleted row's, as in the source.
  const std::string next = "INSERT INTO items (name, qty) VALUES ('new', 2); "
                           "SELECT id FROM items WHERE name = 'new'; SELECT count(*) FROM log";
  EXPECT_EQ(Sqlite3Cli(replica, next), Sqlite3Cli(source, next));
}

TEST(ReplicaSqliteCliTest, UntrustedLoadBuildsPlainIndexesOnlyAndSaysSo) {
  TempDir dir;
  const std::string source = dir.Sub("source.db"), replica = dir.Sub("replica.db");
  Exec(source, kSchema);
  ASSERT_EQ(RunLakedump(fmt::format("dump {} {} --progress none", Quote(source),
                                    Quote(dir.Sub("d"))), dir).code, 0);
  RunResult l = RunLakedump(fmt::format("load {} {} --progress none --json", Quote(dir.Sub("d")),
                                        Quote(replica)), dir);
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  EXPECT_NE(l.err.find("were not restored"), std::string::npos) << l.err;
  const std::string objects =
      Sqlite3Cli(replica, "SELECT type, name FROM sqlite_schema WHERE type <> 'table' AND "
                          "sql IS NOT NULL ORDER BY name");
  EXPECT_NE(objects.find("index|items_qty"), std::string::npos) << objects;
  EXPECT_EQ(objects.find("items_lower_name"), std::string::npos) << objects;
  EXPECT_EQ(objects.find("trigger"), std::string::npos) << objects;
  EXPECT_EQ(objects.find("view"), std::string::npos) << objects;
}

// The dump's recorded `kind` entry `name` given `sql` instead (an attacker with write access
// to the bucket editing _manifest.json of an unsigned dump).
void ForgeEntry(const std::string& dump, const std::string& kind, const std::string& name,
                const std::string& sql) {
  const std::string path = dump + "/_manifest.json";
  nlohmann::json m;
  {
    std::ifstream in(path);
    m = nlohmann::json::parse(in);
  }
  bool found = false;
  for (nlohmann::json& o : m["schema"]["objects"]) {
    if (o["type"] == kind && o["name"] == name) {
      o["sql"] = sql;
      found = true;
    }
  }
  ASSERT_TRUE(found) << kind << " " << name;
  std::ofstream(path, std::ios::trunc) << m.dump();
}

TEST(ReplicaSqliteCliTest, AForgedIndexViewOrTriggerEntryIsRefused) {
  TempDir dir;
  const std::string source = dir.Sub("source.db");
  Exec(source, kSchema);
  const std::string evil = dir.Sub("evil.db"), copy = dir.Sub("copy.db");
  struct Attack {
    std::string kind, name, sql, want;
  };
  const std::vector<Attack> attacks = {
      {"index", "items_qty", fmt::format("ATTACH DATABASE '{}' AS evil", evil),
       "restoring index \"items_qty\": the recorded SQL may only CREATE INDEX "
       "\"items_qty\" ON \"items\" (refused: ATTACH"},
      {"view", "big_items", fmt::format("VACUUM INTO '{}'", copy),
       "restoring view \"big_items\": the recorded SQL is not CREATE VIEW \"big_items\" "
       "(refused)"},
      {"trigger", "items_log", "DROP TABLE pairs",
       "restoring trigger \"items_log\": the recorded SQL may only CREATE TRIGGER"},
      {"index", "items_big", "PRAGMA writable_schema = 1", "(refused: PRAGMA writable_schema)"},
      {"index", "items_lower_name", "CREATE VIEW sneaky AS SELECT 1",
       "(refused: CREATE_VIEW sneaky)"},
      {"index", "items_qty", "CREATE INDEX other_name ON items (qty)",
       "(refused: CREATE_INDEX other_name)"},
      {"trigger", "items_log",
       "CREATE TRIGGER items_log AFTER INSERT ON pairs BEGIN DELETE FROM items; END",
       "(refused: CREATE_TRIGGER items_log)"},
      {"view", "big_items", "CREATE TEMP VIEW big_items AS SELECT 1",
       "(refused: INSERT sqlite_temp_master)"},
  };
  for (size_t i = 0; i < attacks.size(); ++i) {
    const Attack& a = attacks[i];
    SCOPED_TRACE(a.sql);
    const std::string dump = dir.Sub("d" + std::to_string(i));
    const std::string replica = dir.Sub("replica" + std::to_string(i) + ".db");
    ASSERT_EQ(RunLakedump(fmt::format("dump {} {} --progress none", Quote(source), Quote(dump)),
                          dir).code, 0);
    ForgeEntry(dump, a.kind, a.name, a.sql);
    RunResult l = RunLakedump(fmt::format("load {} {} --progress none --trust-dump", Quote(dump),
                                          Quote(replica)), dir);
    EXPECT_EQ(l.code, 2) << l.out << l.err;
    EXPECT_NE(l.err.find(a.want), std::string::npos) << l.err;
    EXPECT_EQ(std::count(l.err.begin(), l.err.end(), '\n'), 1) << l.err;
    EXPECT_FALSE(std::filesystem::exists(evil));
    EXPECT_FALSE(std::filesystem::exists(copy));
    if (std::filesystem::exists(replica)) {
      const std::string left = Sqlite3Cli(replica, "SELECT type, name FROM sqlite_schema");
      EXPECT_EQ(left.find("sneaky"), std::string::npos) << left;
      EXPECT_EQ(left.find("other_name"), std::string::npos) << left;
    }
  }
}

}  // namespace
}  // namespace lakedump
