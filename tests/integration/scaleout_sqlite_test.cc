// A sharded dump of a SQLite file (docs/scale-out.md, "SQLite"): the coordinator and its
// workers as separate lakedump processes on one file. In rollback-journal mode the
// coordinator's read lock holds one state for every worker (a writer cannot commit meanwhile);
// WAL mode is refused naming the fix; --no-snapshot lets the workers read on their own, and
// the dump says so (manifest, ls, verify). Needs no server.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/lakedump_process.h"

namespace lakedump {
namespace {

using json = nlohmann::json;
using testing_cli::Background;
using testing_cli::ExpectOneLineError;
using testing_cli::Quote;
using testing_cli::ReadFile;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_cli::WaitUntil;
using namespace std::chrono_literals;

constexpr int kSmall = 6;

struct SqliteCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using SqliteHandle = std::unique_ptr<sqlite3, SqliteCloser>;

SqliteHandle OpenWritable(const std::string& path, int busy_ms) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                            nullptr),
            SQLITE_OK);
  sqlite3_busy_timeout(db, busy_ms);
  return SqliteHandle(db);
}

class ScaleOutSqliteTest : public ::testing::Test {
 protected:
  // A table big enough to be split into ranges at --split-size 1MiB (about 3 MiB) and
  // kSmall small ones, in rollback-journal (DELETE) or WAL mode.
  void MakeDatabase(bool wal) {
    SqliteHandle db = OpenWritable(db_, 1000);
    const std::string sql = fmt::format(
        "PRAGMA journal_mode={}; CREATE TABLE big (id INTEGER PRIMARY KEY, v TEXT); "
        "WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < 60000) "
        "INSERT INTO big SELECT x, printf('%040d', x * 7) FROM g;",
        wal ? "WAL" : "DELETE");
    ASSERT_EQ(sqlite3_exec(db.get(), sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db.get());
    for (int i = 0; i < kSmall; ++i) {
      const std::string t = fmt::format(
          "CREATE TABLE t{0} (id INTEGER, name TEXT); WITH RECURSIVE g(x) AS (SELECT 1 UNION "
          "ALL SELECT x + 1 FROM g WHERE x < {1}) INSERT INTO t{0} SELECT x, 'n' || x FROM g",
          i, 5 + i * 10);
      ASSERT_EQ(sqlite3_exec(db.get(), t.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    }
  }

  std::map<std::string, uint64_t> Counts() {
    SqliteHandle db = OpenWritable(db_, 5000);
    std::map<std::string, uint64_t> counts;
    std::vector<std::string> tables = {"big"};
    for (int i = 0; i < kSmall; ++i) tables.push_back(fmt::format("t{}", i));
    for (const std::string& t : tables) {
      sqlite3_stmt* st = nullptr;
      const std::string sql = "SELECT count(*) FROM " + t;
      EXPECT_EQ(sqlite3_prepare_v2(db.get(), sql.c_str(), -1, &st, nullptr), SQLITE_OK);
      if (sqlite3_step(st) == SQLITE_ROW) counts[t] = sqlite3_column_int64(st, 0);
      sqlite3_finalize(st);
    }
    return counts;
  }

  // One INSERT by a writer waiting at most busy_ms for the locks: SQLite's result code.
  int TryInsert(int busy_ms) {
    SqliteHandle db = OpenWritable(db_, busy_ms);
    return sqlite3_exec(db.get(), "INSERT INTO t0 VALUES (-1, 'late')", nullptr, nullptr,
                        nullptr);
  }

  std::string Common() const {
    return fmt::format("dump {} {} --split-size 1MiB --progress none -j 2", Quote(db_),
                       Quote(out_));
  }

  bool Exists(const std::string& key) const { return std::filesystem::exists(out_ + "/" + key); }

  std::map<std::string, uint64_t> ManifestRows() const {
    std::map<std::string, uint64_t> rows;
    const json m = json::parse(ReadFile(out_ + "/_manifest.json"), nullptr, false);
    EXPECT_TRUE(m.is_object());
    if (!m.is_object()) return rows;
    for (const json& t : m["tables"]) rows[t["table"].get<std::string>()] = t["rows"];
    return rows;
  }

  // The coordinator (`coordinator_flags` added), `between` once _plan.json exists, then two
  // workers (`worker_flags` added); every process must succeed.
  void RunSharded(const std::string& coordinator_flags, const std::string& worker_flags,
                  const std::function<void()>& between) {
    Background c(Common() + " --shards 2 --coordinate --shard-timeout 120s " + coordinator_flags,
                 tmp_, "coordinator");
    ASSERT_TRUE(WaitUntil([&] { return Exists("_plan.json"); }, 60s)) << c.Wait(1s).err;
    between();
    Background w0(Common() + " --shards 2 --shard 0 " + worker_flags, tmp_, "w0");
    Background w1(Common() + " --shards 2 --shard 1 " + worker_flags, tmp_, "w1");
    for (Background* w : {&w0, &w1}) {
      const RunResult r = w->Wait();
      EXPECT_EQ(r.code, 0) << r.err;
    }
    const RunResult cr = c.Wait();
    ASSERT_EQ(cr.code, 0) << cr.err;
    EXPECT_NE(cr.out.find("dumped 7 tables"), std::string::npos) << cr.out;
  }

  TempDir tmp_;
  const std::string db_ = tmp_.Sub("app.sqlite");
  const std::string out_ = tmp_.Sub("dump");
};

TEST_F(ScaleOutSqliteTest, CoordinatorHoldsTheReadLockSoEveryWorkerReadsOneState) {
  MakeDatabase(/*wal=*/false);
  const auto before = Counts();
  RunSharded("", "", [&] {
    // The coordinator's SHARED lock: a writer cannot commit while the workers have to read.
    EXPECT_EQ(TryInsert(300), SQLITE_BUSY);
    // The plan names the content the workers check they read.
    const json plan = json::parse(ReadFile(out_ + "/_plan.json"), nullptr, false);
    ASSERT_TRUE(plan.is_object());
    EXPECT_EQ(plan.value("snapshot_id", "").rfind("sqlite-", 0), 0u) << plan;
    // A worker with --no-snapshot does not fit a plan with a snapshot.
    ExpectOneLineError(RunLakedump(Common() + " --shards 2 --shard 0 --no-snapshot", tmp_, 60),
                       2, "no_snapshot");
  });
  EXPECT_EQ(ManifestRows(), before);
  const json m = json::parse(ReadFile(out_ + "/_manifest.json"));
  EXPECT_EQ(m["single_snapshot"], true);
  EXPECT_EQ(m["source"].value("snapshot_id", "").rfind("sqlite-", 0), 0u) << m["source"];
  // The big table was read as ranges, by the workers.
  for (const json& t : m["tables"]) {
    if (t["table"] == "big") {
      EXPECT_GE(t["files"].get<int>(), 2) << t;
    }
  }
  // Committed: the lock is gone and writers commit again.
  EXPECT_EQ(TryInsert(2000), SQLITE_OK);
  const RunResult v = RunLakedump("verify " + Quote(out_) + " --deep", tmp_, 300);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
}

TEST_F(ScaleOutSqliteTest, WalModeIsRefusedNamingTheFixAndWorksWithNoSnapshot) {
  MakeDatabase(/*wal=*/true);
  const RunResult r = RunLakedump(Common() + " --shards 2 --coordinate", tmp_, 60);
  ExpectOneLineError(r, 2, "WAL mode");
  EXPECT_NE(r.err.find(db_), std::string::npos) << r.err;  // names the file
  EXPECT_NE(r.err.find("--no-snapshot"), std::string::npos) << r.err;
  EXPECT_FALSE(Exists("_plan.json"));
  EXPECT_FALSE(Exists("_manifest.json"));
  RunSharded("--no-snapshot", "--no-snapshot", [] {});
  EXPECT_EQ(ManifestRows(), Counts());
  const json m = json::parse(ReadFile(out_ + "/_manifest.json"));
  EXPECT_EQ(m["no_snapshot"], true);
  EXPECT_EQ(m["single_snapshot"], false);
  EXPECT_EQ(m["source"]["journal_mode"], "wal");
  const RunResult v = RunLakedump("verify " + Quote(out_) + " --deep", tmp_, 300);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
}

TEST_F(ScaleOutSqliteTest, NoSnapshotHoldsNoLockAndTheDumpSaysSo) {
  MakeDatabase(/*wal=*/false);
  RunSharded("--no-snapshot", "--no-snapshot", [&] {
    // The coordinator released its read lock once planned: a writer commits at once...
    EXPECT_EQ(TryInsert(300), SQLITE_OK);
    // ...and a worker without --no-snapshot does not fit the plan.
    ExpectOneLineError(RunLakedump(Common() + " --shards 2 --shard 0", tmp_, 60), 2,
                       "no_snapshot");
  });
  // The workers started after the insert: they read it.
  const auto now = Counts();
  EXPECT_EQ(now.at("t0"), 6u);
  EXPECT_EQ(ManifestRows(), now);
  const json m = json::parse(ReadFile(out_ + "/_manifest.json"));
  EXPECT_EQ(m["no_snapshot"], true);
  EXPECT_EQ(m["single_snapshot"], false);
  EXPECT_EQ(m["options"]["no_snapshot"], true);
  EXPECT_FALSE(m["source"].contains("snapshot_id")) << m["source"];
  const RunResult ls = RunLakedump("ls " + Quote(out_), tmp_, 60);
  EXPECT_EQ(ls.code, 0) << ls.err;
  EXPECT_NE(ls.out.find("snapshot: none (--no-snapshot)"), std::string::npos) << ls.out;
  const RunResult v = RunLakedump("verify " + Quote(out_) + " --deep", tmp_, 300);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
}

TEST_F(ScaleOutSqliteTest, NoSnapshotWithoutShardsIsBadUsage) {
  MakeDatabase(/*wal=*/false);
  ExpectOneLineError(RunLakedump(Common() + " --no-snapshot", tmp_, 60), 2,
                     "--no-snapshot is for sharded dumps");
  EXPECT_FALSE(Exists("_manifest.json"));
}

}  // namespace
}  // namespace lakedump
