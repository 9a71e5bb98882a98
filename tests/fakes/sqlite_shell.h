// Helpers for tests that make and compare SQLite databases: run the sqlite3 shell (the oracle
// for `.dump`, `.schema` and reading a script) and run SQL through the library. Header-only;
// for tests.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdio>
#include <string>

#include "fakes/cli_run.h"

namespace lakedump::testing_sqlite_shell {

// The output of `sqlite3 DB COMMAND` (stderr too); a test failure when it exits non-zero.
inline std::string Sqlite3Cli(const std::string& db, const std::string& command) {
  const std::string cmd = fmt::format("sqlite3 {} {} 2>&1", testing_cli::Quote(db),
                                      testing_cli::Quote(command));
  FILE* p = popen(cmd.c_str(), "r");
  EXPECT_NE(p, nullptr);
  std::string text;
  char buf[4096];
  size_t n;
  while (p && (n = fread(buf, 1, sizeof(buf), p)) > 0) text.append(buf, n);
  if (p) {
    EXPECT_EQ(pclose(p), 0) << text;
  }
  return text;
}

// Runs `sql` (several statements) in the database file `db`, creating it if missing.
inline void Exec(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(h);
}

}  // namespace lakedump::testing_sqlite_shell
