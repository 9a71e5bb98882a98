// OwnPgServer: a throw-away PostgreSQL of a test's own (scripts/start-postgres in a folder of
// the test's TempDir), for tests that stop, kill or restart their server or need other
// settings: the shared test server must never be restarted (other tests use it at the same
// time). Stopped and purged when the object dies. Not thread-safe.
#pragma once

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"

namespace lakedump::testing_pg {

class OwnPgServer {
 public:
  // Starts the server in tmp/pg, trying ports from `port_base`. `env`: assignments put
  // before the script (e.g. "LD_PG_WAL_LEVEL=replica").
  OwnPgServer(const TempDir& tmp, int port_base, const std::string& env = "")
      : dir_(tmp.Sub("pg")), start_log_(tmp.Sub("start.log")) {
    // The server runs as the postgres user, who must reach its folder.
    std::error_code ec;
    std::filesystem::permissions(tmp.path(), std::filesystem::perms(0755), ec);
    const std::string scripts = std::string(LAKEDUMP_SOURCE_DIR) + "/scripts";
    ok_ = Sh(fmt::format("{} PGPORT_BASE={} {}/start-postgres {} >{} 2>&1", env, port_base,
                         scripts, dir_, start_log_)) == 0;
    const std::string vars = testing_cli::ReadFile(dir_ + "/env");
    dsn_ = EnvValue(vars, "LD_TEST_PG_DSN");
    bin_ = EnvValue(vars, "LD_TEST_PG_BIN");
    port_ = EnvValue(vars, "PGPORT");
    stop_ = scripts + "/stop-postgres " + dir_ + " --purge";
  }
  ~OwnPgServer() { Sh(stop_ + " >/dev/null 2>&1"); }
  OwnPgServer(const OwnPgServer&) = delete;
  OwnPgServer& operator=(const OwnPgServer&) = delete;

  bool ok() const { return ok_ && !dsn_.empty() && !bin_.empty(); }
  // What start-postgres printed (why it did not start).
  std::string StartLog() const { return testing_cli::ReadFile(start_log_); }
  const std::string& dsn() const { return dsn_; }  // the "postgres" database, as postgres
  const std::string& port() const { return port_; }

  // pg_ctl as the server's owner (the postgres user when the tests run as root).
  int PgCtl(const std::string& args) const {
    const std::string as = ::geteuid() == 0 ? "runuser -u postgres -- " : "";
    return Sh(fmt::format("{}{}/pg_ctl -D {}/data {} >{}/pg_ctl.out 2>&1", as, bin_, dir_, args,
                          dir_));
  }
  std::string PgCtlOutput() const { return testing_cli::ReadFile(dir_ + "/pg_ctl.out"); }
  std::string Log() const { return dir_ + "/log/server.log"; }  // writable by the server's owner
  // Stops the server in `mode` (fast, or immediate: a crash) and starts it again with the
  // options it had (pg_ctl keeps them in postmaster.opts); 0 when it is up again.
  int Restart(const std::string& mode) const {
    return PgCtl(fmt::format("-m {} -w -t 60 -l {} restart", mode, Log()));
  }

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

  std::string dir_, start_log_, dsn_, bin_, port_, stop_;
  bool ok_ = false;
};

}  // namespace lakedump::testing_pg
