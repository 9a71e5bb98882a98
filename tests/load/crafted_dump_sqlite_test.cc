// Crafted dumps (tests/fakes/crafted_dump.h) loaded into SQLite: nothing a dump records may
// run on the target -- not its DDL text, not its source types -- whether or not the dump is
// trusted (trusted: one statement, under an authorizer that allows creating the table only).
// Each test asserts what is in the target afterwards.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>

#include "fakes/crafted_dump.h"
#include "fakes/temp_dir.h"
#include "load/load_service.h"
#include "load/sqlite/sqlite_guard.h"
#include "load/sqlite/sqlite_target.h"
#include "source/sqlite_test_util.h"
#include "store/open_store.h"

namespace lakedump {
namespace {

using testing_crafted::CraftedDump;
using testing_sqlite::Query;
using testing_crafted::CraftedTable;
using testing_crafted::WriteCraftedDump;

// A target database holding table `victim` with two rows.
std::string TargetWithVictim(const TempDir& tmp) {
  const std::string path = tmp.Sub("target.sqlite");
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, "CREATE TABLE victim (x); INSERT INTO victim VALUES (1), (2)",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  return path;
}

// A SQLite-source table "t" (a INTEGER NOT NULL, b TEXT) with 3 rows and the given DDL.
CraftedTable SqliteTable(const std::string& ddl, const std::string& a_type = "INTEGER") {
  CraftedTable t;
  t.table = TableRef{"main", "t"};
  t.schema = Schema({Column{"a", LogicalType::Of(TypeId::kInt64), false, a_type},
                     Column{"b", LogicalType::Of(TypeId::kString), true, "TEXT"}});
  t.ddl = ddl;
  return t;
}

Result<LoadResult> Load(const std::string& dump_dir, const std::string& target_path,
                        bool trust) {
  LD_ASSIGN_OR_RETURN(auto store, OpenStore(dump_dir, StoreOptions{}));
  LD_ASSIGN_OR_RETURN(auto target, OpenSqliteTarget(target_path, {}));
  LoadOptions options;
  options.trust_schema = trust;
  LoadService service(store.get(), target.get(), options);
  return service.Run();
}

class CraftedSqliteDumpTest : public ::testing::TestWithParam<bool> {};  // param: trusted

TEST_P(CraftedSqliteDumpTest, RecordedDdlCannotDropATable) {
  TempDir tmp;
  const std::string target = TargetWithVictim(tmp);
  CraftedDump dump;
  dump.source_kind = "sqlite";
  dump.tables = {SqliteTable("CREATE TABLE t (a INTEGER NOT NULL, b TEXT); DROP TABLE victim")};
  ASSERT_TRUE(WriteCraftedDump(tmp.Sub("dump"), dump).ok());
  auto result = Load(tmp.Sub("dump"), target, GetParam());
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(Query(target, "SELECT count(*) FROM victim"), std::vector<std::string>{"2"});
  EXPECT_EQ(Query(target, "SELECT a, b FROM t ORDER BY a"),
            (std::vector<std::string>{"1|v1", "2|v2", "3|v3"}));
}

TEST_P(CraftedSqliteDumpTest, RecordedDdlCannotAttachAFile) {
  TempDir tmp;
  const std::string target = TargetWithVictim(tmp);
  const std::string planted = tmp.Sub("planted.db");
  CraftedDump dump;
  dump.source_kind = "sqlite";
  dump.tables = {SqliteTable("CREATE TABLE t (a INTEGER NOT NULL, b TEXT); ATTACH DATABASE '" +
                             planted + "' AS evil; CREATE TABLE evil.x (y)")};
  ASSERT_TRUE(WriteCraftedDump(tmp.Sub("dump"), dump).ok());
  auto result = Load(tmp.Sub("dump"), target, GetParam());
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_FALSE(std::filesystem::exists(planted));
  EXPECT_EQ(Query(target, "SELECT count(*) FROM t"), std::vector<std::string>{"3"});
}

TEST_P(CraftedSqliteDumpTest, SourceTypeCannotInjectSql) {
  TempDir tmp;
  const std::string target = TargetWithVictim(tmp);
  const std::string planted = tmp.Sub("planted2.db");
  // No DDL: the table is created from the schema, with the recorded declared type.
  const std::string type = "INTEGER); ATTACH DATABASE '" + planted +
                           "' AS evil; DROP TABLE victim; CREATE TABLE z (q INTEGER";
  CraftedDump dump;
  dump.source_kind = "sqlite";
  dump.tables = {SqliteTable("", type)};
  ASSERT_TRUE(WriteCraftedDump(tmp.Sub("dump"), dump).ok());
  auto result = Load(tmp.Sub("dump"), target, GetParam());
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_FALSE(std::filesystem::exists(planted));
  EXPECT_EQ(Query(target, "SELECT count(*) FROM victim"), std::vector<std::string>{"2"});
  EXPECT_EQ(Query(target, "SELECT count(*) FROM t"), std::vector<std::string>{"3"});
  EXPECT_TRUE(Query(target, "SELECT name FROM sqlite_schema WHERE name = 'z'").empty());
}

TEST_P(CraftedSqliteDumpTest, TriggerInDdlIsNotCreated) {
  TempDir tmp;
  const std::string target = TargetWithVictim(tmp);
  CraftedDump dump;
  dump.source_kind = "sqlite";
  dump.tables = {SqliteTable(
      "CREATE TABLE t (a INTEGER NOT NULL, b TEXT);\nCREATE TRIGGER tr AFTER INSERT ON t BEGIN "
      "DELETE FROM victim; END")};
  ASSERT_TRUE(WriteCraftedDump(tmp.Sub("dump"), dump).ok());
  auto result = Load(tmp.Sub("dump"), target, GetParam());
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(Query(target, "SELECT count(*) FROM victim"), std::vector<std::string>{"2"});
  EXPECT_TRUE(Query(target, "SELECT name FROM sqlite_schema WHERE type = 'trigger'").empty());
}

INSTANTIATE_TEST_SUITE_P(UntrustedAndTrusted, CraftedSqliteDumpTest, ::testing::Bool());

TEST(CraftedSqliteDumpTest, UntrustedSkipsTheDdlAndSaysSo) {
  TempDir tmp;
  const std::string target = TargetWithVictim(tmp);
  CraftedDump dump;
  dump.source_kind = "sqlite";
  dump.tables = {SqliteTable("CREATE TABLE t (a INTEGER NOT NULL CHECK (a < 2), b TEXT)")};
  ASSERT_TRUE(WriteCraftedDump(tmp.Sub("dump"), dump).ok());
  auto result = Load(tmp.Sub("dump"), target, /*trust=*/false);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_FALSE(result->warnings.empty());
  EXPECT_NE(result->warnings.back().find("1 schema item"), std::string::npos)
      << result->warnings.back();
  EXPECT_NE(result->warnings.back().find("--trust-dump"), std::string::npos);
  EXPECT_EQ(Query(target, "SELECT count(*) FROM t"), std::vector<std::string>{"3"});
}

TEST(CraftedSqliteDumpTest, TrustedAppliesAPlainCreateTable) {
  TempDir tmp;
  const std::string target = TargetWithVictim(tmp);
  CraftedDump dump;
  dump.source_kind = "sqlite";
  dump.tables = {SqliteTable("CREATE TABLE t (a INTEGER NOT NULL CHECK (a < 10), b TEXT)")};
  ASSERT_TRUE(WriteCraftedDump(tmp.Sub("dump"), dump).ok());
  auto result = Load(tmp.Sub("dump"), target, /*trust=*/true);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  const auto sql = Query(target, "SELECT sql FROM sqlite_schema WHERE name = 't'");
  ASSERT_EQ(sql.size(), 1u);
  EXPECT_NE(sql[0].find("CHECK (a < 10)"), std::string::npos) << sql[0];
}

TEST(SqliteGuardTest, PlainTypeNamesOnly) {
  for (const char* ok : {"", "INTEGER", "NUMERIC(10,2)", "VARCHAR(20)", "DOUBLE PRECISION",
                         "DECIMAL( 10 , -2 )", "unsigned big int"}) {
    EXPECT_TRUE(IsSafeSqliteTypeName(ok)) << ok;
  }
  for (const char* bad : {"INT)", "INT; DROP TABLE x", "INT -- c", "INT(1,)", "INT(1,2,3)",
                          "INT(a)", "'x'", "INT(1) x", "\"INT\"", "1INT", "INT/*"}) {
    EXPECT_FALSE(IsSafeSqliteTypeName(bad)) << bad;
  }
}

}  // namespace
}  // namespace lakedump
