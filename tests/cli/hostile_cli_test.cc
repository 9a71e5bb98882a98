// Hostile names, folders and files end to end (issue 16), with the real binary: names the
// tool once could not read back ("ab..cd", partition values "1..2" and 300 bytes long) round
// trip with their rows; a non-UTF-8 name is refused before anything is written; a destination
// or a dump holding a symlink or a FIFO is refused promptly, nothing written outside; `ls
// --ddl` shows escape codes escaped; libpq's messages never show the password.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "base/checksum.h"
#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "format/parquet_craft.h"

namespace lakedump {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace testing_cli;

void Sql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << (err ? err : "") << " in " << sql;
  sqlite3_free(err);
  sqlite3_close(db);
}

// The first column of the first row, as text ("" when none).
std::string One(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) return "";
  sqlite3_stmt* st = nullptr;
  std::string out;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) != nullptr) {
    out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

// `lakedump ARGS`, killed after `seconds` (a hang is a failure, not a stuck suite).
RunResult RunBounded(const std::string& args, const TempDir& tmp, int seconds = 30) {
  return RunLakedump(args, tmp, seconds);
}

size_t CountFiles(const std::string& dir) {
  if (!fs::exists(dir)) return 0;
  size_t n = 0;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator();
       ++it) {
    n += it->is_regular_file() ? 1 : 0;
  }
  return n;
}

// A dump of one small table "t" at tmp/dump; returns the key of its (single) data file.
std::string SmallDump(const TempDir& tmp) {
  const std::string db = tmp.Sub("src.sqlite");
  Sql(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, s TEXT); "
          "INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three');");
  RunResult r = RunBounded("dump " + Quote(db) + " " + Quote(tmp.Sub("dump")), tmp);
  EXPECT_EQ(r.code, 0) << r.err;
  for (auto& e : fs::recursive_directory_iterator(tmp.Sub("dump"))) {
    if (e.path().extension() == ".parquet") {
      return fs::relative(e.path(), tmp.Sub("dump")).string();
    }
  }
  ADD_FAILURE() << "no data file";
  return "";
}

// The findings: table "ab..cd" and partition values like "1..2" dumped with exit 0 and then
// failed `verify` and `load`; a partition value over ~250 bytes failed a local dump.
TEST(HostileCliTest, DotDotNamesAndLongPartitionValuesRoundTrip) {
  TempDir tmp;
  const std::string db = tmp.Sub("src.sqlite");
  const std::string long_value(300, 'L');
  Sql(db, "CREATE TABLE \"ab..cd\"(id INTEGER PRIMARY KEY, p TEXT NOT NULL); "
          "INSERT INTO \"ab..cd\" VALUES (1, '1..2'), (2, '..'), (3, '1..2'), (4, '" +
              long_value + "'), (5, '.'), (6, 'plain');");
  RunResult r = RunBounded("dump " + Quote(db) + " " + Quote(tmp.Sub("dump")) +
                               " --partition-by p",
                           tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  r = RunBounded("verify --deep " + Quote(tmp.Sub("dump")), tmp);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  r = RunBounded("ls " + Quote(tmp.Sub("dump")), tmp);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("ab..cd"));
  const std::string target = tmp.Sub("target.sqlite");
  r = RunBounded("load " + Quote(tmp.Sub("dump")) + " " + Quote(target), tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(One(target, "SELECT count(*) FROM \"ab..cd\""), "6");
  EXPECT_EQ(One(target, "SELECT group_concat(id) FROM (SELECT id FROM \"ab..cd\" "
                        "WHERE p = '1..2' ORDER BY id)"),
            "1,3");
  EXPECT_EQ(One(target, "SELECT id FROM \"ab..cd\" WHERE p = '" + long_value + "'"), "4");
}

// The finding: a non-UTF-8 table name aborted `dump` with an uncaught JSON exception and
// partial output. Refused with one line before anything is written.
TEST(HostileCliTest, NonUtf8TableNameIsRefusedBeforeAnythingIsWritten) {
  TempDir tmp;
  const std::string db = tmp.Sub("src.sqlite");
  Sql(db, "CREATE TABLE ok(a INTEGER); INSERT INTO ok VALUES (1);"
          "CREATE TABLE \"bad\xff\"(a INTEGER); INSERT INTO \"bad\xff\" VALUES (1);");
  RunResult r = RunBounded("dump " + Quote(db) + " " + Quote(tmp.Sub("dump")), tmp);
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.code, -1);
  EXPECT_THAT(r.err, HasSubstr("not valid UTF-8"));
  EXPECT_THAT(r.err, HasSubstr("bad\\xff"));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(CountFiles(tmp.Sub("dump")), 0u);
  r = RunBounded("dump --json " + Quote(db) + " " + Quote(tmp.Sub("dump")), tmp);
  EXPECT_NE(r.code, -1);
  EXPECT_THAT(r.out, HasSubstr("\"status\":\"error\""));
}

// The finding: a non-UTF-8 column name (in a data file of a crafted dump) aborted
// `verify --json` with an uncaught JSON exception. The report is printed (the name shown with
// U+FFFD), exit code 1.
TEST(HostileCliTest, VerifyJsonWithNonUtf8NameInAFile) {
  TempDir tmp;
  const std::string key = SmallDump(tmp);
  ASSERT_FALSE(key.empty());
  const std::string path = tmp.Sub("dump/" + key);
  const std::string crafted = testing::RewriteParquet(
      ReadFile(path), [](size_t, parquet::PageHeader*, std::string*) {},
      [](parquet::FileMetaData* m) { m->schema[2].name = "s\xff"; });
  ASSERT_FALSE(crafted.empty());
  WriteFile(path, crafted);
  const std::string tj = tmp.Sub("dump/main/t/_table.json");
  nlohmann::json t = nlohmann::json::parse(ReadFile(tj));
  t["files"][0]["bytes"] = crafted.size();
  t["files"][0]["xxh64"] = Xxh64Hex(crafted);
  t["bytes"] = crafted.size();
  WriteFile(tj, t.dump());
  const std::string mj = tmp.Sub("dump/_manifest.json");
  nlohmann::json m = nlohmann::json::parse(ReadFile(mj));
  m["tables"][0]["bytes"] = crafted.size();
  m["totals"]["bytes"] = crafted.size();
  WriteFile(mj, m.dump());
  RunResult r = RunBounded("verify --json " + Quote(tmp.Sub("dump")), tmp);
  EXPECT_EQ(r.code, 1) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << r.out;
  EXPECT_EQ(report["status"], "problems");
  EXPECT_THAT(r.out, HasSubstr("s\xef\xbf\xbd"));
  r = RunBounded("load --json " + Quote(tmp.Sub("dump")) + " " + Quote(tmp.Sub("t.sqlite")), tmp);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_FALSE(nlohmann::json::parse(r.out, nullptr, false).is_discarded()) << r.out;
}

// The finding: a destination holding a directory symlink counted as empty, and `dump` wrote
// outside it even with --if-exists fail.
TEST(HostileCliTest, DumpRefusesDestinationWithDirectorySymlink) {
  TempDir tmp;
  const std::string db = tmp.Sub("src.sqlite");
  Sql(db, "CREATE TABLE t(a INTEGER); INSERT INTO t VALUES (1);");
  fs::create_directories(tmp.Sub("dest"));
  fs::create_directories(tmp.Sub("outside"));
  fs::create_directory_symlink(tmp.Sub("outside"), tmp.Sub("dest/main"));
  for (const char* mode : {"fail", "overwrite"}) {
    RunResult r = RunBounded(
        "dump " + Quote(db) + " " + Quote(tmp.Sub("dest")) + " --if-exists " + mode, tmp);
    EXPECT_NE(r.code, 0) << mode;
    EXPECT_THAT(r.err, HasSubstr("symbolic link")) << mode;
    EXPECT_EQ(CountFiles(tmp.Sub("outside")), 0u) << mode;
  }
}

// The finding: `load` followed a symlinked data file out of the dump (same bytes: the
// checksum alone could not catch it).
TEST(HostileCliTest, LoadRefusesSymlinkedDataFile) {
  TempDir tmp;
  const std::string key = SmallDump(tmp);
  ASSERT_FALSE(key.empty());
  const std::string in_dump = tmp.Sub("dump/" + key);
  fs::copy_file(in_dump, tmp.Sub("elsewhere.parquet"));
  fs::remove(in_dump);
  fs::create_symlink(tmp.Sub("elsewhere.parquet"), in_dump);
  const std::string target = tmp.Sub("target.sqlite");
  RunResult r = RunBounded("load " + Quote(tmp.Sub("dump")) + " " + Quote(target), tmp);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("symbolic link"));
  EXPECT_EQ(One(target, "SELECT count(*) FROM t"), "");
  r = RunBounded("verify " + Quote(tmp.Sub("dump")), tmp);
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("symbolic link"));
}

// The finding: a FIFO in a dump hung `ls`, `verify` and `load` past the first SIGTERM.
TEST(HostileCliTest, FifoInADumpFailsPromptlyNamingIt) {
  TempDir tmp;
  ASSERT_FALSE(SmallDump(tmp).empty());
  const std::string table_json = tmp.Sub("dump/main/t/_table.json");
  fs::remove(table_json);
  ASSERT_EQ(::mkfifo(table_json.c_str(), 0644), 0);
  // Each run is killed past 20 s: a hang fails it (code 137).
  for (const std::string& args :
       {"ls --ddl " + Quote(tmp.Sub("dump")), "verify " + Quote(tmp.Sub("dump")),
        "load " + Quote(tmp.Sub("dump")) + " " + Quote(tmp.Sub("target.sqlite"))}) {
    RunResult r = RunBounded(args, tmp, 20);
    EXPECT_EQ(r.code, 1) << args << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("_table.json")) << args;
    EXPECT_THAT(r.err, HasSubstr("not a regular file")) << args;
  }
}

// The finding: `ls --ddl` printed escape codes raw, which can hide SQL from a reviewer.
TEST(HostileCliTest, LsDdlShowsControlCharactersEscaped) {
  TempDir tmp;
  const std::string db = tmp.Sub("src.sqlite");
  Sql(db, "CREATE TABLE t(a INTEGER /* \x1b[1A\x1b[2K hidden \r */); INSERT INTO t VALUES (1);");
  RunResult r = RunBounded("dump " + Quote(db) + " " + Quote(tmp.Sub("dump")), tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  r = RunBounded("ls --ddl " + Quote(tmp.Sub("dump")), tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
  EXPECT_EQ(r.out.find('\r'), std::string::npos);
  EXPECT_THAT(r.out, HasSubstr("\\x1b[1A\\x1b[2K hidden \\x0d"));
}

// The finding: libpq's URL parse errors quoted the password, for the dump source and the load
// target alike.
TEST(HostileCliTest, PasswordIsNotInStderr) {
  TempDir tmp;
  ASSERT_FALSE(SmallDump(tmp).empty());
  for (const std::string& url :
       {std::string("postgresql://alice:Pw%zzS3cretTail@127.0.0.1:1/db"),
        std::string("postgresql://alice:S3cretPw@[::1/db")}) {
    RunResult dump = RunBounded("dump " + Quote(url) + " " + Quote(tmp.Sub("d2")), tmp);
    RunResult load = RunBounded("load " + Quote(tmp.Sub("dump")) + " " + Quote(url), tmp);
    for (const RunResult& r : {dump, load}) {
      EXPECT_NE(r.code, 0);
      EXPECT_THAT(r.err, Not(HasSubstr("S3cret"))) << url;
      EXPECT_THAT(r.err, Not(HasSubstr("Pw%zz"))) << url;
      EXPECT_THAT(r.out, Not(HasSubstr("S3cret"))) << url;
    }
  }
}

}  // namespace
}  // namespace lakedump
