// `lakedump ARGS` as a background process (its own process group, stdout/stderr to files in a
// TempDir) and a polling wait: for tests that run a sharded dump's coordinator and workers as
// separate processes (scaleout_test.cc, scaleout_sqlite_test.cc). Header-only; for tests.
// Not thread-safe.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"

namespace lakedump::testing_cli {

class Background {
 public:
  Background(const std::string& args, const TempDir& tmp, const std::string& name)
      : out_(tmp.Sub(name + ".out")), err_(tmp.Sub(name + ".err")) {
    const std::string cmd =
        "exec " + std::string(LAKEDUMP_BINARY) + " " + args + " >" + out_ + " 2>" + err_;
    pid_ = fork();
    if (pid_ == 0) {
      setpgid(0, 0);
      execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  ~Background() {
    if (!done_) {
      kill(pid_, SIGKILL);
      Wait(std::chrono::seconds(10));
    }
  }
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;

  void Signal(int sig) { kill(pid_, sig); }
  // The exit code (-1: killed by a signal or still running past `limit`, then killed).
  RunResult Wait(std::chrono::seconds limit = std::chrono::seconds(180)) {
    const auto end = std::chrono::steady_clock::now() + limit;
    int status = 0;
    while (!done_) {
      const pid_t r = waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        done_ = true;
        code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        break;
      }
      if (std::chrono::steady_clock::now() > end) {
        ADD_FAILURE() << "still running after " << limit.count() << " s: " << ReadFile(err_);
        kill(pid_, SIGKILL);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return RunResult{code_, ReadFile(out_), ReadFile(err_)};
  }

 private:
  std::string out_, err_;
  pid_t pid_ = -1;
  bool done_ = false;
  int code_ = -1;
};

inline bool WaitUntil(const std::function<bool()>& ok, std::chrono::seconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (ok()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return ok();
}

}  // namespace lakedump::testing_cli
