// Restoring somewhere else (issue 31): into a second PostgreSQL cluster that lacks the
// source's roles, with odd names everywhere (a schema with a space, a table with a slash and
// a dot, a column and roles with quotes and capitals):
//   - without options the load stops before creating anything, in one line naming the
//     missing roles and the options that help;
//   - --no-owner --no-privileges gives a replica whose schema (pg_dump -s --no-owner
//     --no-privileges) and rows (pg_dump --data-only --inserts) equal the source's;
//   - a policy naming a missing role needs --role-map, which renames owners (the public
//     schema's too), grantees and policy roles;
//   - -t with psql quoting restores one table with what it needs and what is on it;
//   - a table left out whose row type a function takes: the function is skipped with one
//     warning, the rest loads.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/own_pg_server.h"
#include "integration/pg_test_util.h"
#include "integration/replica_fixture.h"

namespace lakedump {
namespace {

using testing_cli::Quote;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_pg::OwnPgServer;
using testing_pg::QueryOne;
using testing_pg::ScratchDatabase;
using testing_replica::ExpectSameDump;
using testing_replica::PgDumpLines;

constexpr const char* kOddSchema = R"SQL(
CREATE SCHEMA "odd schema" AUTHORIZATION {owner};
ALTER SCHEMA public OWNER TO {owner};
CREATE TYPE "odd schema"."Mood" AS ENUM ('sad', 'happy');
CREATE TABLE "odd schema"."Odd Name/x" (id serial PRIMARY KEY, "Note ""q""" text,
  mood "odd schema"."Mood" NOT NULL DEFAULT 'happy');
INSERT INTO "odd schema"."Odd Name/x" ("Note ""q""") SELECT 'n' || g FROM generate_series(1, 50) g;
CREATE TABLE "odd schema"."other.t" (id int PRIMARY KEY, v text);
INSERT INTO "odd schema"."other.t" SELECT g, 'v' || g FROM generate_series(1, 20) g;
CREATE FUNCTION "odd schema".label(r "odd schema"."other.t") RETURNS text LANGUAGE sql
  AS $$ SELECT r.v $$;
CREATE VIEW "odd schema"."Odd View" AS SELECT id, mood FROM "odd schema"."Odd Name/x";
CREATE TABLE public.plain (id int PRIMARY KEY);
INSERT INTO public.plain SELECT generate_series(1, 7);
ALTER TYPE "odd schema"."Mood" OWNER TO {owner};
ALTER TABLE "odd schema"."Odd Name/x" OWNER TO {owner};
ALTER TABLE "odd schema"."other.t" OWNER TO {owner};
ALTER FUNCTION "odd schema".label("odd schema"."other.t") OWNER TO {owner};
ALTER VIEW "odd schema"."Odd View" OWNER TO {owner};
ALTER TABLE public.plain OWNER TO {owner};
GRANT USAGE ON SCHEMA "odd schema" TO {reader};
GRANT SELECT ON "odd schema"."Odd Name/x" TO {reader};
GRANT SELECT ("Note ""q""") ON "odd schema"."Odd Name/x" TO {reader};
GRANT SELECT (v) ON "odd schema"."other.t" TO {reader};
)SQL";

constexpr const char* kPolicy = R"SQL(
ALTER TABLE "odd schema"."Odd Name/x" ENABLE ROW LEVEL SECURITY;
CREATE POLICY "to them" ON "odd schema"."Odd Name/x" FOR SELECT TO {auditor}, {reader}
  USING ("Note ""q""" <> 'TO {auditor}');
)SQL";

class ReplicaRolesTest : public testing_pg::PgScratchTest {
 protected:
  void SetUp() override {
    PgScratchTest::SetUp();
    if (Stopped()) return;
    const int pid = static_cast<int>(getpid());
    owner_ = fmt::format("ld rr {} Owner", pid);
    reader_ = fmt::format("ld rr {} \"reader\"", pid);
    auditor_ = fmt::format("ld_rr_{}_auditor", pid);
    for (const std::string& role : {owner_, reader_, auditor_}) {
      ASSERT_TRUE(admin_->Exec("DROP ROLE IF EXISTS " + QuoteIdent(role)).ok());
      ASSERT_TRUE(admin_->Exec("CREATE ROLE " + QuoteIdent(role)).ok());
    }
    UseScratchDatabase(Sql(kOddSchema));
  }
  void TearDown() override {
    if (!admin_) return;
    source_.reset();
    for (const std::string& role : {owner_, reader_, auditor_}) {
      if (!role.empty()) admin_->Exec("DROP ROLE IF EXISTS " + QuoteIdent(role)).IgnoreError();
    }
  }

  std::string Sql(const char* text) const {
    return fmt::format(fmt::runtime(text), fmt::arg("owner", QuoteIdent(owner_)),
                       fmt::arg("reader", QuoteIdent(reader_)),
                       fmt::arg("auditor", QuoteIdent(auditor_)));
  }
  RunResult Dump(const std::string& dest) {
    return RunLakedump(fmt::format("dump {} {} --progress none", Quote(source_->conninfo()),
                                   Quote(dest)),
                       dir_);
  }
  RunResult Load(const std::string& dump, const std::string& target, const std::string& extra) {
    return RunLakedump(fmt::format("load {} {} --progress none --trust-dump {}", Quote(dump),
                                   Quote(target), extra),
                       dir_);
  }
  // A second cluster with none of the source's roles, and a database of it.
  std::unique_ptr<OwnPgServer> SecondCluster() {
    auto server = std::make_unique<OwnPgServer>(dir_, 56900);
    EXPECT_TRUE(server->ok()) << server->StartLog();
    return server;
  }
  static std::string Db(const OwnPgServer& server, const std::string& name) {
    auto conn = PgConn::Connect(server.dsn(), 10);
    EXPECT_TRUE(conn.ok());
    if (conn.ok()) {
      EXPECT_TRUE((*conn)->Exec("CREATE DATABASE " + QuoteIdent(name)).ok());
    }
    return fmt::format("postgresql://postgres@127.0.0.1:{}/{}", server.port(), name);
  }
  static std::string Query(const std::string& conninfo, const std::string& sql) {
    auto conn = PgConn::Connect(conninfo, 10);
    EXPECT_TRUE(conn.ok()) << conn.status().ToString();
    return conn.ok() ? QueryOne(**conn, sql) : "";
  }
  static void ExpectNothingCreated(const std::string& conninfo) {
    EXPECT_EQ(Query(conninfo, "SELECT count(*) FROM pg_catalog.pg_class c JOIN "
                              "pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE "
                              "n.nspname NOT IN ('pg_catalog', 'information_schema', "
                              "'pg_toast')"),
              "0");
    EXPECT_EQ(Query(conninfo, "SELECT count(*) FROM pg_catalog.pg_namespace WHERE nspname = "
                              "'odd schema'"),
              "0");
  }
  static int Warnings(const std::string& err) {
    int n = 0;
    for (size_t at = err.find("warning: "); at != std::string::npos;
         at = err.find("warning: ", at + 1)) {
      ++n;
    }
    return n;
  }

  TempDir dir_;
  std::string owner_, reader_, auditor_;
};

TEST_F(ReplicaRolesTest, IntoAClusterWithoutTheRolesNoOwnerNoPrivilegesIsAReplica) {
  // public as a new database has it (pg_dump writes a public owned by another role even with
  // --no-owner, as a comment: the replica's, owned by the default, would differ by it).
  auto src = PgConn::Connect(source_->conninfo(), 10);
  ASSERT_TRUE(src.ok());
  ASSERT_TRUE((*src)->Exec("ALTER SCHEMA public OWNER TO pg_database_owner").ok());
  const std::string dump = dir_.Sub("d");
  RunResult d = Dump(dump);
  ASSERT_EQ(d.code, 0) << d.out << d.err;
  auto server = SecondCluster();
  if (!server->ok()) return;
  const std::string target = server->dsn();
  // Refused before anything is created, in one line naming the roles and the options.
  RunResult refused = Load(dump, target, "");
  EXPECT_EQ(refused.code, 2) << refused.out << refused.err;
  EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
  EXPECT_NE(refused.err.find("the target has no role"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find(QuoteIdent(owner_) + " (owner)"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find(QuoteIdent(reader_) + " (grant)"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("load with --no-owner --no-privileges"), std::string::npos)
      << refused.err;
  ExpectNothingCreated(target);

  RunResult l = Load(dump, target, "--no-owner --no-acl --json");
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  EXPECT_EQ(Warnings(l.err), 0) << l.err;
  ExpectSameDump(PgDumpLines(source_->conninfo(), "--schema-only --no-owner --no-privileges"),
                 PgDumpLines(target, "--schema-only --no-owner --no-privileges"));
  ExpectSameDump(PgDumpLines(source_->conninfo(), "--data-only --inserts --no-owner"),
                 PgDumpLines(target, "--data-only --inserts --no-owner"));
  EXPECT_EQ(Query(target, "SELECT count(*) FROM \"odd schema\".\"Odd Name/x\""), "50");
}

TEST_F(ReplicaRolesTest, APolicyRoleNeedsTheRoleMapWhichRenamesEveryUse) {
  auto src = PgConn::Connect(source_->conninfo(), 10);
  ASSERT_TRUE(src.ok());
  ASSERT_TRUE((*src)->Exec(Sql(kPolicy)).ok());
  const std::string dump = dir_.Sub("d");
  RunResult d = Dump(dump);
  ASSERT_EQ(d.code, 0) << d.out << d.err;
  auto server = SecondCluster();
  if (!server->ok()) return;
  auto admin2 = PgConn::Connect(server->dsn(), 10);
  ASSERT_TRUE(admin2.ok());
  ASSERT_TRUE((*admin2)->Exec("CREATE ROLE \"staging owner\"; CREATE ROLE \"staging \"\"r\"\"\"; "
                              "CREATE ROLE auditor2")
                  .ok());
  const std::string target = Db(*server, "rolemap");
  RunResult refused = Load(dump, target, "--no-owner --no-privileges");
  EXPECT_EQ(refused.code, 2) << refused.out << refused.err;
  EXPECT_NE(refused.err.find(QuoteIdent(auditor_) + " (policy)"), std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("load with --role-map"), std::string::npos) << refused.err;
  ExpectNothingCreated(target);

  RunResult l = Load(dump, target,
                     fmt::format("--role-map {} --role-map {} --role-map {}",
                                 Quote(owner_ + "=staging owner"),
                                 Quote(reader_ + "=staging \"r\""),
                                 Quote(auditor_ + "=auditor2")));
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  EXPECT_EQ(Query(target, "SELECT tableowner FROM pg_catalog.pg_tables WHERE schemaname = "
                          "'odd schema' AND tablename = 'Odd Name/x'"),
            "staging owner");
  EXPECT_EQ(Query(target, "SELECT nspowner::regrole::text FROM pg_catalog.pg_namespace WHERE "
                          "nspname = 'public'"),
            "\"staging owner\"");
  EXPECT_EQ(Query(target, "SELECT has_column_privilege('staging \"r\"', "
                          "'\"odd schema\".\"Odd Name/x\"', 'Note \"q\"', 'SELECT')::text"),
            "true");
  EXPECT_EQ(Query(target, "SELECT array_to_string(roles, ',') || ' ' || qual FROM "
                          "pg_catalog.pg_policies WHERE policyname = 'to them'"),
            fmt::format("auditor2,staging \"r\" (\"Note \"\"q\"\"\" <> 'TO {}'::text)",
                        QuoteIdent(auditor_)));
  ExpectSameDump(PgDumpLines(source_->conninfo(), "--data-only --inserts --no-owner"),
                 PgDumpLines(target, "--data-only --inserts --no-owner"));
}

// -t with psql's quoting: one table with its type, view, sequence, grants; the other table,
// its column grant and the function taking its row type stay out (silently: nothing kept
// needed them). A pattern in the wrong case names nothing and is refused.
TEST_F(ReplicaRolesTest, QuotedTablePatternRestoresOneTableWithWhatItNeeds) {
  const std::string dump = dir_.Sub("d");
  ASSERT_EQ(Dump(dump).code, 0);
  ScratchDatabase replica(admin_.get());
  RunResult wrong = Load(dump, replica.conninfo(), "-t '\"odd schema\".\"odd name/x\"'");
  EXPECT_EQ(wrong.code, 2) << wrong.err;
  EXPECT_NE(wrong.err.find("matches no table"), std::string::npos) << wrong.err;
  RunResult l = Load(dump, replica.conninfo(), "-t '\"odd schema\".\"Odd Name/x\"'");
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  EXPECT_EQ(Warnings(l.err), 0) << l.err;
  const std::string db = replica.conninfo();
  EXPECT_EQ(Query(db, "SELECT count(*) FROM \"odd schema\".\"Odd View\" WHERE mood = 'happy'"),
            "50");
  EXPECT_EQ(Query(db, "SELECT pg_catalog.to_regclass('\"odd schema\".\"other.t\"') IS NULL AND "
                      "pg_catalog.to_regclass('public.plain') IS NULL"),
            "t");
  EXPECT_EQ(Query(db, "SELECT count(*) FROM pg_catalog.pg_proc WHERE proname = 'label'"), "0");
  EXPECT_EQ(Query(db, "SELECT nextval('\"odd schema\".\"Odd Name/x_id_seq\"')"), "51");
  EXPECT_EQ(Query(db, fmt::format("SELECT has_column_privilege({}, '\"odd schema\".\"Odd "
                                  "Name/x\"', 'Note \"q\"', 'SELECT')::text",
                                  QuoteLiteral(reader_))),
            "true");
  EXPECT_EQ(Query(db, "SELECT tableowner FROM pg_catalog.pg_tables WHERE tablename = "
                      "'Odd Name/x'"),
            owner_);
}

// The whole dump without "other.t": the function taking its row type would fail pre-data;
// it is left out with one warning, and everything else (its column grant excepted) loads.
TEST_F(ReplicaRolesTest, ATableLeftOutTakesTheFunctionOfItsRowTypeWithOneWarning) {
  const std::string dump = dir_.Sub("d");
  ASSERT_EQ(Dump(dump).code, 0);
  ScratchDatabase replica(admin_.get());
  RunResult l = Load(dump, replica.conninfo(), "--exclude 'odd schema.other.t' --json");
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  EXPECT_EQ(Warnings(l.err), 1) << l.err;
  EXPECT_NE(l.err.find("warning: skipped PostgreSQL function odd schema.label(\"odd "
                       "schema\".\"other.t\"): it needs odd schema.other.t, which this load "
                       "does not restore"),
            std::string::npos)
      << l.err;
  const std::string db = replica.conninfo();
  EXPECT_EQ(Query(db, "SELECT count(*) FROM \"odd schema\".\"Odd Name/x\""), "50");
  EXPECT_EQ(Query(db, "SELECT count(*) FROM public.plain"), "7");
  EXPECT_EQ(Query(db, "SELECT pg_catalog.to_regclass('\"odd schema\".\"other.t\"') IS NULL"),
            "t");
}

}  // namespace
}  // namespace lakedump
