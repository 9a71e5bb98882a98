// The HTTP providers in the chain (RemoteCredentialHooks through ResolveS3Config): their places
// in the SDKs' order, against the fake servers.
#include <gtest/gtest.h>

#include "fakes/fake_credential_servers.h"
#include "fakes/temp_dir.h"
#include "store/credentials/remote_credentials_test_util.h"
#include "store/s3/credentials.h"
#include "store/s3/credentials/credential_provider.h"

namespace lakedump {
namespace {

constexpr const char* kFarFuture = "2099-01-01T00:00:00Z";

class RemoteChainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(home_.Sub("jwt"), "chain-jwt");
    sts_.set_web_identity_token("chain-jwt");
    env_.vars = {{"HOME", home_.path()},
                 {"AWS_REGION", "eu-west-3"},
                 {"AWS_ENDPOINT_URL_STS", sts_.endpoint()},
                 {"AWS_EC2_METADATA_SERVICE_ENDPOINT", imds_.endpoint()}};
    // ResolveS3Config's cache reads the real clock: credentials that expire long after it.
    imds_.set_issued({"ASIAIMDS", "imds-secret-", "imds-token-", kFarFuture, true});
    container_.set_issued({"ASIAECS", "ecs-secret-", "ecs-token-", kFarFuture, true});
    sts_.set_issued({"ASIAFAKEKEY", "fake-secret-", "fake-session-token-", kFarFuture, true});
  }
  void WebIdentity() {
    env_.vars["AWS_WEB_IDENTITY_TOKEN_FILE"] = home_.Sub("jwt");
    env_.vars["AWS_ROLE_ARN"] = "arn:aws:iam::123456789012:role/irsa";
  }
  void Config(const std::string& text) {
    std::filesystem::create_directories(home_.Sub(".aws"));
    WriteFile(home_.Sub(".aws/config"), text);
  }
  Result<S3Config> Resolve() { return ResolveS3Config({}, env_.Context().env); }
  std::string SourceOf(const Result<S3Config>& c) {
    return c.ok() ? c->credentials.source : c.status().ToString();
  }

  TempDir home_;
  FakeStsServer sts_;
  FakeImdsServer imds_;
  FakeContainerServer container_;
  RemoteTestEnv env_;
};

TEST_F(RemoteChainTest, InstanceMetadataIsTheLastResort) {
  auto c = Resolve();
  EXPECT_EQ(SourceOf(c), "instance metadata (IMDSv2), role lakedump-test-role");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->credentials.access_key_id, "ASIAIMDS1");
  ASSERT_NE(c->credential_cache, nullptr);
  EXPECT_TRUE(c->credential_cache->Refreshable());
}

TEST_F(RemoteChainTest, ContainerComesBeforeInstanceMetadata) {
  env_.vars["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = container_.endpoint() + "/v1/credentials";
  EXPECT_EQ(SourceOf(Resolve()), "container endpoint " + container_.endpoint());
  EXPECT_TRUE(imds_.requests().empty());
}

TEST_F(RemoteChainTest, ProfileRoleComesBeforeTheContainer) {
  env_.vars["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = container_.endpoint();
  Config("[default]\nrole_arn = arn:aws:iam::1:role/dev\nsource_profile = base\n"
         "[profile base]\naws_access_key_id = AKIABASE\naws_secret_access_key = base-secret\n");
  auto c = Resolve();
  EXPECT_EQ(SourceOf(c), "profile default, role arn:aws:iam::1:role/dev (from profile base)");
  EXPECT_NE(sts_.requests().at(0).Header("authorization").find("Credential=AKIABASE/"),
            std::string::npos);
  // Signed for the run's region, at the endpoint AWS_ENDPOINT_URL_STS names.
  EXPECT_NE(sts_.requests().at(0).Header("authorization").find("/eu-west-3/sts/aws4_request"),
            std::string::npos);
  EXPECT_TRUE(container_.requests().empty());
}

TEST_F(RemoteChainTest, WebIdentityComesBeforeTheProfileAndAfterTheEnvironment) {
  WebIdentity();
  Config("[default]\nrole_arn = arn:aws:iam::1:role/dev\nsource_profile = default\n"
         "aws_access_key_id = AKIAPROFILE\naws_secret_access_key = s\n");
  EXPECT_EQ(SourceOf(Resolve()), "web identity, role arn:aws:iam::123456789012:role/irsa");
  EXPECT_EQ(sts_.requests().at(0).Form("WebIdentityToken"), "chain-jwt");
  env_.vars["AWS_ACCESS_KEY_ID"] = "AKIAENV";
  env_.vars["AWS_SECRET_ACCESS_KEY"] = "env-secret";
  EXPECT_EQ(SourceOf(Resolve()), "environment (AWS_ACCESS_KEY_ID)");
  EXPECT_EQ(sts_.requests().size(), 1u);
}

TEST_F(RemoteChainTest, NothingAnywhereNamesEveryPlace) {
  imds_.set_role("");
  auto c = Resolve();
  EXPECT_EQ(c.status().code(), Code::kInvalidArgument);
  ExpectOneLine(c.status(), "no S3 credentials found");
  ExpectOneLine(c.status(), "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_WEB_IDENTITY_TOKEN_FILE, profile");
  ExpectOneLine(c.status(), "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI/_FULL_URI, instance metadata at");
  ExpectOneLine(c.status(), "the instance has no IAM role");
  env_.vars["AWS_EC2_METADATA_DISABLED"] = "true";
  ExpectOneLine(Resolve().status(), "instance metadata (disabled by AWS_EC2_METADATA_DISABLED)");
}

TEST_F(RemoteChainTest, AConfiguredSourceThatFailsStopsTheChain) {
  WebIdentity();
  env_.vars["AWS_ROLE_ARN"] = "";
  auto c = Resolve();
  EXPECT_EQ(c.status().code(), Code::kInvalidArgument);
  ExpectOneLine(c.status(), "AWS_ROLE_ARN is not");
  EXPECT_TRUE(imds_.requests().empty());
  env_.vars.erase("AWS_WEB_IDENTITY_TOKEN_FILE");
  env_.vars["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = "http://10.1.2.3/creds";
  ExpectOneLine(Resolve().status(), "plain http is allowed only");
  EXPECT_TRUE(imds_.requests().empty());
}

}  // namespace
}  // namespace lakedump
