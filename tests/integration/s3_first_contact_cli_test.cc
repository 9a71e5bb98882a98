// Fast first contact and prompt interrupts, end to end through the lakedump binary
// (docs/s3.md): a bad bucket name or an endpoint without a scheme is a usage error (exit 2)
// before any request; a closed port fails with one short line; a hostile endpoint's endless
// listing fails bounded; SIGTERM ends a run stuck on an endpoint that never answers, although
// its retry budget and rate window are 600 s (the bound asserted is a generous watchdog).
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>

#include <chrono>
#include <string>

#include "fakes/cli_run.h"
#include "fakes/raw_http_server.h"
#include "fakes/temp_dir.h"
#include "integration/lakedump_process.h"

namespace lakedump {
namespace {

using testing_cli::Background;
using testing_cli::ExpectOneLineError;
using testing_cli::RunLakedump;

class S3FirstContactCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Any credentials: no request of these tests reaches a real S3.
    setenv("AWS_ACCESS_KEY_ID", "AKIDFIRSTCONTACT", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "first-contact-secret", 1);
    setenv("AWS_REGION", "us-east-1", 1);
    unsetenv("AWS_ENDPOINT_URL");
    unsetenv("AWS_ENDPOINT_URL_S3");
    db_ = tmp_.Sub("small.db");
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db_.c_str(), &h), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(h, "CREATE TABLE t(a INTEGER); INSERT INTO t VALUES (1), (2);",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(h);
  }
  TempDir tmp_;
  std::string db_;
};

TEST_F(S3FirstContactCliTest, BadBucketNamesAreUsageErrors) {
  for (const std::string bucket : {"Upper-Case", "ab", "my..bucket", "192.168.5.4", "xn--abc",
                                   "under_score"}) {
    auto r = RunLakedump("ls s3://" + bucket + "/x --endpoint http://127.0.0.1:9", tmp_);
    ExpectOneLineError(r, 2, "invalid S3 bucket name");
    auto d = RunLakedump("dump " + db_ + " s3://" + bucket + "/x --endpoint http://127.0.0.1:9",
                         tmp_);
    ExpectOneLineError(d, 2, "invalid S3 bucket name");
  }
}

TEST_F(S3FirstContactCliTest, EndpointWithoutSchemeIsAUsageError) {
  auto r = RunLakedump("ls s3://good-bucket/x --endpoint 127.0.0.1:9000", tmp_);
  ExpectOneLineError(r, 2, "S3 endpoint (--endpoint) must start with http:// or https://");
  setenv("AWS_ENDPOINT_URL", "localhost:9000", 1);
  auto e = RunLakedump("dump " + db_ + " s3://good-bucket/x", tmp_);
  unsetenv("AWS_ENDPOINT_URL");
  ExpectOneLineError(e, 2, "S3 endpoint (AWS_ENDPOINT_URL) must start with http://");
}

// Connection refused is instant: with a short budget the test does not wait on the clock (the
// default first-contact budget is asserted on a fake clock in s3_first_contact_test.cc).
TEST_F(S3FirstContactCliTest, ClosedPortFailsWithOneShortLine) {
  const std::string endpoint = "http://127.0.0.1:" + std::to_string(RawHttpServer::ClosedPort());
  auto r = RunLakedump("ls s3://good-bucket/x --endpoint " + endpoint +
                           " --s3-retry-budget 300ms",
                       tmp_);
  ExpectOneLineError(r, 1, "no answer from the endpoint");
  EXPECT_LT(r.err.size(), 400u) << r.err;
  EXPECT_EQ(r.err.find("first-contact-secret"), std::string::npos);
}

TEST_F(S3FirstContactCliTest, EndlessListingFailsBounded) {
  RawHttpServer server(RawHttpServer::kEndlessBody, 200);
  // ls reads the manifest first (bounded by the 64 MiB a metadata file may have), then lists
  // (8 MiB a page): either way the endless reply is cut at its cap and named.
  auto r = RunLakedump("ls s3://good-bucket/x --endpoint " + server.endpoint(), tmp_);
  ExpectOneLineError(r, 1, "(HTTP 200) is larger than ");
  EXPECT_NE(r.err.find("GetObject s3://good-bucket/x/_manifest.json"), std::string::npos) << r.err;
}

TEST_F(S3FirstContactCliTest, SigtermEndsARunStuckOnASilentEndpoint) {
  RawHttpServer server(RawHttpServer::kNeverAnswers);
  Background dump("dump " + db_ + " s3://good-bucket/run --endpoint " + server.endpoint() +
                      " --s3-retry-budget 600s --s3-min-rate-window 600s --progress none",
                  tmp_, "dump");
  ASSERT_TRUE(server.WaitForAccepted(1));  // the run's first request hangs there
  const auto start = std::chrono::steady_clock::now();
  dump.Signal(SIGTERM);
  auto r = dump.Wait(std::chrono::seconds(30));  // the watchdog: fails the test past it
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_NE(r.code, 0) << r.err;
  EXPECT_NE(r.code, -1) << "killed, not ended: " << r.err;
  EXPECT_LT(took, std::chrono::seconds(10)) << r.err;
  EXPECT_NE(r.err.find("interrupted"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace lakedump
