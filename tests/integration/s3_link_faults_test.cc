// Issue 17's link faults and issue 16's S3 errors, end to end against radosgw
// (skipped unless LD_TEST_S3_* are set), with tools/faultproxy in front of it:
// an endpoint outage mid-dump, a Complete whose reply is lost or cut short, a
// listing cut short, a 16 KB/s link, gc beside a live slow upload, and one exit
// code and one message per S3 error across dump, ls, verify and load.
// Every run that exits 0 is checked with `verify --deep` straight to radosgw.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/fault_proxy_process.h"
#include "integration/s3_test_env.h"
#include "store/s3/s3_multipart_writer.h"
#include "store/s3/s3_store.h"

namespace lakedump {
namespace {

using testing_cli::ExpectOneLineError;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_s3::Env;

class S3LinkFaultsTest : public testing_cli::DemoDatabaseSuite<S3LinkFaultsTest> {
 public:
  // One data file over 5 MiB (a multipart upload) and a few small tables.
  static constexpr const char* kDemoArgs = "--rows 150000 --small-tables 3 --seed 5";
  static bool SkipDemo() { return Env("LD_TEST_S3_ENDPOINT").empty(); }

 protected:
  void SetUp() override {
    auto s3 = testing_s3::UseTestS3();
    if (!s3) GTEST_SKIP() << "LD_TEST_S3_* not set";
    s3_ = *s3;
    prefix_ = "link-" + std::to_string(::getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }

  std::string Url() const { return "s3://" + s3_.bucket + "/" + prefix_; }
  std::string OpenUploads() const {
    return s3_.Aws("s3api list-multipart-uploads --bucket " + s3_.bucket + " --prefix " + prefix_ +
                       " --query 'Uploads[].Key' --output text",
                   dir_);
  }
  // The dump through `proxy`, then verify --deep straight to radosgw.
  void DumpThroughProxyAndVerify(ProxyProcess& proxy, const std::string& extra = "") {
    ASSERT_TRUE(proxy.ok());
    RunResult r = RunLakedump("dump " + db_ + " " + Url() + " --endpoint " + proxy.endpoint() +
                                  " --upload-parallelism 2 --part-size 5MiB --progress none " +
                                  extra,
                              dir_);
    ASSERT_EQ(r.code, 0) << r.err;
    RunResult v = RunLakedump("verify --deep " + Url() + " --endpoint " + s3_.endpoint, dir_);
    EXPECT_EQ(v.code, 0) << v.out << v.err;
    EXPECT_EQ(OpenUploads(), "None\n");
  }
  StoreOptions Options() const {
    StoreOptions o;
    o.s3.endpoint = s3_.endpoint;
    o.s3.region = Env("LD_TEST_S3_REGION");
    o.s3.part_size = 5ull << 20;
    o.s3.upload_parallelism = 0;
    return o;
  }

  testing_s3::TestS3 s3_;
  std::string prefix_;
};

// A counter from faultproxy's last line ("... lost 3 outages 0"), -1 when absent.
int Counter(const std::string& output, const std::string& name) {
  const size_t at = output.rfind(" " + name + " ");
  return at == std::string::npos ? -1 : std::atoi(output.c_str() + at + name.size() + 2);
}

using testing_s3::RandomBytes;

// The endpoint refuses every connection for 10 s in the middle of the dump
// (established ones are reset): the retry budget (60 s) rides it out.
TEST_F(S3LinkFaultsTest, TenSecondOutageMidDumpRecovers) {
  ProxyProcess proxy(s3_.endpoint, {"--refuse-after-requests", "12", "--refuse-ms", "10000"});
  const auto t0 = std::chrono::steady_clock::now();
  DumpThroughProxyAndVerify(proxy);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::seconds(9));
  proxy.Kill();
  EXPECT_EQ(Counter(proxy.output(), "outages"), 1) << proxy.output();
}

// Complete reaches radosgw, which completes the upload; every reply to it is
// lost (radosgw answers a repeated Complete with 200, AWS with NoSuchUpload: the
// unit tests cover that one). After the last attempt a HEAD (size and multipart
// ETag of the parts sent) settles it: exit 0, and verify --deep passes.
TEST_F(S3LinkFaultsTest, LostCompleteReplyIsCheckedWithHeadAndSucceeds) {
  ProxyProcess proxy(s3_.endpoint, {"--match", "POST", "--match", "?uploadId=", "--lose-response",
                                    "--times", "1000"});
  DumpThroughProxyAndVerify(proxy, "--s3-max-attempts 3");
  proxy.Kill();
  // 3 attempts (libcurl itself resends once on a reused connection that died).
  EXPECT_GE(Counter(proxy.output(), "lost"), 3) << proxy.output();
}

TEST_F(S3LinkFaultsTest, CompleteReplyCutShortIsRetriedThenCheckedWithHead) {
  ProxyProcess proxy(s3_.endpoint, {"--match", "POST", "--match", "?uploadId=",
                                    "--truncate-after", "10", "--times", "1000"});
  DumpThroughProxyAndVerify(proxy, "--s3-max-attempts 3");
  proxy.Kill();
  EXPECT_GE(Counter(proxy.output(), "truncated"), 3) << proxy.output();
}

TEST_F(S3LinkFaultsTest, ListingCutShortIsRetried) {
  ProxyProcess proxy(s3_.endpoint,
                     {"--match", "list-type=2", "--truncate-after", "30", "--times", "2"});
  DumpThroughProxyAndVerify(proxy);
  proxy.Kill();
  EXPECT_EQ(Counter(proxy.output(), "truncated"), 2) << proxy.output();
  // ls through a proxy that cuts its listing and manifest reads as well.
  ProxyProcess again(s3_.endpoint, {"--match", "GET", "--truncate-after", "5", "--times", "3"});
  ASSERT_TRUE(again.ok());
  RunResult ls = RunLakedump("ls " + Url() + " --endpoint " + again.endpoint(), dir_);
  EXPECT_EQ(ls.code, 0) << ls.err;
}

// A 16 KB/s link: an object that takes ~30 s goes through in one go with a 10 s
// rate window (a wall-clock cap of that length would cut it), the body waiting
// in the socket buffer included; a link below the minimum rate fails as "too slow".
TEST_F(S3LinkFaultsTest, SixteenKBLinkFinishesATransferLongerThanTheWindow) {
  ProxyProcess proxy(s3_.endpoint, {"--conn-rate", "16KB"});
  ASSERT_TRUE(proxy.ok());
  StoreOptions o = Options();
  o.s3.endpoint = proxy.endpoint();
  o.s3.min_rate = 4096;
  o.s3.min_rate_window = std::chrono::seconds(10);
  auto store = OpenS3Store(Url(), o);
  ASSERT_TRUE(store.ok());
  const std::string data = RandomBytes(480 << 10, 3);
  const auto t0 = std::chrono::steady_clock::now();
  Status s = (*store)->PutObject("slow.bin", data);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::seconds(25));
  EXPECT_EQ((*store)->Stats().retries, 0u);  // in one go, not restarted
  auto direct = OpenS3Store(Url(), Options());
  auto back = (*direct)->GetObject("slow.bin");
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(*back == data);

  ProxyProcess crawl(s3_.endpoint, {"--conn-rate", "1KB"});
  ASSERT_TRUE(crawl.ok());
  o.s3.endpoint = crawl.endpoint();
  o.s3.min_rate_window = std::chrono::seconds(3);
  o.s3.max_attempts = 2;
  auto slow = OpenS3Store(Url(), o);
  ASSERT_TRUE(slow.ok());
  s = (*slow)->PutObject("crawl.bin", data);
  EXPECT_EQ(s.code(), Code::kUnavailable) << s.ToString();
  EXPECT_NE(s.message().find("--s3-min-rate"), std::string::npos) << s.message();
}

// The part of issue 17 as found: a 5 MiB part at 16 KB/s takes ~330 s, over the
// old fixed 300 s limit per request. Takes 6 minutes (scripts/test --quick leaves it out).
TEST_F(S3LinkFaultsTest, SixteenKBLinkFinishesAFiveMiBPart) {
  if (!Env("LD_TEST_QUICK").empty()) GTEST_SKIP() << "6 minutes: left out by scripts/test --quick";
  ProxyProcess proxy(s3_.endpoint, {"--conn-rate", "16KB"});
  ASSERT_TRUE(proxy.ok());
  StoreOptions o = Options();
  o.s3.endpoint = proxy.endpoint();
  auto store = OpenS3Store(Url(), o);
  ASSERT_TRUE(store.ok());
  const std::string data = RandomBytes((5 << 20) + 1, 4);  // a 5 MiB part and 1 byte
  Status s = (*store)->PutObject("part.bin", data);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ((*store)->Stats().retries, 0u);
  auto back = OpenS3Store(Url(), Options()).value()->GetObject("part.bin");
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(*back == data);
}

// One exit code and a message naming the cause, for every command.
TEST_F(S3LinkFaultsTest, S3ErrorsHaveOneExitCodeAndNameTheCauseOnEveryCommand) {
  // A dump to read from.
  ASSERT_EQ(RunLakedump("dump " + db_ + " " + Url() + " --endpoint " + s3_.endpoint +
                            " --progress none",
                        dir_)
                .code,
            0);
  const std::string target = dir_.Sub("target.sqlite");
  const std::string flags = " --endpoint " + s3_.endpoint;
  auto commands = [&](const std::string& url) {
    return std::vector<std::string>{"dump " + db_ + " " + url + "-new" + flags, "ls " + url + flags,
                                    "verify " + url + flags, "load " + url + " " + target + flags};
  };
  setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret-0123456789", 1);
  for (const std::string& c : commands(Url())) {
    SCOPED_TRACE(c);
    RunResult r = RunLakedump(c, dir_);
    ExpectOneLineError(r, 1, "SignatureDoesNotMatch");
    EXPECT_EQ(r.err.find("not-the-secret"), std::string::npos);
  }
  setenv("AWS_SECRET_ACCESS_KEY", s3_.secret.c_str(), 1);
  const std::string missing = "s3://no-such-bucket-" + std::to_string(::getpid()) + "/x";
  for (const std::string& c : commands(missing)) {
    SCOPED_TRACE(c);
    ExpectOneLineError(RunLakedump(c, dir_), 1,
                       "bucket 'no-such-bucket-" + std::to_string(::getpid()) + "' does not exist");
  }
  const std::string id = Env("AWS_ACCESS_KEY_ID");
  unsetenv("AWS_ACCESS_KEY_ID");
  unsetenv("AWS_SECRET_ACCESS_KEY");
  setenv("AWS_SHARED_CREDENTIALS_FILE", dir_.Sub("none").c_str(), 1);
  setenv("AWS_CONFIG_FILE", dir_.Sub("none").c_str(), 1);
  for (const std::string& c : commands(Url())) {
    SCOPED_TRACE(c);
    ExpectOneLineError(RunLakedump(c, dir_), 2, "credentials");
  }
  unsetenv("AWS_SHARED_CREDENTIALS_FILE");
  unsetenv("AWS_CONFIG_FILE");
  setenv("AWS_ACCESS_KEY_ID", id.c_str(), 1);
  setenv("AWS_SECRET_ACCESS_KEY", s3_.secret.c_str(), 1);
}

// SIGINT while a multipart upload is open and the endpoint has just gone away: the
// abort cannot reach the server, so the upload stays there, invisible to ls and
// verify. The one error line says so and names the command that removes it
// (`lakedump gc DEST`), which then does.
TEST_F(S3LinkFaultsTest, InterruptedWithAnUploadItCannotAbortNamesGc) {
  ProxyProcess proxy(s3_.endpoint, {"--conn-rate", "400KB"});
  ASSERT_TRUE(proxy.ok());
  const std::string err_file = dir_.Sub("dump.err");
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const int out = open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, 2);
    const int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    const std::string endpoint = proxy.endpoint();
    const std::string url = Url();
    execl(LAKEDUMP_BINARY, LAKEDUMP_BINARY, "dump", db_.c_str(), url.c_str(), "--endpoint",
          endpoint.c_str(), "--part-size", "5MiB", "--upload-parallelism", "1",
          "--s3-max-attempts", "2", "--s3-retry-budget", "2s", "--progress", "none",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait for an open upload (listed straight from radosgw), then cut the link and interrupt.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::string open = OpenUploads();
  while (open == "None\n" && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    open = OpenUploads();
  }
  proxy.Kill();
  ASSERT_NE(open, "None\n") << "no multipart upload seen";
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  const std::string err = testing_cli::ReadFile(err_file);
  EXPECT_NE(err.find("multipart upload could not be aborted: run lakedump gc " + Url()),
            std::string::npos)
      << err;
  // gc, straight to radosgw, removes it (and the lease the dead link kept is stale).
  RunResult gc = RunLakedump("gc " + Url() + " --older-than 0s --endpoint " + s3_.endpoint, dir_);
  EXPECT_EQ(gc.code, 0) << gc.out << gc.err;
  EXPECT_EQ(OpenUploads(), "None\n");
}

}  // namespace
}  // namespace lakedump
