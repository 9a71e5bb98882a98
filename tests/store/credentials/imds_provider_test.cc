#include "store/s3/credentials/imds_provider.h"

#include <gtest/gtest.h>

#include "fakes/fake_credential_servers.h"
#include "fakes/raw_http_server.h"
#include "store/credentials/remote_credentials_test_util.h"

namespace lakedump {
namespace {

class ImdsProviderTest : public ::testing::Test {
 protected:
  void SetUp() override { env_.vars["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = imds_.endpoint(); }
  std::unique_ptr<CredentialProvider> Provider() {
    auto p = NewImdsProvider(env_.Context());
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    return p.ok() ? std::move(*p) : nullptr;
  }

  FakeImdsServer imds_;
  RemoteTestEnv env_;
};

TEST_F(ImdsProviderTest, TokenThenRoleThenCredentials) {
  auto provider = Provider();
  auto c = provider->Fetch({});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->credentials.access_key_id, "ASIAFAKEKEY1");
  EXPECT_EQ(c->credentials.session_token, "fake-session-token-1");
  EXPECT_TRUE(c->expiration.has_value());
  EXPECT_EQ(provider->Describe(), "instance metadata (IMDSv2), role lakedump-test-role");
  EXPECT_EQ(c->credentials.source, provider->Describe());
  const auto r = imds_.requests();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].method, "PUT");
  EXPECT_EQ(r[0].path, "/latest/api/token");
  EXPECT_EQ(r[0].Header("x-aws-ec2-metadata-token-ttl-seconds"), "21600");
  EXPECT_EQ(r[1].path, "/latest/meta-data/iam/security-credentials/");
  EXPECT_EQ(r[1].Header("x-aws-ec2-metadata-token"), "imds-session-token-1");
  EXPECT_EQ(r[2].path, "/latest/meta-data/iam/security-credentials/lakedump-test-role");
  EXPECT_EQ(r[2].Header("x-aws-ec2-metadata-token"), "imds-session-token-1");
}

TEST_F(ImdsProviderTest, KeepsTheSessionTokenUntilItsTtlOrA401) {
  auto provider = Provider();
  ASSERT_TRUE(provider->Fetch({}).ok());
  ASSERT_TRUE(provider->Fetch({}).ok());
  EXPECT_EQ(imds_.tokens_issued(), 1);
  imds_.ExpireTokens();  // IMDS forgot it (a 401): one new token, and the fetch goes on
  auto c = provider->Fetch({});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(imds_.tokens_issued(), 2);
  env_.clock.Advance(kImdsTokenTtl);  // past its TTL: asked again before use
  ASSERT_TRUE(provider->Fetch({}).ok());
  EXPECT_EQ(imds_.tokens_issued(), 3);
}

TEST_F(ImdsProviderTest, NoRoleOrNoTokenMeansNotFound) {
  imds_.set_role("");
  auto none = Provider()->Fetch({});
  EXPECT_EQ(none.status().code(), Code::kNotFound);
  ExpectOneLine(none.status(), "the instance has no IAM role");
  imds_.set_token_status(403);
  auto refused = Provider()->Fetch({});
  EXPECT_EQ(refused.status().code(), Code::kNotFound);
  ExpectOneLine(refused.status(), "(no IMDSv2 session token: HTTP 403)");
}

TEST_F(ImdsProviderTest, ClosedPortMeansNotFoundAfterOneRetry) {
  env_.vars["AWS_EC2_METADATA_SERVICE_ENDPOINT"] =
      "http://127.0.0.1:" + std::to_string(RawHttpServer::ClosedPort());
  auto c = Provider()->Fetch({});
  EXPECT_EQ(c.status().code(), Code::kNotFound);
  ExpectOneLine(c.status(), "instance metadata at http://127.0.0.1:");
  ExpectOneLine(c.status(), "(no answer: ");
}

TEST_F(ImdsProviderTest, EnvironmentSwitches) {
  env_.vars["AWS_EC2_METADATA_DISABLED"] = "TRUE";
  auto disabled = NewImdsProvider(env_.Context());
  EXPECT_EQ(disabled.status().code(), Code::kNotFound);
  ExpectOneLine(disabled.status(), "AWS_EC2_METADATA_DISABLED");
  env_.vars.clear();
  env_.vars["AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE"] = "IPv5";
  ExpectOneLine(NewImdsProvider(env_.Context()).status(), "must be IPv4 or IPv6");
  env_.vars["AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE"] = "IPv6";
  EXPECT_TRUE(NewImdsProvider(env_.Context()).ok());
  env_.vars["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = "169.254.169.254";
  EXPECT_EQ(NewImdsProvider(env_.Context()).status().code(), Code::kInvalidArgument);
}

TEST_F(ImdsProviderTest, HostileRepliesAreRefused) {
  imds_.set_role("../../../latest/user-data");
  ExpectOneLine(Provider()->Fetch({}).status(), "is not one");
  imds_.set_role("role");
  imds_.set_issued({"ASIA", "imds-leaked-secret", "t", "never", true});
  ExpectOneLine(Provider()->Fetch({}).status(), "malformed Expiration", {"imds-leaked-secret"});
}

}  // namespace
}  // namespace lakedump
