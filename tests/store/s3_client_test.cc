#include "store/s3/s3_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fakes/fake_http_transport.h"
#include "store/s3_client_test_util.h"
#include "store/s3/sigv4.h"

namespace lakedump {
namespace {

using ::testing::HasSubstr;

constexpr char kSlowDown[] =
    "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>";

S3ClientOptions ClientOptions(std::string endpoint = "http://fake:7480") {
  return TestClientOptions(std::move(endpoint));
}

TEST(S3ClientTest, RetriesServerErrorsThenSucceeds) {
  FakeHttpTransport transport;
  transport.Push(503, kSlowDown);
  transport.Push(500, "<Error><Code>InternalError</Code></Error>");
  transport.Push(200, "", {{"etag", "\"abc\""}});
  RetryPolicy retry(FastRetries());
  S3Client client(ClientOptions(), &transport, &retry);
  ASSERT_TRUE(client.PutObject("k", "data").ok());
  EXPECT_EQ(transport.requests().size(), 3u);
  EXPECT_EQ(retry.retries(), 2u);
  EXPECT_EQ(retry.throttles(), 1u);
}

TEST(S3ClientTest, TransportFailuresAreRetried) {
  FakeHttpTransport transport;
  transport.Push(0);  // connection reset
  transport.Push(200);
  RetryPolicy retry(FastRetries());
  S3Client client(ClientOptions(), &transport, &retry);
  EXPECT_TRUE(client.PutObject("k", "data").ok());
  EXPECT_EQ(transport.requests().size(), 2u);
}

TEST(S3ClientTest, AccessDeniedFailsFastWithWhatToFix) {
  FakeHttpTransport transport;
  transport.Push(403, "<Error><Code>SignatureDoesNotMatch</Code><Message>m</Message></Error>");
  RetryPolicy retry(FastRetries());
  S3Client client(ClientOptions(), &transport, &retry);
  Status s = client.PutObject("dir/k", "data");
  EXPECT_EQ(s.code(), Code::kPermissionDenied);
  EXPECT_THAT(s.message(), HasSubstr("S3 secret key does not match the access key id"));
  EXPECT_THAT(s.message(), HasSubstr("SignatureDoesNotMatch"));
  EXPECT_THAT(s.message(), HasSubstr("check the credentials (profile ci in"));
  EXPECT_THAT(s.message(), ::testing::Not(HasSubstr("supersecretkey")));
  EXPECT_EQ(transport.requests().size(), 1u);
}

TEST(S3ClientTest, ErrorMapping) {
  EXPECT_EQ(StatusFromS3Response(404, "<Error><Code>NoSuchBucket</Code></Error>", "PutObject",
                                 "s3://b/k", "b", "x")
                .message(),
            "bucket 'b' does not exist: create it or fix the s3:// URL");
  EXPECT_EQ(StatusFromS3Response(404, "<Error><Code>NoSuchKey</Code></Error>", "GetObject",
                                 "s3://b/k", "b", "x")
                .code(),
            Code::kNotFound);
  EXPECT_EQ(StatusFromS3Response(404, "", "HeadObject", "s3://b/k", "b", "x").code(),
            Code::kNotFound);
  Status bad = StatusFromS3Response(
      400,
      "<Error><Code>AuthorizationHeaderMalformed</Code><Message>the region 'x' is wrong; "
      "expecting 'y'</Message></Error>",
      "PutObject", "s3://b/k", "b", "x");
  EXPECT_EQ(bad.code(), Code::kIOError);  // the server's answer: a failure, not bad usage
  EXPECT_THAT(bad.message(), HasSubstr("AuthorizationHeaderMalformed: the region 'x' is wrong"));
  EXPECT_EQ(StatusFromS3Response(429, "", "PutObject", "s3://b/k", "b", "x").code(),
            Code::kUnavailable);
  EXPECT_EQ(StatusFromS3Response(400, "<Error><Code>RequestTimeout</Code></Error>", "PutObject",
                                 "s3://b/k", "b", "x")
                .code(),
            Code::kUnavailable);
}

// A server failing for longer than the retry budget: the request gives up at
// the end of the budget, however many attempts remain.
TEST(S3ClientTest, RetryBudgetBoundsTheTimeSpentFailing) {
  FakeHttpTransport transport([](const RecordedRequest&) -> Result<HttpResponse> {
    return Status::Unavailable("connection refused (fake)");
  });
  RetryOptions r = FastRetries();
  r.max_attempts = 1000;
  r.base_delay = std::chrono::milliseconds(20);
  r.max_delay = std::chrono::milliseconds(40);
  r.budget = std::chrono::milliseconds(300);
  FakeClock clock(FakeClock::kAutoAdvance);
  r.clock = &clock;
  RetryPolicy retry(r);
  retry.OnContact();  // an endpoint that answered before: an outage gets the whole budget
  S3Client client(ClientOptions(), &transport, &retry);
  const auto t0 = clock.Now();
  Status s = client.CreateMultipartUpload("k").status();
  EXPECT_EQ(s.code(), Code::kUnavailable);
  EXPECT_THAT(s.message(), HasSubstr("--s3-retry-budget"));
  // The last attempt went at the end of the budget, not past it (fake time: exact).
  EXPECT_EQ(clock.Now() - t0, std::chrono::milliseconds(300));
  EXPECT_GT(transport.requests().size(), 5u);
}

// An endpoint outage shorter than the budget (refused, then 503s) is ridden out.
TEST(S3ClientTest, AnOutageShorterThanTheBudgetRecovers) {
  FakeClock clock(FakeClock::kAutoAdvance);
  const auto end = clock.Now() + std::chrono::milliseconds(400);
  FakeHttpTransport transport([&clock, end](const RecordedRequest&) -> Result<HttpResponse> {
    if (clock.Now() < end) {
      return Status::Unavailable("connection refused (fake)");
    }
    HttpResponse ok;
    ok.status = 200;
    return ok;
  });
  RetryOptions r = FastRetries();
  r.base_delay = std::chrono::milliseconds(20);
  r.max_delay = std::chrono::milliseconds(100);
  r.budget = std::chrono::seconds(5);
  r.clock = &clock;
  RetryPolicy retry(r);
  S3Client client(ClientOptions(), &transport, &retry);
  EXPECT_TRUE(client.PutObject("k", "data").ok());
  EXPECT_GT(retry.retries(), 1u);
  EXPECT_GE(clock.Now() - (end - std::chrono::milliseconds(400)), std::chrono::milliseconds(400));
}

TEST(S3ClientTest, GivesUpAfterMaxAttempts) {
  FakeHttpTransport transport;
  for (int i = 0; i < 4; ++i) transport.Push(500, "");
  transport.Push(404, "");  // then a HEAD checks whether one attempt stored it after all
  transport.Push(404, "<Error><Code>NoSuchKey</Code></Error>");  // (the HEAD's diagnosis)
  RetryOptions r = FastRetries();
  r.max_attempts = 4;
  RetryPolicy retry(r);
  S3Client client(ClientOptions(), &transport, &retry);
  Status s = client.PutObject("k", "data");
  EXPECT_THAT(s.message(), HasSubstr("gave up after 4 attempts"));
  ASSERT_EQ(transport.requests().size(), 6u);
  EXPECT_EQ(transport.requests()[4].method, "HEAD");
}

TEST(S3ClientTest, SlowDownThrottlesTheWholeStoreAndDecays) {
  RetryOptions r;
  r.throttle_step = std::chrono::milliseconds(50);
  RetryPolicy retry(r);
  retry.OnThrottled();
  retry.OnThrottled();
  EXPECT_EQ(retry.throttle_delay(), std::chrono::milliseconds(100));
  retry.OnSuccess();
  EXPECT_EQ(retry.throttle_delay(), std::chrono::milliseconds(50));
  for (int i = 0; i < 5; ++i) retry.OnSuccess();
  EXPECT_EQ(retry.throttle_delay(), std::chrono::milliseconds(0));
}

TEST(S3ClientTest, BackoffIsEqualJitterUnderTheCap) {
  RetryOptions r;
  r.base_delay = std::chrono::milliseconds(100);
  r.max_delay = std::chrono::milliseconds(1000);
  RetryPolicy retry(r);
  for (int i = 0; i < 200; ++i) {
    EXPECT_LT(retry.Backoff(2).count(), 100);
    EXPECT_GE(retry.Backoff(2).count(), 50);
    EXPECT_LT(retry.Backoff(4).count(), 400);
    EXPECT_GE(retry.Backoff(4).count(), 200);
    EXPECT_LT(retry.Backoff(30).count(), 1000);
    EXPECT_GE(retry.Backoff(30).count(), 500);
  }
}

TEST(S3ClientTest, SignsWithPayloadHashOverHttpAndUnsignedOverHttps) {
  FakeHttpTransport transport;
  transport.Push(200);
  transport.Push(200);
  RetryPolicy retry(FastRetries());
  S3Client http(ClientOptions("http://fake:7480"), &transport, &retry);
  S3Client https(ClientOptions("https://fake"), &transport, &retry);
  ASSERT_TRUE(http.PutObject("a b+c", "payload").ok());
  ASSERT_TRUE(https.PutObject("k", "payload").ok());
  auto reqs = transport.requests();
  EXPECT_EQ(reqs[0].url, "http://fake:7480/bkt/a%20b%2Bc");
  EXPECT_EQ(reqs[0].Header("x-amz-content-sha256"), Sha256Hex("payload"));
  EXPECT_EQ(reqs[0].Header("Content-MD5"), "");  // by default, no second digest
  EXPECT_EQ(reqs[0].Header("host"), "fake:7480");
  EXPECT_THAT(reqs[0].Header("Authorization"),
              HasSubstr("SignedHeaders=host;x-amz-content-sha256;x-amz-date"));
  EXPECT_EQ(reqs[1].Header("x-amz-content-sha256"), "UNSIGNED-PAYLOAD");
}

TEST(S3ClientTest, VirtualHostStyle) {
  FakeHttpTransport transport;
  transport.Push(200);
  RetryPolicy retry(FastRetries());
  S3ClientOptions o = ClientOptions("http://localhost:7480");
  o.virtual_host_style = true;
  S3Client client(o, &transport, &retry);
  ASSERT_TRUE(client.PutObject("k", "x").ok());
  EXPECT_EQ(transport.requests()[0].url, "http://bkt.localhost:7480/k");
}

// The Authorization header the client should send for a PutObject of `body`
// signed with host `host` and path `uri` (computed independently of the client).
std::string ExpectedAuthorization(const S3ClientOptions& o, std::string host, std::string uri,
                                  std::string_view body, std::chrono::system_clock::time_point t) {
  SigningRequest sign;
  sign.method = "PUT";
  sign.canonical_uri = std::move(uri);
  sign.headers = {{"host", std::move(host)}};
  sign.payload_hash = o.config.endpoint.starts_with("http://") ? Sha256Hex(body)
                                                               : std::string(kUnsignedPayload);
  sign.headers.emplace_back("x-amz-content-sha256", sign.payload_hash);
  SignRequest(&sign, o.config.credentials, o.config.region, "s3", t);
  for (const auto& [k, v] : sign.headers) {
    if (k == "Authorization") return v;
  }
  return "";
}

struct AddressingCase {
  std::string endpoint, addressing, bucket;
  std::string url, host, canonical_uri;
};

TEST(S3ClientTest, AddressingStylesBuildUrlHostAndSignature) {
  const auto t = std::chrono::sys_days(std::chrono::year{2024} / 5 / 17) + std::chrono::hours(9);
  const std::vector<AddressingCase> cases = {
      {"http://localhost:7480", "auto", "bkt", "http://localhost:7480/bkt/a%20b", "localhost:7480",
       "/bkt/a%20b"},
      {"http://localhost:7480", "path", "bkt", "http://localhost:7480/bkt/a%20b", "localhost:7480",
       "/bkt/a%20b"},
      {"http://localhost:7480", "virtual", "bkt", "http://bkt.localhost:7480/a%20b",
       "bkt.localhost:7480", "/a%20b"},
      {"https://minio.example/base/", "path", "bkt", "https://minio.example/base/bkt/a%20b",
       "minio.example", "/base/bkt/a%20b"},
      {"https://minio.example/base", "virtual", "bkt", "https://bkt.minio.example/base/a%20b",
       "bkt.minio.example", "/base/a%20b"},
      // AWS (no endpoint): virtual-host style by default, path style on request or
      // when the bucket has a dot.
      {"", "auto", "bkt", "https://bkt.s3.eu-west-3.amazonaws.com/a%20b",
       "bkt.s3.eu-west-3.amazonaws.com", "/a%20b"},
      {"", "path", "bkt", "https://s3.eu-west-3.amazonaws.com/bkt/a%20b",
       "s3.eu-west-3.amazonaws.com", "/bkt/a%20b"},
      {"", "auto", "my.bkt", "https://s3.eu-west-3.amazonaws.com/my.bkt/a%20b",
       "s3.eu-west-3.amazonaws.com", "/my.bkt/a%20b"},
  };
  for (const AddressingCase& c : cases) {
    SCOPED_TRACE(c.endpoint + " " + c.addressing + " " + c.bucket);
    FakeHttpTransport transport;
    transport.Push(200);
    RetryPolicy retry(FastRetries());
    S3ClientOptions o = ClientOptions(c.endpoint);
    if (c.endpoint.empty()) o.config.region = "eu-west-3";
    o.bucket = c.bucket;
    o.config.addressing = c.addressing;
    o.clock = [t] { return t; };
    S3Client client(o, &transport, &retry);
    ASSERT_TRUE(client.PutObject("a b", "payload").ok());
    const RecordedRequest r = transport.requests()[0];
    EXPECT_EQ(r.url, c.url);
    EXPECT_EQ(r.Header("host"), c.host);
    EXPECT_EQ(r.Header("Authorization"),
              ExpectedAuthorization(o, c.host, c.canonical_uri, "payload", t));
  }
}

TEST(S3ClientTest, VirtualHostAddressingNeedsABucketThatCanBeAHostLabel) {
  S3Config config;
  config.addressing = "virtual";
  EXPECT_TRUE(CheckAddressing("my-bucket.2", config).ok());
  for (const std::string& bad :
       std::vector<std::string>{"My_Bucket", "Upper", "-dash", std::string(64, 'a')}) {
    Status s = CheckAddressing(bad, config);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("--s3-addressing path"), std::string::npos) << s.message();
  }
  config.addressing = "path";
  EXPECT_TRUE(CheckAddressing("My_Bucket", config).ok());
}

TEST(S3ClientTest, CompleteWithErrorBodyIsAnErrorAndTransientOnesAreRetried) {
  FakeHttpTransport transport;
  transport.Push(200, "<Error><Code>InternalError</Code><Message>try again</Message></Error>");
  transport.Push(200, "<CompleteMultipartUploadResult/>");
  RetryPolicy retry(FastRetries());
  S3Client client(ClientOptions(), &transport, &retry);
  EXPECT_TRUE(client.CompleteMultipartUpload("k", "id", {{"\"e1\"", ""}}, 1).ok());
  EXPECT_EQ(transport.requests().size(), 2u);
  transport.Push(200, "<Error><Code>InvalidPart</Code><Message>no</Message></Error>");
  Status s = client.CompleteMultipartUpload("k", "id", {{"\"e1\"", ""}}, 1);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("InvalidPart"));
}

TEST(S3ClientTest, DeleteObjectsSendsBatchesOfOneThousand) {
  FakeHttpTransport transport;
  for (int i = 0; i < 3; ++i) transport.Push(200, "<DeleteResult/>");
  RetryPolicy retry(FastRetries());
  S3Client client(ClientOptions(), &transport, &retry);
  std::vector<std::string> keys;
  for (int i = 0; i < 2500; ++i) keys.push_back("k" + std::to_string(i));
  ASSERT_TRUE(client.DeleteObjects(keys).ok());
  auto reqs = transport.requests();
  ASSERT_EQ(reqs.size(), 3u);
  for (const auto& r : reqs) {
    EXPECT_TRUE(r.HasQuery("delete"));
    EXPECT_EQ(r.Header("Content-MD5"), Md5Base64(r.body));
  }
  EXPECT_THAT(reqs[2].body, HasSubstr("<Key>k2499</Key>"));
  EXPECT_THAT(reqs[2].body, ::testing::Not(HasSubstr("<Key>k1999</Key>")));
}

}  // namespace
}  // namespace lakedump

namespace lakedump {
namespace {

// A create-only PutObject carries If-None-Match: * and maps 412 to AlreadyExists
// (the destination's lease, lake/dump_lease.h).
TEST(S3ClientTest, CreateOnlyPutSendsIfNoneMatchAndMaps412ToAlreadyExists) {
  FakeHttpTransport transport;
  transport.Push(200);
  transport.Push(412, "<Error><Code>PreconditionFailed</Code></Error>");
  RetryPolicy retry(FastRetries());
  S3Client client(ClientOptions(), &transport, &retry);
  ASSERT_TRUE(client.PutObject("d/_lease.json", "x", {}, WriteOptions{.create_only = true}).ok());
  Status again = client.PutObject("d/_lease.json", "x", {}, WriteOptions{.create_only = true});
  EXPECT_EQ(again.code(), Code::kAlreadyExists) << again.ToString();
  const std::vector<RecordedRequest> requests = transport.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].Header("If-None-Match"), "*");
  EXPECT_EQ(requests[1].Header("If-None-Match"), "*");
}

TEST(S3ClientTest, WholeObjectIsOneRangedGet) {
  FakeHttpTransport transport;
  transport.Push(206, "hello", {{"content-range", "bytes 0-4/5"}});
  RetryPolicy retry(FastRetries());
  S3Client client(ClientOptions(), &transport, &retry);
  auto whole = client.GetWholeObject("dir/k", 100);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(whole->size, 5u);
  EXPECT_EQ(whole->bytes, "hello");
  ASSERT_EQ(transport.requests().size(), 1u);
  EXPECT_EQ(transport.requests()[0].method, "GET");
  EXPECT_EQ(transport.requests()[0].Header("range"), "bytes=0-100");
}

TEST(S3ClientTest, WholeObjectLargerThanTheCapReportsItsSizeFromTheRange) {
  FakeHttpTransport transport;
  transport.Push(206, "abcd", {{"content-range", "bytes 0-3/1000000"}});
  RetryPolicy retry(FastRetries());
  S3Client client(ClientOptions(), &transport, &retry);
  auto whole = client.GetWholeObject("k", 3);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(whole->size, 1000000u);
  EXPECT_EQ(whole->bytes.size(), 4u);  // never more than the cap + 1
}

TEST(S3ClientTest, WholeObjectEdgeAnswers) {
  RetryPolicy retry(FastRetries());
  {  // An empty object has no byte 0: 416 is an empty object, not an error.
    FakeHttpTransport transport;
    transport.Push(416, "<Error><Code>InvalidRange</Code></Error>");
    S3Client client(ClientOptions(), &transport, &retry);
    auto whole = client.GetWholeObject("k", 10);
    ASSERT_TRUE(whole.ok()) << whole.status().ToString();
    EXPECT_EQ(whole->size, 0u);
    EXPECT_EQ(whole->bytes, "");
  }
  {  // A server that ignores Range answers 200 with the whole object.
    FakeHttpTransport transport;
    transport.Push(200, "whole");
    S3Client client(ClientOptions(), &transport, &retry);
    auto whole = client.GetWholeObject("k", 10);
    ASSERT_TRUE(whole.ok()) << whole.status().ToString();
    EXPECT_EQ(whole->size, 5u);
    EXPECT_EQ(whole->bytes, "whole");
  }
  {  // A body cut short is retried.
    FakeHttpTransport transport;
    transport.Push(206, "hel", {{"content-range", "bytes 0-4/5"}});
    transport.Push(206, "hello", {{"content-range", "bytes 0-4/5"}});
    S3Client client(ClientOptions(), &transport, &retry);
    auto whole = client.GetWholeObject("k", 10);
    ASSERT_TRUE(whole.ok()) << whole.status().ToString();
    EXPECT_EQ(whole->bytes, "hello");
    EXPECT_EQ(transport.requests().size(), 2u);
  }
  {  // A partial answer without a size is an unusable reply: retried, then an error.
    FakeHttpTransport transport;
    for (int i = 0; i < 20; ++i) transport.Push(206, "hello", {{"content-range", "bytes 0-4/*"}});
    S3Client client(ClientOptions(), &transport, &retry);
    Status s = client.GetWholeObject("k", 10).status();
    EXPECT_FALSE(s.ok());
    EXPECT_THAT(s.message(), HasSubstr("without a valid Content-Range"));
  }
  {  // Missing: NotFound, as HEAD would say.
    FakeHttpTransport transport;
    transport.Push(404, "<Error><Code>NoSuchKey</Code></Error>");
    S3Client client(ClientOptions(), &transport, &retry);
    EXPECT_EQ(client.GetWholeObject("k", 10).status().code(), Code::kNotFound);
  }
  {  // Without a cap: a plain GET.
    FakeHttpTransport transport;
    transport.Push(200, "all of it");
    S3Client client(ClientOptions(), &transport, &retry);
    auto whole = client.GetWholeObject("k", std::nullopt);
    ASSERT_TRUE(whole.ok()) << whole.status().ToString();
    EXPECT_EQ(whole->bytes, "all of it");
    EXPECT_EQ(transport.requests()[0].Header("range"), "");
  }
}

}  // namespace
}  // namespace lakedump
