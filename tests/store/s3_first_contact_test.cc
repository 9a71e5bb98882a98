// Fast first contact and bounded replies (docs/s3.md): an endpoint that never answered gets a
// short budget, the retry budget covers only outages of an endpoint that answered once; a
// cancelled request wakes from its backoff and from a transfer in flight at once; a reply body
// that never ends fails the request once over its cap. The retry waits run on fake clocks: no
// test waits on the wall clock for a timeout. The transport tests use the real libcurl
// transport against a socket on 127.0.0.1.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "fakes/fake_http_transport.h"
#include "fakes/raw_http_server.h"
#include "store/s3/http_transport.h"
#include "store/s3/s3_client.h"
#include "store/s3_client_test_util.h"

namespace lakedump {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

RetryOptions SlowRetries(FakeClock* clock) {
  RetryOptions r;
  r.clock = clock;
  r.max_attempts = 1000;
  r.budget = std::chrono::seconds(600);
  r.first_contact_budget = std::chrono::seconds(5);
  return r;
}

Result<HttpResponse> Refused(const RecordedRequest&) {
  return Status::Unavailable("Failed to connect to 127.0.0.1 port 9: Connection refused (fake)");
}

TEST(S3FirstContactTest, AnEndpointThatNeverAnsweredGetsTheShortBudget) {
  FakeHttpTransport transport(&Refused);
  FakeClock clock(FakeClock::kAutoAdvance);
  RetryPolicy retry(SlowRetries(&clock));
  S3Client client(TestClientOptions(), &transport, &retry);
  const auto t0 = clock.Now();
  Status s = client.ListObjectsV2("p/", "").status();
  EXPECT_EQ(s.code(), Code::kUnavailable);
  EXPECT_THAT(s.message(), HasSubstr("no answer from the endpoint after"));
  EXPECT_THAT(s.message(), HasSubstr("check --endpoint"));
  EXPECT_THAT(s.message(), Not(HasSubstr("--s3-retry-budget")));
  // 5 s of fake time from the request's start, not the 600 s budget; a few attempts.
  EXPECT_EQ(clock.Now() - t0, std::chrono::seconds(5));
  EXPECT_GT(transport.requests().size(), 3u);
  EXPECT_FALSE(retry.contacted());
}

TEST(S3FirstContactTest, AfterOneAnswerAnOutageGetsTheWholeBudget) {
  FakeClock clock(FakeClock::kAutoAdvance);
  std::atomic<int> calls{0};
  FakeHttpTransport transport([&calls](const RecordedRequest& r) -> Result<HttpResponse> {
    if (calls.fetch_add(1) > 0) return Refused(r);
    HttpResponse ok;
    ok.status = 200;
    ok.body = "<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>";
    return ok;
  });
  RetryPolicy retry(SlowRetries(&clock));
  S3Client client(TestClientOptions(), &transport, &retry);
  ASSERT_TRUE(client.ListObjectsV2("p/", "").ok());
  EXPECT_TRUE(retry.contacted());
  const auto t0 = clock.Now();
  Status s = client.ListObjectsV2("p/", "").status();
  EXPECT_THAT(s.message(), HasSubstr("--s3-retry-budget"));
  EXPECT_EQ(clock.Now() - t0, std::chrono::seconds(600));
}

TEST(S3FirstContactTest, AnyHttpReplyCountsAsContact) {
  FakeClock clock(FakeClock::kAutoAdvance);
  FakeHttpTransport transport;
  transport.Push(403, "<Error><Code>AccessDenied</Code></Error>");
  RetryPolicy retry(SlowRetries(&clock));
  S3Client client(TestClientOptions(), &transport, &retry);
  EXPECT_EQ(client.HeadObject("k").status().code(), Code::kPermissionDenied);
  EXPECT_TRUE(retry.contacted());
}

// SIGINT/SIGTERM request the store's stop: a request asleep in its backoff wakes at once
// (Cancelled), without the fake time moving.
TEST(S3FirstContactTest, CancellationWakesTheBackoffWait) {
  FakeClock clock(FakeClock::kManual);
  FakeHttpTransport transport(&Refused);
  RetryPolicy retry(SlowRetries(&clock));
  retry.OnContact();
  S3Client client(TestClientOptions(), &transport, &retry);
  std::stop_source stop;
  Status result;
  std::thread request([&] { result = client.PutObject("k", "body", stop.get_token()); });
  clock.WaitForSleepers(1);  // in the backoff after the first refusal
  const auto t0 = clock.Now();
  stop.request_stop();
  request.join();
  EXPECT_EQ(result.code(), Code::kCancelled) << result.ToString();
  EXPECT_EQ(clock.Now(), t0);
  EXPECT_EQ(transport.requests().size(), 1u);
}

S3ClientOptions RealClientOptions(const std::string& endpoint) {
  return TestClientOptions(endpoint);
}

TEST(S3FirstContactTest, ClosedPortFailsWithinTheFirstContactBudget) {
  auto transport = NewCurlTransport({});
  FakeClock clock(FakeClock::kAutoAdvance);
  RetryPolicy retry(SlowRetries(&clock));
  S3Client client(
      RealClientOptions("http://127.0.0.1:" + std::to_string(RawHttpServer::ClosedPort())),
      transport.get(), &retry);
  const auto t0 = clock.Now();
  Status s = client.ListObjectsV2("", "").status();
  EXPECT_EQ(s.code(), Code::kUnavailable);
  EXPECT_THAT(s.message(), HasSubstr("no answer from the endpoint"));
  EXPECT_LE(clock.Now() - t0, std::chrono::seconds(5));
  EXPECT_LT(s.message().size(), 300u) << s.message();
  EXPECT_EQ(s.message().find('\n'), std::string::npos);
}

TEST(S3FirstContactTest, EndlessListingFailsAtTheCap) {
  RawHttpServer server(RawHttpServer::kEndlessBody, 200);
  auto transport = NewCurlTransport({});
  RetryPolicy retry(FastRetries());
  S3Client client(RealClientOptions(server.endpoint()), transport.get(), &retry);
  Status s = client.ListObjectsV2("p/", "").status();
  EXPECT_EQ(s.code(), Code::kIOError) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("ListObjectsV2 s3://bkt"));
  EXPECT_THAT(s.message(), HasSubstr("larger than " + std::to_string(kMaxReplyBody) + " bytes"));
  EXPECT_EQ(server.accepted(), 1);  // refused, not retried
}

TEST(S3FirstContactTest, EndlessErrorBodyFailsAtTheErrorCap) {
  RawHttpServer server(RawHttpServer::kEndlessBody, 500);
  auto transport = NewCurlTransport({});
  RetryPolicy retry(FastRetries());
  S3Client client(RealClientOptions(server.endpoint()), transport.get(), &retry);
  Status s = client.DeleteObject("k");
  EXPECT_EQ(s.code(), Code::kIOError) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("HTTP 500"));
  EXPECT_THAT(s.message(), HasSubstr("larger than " + std::to_string(kMaxErrorBody) + " bytes"));
}

TEST(S3FirstContactTest, ObjectReadIsCappedAtItsRange) {
  RawHttpServer server(RawHttpServer::kEndlessBody, 200);  // ignores Range, never ends
  auto transport = NewCurlTransport({});
  RetryPolicy retry(FastRetries());
  S3Client client(RealClientOptions(server.endpoint()), transport.get(), &retry);
  std::string out;
  Status s = client.GetObject("k", 0, 1000, &out);
  EXPECT_EQ(s.code(), Code::kIOError) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("larger than 1000 bytes"));
  auto whole = client.GetWholeObject("k", 4096);
  EXPECT_THAT(whole.status().message(), HasSubstr("larger than 4097 bytes"));
}

// A transfer in flight to a server that never answers ends when the stop is requested (the
// progress callback), long before the minimum-rate window (30 s).
TEST(S3FirstContactTest, CancellationAbortsATransferInFlight) {
  RawHttpServer server(RawHttpServer::kNeverAnswers);
  auto transport = NewCurlTransport({});
  RetryPolicy retry(FastRetries());
  S3Client client(RealClientOptions(server.endpoint()), transport.get(), &retry);
  std::stop_source stop;
  Status result;
  std::thread request([&] { result = client.PutObject("k", "body", stop.get_token()); });
  ASSERT_TRUE(server.WaitForAccepted(1));
  stop.request_stop();
  request.join();
  EXPECT_EQ(result.code(), Code::kCancelled) << result.ToString();
}

// After the interrupt, what is not cancelled (an upload's abort, the lease's removal) gets one
// attempt, not the retry budget.
TEST(S3FirstContactTest, AnInterruptedRunDoesNotRetry) {
  FakeClock clock(FakeClock::kAutoAdvance);
  FakeHttpTransport transport(&Refused);
  RetryPolicy retry(SlowRetries(&clock));
  retry.OnContact();
  std::stop_source interrupt;
  S3ClientOptions options = TestClientOptions();
  options.hurry = interrupt.get_token();
  S3Client client(options, &transport, &retry);
  interrupt.request_stop();
  EXPECT_EQ(client.AbortMultipartUpload("k", "upload-1").code(), Code::kUnavailable);
  EXPECT_EQ(transport.requests().size(), 1u);
}

// A request sent after the interrupt to an endpoint that never answers ends after the grace
// (kHurryGrace, a second), not after the 30 s rate window.
TEST(S3FirstContactTest, AnInterruptedRunsCleanupRequestEndsAfterTheGrace) {
  RawHttpServer server(RawHttpServer::kNeverAnswers);
  auto transport = NewCurlTransport({});
  RetryPolicy retry(FastRetries());
  std::stop_source interrupt;
  S3ClientOptions options = RealClientOptions(server.endpoint());
  options.hurry = interrupt.get_token();
  S3Client client(options, transport.get(), &retry);
  interrupt.request_stop();
  Status s = client.DeleteObject("_lease.json");
  EXPECT_EQ(s.code(), Code::kUnavailable) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("abandoned: the run was interrupted"));
  EXPECT_EQ(server.accepted(), 1);
}

}  // namespace
}  // namespace lakedump
