// End-to-end tests of the lakedump binary: demo -> dump -> ls, read back by the
// oracle readers (tests/interop), bad input, and SIGKILL + --if-exists resume.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "fakes/cli_run.h"
#include "fakes/fs_events.h"
#include "fakes/temp_dir.h"

namespace lakedump {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace testing_cli;

class DumpCliTest : public testing_cli::DemoDatabaseSuite<DumpCliTest> {
 public:
  static constexpr const char* kDemoArgs = "--rows 20000 --small-tables 3 --seed 7";
};

json Manifest(const std::string& dest) { return json::parse(ReadFile(dest + "/_manifest.json")); }

// SQLite's own answer for the text form of column `col` of every row, rowid order.
std::vector<std::vector<std::optional<std::string>>> SqliteRows(const std::string& db,
                                                                const std::string& table) {
  sqlite3* h = nullptr;
  std::vector<std::vector<std::optional<std::string>>> rows;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return rows;
  std::string escaped;
  for (char c : table) escaped += c == '"' ? std::string("\"\"") : std::string(1, c);
  sqlite3_stmt* st = nullptr;
  const std::string sql = "SELECT * FROM \"" + escaped + "\" ORDER BY rowid";
  if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK) {
    while (sqlite3_step(st) == SQLITE_ROW) {
      std::vector<std::optional<std::string>> row;
      for (int i = 0; i < sqlite3_column_count(st); ++i) {
        if (sqlite3_column_type(st, i) == SQLITE_NULL) {
          row.push_back(std::nullopt);
        } else {
          row.push_back(std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, i))));
        }
      }
      rows.push_back(std::move(row));
    }
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return rows;
}

TEST_F(DumpCliTest, DemoDumpReadBackByTheOracleReaders) {
  const std::string interop = InteropDir();
  if (interop.empty()) GTEST_SKIP() << "LD_INTEROP_DIR with node_modules not found";
  const std::string dest = dir_.Sub("out");
  RunResult r = RunLakedump("dump " + db_ + " " + dest + " --table-parallelism 3 --json", dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  const json summary = json::parse(r.out);
  EXPECT_EQ(summary["status"], "ok");
  const json m = Manifest(dest);
  EXPECT_GE(m["tables"].size(), 8u + 3u);
  uint64_t total = 0;
  for (const json& t : m["tables"]) {
    const json tm = json::parse(ReadFile(dest + "/" + t["key"].get<std::string>()));
    const std::string name = tm["table"];
    const auto expected = SqliteRows(db_, name);
    ASSERT_EQ(tm["rows"].get<size_t>(), expected.size()) << name;
    total += expected.size();
    ASSERT_EQ(tm["files"].size(), 1u);
    const std::string file = dest + "/" + tm["files"][0]["key"].get<std::string>();
    const std::vector<json> readers = ReadWithOracles(interop, file, dir_);
    ASSERT_EQ(readers.size(), 3u) << name;
    for (const json& rd : readers) {
      ASSERT_FALSE(rd.contains("error")) << name << ": " << rd.dump();
      ASSERT_EQ(rd["rows"].size(), expected.size()) << name << " " << rd["reader"];
      // Every reader returns the same values as DuckDB, in every column whose type it
      // sees the same way (parquet-wasm sees uuid as fixed_binary and json as string: the
      // interop README's known blind spots).
      for (size_t c = 0; c < rd["columns"].size(); ++c) {
        if (rd["types"][c] != readers[0]["types"][c]) continue;
        for (size_t i = 0; i < expected.size(); ++i) {
          ASSERT_EQ(rd["rows"][i][c], readers[0]["rows"][i][c])
              << name << " row " << i << " column " << rd["columns"][c] << " " << rd["reader"];
        }
      }
    }
    // Integer and text columns equal SQLite's own answers, row by row; every column's
    // nulls are where SQLite has them. A table holding values its typed columns would not
    // give back as they were (the demo's UUIDs as 16-byte BLOBs, a braced UUID, timestamps
    // with offsets) has one more column, last, with those values (docs/dump-format.md).
    const json& duck = readers[0];
    const size_t own = expected.empty() ? duck["columns"].size() : expected[0].size();
    const bool exact = name == "vendor_dimension" || name == "customer_dimension" ||
                       name == "employee_dimension";
    ASSERT_EQ(duck["columns"].size(), own + (exact ? 1 : 0)) << name;
    if (exact) {
      ASSERT_EQ(duck["columns"][own], "_lakedump_sqlite_values") << name;
    }
    for (size_t c = 0; c < own; ++c) {
      const std::string type = duck["types"][c];
      const bool same_text = type == "int64" || type == "int32" || type == "int16" ||
                             type == "int8" || type == "string";
      for (size_t i = 0; i < expected.size(); ++i) {
        const json& v = duck["rows"][i][c];
        const auto& e = expected[i][c];
        ASSERT_EQ(v.is_null(), !e.has_value())
            << name << " row " << i << " column " << duck["columns"][c];
        if (same_text && e) {
          ASSERT_EQ(v.get<std::string>(), *e)
              << name << " row " << i << " column " << duck["columns"][c];
        }
      }
    }
  }
  EXPECT_EQ(m["totals"]["rows"].get<uint64_t>(), total);

  RunResult ls = RunLakedump("ls " + dest, dir_);
  EXPECT_EQ(ls.code, 0) << ls.err;
  EXPECT_NE(ls.out.find("store_orders_fact"), std::string::npos);
  EXPECT_NE(ls.out.find("20000"), std::string::npos);
  RunResult lsj = RunLakedump("ls " + dest + " --json --ddl", dir_);
  EXPECT_EQ(lsj.code, 0);
  EXPECT_EQ(json::parse(lsj.out)["totals"]["rows"].get<uint64_t>(), total);
}

TEST_F(DumpCliTest, BadInputIsAOneLineErrorAndCommitsNothing) {
  const std::string dest = dir_.Sub("bad");
  ExpectOneLineError(RunLakedump("dump " + dir_.Sub("missing.sqlite") + " " + dest, dir_), 1,
                     "no such file");
  {
    std::ofstream(dir_.Sub("text.sqlite")) << "this is not a database\n";
    RunResult r = RunLakedump("dump " + dir_.Sub("text.sqlite") + " " + dest, dir_);
    EXPECT_NE(r.code, 0);
    EXPECT_EQ(r.err.rfind("lakedump: error: ", 0), 0u) << r.err;
  }
  ExpectOneLineError(RunLakedump("dump " + db_ + " " + dest + " --tables nope", dir_), 2,
                     "unknown table nope");
  ExpectOneLineError(RunLakedump("dump " + db_ + " " + dest + " --tables 'zz*'", dir_), 2,
                     "matches no table");
  ExpectOneLineError(RunLakedump("dump " + db_ + " " + dest + " --file-size 12XB", dir_), 2, "12XB");
  ExpectOneLineError(RunLakedump("dump " + db_ + " " + dest + " --table-parallelism 0", dir_), 2,
                     "--table-parallelism");
  ExpectOneLineError(RunLakedump("dump " + db_ + " " + dest + " --table-parallelism -3", dir_), 2,
                     "--table-parallelism");
  ExpectOneLineError(RunLakedump("dump " + db_ + " " + dest + " --query nonsense", dir_), 2,
                     "NAME=SQL");
  {
    RunResult r = RunLakedump("dump " + db_ + " " + dest + " --query 'q=SELEC x FROM'", dir_);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("--query q"), std::string::npos) << r.err;
  }
  ExpectOneLineError(RunLakedump("dump " + db_ + " " + dest + " --if-exists maybe", dir_), 2,
                     "--if-exists");
  EXPECT_FALSE(fs::exists(dest + "/_manifest.json"));
  {
    std::ofstream(dir_.Sub("afile")) << "x";
    RunResult r = RunLakedump("dump " + db_ + " " + dir_.Sub("afile"), dir_);
    EXPECT_NE(r.code, 0);
    EXPECT_EQ(r.err.rfind("lakedump: error: ", 0), 0u) << r.err;
  }
  // Destination holds another dump.
  ASSERT_EQ(RunLakedump("dump " + db_ + " " + dest + " --tables 'small*'", dir_).code, 0);
  const std::string before = ReadFile(dest + "/_manifest.json");
  ExpectOneLineError(RunLakedump("dump " + db_ + " " + dest, dir_), 1, "already holds a dump");
  EXPECT_EQ(ReadFile(dest + "/_manifest.json"), before);
  ExpectOneLineError(RunLakedump("ls " + dir_.Sub("nothing"), dir_), 1, "no dump at");
  if (geteuid() != 0) {
    const std::string ro = dir_.Sub("ro");
    fs::create_directories(ro);
    chmod(ro.c_str(), 0555);
    RunResult r = RunLakedump("dump " + db_ + " " + ro + "/x", dir_);
    EXPECT_NE(r.code, 0);
    EXPECT_FALSE(fs::exists(ro + "/x/_manifest.json"));
  }
}

TEST_F(DumpCliTest, EmptyDatabaseAndWeirdNames) {
  const std::string empty = dir_.Sub("empty.sqlite");
  const std::string weird = dir_.Sub("weird.sqlite");
  for (const auto& [path, sql] : std::vector<std::pair<std::string, std::string>>{
           {empty, "CREATE TABLE t(x INTEGER); DROP TABLE t;"},
           {weird,
            "CREATE TABLE \"a/b\"(x INTEGER); INSERT INTO \"a/b\" VALUES (1);"
            "CREATE TABLE \"..\"(x INTEGER); INSERT INTO \"..\" VALUES (2);"
            "CREATE TABLE \"q\"\"u'o\"(x INTEGER); INSERT INTO \"q\"\"u'o\" VALUES (3);"
            "CREATE TABLE \"with space\"(x TEXT); INSERT INTO \"with space\" VALUES ('s');"
            "CREATE TABLE \"ünï表\"(x INTEGER); INSERT INTO \"ünï表\" VALUES (5);"}}) {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &h), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(h);
  }
  RunResult r = RunLakedump("dump " + empty + " " + dir_.Sub("e") + " --json", dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Manifest(dir_.Sub("e"))["tables"].size(), 0u);

  r = RunLakedump("dump " + weird + " " + dir_.Sub("w"), dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  const json m = Manifest(dir_.Sub("w"));
  EXPECT_EQ(m["tables"].size(), 5u);
  EXPECT_EQ(m["totals"]["rows"], 5);
  for (const auto& e : fs::recursive_directory_iterator(dir_.Sub("w"))) {
    const std::string rel = fs::relative(e.path(), dir_.Sub("w")).string();
    // (_runs/: the emptied folder of the run journal, deleted after the commit.)
    if (e.is_directory() && rel.rfind("_runs", 0) == 0) continue;
    EXPECT_TRUE(rel == "_manifest.json" || rel.rfind("main", 0) == 0) << rel;
  }
}

TEST_F(DumpCliTest, DiskFullMidDumpIsAOneLineErrorWithNothingCommitted) {
  // A 256 KiB tmpfs: the demo dump needs more. Needs root (CI and scripts/test run as root).
  const std::string mnt = dir_.Sub("small-disk");
  fs::create_directories(mnt);
  if (geteuid() != 0 ||
      std::system(("mount -t tmpfs -o size=256k tmpfs " + mnt + " 2>/dev/null").c_str()) != 0) {
    GTEST_SKIP() << "cannot mount a small tmpfs here (not root?)";
  }
  struct Unmount {
    std::string path;
    ~Unmount() { EXPECT_EQ(std::system(("umount " + path).c_str()), 0); }
  } unmount{mnt};
  RunResult r = RunLakedump("dump " + db_ + " " + mnt + "/dump --table-parallelism 2", dir_);
  ExpectOneLineError(r, 1, "disk full");
  EXPECT_FALSE(fs::exists(mnt + "/dump/_manifest.json"));
  for (const auto& e : fs::recursive_directory_iterator(mnt)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
  }
}

// Big units read on a second thread while their task encodes (--read-ahead):
// the files are the same bytes as when reading and encoding take turns.
// --batch-rows 500 puts store_orders_fact (20000 rows) well past the
// read-ahead threshold of 4 batches.
TEST_F(DumpCliTest, ReadAheadWritesTheSameFilesAsReadingInTurn) {
  auto files = [&](const std::string& d) {
    std::map<std::string, std::pair<uint64_t, std::vector<std::string>>> out;
    const json m = Manifest(d);
    for (const json& t : m["tables"]) {
      const json tm = json::parse(ReadFile(d + "/" + t["key"].get<std::string>()));
      std::vector<std::string> sums;
      for (const json& f : tm["files"]) sums.push_back(f["xxh64"]);
      out[tm["table"]] = {tm["rows"].get<uint64_t>(), sums};
    }
    return out;
  };
  const std::string ahead = dir_.Sub("ahead"), in_turn = dir_.Sub("in-turn");
  RunResult a = RunLakedump("dump " + db_ + " " + ahead +
                                " --batch-rows 500 --read-ahead 2 --split-size 0 --progress none",
                            dir_);
  ASSERT_EQ(a.code, 0) << a.err;
  RunResult b = RunLakedump("dump " + db_ + " " + in_turn +
                                " --batch-rows 500 --read-ahead 0 --split-size 0 --progress none",
                            dir_);
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(Manifest(ahead)["options"]["read_ahead_batches"], 2);
  EXPECT_EQ(Manifest(in_turn)["options"]["read_ahead_batches"], 0);
  const auto got = files(ahead);
  EXPECT_EQ(got, files(in_turn));
  ASSERT_TRUE(got.count("store_orders_fact")) << "tables: " << got.size();
  EXPECT_EQ(got.at("store_orders_fact").first, 20000u);
}

TEST_F(DumpCliTest, SigkillThenResumeGivesTheSameRowsAsAFreshDump) {
  const std::string db = dir_.Sub("many.sqlite");
  ASSERT_EQ(RunLakedump("demo " + db + " --rows 60000 --small-tables 300 --seed 3", dir_).code, 0);
  const std::string dest = dir_.Sub("killed");
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    execl(LAKEDUMP_BINARY, LAKEDUMP_BINARY, "dump", db.c_str(), dest.c_str(),
          "--table-parallelism", "1", "--progress", "none", static_cast<char*>(nullptr));
    _exit(127);
  }
  // Kill once a few tables have committed (or the run is over: skipped below).
  WaitForFiles(dest, /*recursive=*/true, pid, [&] {
    int committed = 0;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dest, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->path().filename() == "_table.json") ++committed;
    }
    return committed >= 5;
  });
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (fs::exists(dest + "/_manifest.json")) GTEST_SKIP() << "dump finished before the kill";

  RunResult resumed = RunLakedump("dump " + db + " " + dest + " --if-exists resume --json", dir_);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_GE(json::parse(resumed.out)["reused_tables"].get<int>(), 1);
  RunResult fresh = RunLakedump("dump " + db + " " + dir_.Sub("fresh") + " --json", dir_);
  ASSERT_EQ(fresh.code, 0) << fresh.err;

  // Same tables, same rows, and the same file contents (the writer is deterministic).
  auto tables = [&](const std::string& d) {
    std::map<std::string, std::pair<uint64_t, std::vector<std::string>>> out;
    const json m = Manifest(d);  // named: a range-for over a temporary's member dangles
    for (const json& t : m["tables"]) {
      const json tm = json::parse(ReadFile(d + "/" + t["key"].get<std::string>()));
      std::vector<std::string> sums;
      for (const json& f : tm["files"]) sums.push_back(f["xxh64"]);
      out[tm["table"]] = {tm["rows"].get<uint64_t>(), sums};
    }
    return out;
  };
  EXPECT_EQ(tables(dest), tables(dir_.Sub("fresh")));
  // Nothing but the dump's own objects is left (no stray data files). The local
  // store's hidden temp file of the write SIGKILL interrupted is not visible
  // through the store and is not counted.
  size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(dest)) {
    if (e.is_regular_file() && e.path().filename().string().find(".tmp-") == std::string::npos) {
      ++files;
    }
  }
  const json m = Manifest(dest);
  EXPECT_EQ(files, 1 + m["tables"].size() + m["totals"]["files"].get<size_t>());

  // `gc` sweeps the temp file(s) the killed run left; nothing else.
  RunResult gc = RunLakedump("gc " + dest + " --older-than 0s", dir_);
  ASSERT_EQ(gc.code, 0) << gc.err;
  size_t all = 0;
  for (const auto& e : fs::recursive_directory_iterator(dest)) {
    if (e.is_regular_file()) {
      ++all;
      EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
    }
  }
  EXPECT_EQ(all, files);
}

}  // namespace
}  // namespace lakedump
