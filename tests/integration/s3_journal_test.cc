// What lakedump may delete on S3 (docs/dump-format.md, "The run journal"), against radosgw in a
// bucket of this test's own (journal-<pid>): another team's dump at the bucket root survives a
// dump's overwrite, resume and gc there; a live run's multipart upload survives gc, a dead
// run's (by its journal) does not; an interrupted first dump leaves no upload behind.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/fault_proxy_process.h"
#include "integration/s3_test_env.h"

namespace lakedump {
namespace {

using json = nlohmann::json;
using testing_cli::ExpectOneLineError;
using testing_cli::ReadFile;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_cli::WriteFile;

class S3JournalTest : public testing_cli::DemoDatabaseSuite<S3JournalTest> {
 public:
  // One data file over 5 MiB: a multipart upload.
  static constexpr const char* kDemoArgs = "--rows 150000 --small-tables 2 --seed 7";
  static bool SkipDemo() { return testing_s3::Env("LD_TEST_S3_ENDPOINT").empty(); }

 protected:
  void SetUp() override {
    auto s3 = testing_s3::UseTestS3();
    if (!s3) GTEST_SKIP() << "LD_TEST_S3_* not set";
    s3_ = *s3;
    bucket_ = "journal-" + std::to_string(::getpid()) + "-" +
              std::to_string(++bucket_count_);
    int rc = 0;
    const std::string made = Aws("s3 mb s3://" + bucket_, &rc);
    ASSERT_EQ(rc, 0) << made;
  }
  void TearDown() override {
    if (bucket_.empty()) return;
    const std::string uploads = Aws("s3api list-multipart-uploads --bucket " + bucket_ +
                                    " --query 'Uploads[].[Key,UploadId]' --output text");
    std::istringstream lines(uploads);
    std::string key, id;
    while (lines >> key >> id) {
      Aws("s3api abort-multipart-upload --bucket " + bucket_ + " --key " + key + " --upload-id " + id);
    }
    Aws("s3 rb --force s3://" + bucket_);
  }

  std::string Aws(const std::string& args, int* rc = nullptr) const {
    return s3_.Aws(args, dir_, rc);
  }
  std::string Flags() const { return GcFlags() + " --progress none"; }
  std::string GcFlags() const { return " --endpoint " + s3_.endpoint; }
  std::string Root() const { return "s3://" + bucket_; }
  std::vector<std::string> Keys() const {
    const std::string out = Aws("s3api list-objects-v2 --bucket " + bucket_ +
                                " --query 'Contents[].Key' --output text");
    std::vector<std::string> keys;
    std::istringstream words(out);
    for (std::string k; words >> k;) {
      if (k != "None") keys.push_back(k);
    }
    std::sort(keys.begin(), keys.end());
    return keys;
  }
  std::string Uploads() const {
    return Aws("s3api list-multipart-uploads --bucket " + bucket_ +
               " --query 'Uploads[].Key' --output text");
  }
  void PutText(const std::string& key, const std::string& text) {
    const std::string file = dir_.Sub("put.txt");
    WriteFile(file, text);
    int rc = 0;
    const std::string out = Aws("s3 cp " + file + " s3://" + bucket_ + "/" + key, &rc);
    ASSERT_EQ(rc, 0) << out;
  }
  // A multipart upload of `key` as a run would start it; its id.
  std::string StartUpload(const std::string& key) {
    int rc = 0;
    const std::string out = Aws("s3api create-multipart-upload --bucket " + bucket_ +
                                    " --key " + key + " --output json",
                                &rc);
    EXPECT_EQ(rc, 0) << out;
    return json::parse(out)["UploadId"];
  }
  // The lease of run `run` on another host, renewed `ago` before now.
  void PutLease(const std::string& prefix, const std::string& run, std::chrono::seconds ago) {
    const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    const json lease = {{"format", "lakedump-dump"}, {"kind", "lease"}, {"run_id", run},
                        {"host", "another-host"},    {"pid", 4242},
                        {"started_at", "2026-12-05T04:00:00.000Z"},
                        {"renewed_unix_ms", now_ms - ago.count() * 1000},
                        {"renew_interval_ms", 10000}};
    PutText(prefix + "_lease.json", lease.dump());
  }
  void PutJournal(const std::string& prefix, const std::string& run, const std::string& folder) {
    const json batch = {{"format", "lakedump-run-journal"}, {"format_version", 1},
                        {"run_id", run}, {"seq", 1}, {"keys", json::array()},
                        {"table_folders", {folder}}, {"uploads", json::array()}};
    PutText(prefix + "_runs/" + run + "/journal-000001.json", batch.dump());
  }

  testing_s3::TestS3 s3_;
  std::string bucket_;
  static inline int bucket_count_ = 0;
};

// Another team's dump under teamB/ and a file of theirs: a dump at the bucket root refuses
// the bucket (fail, overwrite, resume), the dry run and gc delete nothing of theirs.
TEST_F(S3JournalTest, AnotherTeamsDumpAtTheBucketRootSurvives) {
  RunResult r = RunLakedump("dump " + db_ + " " + Root() + "/teamB" + Flags(), dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  PutText("notes/readme.txt", "team B's notes");
  const std::vector<std::string> before = Keys();
  r = RunLakedump("dump " + db_ + " " + Root() + Flags(), dir_);
  ExpectOneLineError(r, 1, "that no lakedump run wrote");
  EXPECT_EQ(r.err.find("overwrite"), std::string::npos) << r.err;
  for (const char* mode : {"overwrite", "resume"}) {
    r = RunLakedump("dump " + db_ + " " + Root() + Flags() + " --if-exists " + mode, dir_);
    ExpectOneLineError(r, 2, "that no lakedump run wrote (e.g. notes/readme.txt, teamB/");
  }
  r = RunLakedump("dump " + db_ + " " + Root() + Flags() +
                      " --if-exists overwrite --delete-foreign --dry-run",
                  dir_);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("would delete teamB/_manifest.json"), std::string::npos) << r.out;
  r = RunLakedump("gc " + Root() + GcFlags() + " --older-than 0s", dir_);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("nothing deleted"), std::string::npos) << r.out;
  EXPECT_EQ(Keys(), before);
  r = RunLakedump("verify " + Root() + "/teamB --endpoint " + s3_.endpoint, dir_);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
}

// gc never aborts an upload that a live run's journal names (its lease is fresh), even one
// started long before --older-than; it aborts a dead run's (stale lease) at any age, and
// leaves an upload no journal names (someone else's) alone.
TEST_F(S3JournalTest, LiveRunsUploadSurvivesGcDeadRunsDoesNot) {
  const std::string run = "20261205T040000Z-0a1b2c3d";
  const std::string prefix = "dumps/app/";
  PutJournal(prefix, run, "main/t/");
  PutLease(prefix, run, std::chrono::seconds(1));
  StartUpload(prefix + "main/t/part-0000-00000-" + run + ".parquet");
  StartUpload(prefix + "main/t/other-tool.bin");
  const std::string url = Root() + "/dumps/app";
  RunResult r = RunLakedump("gc " + url + GcFlags() + " --older-than 0s", dir_);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(Uploads().find("part-0000-00000-" + run), std::string::npos) << r.out;
  // The run dies: its lease goes stale. gc aborts its upload though it is young.
  PutLease(prefix, run, std::chrono::seconds(120));
  r = RunLakedump("gc " + url + GcFlags(), dir_);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(Uploads().find("part-0000-00000-" + run), std::string::npos) << r.out;
  EXPECT_NE(Uploads().find("other-tool.bin"), std::string::npos) << r.out;
}

// SIGINT during a first dump: no multipart upload of the run stays behind, and a sibling
// prefix's object is untouched.
// Interrupted while its multipart upload is open: the upload is aborted, nothing else touched.
// The dump goes through a 1 MB/s link, so its 5 MiB part is in flight for seconds (on the
// loopback it can be over between two listings, and the test would prove nothing).
TEST_F(S3JournalTest, InterruptedFirstDumpLeavesNoUpload) {
  PutText("keep/me.txt", "not lakedump's");
  ProxyProcess slow(s3_.endpoint, {"--conn-rate", "1MB"});
  ASSERT_TRUE(slow.ok());
  const std::string url = Root() + "/app";
  const std::string err_file = dir_.Sub("dump.err");
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const int out = open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, 2);
    const std::string endpoint = slow.endpoint();
    execl(LAKEDUMP_BINARY, LAKEDUMP_BINARY, "dump", db_.c_str(), url.c_str(), "--endpoint",
          endpoint.c_str(), "--part-size", "5MiB", "--upload-parallelism", "1",
          "--progress", "none", static_cast<char*>(nullptr));
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  bool seen = false;
  int status = 0;
  bool exited = false;
  while (std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      break;
    }
    if (Uploads() != "None\n") {
      seen = true;
      break;
    }
  }
  if (!exited) {
    kill(pid, SIGINT);
    waitpid(pid, &status, 0);
  }
  ASSERT_TRUE(seen) << "the dump's multipart upload was never seen open: " << ReadFile(err_file);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_NE(WEXITSTATUS(status), 0);
  EXPECT_EQ(Uploads(), "None\n") << ReadFile(err_file);
  EXPECT_EQ(Aws("s3 cp s3://" + bucket_ + "/keep/me.txt -"), "not lakedump's");
}

}  // namespace
}  // namespace lakedump
