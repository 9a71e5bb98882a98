// One way to open a store: every command that takes a store URL (dump, load, verify, ls, gc)
// answers the same bad URL with the same exit code and the same one-line message.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"

namespace lakedump {
namespace {

using namespace testing_cli;

class StoreUrlCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ = new TempDir();
    db_ = tmp_->Sub("demo.sqlite");
    RunResult r = RunLakedump("demo " + Quote(db_) + " --rows 1000", *tmp_);
    ASSERT_EQ(r.code, 0) << r.err;
    regular_file_ = tmp_->Sub("a-regular-file");
    WriteFile(regular_file_, "not a folder\n");
  }
  static void TearDownTestSuite() {
    delete tmp_;
    tmp_ = nullptr;
  }

  // Each command with `url` as its store; the other arguments are valid.
  std::map<std::string, RunResult> RunEveryCommand(const std::string& url) {
    const std::string q = Quote(url);
    std::map<std::string, RunResult> out;
    out["dump"] = RunLakedump("dump " + Quote(db_) + " " + q + " --progress none", dir_);
    out["load"] = RunLakedump("load " + q + " " + Quote(dir_.Sub("target.sqlite")), dir_);
    out["verify"] = RunLakedump("verify " + q, dir_);
    out["ls"] = RunLakedump("ls " + q, dir_);
    out["gc"] = RunLakedump("gc " + q, dir_);
    out["compact"] = RunLakedump("compact " + q, dir_);
    return out;
  }

  static TempDir* tmp_;
  static std::string db_;
  static std::string regular_file_;
  TempDir dir_;
};
TempDir* StoreUrlCliTest::tmp_ = nullptr;
std::string StoreUrlCliTest::db_;
std::string StoreUrlCliTest::regular_file_;

TEST_F(StoreUrlCliTest, EveryCommandAnswersABadUrlAlike) {
  for (const std::string& url :
       {std::string("s3://"), std::string("s3:///x"), std::string("ftp://x"),
        std::string("file://relative?"), std::string("s3:/bucket"), regular_file_}) {
    SCOPED_TRACE(url);
    std::map<std::string, RunResult> results = RunEveryCommand(url);
    const RunResult& first = results.begin()->second;
    ExpectOneLineError(first, 2, "");
    for (const auto& [command, r] : results) {
      EXPECT_EQ(r.code, first.code) << command << ": " << r.err;
      EXPECT_EQ(r.err, first.err) << command;
    }
    EXPECT_FALSE(std::filesystem::exists(dir_.Sub("target.sqlite")));
  }
}

}  // namespace
}  // namespace lakedump
