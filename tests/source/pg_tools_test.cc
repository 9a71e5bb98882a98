#include "source/postgres/pg_tools.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace lakedump {
namespace {

TEST(PgToolsTest, ParsesTheVersionLine) {
  EXPECT_EQ(ParsePgToolVersion("pg_dump (PostgreSQL) 15.10 (Debian 15.10-0+deb12u1)\n").first, 15);
  EXPECT_EQ(ParsePgToolVersion("pg_dump (PostgreSQL) 9.6.24").second, "9.6.24");
  EXPECT_EQ(ParsePgToolVersion("something else").first, 0);
}

// Debian's /usr/bin/pg_dump is pg_wrapper (a perl script choosing among
// /usr/lib/postgresql/*/bin): the search skips it and runs the binary itself.
TEST(PgToolsTest, SkipsDebiansPerlWrapper) {
  const std::filesystem::path scratch =
      std::filesystem::temp_directory_path() / ("ld_pg_tools_" + std::to_string(::getpid()));
  std::filesystem::create_directories(scratch / "bin");
  {
    std::ofstream wrapper(scratch / "pg_wrapper");
    wrapper << "#!/bin/sh\necho 'pg_dump (PostgreSQL) 99.0'\n";
  }
  std::filesystem::permissions(scratch / "pg_wrapper", std::filesystem::perms::owner_all);
  std::filesystem::create_symlink(scratch / "pg_wrapper", scratch / "bin" / "pg_dump");
  const char* old = std::getenv("PATH");
  const std::string saved = old ? old : "";
  ::setenv("PATH", (scratch / "bin").c_str(), 1);
  auto found = FindPgTool("pg_dump", 1, "", "");
  ::setenv("PATH", saved.c_str(), 1);
  std::filesystem::remove_all(scratch);
  // A wrapper claiming 99 would win the highest-version search if it were run.
  if (found.ok()) {
    EXPECT_NE(found->major, 99) << found->path;
    EXPECT_TRUE(found->path.starts_with("/usr/lib/postgresql/")) << found->path;
  } else {
    EXPECT_EQ(found.status().code(), Code::kNotFound);  // no PostgreSQL client installed
  }
}

}  // namespace
}  // namespace lakedump
