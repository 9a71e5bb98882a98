#include "store/s3/credentials/web_identity_provider.h"

#include <gtest/gtest.h>

#include "fakes/fake_credential_servers.h"
#include "fakes/temp_dir.h"
#include "store/credentials/remote_credentials_test_util.h"

namespace lakedump {
namespace {

class WebIdentityProviderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    token_file_ = dir_.Sub("token");
    WriteFile(token_file_, "first-jwt\n");
    sts_.set_web_identity_token("first-jwt");
    env_.vars = {{"AWS_WEB_IDENTITY_TOKEN_FILE", token_file_},
                 {"AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/irsa"},
                 {"AWS_ENDPOINT_URL_STS", sts_.endpoint()}};
  }

  TempDir dir_;
  std::string token_file_;
  FakeStsServer sts_;
  RemoteTestEnv env_;
};

TEST_F(WebIdentityProviderTest, ExchangesTheTokenForRoleCredentials) {
  env_.vars["AWS_ROLE_SESSION_NAME"] = "nightly-backup";
  auto provider = NewWebIdentityProvider(env_.Context());
  ASSERT_TRUE(provider.ok()) << provider.status().ToString();
  EXPECT_EQ((*provider)->Describe(), "web identity, role arn:aws:iam::123456789012:role/irsa");
  auto c = (*provider)->Fetch({});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->credentials.access_key_id, "ASIAFAKEKEY1");
  EXPECT_EQ(c->credentials.session_token, "fake-session-token-1");
  EXPECT_EQ(c->credentials.source, "web identity, role arn:aws:iam::123456789012:role/irsa");
  EXPECT_TRUE(c->expiration.has_value());
  const ServedRequest r = sts_.requests().at(0);
  EXPECT_EQ(r.Form("WebIdentityToken"), "first-jwt");  // trimmed of its line end
  EXPECT_EQ(r.Form("RoleArn"), "arn:aws:iam::123456789012:role/irsa");
  EXPECT_EQ(r.Form("RoleSessionName"), "nightly-backup");
}

TEST_F(WebIdentityProviderTest, RereadsTheRotatedTokenAtEachFetch) {
  auto provider = NewWebIdentityProvider(env_.Context());
  ASSERT_TRUE(provider.ok());
  ASSERT_TRUE((*provider)->Fetch({}).ok());
  WriteFile(token_file_, "rotated-jwt");  // what the kubelet does, hourly
  sts_.set_web_identity_token("rotated-jwt");
  auto c = (*provider)->Fetch({});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->credentials.access_key_id, "ASIAFAKEKEY2");
  EXPECT_EQ(sts_.requests().at(1).Form("WebIdentityToken"), "rotated-jwt");
  EXPECT_TRUE(sts_.requests().at(0).Form("RoleSessionName").starts_with("lakedump-"));
  EXPECT_EQ(sts_.requests().at(0).Form("RoleSessionName"),
            sts_.requests().at(1).Form("RoleSessionName"));
}

TEST_F(WebIdentityProviderTest, AppliesOnlyWhenTheTokenFileIsSet) {
  env_.vars.erase("AWS_WEB_IDENTITY_TOKEN_FILE");
  EXPECT_EQ(NewWebIdentityProvider(env_.Context()).status().code(), Code::kNotFound);
  env_.vars["AWS_WEB_IDENTITY_TOKEN_FILE"] = token_file_;
  env_.vars.erase("AWS_ROLE_ARN");
  auto p = NewWebIdentityProvider(env_.Context());
  EXPECT_EQ(p.status().code(), Code::kInvalidArgument);
  ExpectOneLine(p.status(), "AWS_ROLE_ARN is not");
  env_.vars["AWS_ROLE_ARN"] = "arn:aws:iam::1:role/x";
  env_.vars["AWS_ROLE_SESSION_NAME"] = "bad name\n";
  ExpectOneLine(NewWebIdentityProvider(env_.Context()).status(), "AWS_ROLE_SESSION_NAME");
}

TEST_F(WebIdentityProviderTest, BadTokenFilesAreOneLineWithoutTheirContents) {
  auto provider = NewWebIdentityProvider(env_.Context());
  ASSERT_TRUE(provider.ok());
  std::filesystem::remove(token_file_);
  auto missing = (*provider)->Fetch({});
  EXPECT_EQ(missing.status().code(), Code::kInvalidArgument);
  ExpectOneLine(missing.status(), "AWS_WEB_IDENTITY_TOKEN_FILE (" + token_file_ + ")");
  WriteFile(token_file_, "  \n");
  ExpectOneLine((*provider)->Fetch({}).status(), "is empty");
  WriteFile(token_file_, "secret-part-one\nsecret-part-two\n");
  ExpectOneLine((*provider)->Fetch({}).status(), "more than one line", {"secret-part"});
  WriteFile(token_file_, std::string(kMaxTokenFile + 1, 'j'));
  ExpectOneLine((*provider)->Fetch({}).status(), "larger than");
  EXPECT_TRUE(sts_.requests().empty());
}

TEST_F(WebIdentityProviderTest, RefusedTokenIsOneLineWithoutIt) {
  WriteFile(token_file_, "stale-jwt-secret");
  auto provider = NewWebIdentityProvider(env_.Context());
  ASSERT_TRUE(provider.ok());
  auto c = (*provider)->Fetch({});
  EXPECT_EQ(c.status().code(), Code::kPermissionDenied);
  ExpectOneLine(c.status(), "InvalidIdentityToken", {"stale-jwt-secret"});
}

}  // namespace
}  // namespace lakedump
