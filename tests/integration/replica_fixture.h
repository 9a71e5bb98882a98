// The fixture and helpers of the replica tests (issue 11, replica_test.cc and
// replica_needs_test.cc): a scratch source database with tests/data/replica/rich_schema.sql,
// lakedump dump/load of it, and `pg_dump` outputs compared as sorted lines. Header-only; tests.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/pg_test_util.h"

namespace lakedump::testing_replica {

using testing_cli::Quote;
using testing_cli::ReadFile;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_pg::AdminConn;
using testing_pg::ScratchDatabase;

// stdout of a shell command that must succeed.
inline std::string RunText(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  EXPECT_NE(p, nullptr);
  if (p == nullptr) return "";
  std::string text;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) text.append(buf, n);
  EXPECT_EQ(pclose(p), 0) << cmd << "\n" << text.substr(0, 2000);
  return text;
}

// `pg_dump ARGS` of a database as sorted lines. Only pg_dump's per-run random
// `\restrict KEY` / `\unrestrict KEY` lines (PostgreSQL 15.14+) are left out.
inline std::vector<std::string> PgDumpLines(const std::string& conninfo, const std::string& args) {
  const std::string text =
      RunText(fmt::format("pg_dump {} --dbname={} 2>&1", args, Quote(conninfo)));
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("\\restrict ") || line.starts_with("\\unrestrict ")) continue;
    lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

inline void ExpectSameDump(const std::vector<std::string>& source, const std::vector<std::string>& replica) {
  std::vector<std::string> only_source, only_replica;
  std::set_difference(source.begin(), source.end(), replica.begin(), replica.end(),
                      std::back_inserter(only_source));
  std::set_difference(replica.begin(), replica.end(), source.begin(), source.end(),
                      std::back_inserter(only_replica));
  for (size_t i = 0; i < std::min<size_t>(only_source.size(), 10); ++i) {
    ADD_FAILURE() << "only in the source: " << only_source[i];
  }
  for (size_t i = 0; i < std::min<size_t>(only_replica.size(), 10); ++i) {
    ADD_FAILURE() << "only in the replica: " << only_replica[i];
  }
  EXPECT_EQ(source.size(), replica.size());
}

class ReplicaTest : public testing_pg::PgScratchTest {
 protected:
  void SetUp() override {
    PgScratchTest::SetUp();
    if (Stopped()) return;
    const std::string sql =
        ReadFile(std::string(LAKEDUMP_SOURCE_DIR) + "/tests/data/replica/rich_schema.sql");
    ASSERT_FALSE(sql.empty());
    UseScratchDatabase(sql);
  }

  RunResult Dump(const std::string& dest, const std::string& extra = "") {
    return RunLakedump(fmt::format("dump {} {} --progress none {}", Quote(source_->conninfo()),
                                   Quote(dest), extra),
                       dir_);
  }
  RunResult Load(const std::string& dump, const ScratchDatabase& target,
                 const std::string& extra = "") {
    return RunLakedump(fmt::format("load {} {} --progress none {}", Quote(dump),
                                   Quote(target.conninfo()), extra),
                       dir_);
  }

  TempDir dir_;
};

}  // namespace lakedump::testing_replica
