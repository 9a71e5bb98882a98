#include "source/postgres/pg_tools.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>

namespace lakedump {
namespace {

TEST(PgToolsTest, ParsesTheVersionLine) {
  EXPECT_EQ(ParsePgToolVersion("pg_dump (PostgreSQL) 15.10 (Debian 15.10-0+deb12u1)\n").first, 15);
  EXPECT_EQ(ParsePgToolVersion("pg_dump (PostgreSQL) 9.6.24").second, "9.6.24");
  EXPECT_EQ(ParsePgToolVersion("something else").first, 0);
}

// Debian's layout names the version: no process is started to ask it.
TEST(PgToolsTest, TheDebianFolderNamesTheVersion) {
  EXPECT_EQ(PgToolDirVersion("/usr/lib/postgresql/15/bin/pg_dump"),
            std::make_pair(15, std::string("15")));
  EXPECT_EQ(PgToolDirVersion("/usr/lib/postgresql/9.6/bin/pg_restore"),
            std::make_pair(9, std::string("9.6")));
  for (const char* other :
       {"/usr/bin/pg_dump", "/usr/lib/postgresql/15/pg_dump",
        "/usr/lib/postgresql/15/bin/sub/pg_dump", "/usr/lib/postgresql/15/bin/",
        "/usr/lib/postgresql/x15/bin/pg_dump", "/usr/lib/postgresql/1.2.3/bin/pg_dump",
        "/usr/lib/postgresql/.15/bin/pg_dump", "/usr/lib/postgresql//bin/pg_dump",
        "/opt/usr/lib/postgresql/15/bin/pg_dump"}) {
    EXPECT_EQ(PgToolDirVersion(other).first, 0) << other;
  }
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

// A connection object that never connects (a socket directory that does not exist): its
// options are what PQconninfo reports, as for a live one.
PGconn* Unconnected(const char* conninfo) {
  PGconn* conn = PQconnectStart(conninfo);
  EXPECT_NE(conn, nullptr);
  return conn;
}

std::string ValueOf(const PgChildConnection& c, const std::string& name) {
  for (const auto& [k, v] : c.env) {
    if (k == name) return v;
  }
  return "";
}

TEST(PgToolsTest, NoSecretOfTheConnectionReachesTheChildsCommandLine) {
  PGconn* conn = Unconnected(
      "host=/nonexistent-ld-socket-dir dbname=shop user=ann password=pw-SECRET "
      "sslpassword=key-SECRET sslmode=disable");
  auto child = ChildConnectionOf(conn);
  PQfinish(conn);
  ASSERT_TRUE(child.ok()) << child.status().ToString();
  EXPECT_EQ(child->conninfo.find("SECRET"), std::string::npos) << child->conninfo;
  EXPECT_NE(child->conninfo.find("dbname='shop'"), std::string::npos) << child->conninfo;
  EXPECT_NE(child->conninfo.find("service=lakedump"), std::string::npos) << child->conninfo;
  EXPECT_EQ(ValueOf(*child, "PGPASSWORD"), "pw-SECRET");
  const std::string file = ValueOf(*child, "PGSERVICEFILE");
  ASSERT_FALSE(file.empty());
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "[lakedump]\nsslpassword=key-SECRET\n");
  PgChildConnection copy = *child;
  child = Status::Internal("dropped");
  EXPECT_TRUE(std::filesystem::exists(file)) << "a copy still holds it";
  copy = PgChildConnection{};
  EXPECT_FALSE(std::filesystem::exists(file)) << "removed with the last copy";
}

TEST(PgToolsTest, WithoutAKeyPassphraseThereIsNoServiceFile) {
  PGconn* conn = Unconnected("host=/nonexistent-ld-socket-dir dbname=shop password=pw");
  auto child = ChildConnectionOf(conn);
  PQfinish(conn);
  ASSERT_TRUE(child.ok());
  EXPECT_EQ(child->service_file, nullptr);
  EXPECT_EQ(ValueOf(*child, "PGSERVICEFILE"), "");
  EXPECT_EQ(child->conninfo.find("service="), std::string::npos) << child->conninfo;
}

TEST(PgToolsTest, AKeyPassphraseAServiceFileCannotHoldIsRefused) {
  for (const char* conninfo : {"host=/nonexistent-ld-socket-dir sslpassword=' padded'",
                               "host=/nonexistent-ld-socket-dir sslpassword='two\nlines'"}) {
    PGconn* conn = Unconnected(conninfo);
    auto child = ChildConnectionOf(conn);
    PQfinish(conn);
    ASSERT_FALSE(child.ok()) << conninfo;
    EXPECT_EQ(child.status().code(), Code::kInvalidArgument);
    EXPECT_NE(child.status().message().find("sslpassword"), std::string::npos);
    EXPECT_EQ(child.status().message().find("padded"), std::string::npos) << "no secret in it";
    EXPECT_EQ(child.status().message().find("lines"), std::string::npos) << "no secret in it";
  }
}

}  // namespace
}  // namespace lakedump
