#include "store/s3/credentials/container_provider.h"

#include <gtest/gtest.h>

#include "fakes/fake_credential_servers.h"
#include "fakes/temp_dir.h"
#include "store/credentials/remote_credentials_test_util.h"

namespace lakedump {
namespace {

class ContainerProviderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.set_authorization("container-auth-secret");
    env_.vars = {{"AWS_CONTAINER_CREDENTIALS_FULL_URI", server_.endpoint() + "/v1/credentials"},
                 {"AWS_CONTAINER_AUTHORIZATION_TOKEN", "container-auth-secret"}};
  }
  Result<ExpiringCredentials> FetchOnce() {
    LD_ASSIGN_OR_RETURN(auto provider, NewContainerProvider(env_.Context()));
    return provider->Fetch({});
  }

  TempDir dir_;
  FakeContainerServer server_;
  RemoteTestEnv env_;
};

TEST(ContainerUrlTest, PlainHttpOnlyToTheHostsTheSdksAllow) {
  for (const char* ok :
       {"http://127.0.0.1:8080/creds", "http://127.3.4.5/x", "http://localhost:9/x",
        "http://[::1]:80/x", "http://169.254.170.2/v2/credentials/abc",
        "http://169.254.170.23/v1/credentials", "http://[fd00:ec2::23]/v1/credentials",
        "http://[fd00:ec2:0::23]/v1/credentials", "https://creds.example.com/x",
        "https://10.0.0.1/x"}) {
    EXPECT_TRUE(CheckContainerUrl(ok, "V").ok()) << ok;
  }
  for (const char* refused :
       {"http://10.0.0.1/x", "http://169.254.170.3/x", "http://169.254.169.254/x",
        "http://creds.example.com/x", "http://127.0.0.1.evil.example/x",
        "http://localhost.evil.example/x", "http://[fd00:ec2::24]/x", "http://0x7f000001/x",
        "ftp://127.0.0.1/x", "/relative", "http://user:pw@10.0.0.1/x"}) {
    Status s = CheckContainerUrl(refused, "AWS_CONTAINER_CREDENTIALS_FULL_URI");
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << refused;
    ExpectOneLine(s, "AWS_CONTAINER_CREDENTIALS_FULL_URI", {"pw@"});
  }
}

TEST_F(ContainerProviderTest, SendsTheTokenAndReadsTheDocument) {
  auto provider = NewContainerProvider(env_.Context());
  ASSERT_TRUE(provider.ok()) << provider.status().ToString();
  EXPECT_EQ((*provider)->Describe(), "container endpoint " + server_.endpoint());
  auto c = (*provider)->Fetch({});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->credentials.access_key_id, "ASIAFAKEKEY1");
  EXPECT_EQ(c->credentials.secret_access_key, "fake-secret-1");
  EXPECT_EQ(c->credentials.session_token, "fake-session-token-1");
  EXPECT_TRUE(c->expiration.has_value());
  const ServedRequest r = server_.requests().at(0);
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.path, "/v1/credentials");
  EXPECT_EQ(r.Header("authorization"), "container-auth-secret");
}

TEST_F(ContainerProviderTest, TokenFileWinsAndIsRereadAtEachFetch) {
  const std::string file = dir_.Sub("eks-pod-identity-token");
  WriteFile(file, "pod-token-1\n");
  env_.vars["AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"] = file;
  server_.set_authorization("pod-token-1");
  auto provider = NewContainerProvider(env_.Context());
  ASSERT_TRUE(provider.ok());
  ASSERT_TRUE((*provider)->Fetch({}).ok());
  WriteFile(file, "pod-token-2");
  server_.set_authorization("pod-token-2");
  ASSERT_TRUE((*provider)->Fetch({}).ok());
  EXPECT_EQ(server_.requests().at(0).Header("authorization"), "pod-token-1");
  EXPECT_EQ(server_.requests().at(1).Header("authorization"), "pod-token-2");
}

TEST_F(ContainerProviderTest, RefusedTokenIsOneLineWithoutIt) {
  env_.vars["AWS_CONTAINER_AUTHORIZATION_TOKEN"] = "wrong-token-secret";
  auto c = FetchOnce();
  EXPECT_EQ(c.status().code(), Code::kPermissionDenied);
  ExpectOneLine(c.status(), "answered HTTP 401 AccessDenied: Authorization token is not valid",
                {"wrong-token-secret", "container-auth-secret"});
}

TEST_F(ContainerProviderTest, RelativeUriIsOnTheEcsHostAndWins) {
  env_.vars["AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"] = "/v2/credentials/task-uuid";
  auto provider = NewContainerProvider(env_.Context());
  ASSERT_TRUE(provider.ok());
  EXPECT_EQ((*provider)->Describe(), "container endpoint http://169.254.170.2");
  env_.vars["AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"] = "@evil.example/creds";
  ExpectOneLine(NewContainerProvider(env_.Context()).status(), "must start with '/'");
}

TEST_F(ContainerProviderTest, AppliesOnlyWhenAUriIsSet) {
  env_.vars.clear();
  EXPECT_EQ(NewContainerProvider(env_.Context()).status().code(), Code::kNotFound);
  env_.vars["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = "http://192.168.1.10/creds";
  ExpectOneLine(NewContainerProvider(env_.Context()).status(), "plain http is allowed only");
  env_.vars["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = server_.endpoint();
  env_.vars["AWS_CONTAINER_AUTHORIZATION_TOKEN"] = "abc\r\nX-Injected: 1";
  ExpectOneLine(NewContainerProvider(env_.Context()).status(), "line break");
}

TEST_F(ContainerProviderTest, MalformedDocumentsAreRefusedWithoutQuotingThem) {
  server_.ReplyOnce("{\"AccessKeyId\": \"ASIA1\", \"Token\": \"leaked-token\"}");
  ExpectOneLine(FetchOnce().status(), "has no AccessKeyId or SecretAccessKey", {"leaked-token"});
  server_.ReplyOnce("SecretAccessKey=leaked-secret");
  ExpectOneLine(FetchOnce().status(), "is not a JSON credential document", {"leaked-secret"});
  server_.ReplyOnce(R"({"AccessKeyId":"A","SecretAccessKey":"S","Expiration":"soon"})");
  ExpectOneLine(FetchOnce().status(), "malformed Expiration");
  server_.ReplyOnce(std::string(kMaxCredentialReply + 1, ' '));
  ExpectOneLine(FetchOnce().status(), "larger than", {"/v1/credentials"});
}

TEST_F(ContainerProviderTest, ServerErrorsAreRetried) {
  server_.Fail(2, 500, "InternalError", "agent busy");
  EXPECT_TRUE(FetchOnce().ok());
  EXPECT_EQ(server_.requests().size(), 3u);
  server_.Fail(3, 503, "Unavailable", "agent down");
  auto c = FetchOnce();
  EXPECT_EQ(c.status().code(), Code::kUnavailable);
  ExpectOneLine(c.status(), "answered HTTP 503 Unavailable: agent down");
}

}  // namespace
}  // namespace lakedump
