// Helpers for end-to-end tests of the lakedump binary (LAKEDUMP_BINARY): run it
// capturing stdout/stderr, check the one-line error contract, and read a Parquet
// file with the three oracle readers of tests/interop. Header-only; for tests.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fakes/temp_dir.h"

namespace lakedump::testing_cli {

struct RunResult {
  int code = -1;
  std::string out;
  std::string err;
};

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
}

// Single-quoted for /bin/sh.
inline std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

// Runs `lakedump ARGS` (ARGS already shell-quoted where needed); scratch files go in `tmp`.
// With timeout_seconds > 0 the run is killed past it (code 137): a hang fails the test instead
// of stalling the suite.
inline RunResult RunLakedump(const std::string& args, const TempDir& tmp,
                             int timeout_seconds = 0) {
  const std::string out = tmp.Sub("stdout.txt"), err = tmp.Sub("stderr.txt");
  const std::string limit =
      timeout_seconds > 0 ? "timeout -s KILL " + std::to_string(timeout_seconds) + " " : "";
  const std::string cmd =
      limit + std::string(LAKEDUMP_BINARY) + " " + args + " >" + out + " 2>" + err;
  const int rc = std::system(cmd.c_str());
  RunResult r;
  r.code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = ReadFile(out);
  r.err = ReadFile(err);
  return r;
}

// Runs two lakedump commands at once (each with its own scratch folder); their results.
inline std::pair<RunResult, RunResult> RunTogether(const std::string& a, const std::string& b) {
  TempDir da, db;
  RunResult ra, rb;
  std::thread ta([&] { ra = RunLakedump(a, da); });
  std::thread tb([&] { rb = RunLakedump(b, db); });
  ta.join();
  tb.join();
  return {ra, rb};
}

// The error contract: exit code, one line "lakedump: error: ..." on stderr.
inline void ExpectOneLineError(const RunResult& r, int code, const std::string& needle) {
  EXPECT_EQ(r.code, code) << r.err;
  EXPECT_EQ(r.err.rfind("lakedump: error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

// tests/interop with its node_modules (or $LD_INTEROP_DIR), or "" when absent.
inline std::string InteropDir() {
  const char* env = std::getenv("LD_INTEROP_DIR");
  std::string dir = env && *env ? env : std::string(LAKEDUMP_SOURCE_DIR) + "/tests/interop";
  return std::filesystem::exists(dir + "/node_modules") ? dir : "";
}

// The file as read by DuckDB, hyparquet and parquet-wasm (in that order), each
// {"reader","columns","types","rows"} with canonical value forms (tests/interop/README.md),
// or {"reader","error"}. Empty (and a test failure) when node itself fails.
inline std::vector<nlohmann::json> ReadWithOracles(const std::string& interop,
                                                   const std::string& file, const TempDir& tmp) {
  const std::string out = tmp.Sub("oracle-read.txt");
  const std::string cmd =
      "node " + interop + "/read.mjs " + Quote(file) + " --reader all >" + out + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::vector<nlohmann::json> readers;
  std::istringstream lines(ReadFile(out));
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line[0] == '{') readers.push_back(nlohmann::json::parse(line));
  }
  EXPECT_EQ(readers.size(), 3u) << "exit " << rc << ": " << ReadFile(out);
  return readers;
}

// A test suite sharing one demo database, made once per suite by `lakedump demo DB
// <Suite::kDemoArgs>` in tmp_ (db_ is its path). CRTP: `class T : public
// DemoDatabaseSuite<T> { public: static constexpr const char* kDemoArgs = "..."; }`. A suite
// whose tests all skip without a server defines `static bool SkipDemo()` (then no database).
template <typename Suite>
class DemoDatabaseSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if constexpr (requires { Suite::SkipDemo(); }) {
      if (Suite::SkipDemo()) return;
    }
    tmp_ = new TempDir();
    db_ = tmp_->Sub("demo.sqlite");
    RunResult r = RunLakedump("demo " + db_ + " " + Suite::kDemoArgs, *tmp_);
    ASSERT_EQ(r.code, 0) << r.err;
  }
  static void TearDownTestSuite() {
    delete tmp_;
    tmp_ = nullptr;
  }
  static inline TempDir* tmp_ = nullptr;
  static inline std::string db_;
  TempDir dir_;
};

}  // namespace lakedump::testing_cli
