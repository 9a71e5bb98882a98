// Post-data on lakedump's own connections (issue 31's performance item): the indexes, keys,
// constraints, triggers, statistics, policies and grants are restored with pg_restore's own
// statements (one pg_restore writes them, none connects for them), the replica is a twin of
// the source, and a post-data entry that fails names itself in one line and fails the load.
// Against the real server (tests/data/replica/rich_schema.sql as the source).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "fakes/cli_run.h"
#include "integration/pg_test_util.h"
#include "integration/replica_fixture.h"
#include "source/postgres/pg_conn.h"

namespace lakedump {
namespace {

using testing_cli::Quote;
using testing_cli::ReadFile;
using testing_cli::RunResult;
using testing_cli::WriteFile;
using testing_pg::QueryOne;
using testing_pg::ScratchDatabase;
using testing_replica::ExpectSameDump;
using testing_replica::PgDumpLines;
using testing_replica::ReplicaTest;

class RestorePostDataTest : public ReplicaTest {
 protected:
  void Exec(const std::string& conninfo, const std::string& sql) {
    auto conn = PgConn::Connect(conninfo, 10);
    ASSERT_TRUE(conn.ok()) << conn.status().ToString();
    Status s = (*conn)->Exec(sql);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  // A pg_restore in `bin` that logs its arguments to `log`, one line a run.
  void LoggingPgRestore(const std::string& bin, const std::string& log) {
    const char* server_bin = std::getenv("LD_TEST_PG_BIN");
    const std::string real_bin = server_bin ? server_bin : "/usr/lib/postgresql/15/bin";
    std::filesystem::create_directories(bin);
    WriteFile(bin + "/pg_restore", "#!/bin/sh\necho \"args: $*\" >> " + Quote(log) + "\nexec " +
                                       Quote(real_bin + "/pg_restore") + " \"$@\"\n");
    std::filesystem::permissions(bin + "/pg_restore", std::filesystem::perms::owner_all);
  }
};

TEST_F(RestorePostDataTest, PostDataRunsOnLakedumpsConnectionsWithPgRestoresStatements) {
  if (Stopped()) return;
  // More post-data kinds than the shop has: extended statistics (with an owner pg_restore
  // sets), row security with a policy, a comment on an index, a column grant.
  Exec(source_->conninfo(),
       "CREATE TABLE shop.notes (id int8 PRIMARY KEY, customer int8, body text);"
       "INSERT INTO shop.notes SELECT g, g % 3, 'note ' || g FROM generate_series(1, 50) g;"
       "CREATE INDEX notes_body ON shop.notes (body);"
       "COMMENT ON INDEX shop.notes_body IS 'for search';"
       "CREATE STATISTICS shop.notes_stats ON customer, body FROM shop.notes;"
       "ALTER TABLE shop.notes ENABLE ROW LEVEL SECURITY;"
       "CREATE POLICY notes_mine ON shop.notes USING (customer > 0);"
       "GRANT SELECT (id, body) ON shop.notes TO PUBLIC;");
  const std::string dump = dir_.Sub("d");
  RunResult d = Dump(dump);
  ASSERT_EQ(d.code, 0) << d.out << d.err;
  const std::string bin = dir_.Sub("bin"), log = dir_.Sub("runs.log");
  LoggingPgRestore(bin, log);
  ScratchDatabase replica(admin_.get());
  RunResult l = Load(dump, replica, "--trust-dump --restore-jobs 3 --pg-bin-dir " + Quote(bin));
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  ExpectSameDump(PgDumpLines(source_->conninfo(), "--schema-only"),
                 PgDumpLines(replica.conninfo(), "--schema-only"));
  ExpectSameDump(PgDumpLines(source_->conninfo(), "--data-only --inserts"),
                 PgDumpLines(replica.conninfo(), "--data-only --inserts"));
  // pg_restore connected once (pre-data) and wrote post-data's SQL once; no other run.
  size_t connected = 0, scripts = 0, others = 0;
  std::istringstream lines(ReadFile(log));
  for (std::string line; std::getline(lines, line);) {
    if (line.find("--version") != std::string::npos) continue;
    if (line.find("--dbname=") != std::string::npos) {
      ++connected;
      EXPECT_NE(line.find("--section=pre-data"), std::string::npos) << line;
    } else if (line.find("--file=-") != std::string::npos) {
      ++scripts;
    } else {
      ++others;
    }
  }
  EXPECT_EQ(connected, 1u) << ReadFile(log);
  EXPECT_EQ(scripts, 1u) << ReadFile(log);
  EXPECT_EQ(others, 0u) << ReadFile(log);
}

// The target has a relation named as an index of the dump (in public, which pre-data does
// not create): pre-data succeeds, the index fails, and the load says which entry in one line.
TEST_F(RestorePostDataTest, AFailingEntryIsNamedAndFailsTheLoad) {
  if (Stopped()) return;
  Exec(source_->conninfo(),
       "CREATE TABLE public.pd_items (id int8 PRIMARY KEY, v int);"
       "INSERT INTO public.pd_items SELECT g, g FROM generate_series(1, 20) g;"
       "CREATE INDEX pd_items_v ON public.pd_items (v);");
  const std::string dump = dir_.Sub("d");
  RunResult d = Dump(dump);
  ASSERT_EQ(d.code, 0) << d.out << d.err;
  ScratchDatabase replica(admin_.get());
  Exec(replica.conninfo(), "CREATE TABLE public.pd_items_v (x int)");
  RunResult l = Load(dump, replica, "--trust-dump");
  EXPECT_EQ(l.code, 1) << l.out << l.err;
  EXPECT_NE(l.err.find("restoring the dump's INDEX public.pd_items_v failed: relation "
                       "\"pd_items_v\" already exists"),
            std::string::npos)
      << l.err;
  auto dst = PgConn::Connect(replica.conninfo(), 10);
  ASSERT_TRUE(dst.ok());
  EXPECT_EQ(QueryOne(**dst, "SELECT count(*) FROM public.pd_items"), "20");  // loaded before
  EXPECT_EQ(QueryOne(**dst, "SELECT count(*) FROM pg_indexes WHERE indexname = 'pd_items_v'"),
            "0");
}

}  // namespace
}  // namespace lakedump
