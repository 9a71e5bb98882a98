// The PostgreSQL server killed in the middle of a dump (pg_ctl stop -m immediate, on
// a server of the test's own, started with scripts/start-postgres): the dump fails
// with a one-line error and leaves no manifest; after the server restarts,
// `--if-exists resume` finishes it, re-using the tables committed before the crash.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/own_pg_server.h"
#include "integration/pg_test_util.h"

namespace lakedump {
namespace {

namespace fs = std::filesystem;
using testing_cli::ExpectOneLineError;
using testing_cli::ReadFile;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_pg::OwnPgServer;

constexpr int kTables = 8;
constexpr int kRowsPerTable = 100000;

bool AnyTableCommitted(const std::string& dest) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dest, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename() == "_table.json") return true;
  }
  return false;
}

TEST(PostgresRestartTest, ServerKilledMidDumpThenResumeAfterRestart) {
  LD_REQUIRE_PG();  // the servers are there: so is PostgreSQL's pg_ctl
  TempDir tmp;
  OwnPgServer server(tmp, 56900);
  ASSERT_TRUE(server.ok()) << server.StartLog();
  {
    auto admin = testing_pg::AdminConn(server.dsn());
    ASSERT_TRUE(admin);
    for (int i = 0; i < kTables; ++i) {
      ASSERT_TRUE(admin->Exec(fmt::format("CREATE TABLE t{0:02} (id int8 PRIMARY KEY, v text); "
                                          "INSERT INTO t{0:02} SELECT g, md5(g::text) FROM "
                                          "generate_series(1, {1}) g",
                                          i, kRowsPerTable)).ok());
    }
    // The test server runs with synchronous_commit=off: without this, the crash below may
    // take the last tables' commits with it (a correct dump then has fewer tables).
    ASSERT_TRUE(admin->Exec("CHECKPOINT").ok());
  }
  const std::string dest = tmp.Sub("dump");
  const std::string dump = fmt::format("dump '{}' {} --tables 'public.*' --table-parallelism 1 "
                                       "--progress none",
                                       server.dsn(), dest);
  RunResult first;
  std::atomic<bool> done{false};
  TempDir first_tmp;
  std::thread runner([&] {
    first = RunLakedump(dump, first_tmp);
    done = true;
  });
  // Kill the server as soon as the first table is committed: the rest are mid-way.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!done && !AnyTableCommitted(dest) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const bool killed_mid_dump = !done;
  EXPECT_EQ(server.PgCtl("-m immediate -w stop"), 0) << server.PgCtlOutput();
  runner.join();
  ASSERT_TRUE(killed_mid_dump) << "the dump ended before the server was killed; make it bigger";
  ExpectOneLineError(first, 1, "PostgreSQL");
  EXPECT_FALSE(fs::exists(dest + "/_manifest.json"));

  // After the restart (with the options it had: pg_ctl keeps them in postmaster.opts).
  ASSERT_EQ(server.PgCtl("-w -t 60 -l " + server.Log() + " restart"), 0)
      << server.PgCtlOutput() << ReadFile(server.Log());
  RunResult again = RunLakedump(dump + " --if-exists resume --json", tmp);
  ASSERT_EQ(again.code, 0) << again.out << again.err;
  const nlohmann::json summary = nlohmann::json::parse(again.out);
  EXPECT_GE(summary["reused_tables"].get<int>(), 1) << again.out;
  EXPECT_LT(summary["reused_tables"].get<int>(), kTables) << again.out;
  EXPECT_EQ(summary["rows"].get<uint64_t>(), uint64_t{kTables} * kRowsPerTable) << again.out;
  RunResult verify = RunLakedump("verify " + dest + " --deep", tmp);
  EXPECT_EQ(verify.code, 0) << verify.out << verify.err;
}

}  // namespace
}  // namespace lakedump
