// Crafted dumps (tests/fakes/crafted_dump.h) loaded into a real PostgreSQL (LD_TEST_PG_DSN):
// a dump's schema text must not run on the target unless trusted, and even trusted it cannot
// chain statements. Also: names PostgreSQL would cut, the swap's lock timeout, and staging
// tables removed after a failure. Each test asserts what is in the target afterwards.
#include <gtest/gtest.h>

#include "fakes/crafted_dump.h"
#include "fakes/temp_dir.h"
#include "integration/pg_test_util.h"
#include "load/load_service.h"
#include "load/postgres/postgres_target.h"
#include "store/open_store.h"

namespace lakedump {
namespace {

using testing_crafted::CraftedDump;
using testing_crafted::CraftedIntTable;
using testing_crafted::CraftedTable;
using testing_crafted::WriteCraftedDump;
using testing_pg::AdminConn;
using testing_pg::QueryOne;
using testing_pg::ScratchDatabase;

struct Target {
  std::unique_ptr<ScratchDatabase> db;
  std::unique_ptr<PgConn> admin;
};

// A scratch database with public.victim (2 rows).
Target NewTarget(PgConn* server_admin) {
  Target t;
  t.db = std::make_unique<ScratchDatabase>(server_admin);
  t.admin = AdminConn(t.db->conninfo());
  EXPECT_TRUE(t.admin->Exec("CREATE TABLE public.victim (x int); INSERT INTO public.victim "
                            "VALUES (1), (2)")
                  .ok());
  return t;
}

Result<LoadResult> Load(const std::string& dir, const Target& target, bool trust,
                        LoadIfExists if_exists = LoadIfExists::kFail,
                        int64_t lock_timeout_ms = 30000) {
  LD_ASSIGN_OR_RETURN(auto store, OpenStore(dir, StoreOptions{}));
  PostgresTargetOptions po;
  po.lock_timeout_ms = lock_timeout_ms;
  LD_ASSIGN_OR_RETURN(auto db, OpenPostgresTarget(target.db->conninfo(), po));
  LoadOptions options;
  options.trust_schema = trust;
  options.if_exists = if_exists;
  LoadService service(store.get(), db.get(), options);
  return service.Run();
}

std::string Victims(const Target& t) { return QueryOne(*t.admin, "SELECT count(*) FROM public.victim"); }
std::string Staging(const Target& t) {
  return QueryOne(*t.admin,
                  "SELECT count(*) FROM pg_class WHERE relname LIKE '\\_lakedump\\_load\\_%'");
}

// A table "s"."t" from PostgreSQL whose DDL carries `extra_lines` after the column lines.
CraftedTable TableWithLines(const std::string& extra_lines) {
  CraftedTable t = CraftedIntTable("s", "t", "bigint");
  t.ddl = "CREATE TABLE \"s\".\"t\" (\n  \"a\" bigint NOT NULL,\n  \"b\" text" + extra_lines +
          "\n)";
  return t;
}

class CraftedPgDumpTest : public ::testing::TestWithParam<bool> {  // param: trusted
 protected:
  void SetUp() override {
    LD_REQUIRE_PG();
    admin_ = AdminConn();
    ASSERT_TRUE(admin_);
  }
  std::unique_ptr<PgConn> admin_;
  TempDir tmp_;
};

TEST_P(CraftedPgDumpTest, SourceTypeWithACommentIsNotPasted) {
  Target target = NewTarget(admin_.get());
  CraftedDump dump;
  dump.tables = {CraftedIntTable("s", "t", "integer --")};
  ASSERT_TRUE(WriteCraftedDump(tmp_.path(), dump).ok());
  auto r = Load(tmp_.path(), target, GetParam());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(QueryOne(*target.admin, "SELECT count(*) FROM s.t"), "3");
  // Not the dump's text: the logical type's mapping, with a warning.
  EXPECT_EQ(QueryOne(*target.admin,
                     "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid "
                     "= 's.t'::regclass AND attname = 'a'"),
            "bigint");
  ASSERT_FALSE(r->warnings.empty());
  EXPECT_NE(r->warnings.front().find("\"a\""), std::string::npos) << r->warnings.front();
}

TEST_P(CraftedPgDumpTest, SourceTypeChainingAStatementIsRefused) {
  Target target = NewTarget(admin_.get());
  CraftedDump dump;
  dump.tables = {CraftedIntTable("s", "t", "integer); DROP TABLE public.victim; --")};
  ASSERT_TRUE(WriteCraftedDump(tmp_.path(), dump).ok());
  auto r = Load(tmp_.path(), target, GetParam());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Victims(target), "2");
  EXPECT_EQ(QueryOne(*target.admin, "SELECT count(*) FROM s.t"), "3");
}

TEST_P(CraftedPgDumpTest, KeyLinesCannotDropATable) {
  Target target = NewTarget(admin_.get());
  CraftedDump dump;
  CraftedTable t = TableWithLines(",\n  PRIMARY KEY (a); DROP TABLE public.victim,\n  UNIQUE "
                                  "(a); DROP TABLE public.victim");
  t.primary_key = {"a"};
  t.record_unique_keys = false;  // as an older lakedump: keys only as text
  dump.tables = {t};
  ASSERT_TRUE(WriteCraftedDump(tmp_.path(), dump).ok());
  auto r = Load(tmp_.path(), target, GetParam());
  EXPECT_EQ(Victims(target), "2");
  EXPECT_EQ(Staging(target), "0");
  if (!GetParam()) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    // The structured primary key is applied; the text clauses are not.
    EXPECT_EQ(QueryOne(*target.admin, "SELECT string_agg(conname, ',') FROM pg_constraint "
                                      "WHERE conrelid = 's.t'::regclass"),
              "t_pkey");
    EXPECT_EQ(QueryOne(*target.admin, "SELECT count(*) FROM s.t"), "3");
  } else {
    // Trusted, the text clause is sent as one statement: refused by the server.
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("multiple commands"), std::string::npos)
        << r.status().ToString();
  }
}

TEST_P(CraftedPgDumpTest, ConstraintLineCannotDropATable) {
  Target target = NewTarget(admin_.get());
  CraftedDump dump;
  dump.tables = {TableWithLines(",\n  CONSTRAINT \"c\" CHECK (a > 0)); DROP TABLE public.victim; "
                                "CREATE TABLE public.y (z int")};
  ASSERT_TRUE(WriteCraftedDump(tmp_.path(), dump).ok());
  auto r = Load(tmp_.path(), target, GetParam());
  EXPECT_EQ(Victims(target), "2");
  EXPECT_EQ(QueryOne(*target.admin, "SELECT to_regclass('public.y') IS NULL"), "t");
  EXPECT_EQ(Staging(target), "0");
  EXPECT_EQ(r.ok(), !GetParam()) << r.status().ToString();
}

TEST_P(CraftedPgDumpTest, DefaultExpressionCannotDropATable) {
  Target target = NewTarget(admin_.get());
  CraftedDump dump;
  CraftedTable t = CraftedIntTable("s", "t", "bigint");
  t.ddl = "CREATE TABLE \"s\".\"t\" (\n  \"a\" bigint DEFAULT 1); DROP TABLE public.victim; "
          "CREATE TABLE public.y (z int NOT NULL,\n  \"b\" text\n)";
  dump.tables = {t};
  ASSERT_TRUE(WriteCraftedDump(tmp_.path(), dump).ok());
  auto r = Load(tmp_.path(), target, GetParam());
  EXPECT_EQ(Victims(target), "2");
  EXPECT_EQ(QueryOne(*target.admin, "SELECT to_regclass('public.y') IS NULL"), "t");
  EXPECT_EQ(r.ok(), !GetParam()) << r.status().ToString();
}

INSTANTIATE_TEST_SUITE_P(UntrustedAndTrusted, CraftedPgDumpTest, ::testing::Bool());

TEST(CraftedPgDumpUntrustedTest, CheckCallingLoImportDoesNotRun) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  Target target = NewTarget(admin.get());
  TempDir tmp;
  CraftedDump dump;
  dump.tables = {TableWithLines(
      ",\n  CONSTRAINT \"c\" CHECK (lo_import('/etc/hostname') IS NOT NULL)")};
  ASSERT_TRUE(WriteCraftedDump(tmp.path(), dump).ok());
  auto r = Load(tmp.path(), target, /*trust=*/false);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(QueryOne(*target.admin, "SELECT count(*) FROM pg_largeobject_metadata"), "0");
  EXPECT_EQ(QueryOne(*target.admin, "SELECT count(*) FROM pg_constraint WHERE conname = 'c'"),
            "0");
  EXPECT_EQ(QueryOne(*target.admin, "SELECT count(*) FROM s.t"), "3");
  ASSERT_FALSE(r->warnings.empty());
  EXPECT_NE(r->warnings.back().find("1 schema item"), std::string::npos) << r->warnings.back();
}

TEST(CraftedPgDumpUntrustedTest, StructuredKeysAndResolvedTypesAreApplied) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  Target target = NewTarget(admin.get());
  TempDir tmp;
  CraftedDump dump;
  CraftedTable t = CraftedIntTable("s", "t", "bigint");
  t.schema = Schema({Column{"a", LogicalType::Of(TypeId::kInt64), false, "bigint"},
                     Column{"b", LogicalType::Of(TypeId::kString), true, "character varying(20)"}});
  t.primary_key = {"a"};
  t.unique_keys = {{"b", "a"}};
  t.ddl = "CREATE TABLE \"s\".\"t\" (\n  \"a\" bigint NOT NULL,\n  \"b\" character varying(20) "
          "DEFAULT 'x'::character varying\n)";
  dump.tables = {t};
  ASSERT_TRUE(WriteCraftedDump(tmp.path(), dump).ok());
  auto r = Load(tmp.path(), target, /*trust=*/false);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(QueryOne(*target.admin,
                     "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid "
                     "= 's.t'::regclass AND attname = 'b'"),
            "character varying(20)");
  EXPECT_EQ(QueryOne(*target.admin, "SELECT string_agg(conname || ':' || contype::text, ',' "
                                    "ORDER BY conname) FROM pg_constraint WHERE conrelid = "
                                    "'s.t'::regclass"),
            "t_b_a_key:u,t_pkey:p");
  // The default is schema code: not applied untrusted.
  EXPECT_EQ(QueryOne(*target.admin, "SELECT count(*) FROM pg_attrdef WHERE adrelid = "
                                    "'s.t'::regclass"),
            "0");
}

TEST(CraftedPgDumpUntrustedTest, NamesPostgresWouldCutAreRefused) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  Target target = NewTarget(admin.get());
  TempDir tmp;
  const std::string common(63, 'n');
  CraftedDump dump;
  dump.tables = {CraftedIntTable("s", common + "_one", "bigint"),
                 CraftedIntTable("s", common + "_two", "bigint")};
  ASSERT_TRUE(WriteCraftedDump(tmp.path(), dump).ok());
  auto r = Load(tmp.path(), target, false, LoadIfExists::kReplace);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find(common + "_one"), std::string::npos);
  EXPECT_NE(r.status().message().find("67 bytes"), std::string::npos) << r.status().message();
  EXPECT_EQ(QueryOne(*target.admin, "SELECT to_regnamespace('s') IS NULL"), "t");
}

TEST(PostgresLoadLockTest, ReplaceGivesUpAfterTheLockTimeoutAndCleansUp) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  Target target = NewTarget(admin.get());
  ASSERT_TRUE(target.admin->Exec("CREATE SCHEMA s; CREATE TABLE s.t (a bigint, b text); "
                                 "INSERT INTO s.t VALUES (42, 'old')")
                  .ok());
  // A reader holding the old table.
  auto reader = AdminConn(target.db->conninfo());
  ASSERT_TRUE(reader->Exec("BEGIN; LOCK TABLE s.t IN ACCESS SHARE MODE").ok());
  TempDir tmp;
  CraftedDump dump;
  dump.tables = {CraftedIntTable("s", "t", "bigint")};
  ASSERT_TRUE(WriteCraftedDump(tmp.path(), dump).ok());
  const auto start = std::chrono::steady_clock::now();
  auto r = Load(tmp.path(), target, false, LoadIfExists::kReplace, /*lock_timeout_ms=*/1000);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(r.ok());
  EXPECT_LT(seconds, 20.0);
  EXPECT_NE(r.status().message().find("s.t"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("--lock-timeout"), std::string::npos)
      << r.status().message();
  ASSERT_TRUE(reader->Exec("COMMIT").ok());
  EXPECT_EQ(QueryOne(*target.admin, "SELECT string_agg(a || b, ',') FROM s.t"), "42old");
  EXPECT_EQ(Staging(target), "0");
}

TEST(PostgresLoadLockTest, FailedTableLeavesNoStagingTable) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  Target target = NewTarget(admin.get());
  TempDir tmp;
  CraftedDump dump;
  // Trusted, the CHECK holds for row 1 only: the COPY fails mid-table.
  dump.tables = {TableWithLines(",\n  CONSTRAINT \"c\" CHECK (a < 2)"),
                 CraftedIntTable("s", "u", "bigint")};
  ASSERT_TRUE(WriteCraftedDump(tmp.path(), dump).ok());
  auto r = Load(tmp.path(), target, /*trust=*/true);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("\"c\""), std::string::npos) << r.status().message();
  EXPECT_EQ(Staging(target), "0");
  EXPECT_EQ(QueryOne(*target.admin, "SELECT to_regclass('s.t') IS NULL"), "t");
}

}  // namespace
}  // namespace lakedump
