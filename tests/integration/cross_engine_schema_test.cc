// Across engines nothing is dropped without a word (issue 31):
//   - SQLite -> PostgreSQL: the tables land in `public` (or where --schema-map main=X says); the
//     foreign keys between loaded tables, literal DEFAULTs and AUTOINCREMENT (as an identity
//     past the recorded sqlite_sequence) come across, without running any SQL of the dump; a
//     foreign key whose rows do not satisfy it, CHECKs, other DEFAULTs, COLLATE NOCASE and
//     generated columns are each one entry of `schema.skipped` (and one warning line);
//   - PostgreSQL -> SQLite: CHECKs, DEFAULTs, identity columns, COMMENTs and GRANTs are listed.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

#include <nlohmann/json.hpp>

#include "fakes/cli_run.h"
#include "fakes/sqlite_shell.h"
#include "fakes/temp_dir.h"
#include "integration/pg_test_util.h"

namespace lakedump {
namespace {

using testing_cli::Quote;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_sqlite_shell::Exec;
using testing_pg::AdminConn;
using testing_pg::QueryOne;
using testing_pg::ScratchDatabase;
using testing_pg::ScratchSchema;

constexpr const char* kSqlite = R"SQL(
CREATE TABLE customer (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT COLLATE NOCASE NOT NULL,
  tier TEXT DEFAULT 'basic', credit INTEGER DEFAULT (0), seen DATETIME DEFAULT CURRENT_TIMESTAMP,
  CHECK (credit >= 0));
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer INTEGER REFERENCES customer (id)
  ON DELETE CASCADE, qty INTEGER, total REAL GENERATED ALWAYS AS (qty * 2.5) STORED);
CREATE TABLE notes (id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES orders (id));
INSERT INTO customer (name, credit) VALUES ('a', 1), ('b', 2), ('gone', 3);
DELETE FROM customer WHERE name = 'gone';
INSERT INTO orders (id, customer, qty) VALUES (1, 1, 2), (2, 2, 3);
INSERT INTO notes VALUES (1, 1), (2, 99);
)SQL";

// The `schema.skipped` lines of a load's --json output, one a line ("skipped SQLite check on
// public.t: <reason>"), each also printed as a warning.
std::string Skipped(const RunResult& r) {
  std::string out;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  if (!j.is_object()) return "not JSON: " + r.out;
  for (const nlohmann::json& s : j["schema"]["skipped"]) {
    if (!s.is_string()) return "not a string: " + s.dump();
    const std::string line = s.get<std::string>();
    EXPECT_NE(line.find(": "), std::string::npos) << line;  // a reason
    EXPECT_NE(r.err.find("lakedump: warning: " + line), std::string::npos) << line;
    out += line + "\n";
  }
  return out;
}

// kSqlite in a SQLite file of `dir`, dumped: the dump's path (empty when the dump failed).
std::string DumpShop(TempDir& dir) {
  const std::string source = dir.Sub("shop.db"), dump = dir.Sub("d");
  Exec(source, kSqlite);
  RunResult r = RunLakedump(fmt::format("dump {} {} --progress none", Quote(source), Quote(dump)), dir);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  return r.code == 0 ? dump : std::string();
}

TEST(CrossEngineSchemaTest, SqliteToPostgresCarriesWhatItCanAndListsTheRest) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  TempDir dir;
  const std::string dump = DumpShop(dir);
  ASSERT_FALSE(dump.empty());
  ScratchDatabase db(admin.get());
  RunResult load = RunLakedump(
      fmt::format("load {} \"{}\" --progress none --json", Quote(dump), db.conninfo()), dir);
  ASSERT_EQ(load.code, 0) << load.out << load.err;
  auto pg = AdminConn(db.conninfo());
  ASSERT_TRUE(pg);
  // In public, not in a schema named after SQLite's "main".
  EXPECT_EQ(QueryOne(*pg, "SELECT count(*) FROM public.customer"), "2");
  EXPECT_EQ(QueryOne(*pg, "SELECT count(*) FROM pg_namespace WHERE nspname = 'main'"), "0");
  // Carried: the foreign key its rows satisfy, the literal defaults, the identity.
  const std::string fk =
      QueryOne(*pg, "SELECT string_agg(pg_get_constraintdef(oid), '; ') FROM pg_constraint "
                    "WHERE contype = 'f' AND conrelid = 'public.orders'::regclass");
  EXPECT_NE(fk.find("FOREIGN KEY (customer) REFERENCES "), std::string::npos) << fk;
  EXPECT_NE(fk.find("customer(id) ON DELETE CASCADE"), std::string::npos) << fk;
  EXPECT_EQ(QueryOne(*pg, "SELECT string_agg(column_name || '=' || column_default, ' ' ORDER BY "
                          "column_name) FROM information_schema.columns WHERE table_schema = "
                          "'public' AND table_name = 'customer' AND column_default IS NOT NULL "
                          "AND is_identity = 'NO'"),
            "credit=0 tier='basic'::text");
  // The next key goes on after the deleted row's, as SQLite's AUTOINCREMENT would.
  EXPECT_EQ(QueryOne(*pg, "INSERT INTO public.customer (name) VALUES ('c') RETURNING id"), "4");
  const std::string skipped = Skipped(load);
  for (const char* line :
       {"skipped SQLite foreign key on public.notes (\"order_id\") REFERENCES orders (\"id\"): ",
        "skipped SQLite check on public.customer: ", "skipped SQLite default on public.customer seen: ",
        "skipped SQLite collation on public.customer name COLLATE NOCASE: ",
        "skipped SQLite generated column (STORED) on public.orders total: "}) {
    EXPECT_NE(skipped.find(line), std::string::npos) << line << " in\n" << skipped;
  }
  EXPECT_EQ(skipped.find("autoincrement"), std::string::npos) << skipped;
  EXPECT_EQ(skipped.find("default on public.customer tier"), std::string::npos) << skipped;
  EXPECT_NE(load.err.find("skipped SQLite collation on public.customer name COLLATE NOCASE"),
            std::string::npos)
      << load.err;
}

TEST(CrossEngineSchemaTest, SchemaMapPutsSqliteTablesElsewhere) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  TempDir dir;
  const std::string dump = DumpShop(dir);
  ASSERT_FALSE(dump.empty());
  ScratchDatabase db(admin.get());
  RunResult load = RunLakedump(fmt::format("load {} \"{}\" --progress none --schema-map main=shop",
                                           Quote(dump), db.conninfo()),
                               dir);
  ASSERT_EQ(load.code, 0) << load.out << load.err;
  auto pg = AdminConn(db.conninfo());
  ASSERT_TRUE(pg);
  EXPECT_EQ(QueryOne(*pg, "SELECT count(*) FROM shop.orders"), "2");
  EXPECT_EQ(QueryOne(*pg, "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND "
                          "conrelid = 'shop.orders'::regclass"),
            "1");
}

TEST(CrossEngineSchemaTest, PostgresToSqliteListsChecksDefaultsCommentsAndGrants) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  ScratchSchema schema(admin.get());
  ASSERT_TRUE(admin
                  ->Exec(fmt::format(R"SQL(
    CREATE TABLE {0}.item (id int8 GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
      qty int4 DEFAULT 1 CONSTRAINT qty_positive CHECK (qty > 0), note text);
    COMMENT ON TABLE {0}.item IS 'things';
    GRANT SELECT ON {0}.item TO PUBLIC;
    INSERT INTO {0}.item (qty, note) VALUES (2, 'a');
  )SQL",
                                     schema.q()))
                  .ok());
  TempDir dir;
  RunResult dump = RunLakedump(fmt::format("dump '{}' '{}' --tables '{}.*' --progress none",
                                           testing_pg::TestDsn(), dir.Sub("d"), schema.name()),
                               dir);
  ASSERT_EQ(dump.code, 0) << dump.out << dump.err;
  RunResult load = RunLakedump(fmt::format("load '{}' '{}' --progress none --json", dir.Sub("d"),
                                           dir.Sub("out.sqlite")),
                               dir);
  ASSERT_EQ(load.code, 0) << load.out << load.err;
  const std::string skipped = Skipped(load);
  const std::string table = schema.name() + ".item";
  for (const std::string& line :
       {"skipped PostgreSQL check on " + table + " ", "default on " + table + " qty: ",
        "identity on " + table + " id: ", "comment on " + schema.name() + " TABLE item: ",
        "grant on " + schema.name() + " TABLE item: "}) {
    EXPECT_NE(skipped.find(line), std::string::npos) << line << " in\n" << skipped;
  }
}

}  // namespace
}  // namespace lakedump
