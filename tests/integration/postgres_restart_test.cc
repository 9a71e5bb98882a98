// The PostgreSQL server killed in the middle of a dump (pg_ctl stop -m immediate, on
// a server of the test's own, started with scripts/start-postgres): the dump fails
// with a one-line error and leaves no manifest; after the server restarts,
// `--if-exists resume` finishes it, re-using the tables committed before the crash.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/pg_test_util.h"

namespace lakedump {
namespace {

namespace fs = std::filesystem;
using testing_cli::ExpectOneLineError;
using testing_cli::ReadFile;
using testing_cli::RunLakedump;
using testing_cli::RunResult;

constexpr int kTables = 8;
constexpr int kRowsPerTable = 100000;

// A PostgreSQL of this test's own (the shared one must not be killed).
class OwnServer {
 public:
  explicit OwnServer(const TempDir& tmp) : dir_(tmp.Sub("pg")) {
    // The server runs as the postgres user, who must reach its folder.
    std::error_code ec;
    fs::permissions(tmp.path(), fs::perms(0755), ec);
    const std::string scripts = std::string(LAKEDUMP_SOURCE_DIR) + "/scripts";
    ok_ = Sh(fmt::format("PGPORT_BASE=56900 {}/start-postgres {} >{}/start.log 2>&1", scripts, dir_,
                         tmp.path())) == 0;
    const std::string env = ReadFile(dir_ + "/env");
    dsn_ = EnvValue(env, "LD_TEST_PG_DSN");
    bin_ = EnvValue(env, "LD_TEST_PG_BIN");
    stop_ = scripts + "/stop-postgres " + dir_ + " --purge";
  }
  ~OwnServer() { Sh(stop_ + " >/dev/null 2>&1"); }
  bool ok() const { return ok_ && !dsn_.empty() && !bin_.empty(); }
  const std::string& dsn() const { return dsn_; }

  // pg_ctl as the server's owner (the postgres user when the tests run as root).
  int PgCtl(const std::string& args) const {
    const std::string as = ::geteuid() == 0 ? "runuser -u postgres -- " : "";
    return Sh(fmt::format("{}{}/pg_ctl -D {}/data {} >{}/pg_ctl.out 2>&1", as, bin_, dir_, args,
                          dir_));
  }
  std::string PgCtlOutput() const { return ReadFile(dir_ + "/pg_ctl.out"); }
  std::string Log() const { return dir_ + "/log/server.log"; }  // writable by the server's owner
  static int Sh(const std::string& cmd) {
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  }

 private:
  // The value of KEY=VALUE line `key` in start-postgres's env file, or "".
  static std::string EnvValue(const std::string& env, const std::string& key) {
    const size_t at = env.find(key + "=");
    if (at == std::string::npos || (at > 0 && env[at - 1] != '\n')) return "";
    const size_t from = at + key.size() + 1;
    return env.substr(from, env.find('\n', from) - from);
  }

  std::string dir_, dsn_, bin_, stop_;
  bool ok_ = false;
};

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
  OwnServer server(tmp);
  ASSERT_TRUE(server.ok()) << ReadFile(tmp.Sub("start.log"));
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
