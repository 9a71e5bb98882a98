// Exit 0 means a correct dump (issue 17), end to end with the lakedump binary on
// a local folder: one writer per destination (two runs started together, a
// dump overlapping a resume, a stale lease, SIGINT), and an overwrite that
// cannot be written (a small tmpfs) leaving the old dump whole.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "fakes/cli_run.h"
#include "fakes/fs_events.h"
#include "fakes/temp_dir.h"

namespace lakedump {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace testing_cli;

class CommitCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ = new TempDir();
    one_ = tmp_->Sub("one.sqlite");
    two_ = tmp_->Sub("two.sqlite");
    ASSERT_EQ(RunLakedump("demo " + one_ + " --rows 6000 --small-tables 4 --seed 1", *tmp_).code,
              0);
    ASSERT_EQ(RunLakedump("demo " + two_ + " --rows 3000 --small-tables 2 --seed 2", *tmp_).code,
              0);
  }
  static void TearDownTestSuite() {
    delete tmp_;
    tmp_ = nullptr;
  }
  static TempDir* tmp_;
  static std::string one_, two_;
  TempDir dir_;
};
TempDir* CommitCliTest::tmp_ = nullptr;
std::string CommitCliTest::one_, CommitCliTest::two_;

// `lakedump verify --deep` passes, and a load into SQLite gives the rows of
// `source` (its dump's per-table counts).
void ExpectGoodDumpOf(const std::string& dest, const std::string& source, const TempDir& dir) {
  RunResult v = RunLakedump("verify " + dest + " --deep", dir);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
  const std::string target = dir.Sub("loaded-" + std::to_string(::getpid()) + ".sqlite");
  fs::remove(target);
  RunResult l = RunLakedump("load " + dest + " " + target + " --json", dir);
  ASSERT_EQ(l.code, 0) << l.err;
  // The source's own row count, by a fresh dump of it.
  const std::string fresh = dir.Sub("fresh-" + fs::path(source).stem().string());
  if (!fs::exists(fresh + "/_manifest.json")) {
    ASSERT_EQ(RunLakedump("dump " + source + " " + fresh + " --progress none", dir).code, 0);
  }
  const json want = json::parse(ReadFile(fresh + "/_manifest.json"));
  EXPECT_EQ(json::parse(l.out)["rows"], want["totals"]["rows"]);
  EXPECT_EQ(json::parse(ReadFile(dest + "/_manifest.json"))["source"]["path"], source);
  EXPECT_FALSE(fs::exists(dest + "/_lease.json"));
}

bool RefusedForTheOtherRun(const RunResult& r) {
  return r.code == 1 && (r.err.find("is being written by another lakedump: run ") !=
                             std::string::npos ||
                         r.err.find("already holds a dump") != std::string::npos ||
                         r.err.find("is not empty") != std::string::npos);
}

TEST_F(CommitCliTest, TwoDumpsStartedTogetherExactlyOneCommitsItsOwnSource) {
  int named_holder = 0;
  for (int round = 0; round < 10; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::string dest = dir_.Sub("race-" + std::to_string(round));
    auto [a, b] = RunTogether("dump " + one_ + " " + dest + " --progress none",
                              "dump " + two_ + " " + dest + " --progress none");
    ASSERT_NE(a.code == 0, b.code == 0) << a.err << " / " << b.err;
    const RunResult& lost = a.code == 0 ? b : a;
    EXPECT_TRUE(RefusedForTheOtherRun(lost)) << lost.err;
    ExpectOneLineError(lost, 1, "");
    if (lost.err.find("(host ") != std::string::npos) ++named_holder;
    ExpectGoodDumpOf(dest, a.code == 0 ? one_ : two_, dir_);
  }
  EXPECT_GT(named_holder, 0) << "the runs never overlapped";
}

TEST_F(CommitCliTest, ADumpAndAResumeOverlappingLeaveOneGoodDump) {
  for (int round = 0; round < 10; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::string dest = dir_.Sub("overlap-" + std::to_string(round));
    // An interrupted dump of `one` to resume (a committed one is just as good a start).
    ASSERT_EQ(RunLakedump("dump " + one_ + " " + dest + " --progress none", dir_).code, 0);
    auto [a, b] = RunTogether(
        "dump " + one_ + " " + dest + " --if-exists resume --progress none",
        "dump " + two_ + " " + dest + " --if-exists overwrite --progress none");
    EXPECT_TRUE(a.code == 0 || RefusedForTheOtherRun(a)) << a.err;
    EXPECT_TRUE(b.code == 0 || RefusedForTheOtherRun(b)) << b.err;
    // Whichever committed last, the dump is whole and is its source's.
    const json m = json::parse(ReadFile(dest + "/_manifest.json"));
    ExpectGoodDumpOf(dest, m["source"]["path"].get<std::string>(), dir_);
  }
}

TEST_F(CommitCliTest, AStaleLeaseIsTakenOverOnlyByResume) {
  const std::string dest = dir_.Sub("stale");
  fs::create_directories(dest);
  // The binary judges the lease by the real clock.
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          SystemClock().WallNow().time_since_epoch())
                          .count();
  const json lease = {{"format", "lakedump-dump"}, {"kind", "lease"},
                      {"run_id", "20261201T000000Z-deadbeef"}, {"host", "elsewhere"},
                      {"pid", 1}, {"started_at", "2026-12-01T00:00:00.000Z"},
                      {"renewed_unix_ms", now_ms - 60'000}, {"renew_interval_ms", 10'000}};
  WriteFile(dest + "/_lease.json", lease.dump());
  RunResult plain = RunLakedump("dump " + two_ + " " + dest + " --progress none", dir_);
  ExpectOneLineError(plain, 1, "run 20261201T000000Z-deadbeef (host elsewhere, pid 1");
  EXPECT_NE(plain.err.find("take it over with --if-exists resume"), std::string::npos);
  RunResult over = RunLakedump(
      "dump " + two_ + " " + dest + " --if-exists overwrite --progress none", dir_);
  EXPECT_EQ(over.code, 1) << over.err;
  RunResult resumed = RunLakedump(
      "dump " + two_ + " " + dest + " --if-exists resume --progress none", dir_);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  ExpectGoodDumpOf(dest, two_, dir_);

  // A live lease (renewed just now): refused even by resume, or waited for.
  WriteFile(dest + "/_lease.json", lease.dump());
  json fresh = lease;
  fresh["renewed_unix_ms"] = now_ms + 120'000;
  WriteFile(dest + "/_lease.json", fresh.dump());
  RunResult live = RunLakedump(
      "dump " + two_ + " " + dest + " --if-exists resume --progress none", dir_);
  ExpectOneLineError(live, 1, "is being written by another lakedump");
  RunResult waited = RunLakedump(
      "dump " + two_ + " " + dest + " --if-exists resume --wait-for-lock=1s --progress none",
      dir_);
  ExpectOneLineError(waited, 1, "is being written by another lakedump");
  fs::remove(dest + "/_lease.json");
}

TEST_F(CommitCliTest, SigintDeletesTheLeaseAndKeepsTheOldDump) {
  const std::string dest = dir_.Sub("sigint");
  ASSERT_EQ(RunLakedump("dump " + two_ + " " + dest + " --progress none", dir_).code, 0);
  const std::string old_manifest = ReadFile(dest + "/_manifest.json");
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    execl(LAKEDUMP_BINARY, LAKEDUMP_BINARY, "dump", one_.c_str(), dest.c_str(), "--if-exists",
          "overwrite", "--table-parallelism", "1", "--batch-rows", "100", "--progress", "none",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  WaitForFiles(dest, /*recursive=*/false, pid, [&] { return fs::exists(dest + "/_lease.json"); });
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_FALSE(fs::exists(dest + "/_lease.json"));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) GTEST_SKIP() << "finished before SIGINT";
  EXPECT_EQ(ReadFile(dest + "/_manifest.json"), old_manifest);
  ExpectGoodDumpOf(dest, two_, dir_);
}

TEST_F(CommitCliTest, OverwriteOnAFullDiskLeavesTheOldDumpWhole) {
  const std::string mnt = dir_.Sub("small-disk");
  fs::create_directories(mnt);
  if (geteuid() != 0 ||
      std::system(("mount -t tmpfs -o size=1m tmpfs " + mnt + " 2>/dev/null").c_str()) != 0) {
    GTEST_SKIP() << "cannot mount a small tmpfs here (not root?)";
  }
  struct Unmount {
    std::string path;
    ~Unmount() { EXPECT_EQ(std::system(("umount " + path).c_str()), 0); }
  } unmount{mnt};
  const std::string dest = mnt + "/dump";
  // A small dump fits; the bigger source does not fit beside it.
  const std::string small = dir_.Sub("small.sqlite");
  ASSERT_EQ(RunLakedump("demo " + small + " --rows 500 --small-tables 1 --seed 5", dir_).code, 0);
  RunResult first = RunLakedump("dump " + small + " " + dest + " --progress none", dir_);
  ASSERT_EQ(first.code, 0) << first.err;
  const std::string big = dir_.Sub("big.sqlite");
  ASSERT_EQ(RunLakedump("demo " + big + " --rows 100000 --small-tables 2 --seed 6", dir_).code,
            0);
  RunResult over = RunLakedump(
      "dump " + big + " " + dest + " --if-exists overwrite --compression none --progress none",
      dir_);
  ExpectOneLineError(over, 1, "");
  ExpectGoodDumpOf(dest, small, dir_);
}

// What a killed run leaves (a hidden temp file of a write it never finished) is no
// part of the dump: `verify` says so, naming it, and still passes the dump; the next
// `--if-exists resume` or `overwrite` (which holds the lease, so no live run owns
// it) removes it; a plain `dump` into a fresh folder has none to remove.
TEST_F(CommitCliTest, UnfinishedWritesAreListedByVerifyAndCleanedByTheNextRun) {
  for (const std::string mode : {"resume", "overwrite"}) {
    SCOPED_TRACE(mode);
    const std::string dest = dir_.Sub("unfinished-" + mode);
    ASSERT_EQ(RunLakedump("dump " + two_ + " " + dest + " --progress none", dir_).code, 0);
    const json m = json::parse(ReadFile(dest + "/_manifest.json"));
    const std::string table_dir =
        fs::path(dest + "/" + m["tables"][0]["key"].get<std::string>()).parent_path().string();
    // A data file's temp file of a dead run (of a lakedump before the run journal: no journal
    // names it, its name is of the dump's shapes).
    const std::string dead =
        table_dir + "/.part-0000-00000-20261101T000000Z-0000dead.parquet.tmp-deadrun01";
    WriteFile(dead, std::string(1000, 'x'));
    // Another run's lease being created right now is alive: never swept from under it.
    const std::string contender = dest + "/._lease.json.tmp-contender";
    WriteFile(contender, "{}");

    RunResult v = RunLakedump("verify " + dest, dir_);
    EXPECT_EQ(v.code, 0) << v.out << v.err;
    EXPECT_NE(v.out.find("WARNING unfinished write (no part of the dump; lakedump gc removes it): "),
              std::string::npos)
        << v.out;
    EXPECT_NE(v.out.find(".parquet.tmp-deadrun01"), std::string::npos) << v.out;
    RunResult vj = RunLakedump("verify " + dest + " --json", dir_);
    ASSERT_EQ(vj.code, 0) << vj.out << vj.err;
    EXPECT_EQ(json::parse(vj.out)["unfinished_writes"].size(), 2u) << vj.out;

    RunResult again = RunLakedump(
        "dump " + two_ + " " + dest + " --if-exists " + mode + " --progress none --json", dir_);
    ASSERT_EQ(again.code, 0) << again.out << again.err;
    EXPECT_EQ(json::parse(again.out)["removed_unfinished_writes"], 1) << again.out;
    EXPECT_FALSE(fs::exists(dead));
    EXPECT_TRUE(fs::exists(contender));
    fs::remove(contender);
    RunResult after = RunLakedump("verify " + dest + " --json", dir_);
    ASSERT_EQ(after.code, 0) << after.out << after.err;
    EXPECT_TRUE(json::parse(after.out)["unfinished_writes"].empty()) << after.out;
    ExpectGoodDumpOf(dest, two_, dir_);
  }
}

}  // namespace
}  // namespace lakedump
