// S3Client and CredentialCache together: every request signs with the cache's credentials, so
// that an upload outlives the credentials it started with; an expired token is refreshed once
// and the request retried once.
#include <gtest/gtest.h>

#include <map>
#include <mutex>

#include "fakes/fake_clock.h"
#include "fakes/fake_http_transport.h"
#include "store/s3/credentials/credential_provider.h"
#include "store/s3/credentials/environment_provider.h"
#include "store/s3/s3_client.h"
#include "store/s3_client_test_util.h"

namespace lakedump {
namespace {

constexpr char kExpired[] =
    "<Error><Code>ExpiredToken</Code><Message>The provided token has expired.</Message></Error>";

// The access key id of a SigV4 Authorization header ("... Credential=KEY/20261201/...").
std::string SignedKey(const RecordedRequest& r) {
  const std::string auth = r.Header("authorization");
  const size_t at = auth.find("Credential=");
  if (at == std::string::npos) return "";
  const size_t begin = at + 11;
  return auth.substr(begin, auth.find('/', begin) - begin);
}

// An STS of sorts: issues "KEYn" valid for `lifetime` of the fake clock's wall time, and
// answers, as S3 would, whether a key is still valid.
class ShortLivedKeys final : public CredentialProvider {
 public:
  struct Issuer {
    FakeClock* clock;
    Clock::Duration lifetime;
    std::mutex mu;
    std::map<std::string, Clock::WallTime> expiry;  // GUARDED_BY(mu)
    int issued = 0;                                 // GUARDED_BY(mu)

    ExpiringCredentials Issue() {
      std::lock_guard<std::mutex> lock(mu);
      const std::string key = "KEY" + std::to_string(issued++);
      const Clock::WallTime until = clock->WallNow() + lifetime;
      expiry[key] = until;
      return {{key, "secret-" + key, "token-" + key, "sts"}, until};
    }
    bool Valid(const std::string& key) {
      std::lock_guard<std::mutex> lock(mu);
      auto it = expiry.find(key);
      return it != expiry.end() && clock->WallNow() < it->second;
    }
  };
  explicit ShortLivedKeys(Issuer* issuer) : issuer_(issuer) {}
  std::string Describe() const override { return "web identity, role arn:aws:iam::1:role/x"; }
  Result<ExpiringCredentials> Fetch(std::stop_token) override { return issuer_->Issue(); }

 private:
  Issuer* issuer_;
};

struct Fixture {
  FakeClock clock;
  ShortLivedKeys::Issuer issuer{&clock, std::chrono::minutes(15)};
  FakeS3Server server;
  std::vector<std::string> refused;  // keys the server refused as expired
  FakeHttpTransport transport{[this](const RecordedRequest& r) -> Result<HttpResponse> {
    const std::string key = SignedKey(r);
    if (!issuer.Valid(key)) {
      refused.push_back(key);
      return HttpResponse{400, {}, kExpired};
    }
    return server.Handle(r);
  }};
  RetryPolicy retry{FastRetries()};
  std::shared_ptr<CredentialCache> cache;

  Fixture() {
    auto provider = std::make_unique<ShortLivedKeys>(&issuer);
    ExpiringCredentials first = issuer.Issue();
    cache = std::make_shared<CredentialCache>(std::move(provider), first, &clock);
  }
  S3ClientOptions Options() {
    S3ClientOptions o = TestClientOptions();
    o.config.credential_cache = cache;
    return o;
  }
  std::vector<std::string> KeysUsed() {
    std::vector<std::string> keys;
    for (const RecordedRequest& r : transport.requests()) keys.push_back(SignedKey(r));
    return keys;
  }
};

// A multipart upload of 6 parts, 5 minutes apart: its first credentials (15 minutes) expire
// half-way, and so do the next ones. The cache refreshes them ahead of expiry, between two
// parts, and the upload completes without a single refusal.
TEST(S3CredentialRefreshTest, MultipartUploadOutlivesItsCredentials) {
  Fixture f;
  S3Client client(f.Options(), &f.transport, &f.retry);
  Result<std::string> id = client.CreateMultipartUpload("big");
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  std::vector<UploadedPart> parts;
  std::string all;
  for (int n = 1; n <= 6; ++n) {
    const std::string body(1000, static_cast<char>('a' + n));
    Result<UploadedPart> part = client.UploadPart("big", *id, n, body);
    ASSERT_TRUE(part.ok()) << "part " << n << ": " << part.status().ToString();
    parts.push_back(*part);
    all += body;
    f.clock.Advance(std::chrono::minutes(5));
  }
  ASSERT_TRUE(client.CompleteMultipartUpload("big", *id, parts, all.size()).ok());
  EXPECT_EQ(f.server.objects().at("big"), all);
  EXPECT_TRUE(f.refused.empty());
  const std::vector<std::string> keys = f.KeysUsed();
  EXPECT_EQ(f.cache->fetches(), 3u);
  // Create, parts 1-2 at 0 and 5 min: KEY0 (until 15); part 3 at 10 min: refreshed, KEY1
  // (until 25); part 4 at 15; part 5 at 20: refreshed, KEY2 (until 35); part 6 at 25;
  // Complete at 30: refreshed, KEY3.
  EXPECT_EQ(keys, (std::vector<std::string>{"KEY0", "KEY0", "KEY0", "KEY1", "KEY1", "KEY2",
                                            "KEY2", "KEY3"}));
}

// The server refuses credentials the client still thinks valid (revoked, or a clock behind):
// one refresh, one retry with the new ones, and the request succeeds.
TEST(S3CredentialRefreshTest, ExpiredTokenIsRefreshedAndRetriedOnce) {
  Fixture f;
  f.transport.Push(400, kExpired);
  S3Client client(f.Options(), &f.transport, &f.retry);
  ASSERT_TRUE(client.PutObject("k", "data").ok());
  EXPECT_EQ(f.KeysUsed(), (std::vector<std::string>{"KEY0", "KEY1"}));
  EXPECT_EQ(f.cache->fetches(), 1u);
  EXPECT_EQ(f.retry.retries(), 0u);  // outside the retry budget
}

TEST(S3CredentialRefreshTest, ExpiredTokenTwiceIsTheError) {
  Fixture f;
  f.transport.Push(400, kExpired);
  f.transport.Push(400, kExpired);
  S3Client client(f.Options(), &f.transport, &f.retry);
  Status s = client.PutObject("k", "data");
  EXPECT_EQ(s.code(), Code::kPermissionDenied);
  EXPECT_NE(s.message().find("S3 credentials expired (ExpiredToken)"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("web identity, role arn:aws:iam::1:role/x"), std::string::npos);
  EXPECT_EQ(f.transport.requests().size(), 2u);
  EXPECT_EQ(f.cache->fetches(), 1u);
}

// A HEAD's refusal has no body: the GET that diagnoses it carries the code.
TEST(S3CredentialRefreshTest, ExpiredTokenOnHeadIsRetriedToo) {
  Fixture f;
  ASSERT_TRUE(S3Client(f.Options(), &f.transport, &f.retry).PutObject("k", "data").ok());
  f.transport.Push(400, "");
  f.transport.Push(400, kExpired);
  S3Client client(f.Options(), &f.transport, &f.retry);
  Result<ObjectHead> head = client.HeadObject("k");
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(head->size, 4u);
  EXPECT_EQ(f.cache->fetches(), 1u);
}

// Static keys cannot be refreshed: an expired token is the error at once.
TEST(S3CredentialRefreshTest, StaticCredentialsAreNotRetried) {
  FakeHttpTransport transport;
  transport.Push(400, kExpired);
  RetryPolicy retry(FastRetries());
  S3Client client(TestClientOptions(), &transport, &retry);
  EXPECT_EQ(client.PutObject("k", "data").code(), Code::kPermissionDenied);
  EXPECT_EQ(transport.requests().size(), 1u);
}

// Credentials that expired with no refresh possible fail the request with the provider's
// error, not with a request signed by dead keys.
TEST(S3CredentialRefreshTest, RefreshFailureAfterExpiryFailsTheRequest) {
  FakeClock clock;
  class Failing final : public CredentialProvider {
   public:
    std::string Describe() const override { return "profile dev (credential_process)"; }
    Result<ExpiringCredentials> Fetch(std::stop_token) override {
      return Status::IOError("profile dev: credential_process (helper) exited with status 1");
    }
  };
  auto cache = std::make_shared<CredentialCache>(
      std::make_unique<Failing>(),
      ExpiringCredentials{{"OLD", "s", "t", "x"}, clock.WallNow() + std::chrono::minutes(1)},
      &clock);
  clock.Advance(std::chrono::minutes(2));
  FakeHttpTransport transport;
  RetryPolicy retry(FastRetries());
  S3ClientOptions o = TestClientOptions();
  o.config.credential_cache = cache;
  S3Client client(o, &transport, &retry);
  Status s = client.PutObject("k", "data");
  EXPECT_EQ(s.code(), Code::kIOError);
  EXPECT_NE(s.message().find("exited with status 1"), std::string::npos) << s.message();
  EXPECT_TRUE(transport.requests().empty());
}

}  // namespace
}  // namespace lakedump
