// Exit 0 means a correct dump (issue 17) on a real S3 endpoint (radosgw; skipped
// unless LD_TEST_S3_* are set): two dumps started together on one prefix, and a
// dump overlapping a resume, in a loop: exactly one commits, verify --deep passes
// and a load gives its own source's rows; the lease is gone after every run; a
// lease object written by another party (awscli) keeps a dump out.
#include <gtest/gtest.h>

#include <thread>

#include <nlohmann/json.hpp>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/s3_test_env.h"

namespace lakedump {
namespace {

using json = nlohmann::json;
using testing_cli::ExpectOneLineError;
using testing_cli::ReadFile;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_cli::RunTogether;
using testing_cli::WriteFile;

class S3CommitCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (testing_s3::Env("LD_TEST_S3_ENDPOINT").empty()) return;
    tmp_ = new TempDir();
    one_ = tmp_->Sub("one.sqlite");
    two_ = tmp_->Sub("two.sqlite");
    ASSERT_EQ(RunLakedump("demo " + one_ + " --rows 6000 --small-tables 4 --seed 1", *tmp_).code,
              0);
    ASSERT_EQ(RunLakedump("demo " + two_ + " --rows 3000 --small-tables 2 --seed 2", *tmp_).code,
              0);
    for (const std::string& db : {one_, two_}) {
      const std::string fresh = tmp_->Sub("fresh-" + std::filesystem::path(db).stem().string());
      ASSERT_EQ(RunLakedump("dump " + db + " " + fresh + " --progress none", *tmp_).code, 0);
      rows_[db] = json::parse(ReadFile(fresh + "/_manifest.json"))["totals"]["rows"];
    }
  }
  static void TearDownTestSuite() {
    delete tmp_;
    tmp_ = nullptr;
  }
  void SetUp() override {
    auto s3 = testing_s3::UseTestS3();
    if (!s3) GTEST_SKIP() << "LD_TEST_S3_* not set";
    s3_ = *s3;
    prefix_ = "commit-" + std::to_string(::getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }
  std::string Url(const std::string& sub) const {
    return "s3://" + s3_.bucket + "/" + prefix_ + "/" + sub;
  }
  std::string Flags() const { return " --endpoint " + s3_.endpoint + " --progress none"; }

  // verify --deep passes; a load into SQLite gives `source`'s rows; no lease is left.
  void ExpectGoodDumpOf(const std::string& url, const std::string& source) {
    RunResult v = RunLakedump("verify " + url + " --deep --endpoint " + s3_.endpoint, dir_);
    EXPECT_EQ(v.code, 0) << v.out << v.err;
    const std::string target = dir_.Sub("loaded.sqlite");
    std::filesystem::remove(target);
    RunResult l = RunLakedump("load " + url + " " + target + " --json --endpoint " + s3_.endpoint,
                              dir_);
    ASSERT_EQ(l.code, 0) << l.err;
    EXPECT_EQ(json::parse(l.out)["rows"], rows_[source]);
    int rc = 0;
    s3_.Aws("s3api head-object --bucket " + s3_.bucket + " --key " +
                url.substr(("s3://" + s3_.bucket + "/").size()) + "/_lease.json",
            dir_, &rc);
    EXPECT_NE(rc, 0) << "the lease outlived the run";
  }

  static bool Refused(const RunResult& r) {
    return r.code == 1 && (r.err.find("is being written by another lakedump: run ") !=
                               std::string::npos ||
                           r.err.find("already holds a dump") != std::string::npos ||
                           r.err.find("is not empty") != std::string::npos);
  }

  static TempDir* tmp_;
  static std::string one_, two_;
  static std::map<std::string, json> rows_;
  testing_s3::TestS3 s3_;
  std::string prefix_;
  TempDir dir_;
};
TempDir* S3CommitCliTest::tmp_ = nullptr;
std::string S3CommitCliTest::one_, S3CommitCliTest::two_;
std::map<std::string, json> S3CommitCliTest::rows_;

TEST_F(S3CommitCliTest, TwoDumpsStartedTogetherExactlyOneCommitsItsOwnSource) {
  int named_holder = 0;
  for (int round = 0; round < 10; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::string url = Url("race-" + std::to_string(round));
    auto [a, b] = RunTogether("dump " + one_ + " " + url + Flags(),
                              "dump " + two_ + " " + url + Flags());
    ASSERT_NE(a.code == 0, b.code == 0) << a.err << " / " << b.err;
    const RunResult& lost = a.code == 0 ? b : a;
    EXPECT_TRUE(Refused(lost)) << lost.err;
    if (lost.err.find("(host ") != std::string::npos) ++named_holder;
    ExpectGoodDumpOf(url, a.code == 0 ? one_ : two_);
  }
  EXPECT_GT(named_holder, 0) << "the runs never overlapped";
}

TEST_F(S3CommitCliTest, ADumpAndAResumeOverlappingLeaveOneGoodDump) {
  for (int round = 0; round < 10; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::string url = Url("overlap-" + std::to_string(round));
    ASSERT_EQ(RunLakedump("dump " + one_ + " " + url + Flags(), dir_).code, 0);
    auto [a, b] = RunTogether("dump " + one_ + " " + url + " --if-exists resume" + Flags(),
                              "dump " + two_ + " " + url + " --if-exists overwrite" + Flags());
    EXPECT_TRUE(a.code == 0 || Refused(a)) << a.err;
    EXPECT_TRUE(b.code == 0 || Refused(b)) << b.err;
    RunResult ls = RunLakedump("ls " + url + " --json --endpoint " + s3_.endpoint, dir_);
    ASSERT_EQ(ls.code, 0) << ls.err;
    ExpectGoodDumpOf(url, json::parse(ls.out)["source"]["path"].get<std::string>());
  }
}

TEST_F(S3CommitCliTest, ALeaseWrittenByAnotherPartyKeepsTheDumpOut) {
  const std::string url = Url("held");
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const json lease = {{"format", "lakedump-dump"}, {"kind", "lease"}, {"run_id", "R-other"},
                      {"host", "elsewhere"}, {"pid", 7}, {"started_at", "2026-12-01T00:00:00Z"},
                      {"renewed_unix_ms", now_ms + 60'000}, {"renew_interval_ms", 10'000}};
  WriteFile(dir_.Sub("lease.json"), lease.dump());
  int rc = 0;
  s3_.Aws("s3 cp " + dir_.Sub("lease.json") + " s3://" + s3_.bucket + "/" + prefix_ +
              "/held/_lease.json",
          dir_, &rc);
  ASSERT_EQ(rc, 0);
  ExpectOneLineError(RunLakedump("dump " + two_ + " " + url + Flags(), dir_), 1,
                     "is being written by another lakedump: run R-other (host elsewhere, pid 7");
  s3_.Aws("s3 rm " + url + "/_lease.json", dir_, &rc);
  ASSERT_EQ(RunLakedump("dump " + two_ + " " + url + Flags(), dir_).code, 0);
  ExpectGoodDumpOf(url, two_);
}

}  // namespace
}  // namespace lakedump
