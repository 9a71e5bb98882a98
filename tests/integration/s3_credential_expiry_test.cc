// Issue 32: a multipart upload to radosgw that outlives its credentials. The credentials come
// from a web identity exchange with the fake STS (tests/fakes/fake_credential_servers.h), which
// hands out radosgw's keys with a new session token and a short expiry each time (radosgw, as
// scripts/start-radosgw configures it, accepts a session token with its static keys without
// checking it). Time is a FakeClock: between parts the credentials come within the refresh
// margin of their expiry, the cache fetches new ones from STS, and the upload goes on with
// them; awscli reads the object back.
#include <gtest/gtest.h>

#include <fstream>

#include "fakes/fake_clock.h"
#include "fakes/fake_credential_servers.h"
#include "fakes/temp_dir.h"
#include "s3_test_env.h"
#include "store/s3/credentials/credential_provider.h"
#include "store/s3/credentials/web_identity_provider.h"
#include "store/s3/http_transport.h"
#include "store/s3/retry.h"
#include "store/s3/s3_client.h"

namespace lakedump {
namespace {

using namespace testing_s3;  // NOLINT: the test endpoint's helpers

IssuedCredentials RadosgwKeys(const std::string& expiration) {
  IssuedCredentials issued;
  issued.access_key_id = Env("LD_TEST_S3_ACCESS_KEY");
  issued.secret_access_key = Env("LD_TEST_S3_SECRET_KEY");
  issued.session_token = "rgw-session-token-";
  issued.expiration = expiration;
  issued.numbered = false;  // the same keys, a new token each time
  return issued;
}

TEST(S3CredentialExpiryTest, AMultipartUploadToRadosgwOutlivesItsCredentials) {
  std::optional<TestS3> s3 = UseTestS3();
  if (!s3) GTEST_SKIP() << "LD_TEST_S3_ENDPOINT is not set";
  TempDir tmp;
  FakeClock clock;  // 2026-12-01T00:00:00Z
  FakeStsServer sts;
  sts.set_issued(RadosgwKeys("2026-12-01T00:15:00Z"));
  const std::string token_file = tmp.Sub("web-identity-token");
  std::ofstream(token_file) << "fake-web-identity-token";

  WebIdentityConfig config;
  config.token_file = token_file;
  config.role_arn = "arn:aws:iam::123456789012:role/lakedump-expiry";
  auto sts_client = std::make_unique<StsClient>(StsEndpoint{sts.endpoint(), "us-east-1"},
                                                NewCurlTransport({}), &clock);
  auto provider = std::make_unique<WebIdentityProvider>(config, std::move(sts_client), &clock);
  Result<ExpiringCredentials> first = provider->Fetch({});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto cache = std::make_shared<CredentialCache>(std::move(provider), *first, &clock);

  S3ClientOptions options;
  options.bucket = s3->bucket;
  options.config.endpoint = s3->endpoint;
  options.config.region = Env("LD_TEST_S3_REGION");
  options.config.addressing = "path";
  options.config.credential_cache = cache;
  std::unique_ptr<HttpTransport> transport = NewCurlTransport({});
  RetryPolicy retry;
  S3Client client(options, transport.get(), &retry);

  const std::string key = "credential-expiry/" + std::to_string(::getpid()) + ".bin";
  Result<std::string> id = client.CreateMultipartUpload(key);
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  const std::string body = RandomBytes((10u << 20) + 4096, 32);
  const size_t sizes[] = {5u << 20, 5u << 20, 4096};
  // Refreshed at 00:12 (3 minutes left of the first), until 00:27; at 00:24 (3 minutes left
  // again), until 00:45.
  const char* expiries[] = {"2026-12-01T00:27:00Z", "2026-12-01T00:45:00Z"};
  std::vector<UploadedPart> parts;
  size_t offset = 0;
  for (int n = 1; n <= 3; ++n) {
    if (n > 1) {
      // 12 minutes on: the credentials expire within the 5-minute margin.
      sts.set_issued(RadosgwKeys(expiries[n - 2]));
      clock.Advance(std::chrono::minutes(12));
    }
    Result<UploadedPart> part =
        client.UploadPart(key, *id, n, std::string_view(body).substr(offset, sizes[n - 1]));
    ASSERT_TRUE(part.ok()) << "part " << n << ": " << part.status().ToString();
    parts.push_back(*part);
    offset += sizes[n - 1];
  }
  ASSERT_TRUE(client.CompleteMultipartUpload(key, *id, parts, body.size()).ok());

  EXPECT_EQ(sts.issued(), 3);  // the first credentials and two refreshes, one per later part
  for (const ServedRequest& r : sts.requests()) {
    EXPECT_EQ(r.Form("Action"), "AssumeRoleWithWebIdentity");
    EXPECT_EQ(r.Form("WebIdentityToken"), "fake-web-identity-token");
    EXPECT_EQ(r.Form("RoleArn"), config.role_arn);
  }
  const std::string copy = tmp.Sub("copy.bin");
  int rc = 0;
  const std::string out = s3->Aws("s3 cp s3://" + s3->bucket + "/" + key + " " + copy, tmp, &rc);
  ASSERT_EQ(rc, 0) << out;
  std::ifstream in(copy, std::ios::binary);
  const std::string read((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(read == body) << "awscli read " << read.size() << " bytes, " << body.size()
                            << " were uploaded";
  s3->Aws("s3 rm s3://" + s3->bucket + "/" + key, tmp);
}

}  // namespace
}  // namespace lakedump
