// The S3 client under the faults of issue 17 and the error replies of issue 16,
// over scripted responses (FakeHttpTransport): replies cut short or lost, a
// Complete whose reply was lost, and one classification for every error code.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/crc32c.h"
#include "fakes/fake_http_transport.h"
#include "store/s3_client_test_util.h"
#include "store/s3/s3_client.h"
#include "store/s3/sigv4.h"

namespace lakedump {
namespace {

using ::testing::HasSubstr;

S3ClientOptions ClientOptions() { return TestClientOptions(); }

std::string HttpDateNow() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

TEST(S3ClientFaultsTest, UnparsableListingOnA200IsRetried) {
  FakeHttpTransport transport;
  transport.Push(200, "<ListBucketResult><Contents><Key>a</Ke");  // cut short
  transport.Push(200,
                 "<ListBucketResult><Contents><Key>a</Key><Size>3</Size></Contents>"
                 "<IsTruncated>false</IsTruncated></ListBucketResult>");
  RetryPolicy retry(FastRetries());
  S3Client client(ClientOptions(), &transport, &retry);
  auto page = client.ListObjectsV2("", "");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->objects.size(), 1u);
  EXPECT_EQ(transport.requests().size(), 2u);
}

TEST(S3ClientFaultsTest, UnparsableListingEveryTimeIsAnError) {
  FakeHttpTransport transport;
  for (int i = 0; i < 3; ++i) transport.Push(200, "<html>proxy</html>");
  RetryOptions r = FastRetries();
  r.max_attempts = 3;
  RetryPolicy retry(r);
  S3Client client(ClientOptions(), &transport, &retry);
  auto page = client.ListObjectsV2("", "");
  EXPECT_EQ(page.status().code(), Code::kUnavailable);
  EXPECT_THAT(page.status().message(), HasSubstr("not a ListBucketResult"));
}

TEST(S3ClientFaultsTest, ShortRangeReadIsRetried) {
  FakeHttpTransport transport;
  transport.Push(206, "ab");
  transport.Push(206, "abcd");
  RetryPolicy retry(FastRetries());
  S3Client client(ClientOptions(), &transport, &retry);
  std::string out;
  ASSERT_TRUE(client.GetObject("k", 0, 4, &out).ok());
  EXPECT_EQ(out, "abcd");
}

TEST(S3ClientFaultsTest, TruncatedCompleteReplyIsRetried) {
  FakeHttpTransport transport;
  transport.Push(200, "<CompleteMultipartUploadResult><Loca");
  transport.Push(200, "<CompleteMultipartUploadResult/>");
  RetryPolicy retry(FastRetries());
  S3Client client(ClientOptions(), &transport, &retry);
  EXPECT_TRUE(client.CompleteMultipartUpload("k", "id", {{"\"e1\"", ""}}, 1).ok());
  EXPECT_EQ(transport.requests().size(), 2u);
}

const std::vector<UploadedPart> kParts = {{"\"" + Md5Hex("part one") + "\"", ""},
                                          {"\"" + Md5Hex("part two") + "\"", ""}};

// The first Complete succeeded on the server but its reply was lost; the retry
// answers NoSuchUpload. HEAD shows the object with the size and the multipart
// ETag of our parts: success.
TEST(S3ClientFaultsTest, LostCompleteReplyIsSettledByHead) {
  FakeHttpTransport transport;
  transport.Push(0);  // connection reset after the server acted
  transport.Push(404, "<Error><Code>NoSuchUpload</Code></Error>");
  transport.Push(200, "", {{"content-length", "16"}, {"etag", "\"" + MultipartEtag(kParts) + "\""}});
  RetryPolicy retry(FastRetries());
  S3Client client(ClientOptions(), &transport, &retry);
  Status s = client.CompleteMultipartUpload("k", "id", kParts, 16);
  EXPECT_TRUE(s.ok()) << s.ToString();
  auto reqs = transport.requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[2].method, "HEAD");
}

TEST(S3ClientFaultsTest, NoSuchUploadWithAnotherObjectThereIsAFailure) {
  for (const std::string& etag : {std::string("\"") + MultipartEtag({kParts[0]}) + "\"",
                                  std::string("\"0123456789abcdef0123456789abcdef-2\"")}) {
    FakeHttpTransport transport;
    transport.Push(404, "<Error><Code>NoSuchUpload</Code></Error>");
    transport.Push(200, "", {{"content-length", "16"}, {"etag", etag}});
    RetryPolicy retry(FastRetries());
    S3Client client(ClientOptions(), &transport, &retry);
    Status s = client.CompleteMultipartUpload("k", "id", kParts, 16);
    EXPECT_EQ(s.code(), Code::kNotFound) << etag;
    EXPECT_THAT(s.message(), HasSubstr("holds another object"));
  }
  // Nothing there at all.
  FakeHttpTransport transport;
  transport.Push(404, "<Error><Code>NoSuchUpload</Code></Error>");
  transport.Push(404, "");
  transport.Push(404, "<Error><Code>NoSuchKey</Code></Error>");  // HEAD's diagnosis
  RetryPolicy retry(FastRetries());
  S3Client client(ClientOptions(), &transport, &retry);
  EXPECT_EQ(client.CompleteMultipartUpload("k", "id", kParts, 16).code(), Code::kNotFound);
}

TEST(S3ClientFaultsTest, PutWhoseRepliesWereAllLostIsSettledByHead) {
  FakeHttpTransport transport;
  transport.Push(0);
  transport.Push(0);
  transport.Push(200, "",
                 {{"content-length", "7"},
                  {"etag", "\"" + Md5Hex("payload") + "\""},
                  {"last-modified", HttpDateNow()}});
  RetryOptions r = FastRetries();
  r.max_attempts = 2;
  RetryPolicy retry(r);
  S3Client client(ClientOptions(), &transport, &retry);
  Status s = client.PutObject("k", "payload");
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(transport.requests().back().method, "HEAD");
}

TEST(S3ClientFaultsTest, PutWhoseRepliesWereAllLostFailsWhenHeadShowsAnotherObject) {
  FakeHttpTransport transport;
  transport.Push(0);
  transport.Push(0);
  transport.Push(200, "",
                 {{"content-length", "7"},
                  {"etag", "\"" + Md5Hex("PAYLOAD") + "\""},
                  {"last-modified", HttpDateNow()}});
  RetryOptions r = FastRetries();
  r.max_attempts = 2;
  RetryPolicy retry(r);
  S3Client client(ClientOptions(), &transport, &retry);
  Status s = client.PutObject("k", "payload");
  EXPECT_EQ(s.code(), Code::kUnavailable);
  EXPECT_THAT(s.message(), HasSubstr("holds another object"));
}

TEST(S3ClientFaultsTest, MultipartEtagIsTheMd5OfThePartMd5s) {
  // Two parts "a" and "b": md5(md5("a") || md5("b")) + "-2", as S3 computes it.
  std::string raw;
  for (const char* p : {"a", "b"}) {
    std::string hex = Md5Hex(p);
    for (size_t i = 0; i < 32; i += 2) {
      raw.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    }
  }
  EXPECT_EQ(MultipartEtag({{"\"" + Md5Hex("a") + "\"", ""}, {Md5Hex("b"), ""}}),
            Md5Hex(raw) + "-2");
  EXPECT_EQ(MultipartEtag({{"\"not-an-md5\"", ""}}), "");
}

TEST(S3ClientFaultsTest, ChecksumOptions) {
  FakeS3Server server;
  FakeHttpTransport transport(server.AsHandler());
  RetryPolicy retry(FastRetries());
  S3ClientOptions o = ClientOptions();
  o.checksum_crc32c = true;
  o.content_md5 = true;
  S3Client client(o, &transport, &retry);
  ASSERT_TRUE(client.PutObject("small", "123456789").ok());
  auto id = client.CreateMultipartUpload("big");
  ASSERT_TRUE(id.ok());
  auto part = client.UploadPart("big", *id, 1, "123456789");
  ASSERT_TRUE(part.ok());
  EXPECT_EQ(part->checksum_crc32c, "4waSgw==");
  ASSERT_TRUE(client.CompleteMultipartUpload("big", *id, {*part}, 9).ok());
  auto reqs = transport.requests();
  ASSERT_GE(reqs.size(), 4u);
  EXPECT_EQ(reqs[0].Header("x-amz-checksum-crc32c"), "4waSgw==");
  EXPECT_EQ(reqs[0].Header("x-amz-sdk-checksum-algorithm"), "CRC32C");
  EXPECT_EQ(reqs[0].Header("Content-MD5"), Md5Base64("123456789"));
  EXPECT_EQ(reqs[1].Header("x-amz-checksum-algorithm"), "CRC32C");
  EXPECT_EQ(reqs[2].Header("x-amz-checksum-crc32c"), "4waSgw==");
  EXPECT_THAT(reqs[3].body, HasSubstr("<ChecksumCRC32C>4waSgw==</ChecksumCRC32C>"));
  EXPECT_THAT(reqs[0].Header("Authorization"), HasSubstr("x-amz-checksum-crc32c"));
}

struct ErrorCase {
  long status;
  std::string code;
  Code expected;
  std::string message;
};

// One classification for every S3 error reply, whichever operation meets it.
TEST(S3ClientFaultsTest, EveryErrorCodeIsClassifiedWithItsCause) {
  const std::vector<ErrorCase> cases = {
      {400, "ExpiredToken", Code::kPermissionDenied, "S3 credentials expired (ExpiredToken)"},
      {400, "TokenRefreshRequired", Code::kPermissionDenied, "S3 credentials expired"},
      {403, "InvalidAccessKeyId", Code::kPermissionDenied,
       "access key id is not known to the endpoint (InvalidAccessKeyId)"},
      {403, "SignatureDoesNotMatch", Code::kPermissionDenied,
       "secret key does not match the access key id (SignatureDoesNotMatch)"},
      {400, "InvalidToken", Code::kPermissionDenied, "session token is not valid (InvalidToken)"},
      {403, "AccessDenied", Code::kPermissionDenied, "access denied for s3://bkt/k (AccessDenied"},
      {404, "NoSuchBucket", Code::kIOError, "bucket 'bkt' does not exist"},
      {404, "NoSuchKey", Code::kNotFound, "s3://bkt/k not found"},
      {400, "AuthorizationHeaderMalformed", Code::kIOError,
       "failed: AuthorizationHeaderMalformed"},
      {503, "SlowDown", Code::kUnavailable, "s3://bkt/k"},
  };
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.code);
    for (const std::string op : {"GET", "HEAD"}) {
      FakeHttpTransport transport;
      const std::string body = "<Error><Code>" + c.code + "</Code><Message>m</Message></Error>";
      if (op == "HEAD") {
        transport.Push(c.status, "");  // a HEAD reply has no body ...
        transport.Push(c.status, body);  // ... the 1-byte GET that follows says why
      } else {
        transport.Push(c.status, body);
      }
      RetryOptions r = FastRetries();
      r.max_attempts = 1;
      RetryPolicy retry(r);
      S3Client client(ClientOptions(), &transport, &retry);
      std::string out;
      Status s = op == "HEAD" ? client.HeadObject("k").status() : client.GetObject("k", 0, 4, &out);
      EXPECT_EQ(s.code(), c.expected) << op << " " << s.ToString();
      EXPECT_THAT(s.message(), HasSubstr(c.message)) << op;
      EXPECT_THAT(s.message(), ::testing::Not(HasSubstr("supersecretkey")));
      if (c.expected == Code::kPermissionDenied) {
        EXPECT_THAT(s.message(), HasSubstr("profile ci in /home/x/.aws/credentials"));
      }
      if (op == "HEAD" && c.status != 503) {
        auto reqs = transport.requests();
        ASSERT_EQ(reqs.size(), 2u);
        EXPECT_EQ(reqs[1].method, "GET");
        EXPECT_EQ(reqs[1].Header("Range"), "bytes=0-0");
      }
    }
  }
}

}  // namespace
}  // namespace lakedump
