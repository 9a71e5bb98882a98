#include "store/s3/credentials/sts_client.h"

#include <gtest/gtest.h>

#include "fakes/fake_credential_servers.h"
#include "store/credentials/remote_credentials_test_util.h"
#include "store/s3/sigv4.h"

namespace lakedump {
namespace {

// The reply AWS documents for AssumeRole (its shape, with our values).
constexpr const char* kAssumeRoleReply = R"(<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleResult>
    <SourceIdentity>Alice</SourceIdentity>
    <AssumedRoleUser>
      <Arn>arn:aws:sts::123456789012:assumed-role/demo/TestAR</Arn>
      <AssumedRoleId>ARO123EXAMPLE123:TestAR</AssumedRoleId>
    </AssumedRoleUser>
    <Credentials>
      <AccessKeyId>ASIAIOSFODNN7EXAMPLE</AccessKeyId>
      <SecretAccessKey>wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY</SecretAccessKey>
      <SessionToken>IQoJb3JpZ2luX2VjEOz////////////////////wEXAMPLEtMSJHMEUCIDoKK3JH9uG</SessionToken>
      <Expiration>2019-11-09T13:34:41Z</Expiration>
    </Credentials>
    <PackedPolicySize>6</PackedPolicySize>
  </AssumeRoleResult>
  <ResponseMetadata>
    <RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId>
  </ResponseMetadata>
</AssumeRoleResponse>
)";

std::unique_ptr<StsClient> ClientFor(const FakeStsServer& sts, FakeClock* clock) {
  return std::make_unique<StsClient>(StsEndpoint{sts.endpoint(), "eu-west-3"},
                                     NewCurlTransport({}), clock);
}

AssumeRoleParams Params() {
  AssumeRoleParams p;
  p.role_arn = "arn:aws:iam::123456789012:role/backup";
  p.session_name = "lakedump-test";
  return p;
}

// Recomputes the SigV4 signature of a request as received, from its headers and body.
void ExpectValidSignature(const ServedRequest& r, const std::string& secret) {
  const std::string auth = r.Header("authorization");
  ASSERT_TRUE(auth.starts_with("AWS4-HMAC-SHA256 Credential=")) << auth;
  const size_t cred = auth.find("Credential=") + 11;
  const std::string credential = auth.substr(cred, auth.find(',', cred) - cred);
  const std::string scope = credential.substr(credential.find('/') + 1);
  const size_t sh = auth.find("SignedHeaders=") + 14;
  const std::string signed_headers = auth.substr(sh, auth.find(',', sh) - sh);
  const std::string signature = auth.substr(auth.find("Signature=") + 10);
  SigningRequest sign;
  sign.method = r.method;
  sign.canonical_uri = r.path;
  sign.payload_hash = Sha256Hex(r.body);
  for (size_t pos = 0; pos <= signed_headers.size();) {
    const size_t semi = signed_headers.find(';', pos);
    const std::string name = signed_headers.substr(pos, semi - pos);
    sign.headers.emplace_back(name, r.Header(name));
    if (semi == std::string::npos) break;
    pos = semi + 1;
  }
  std::string names;
  const std::string canonical = CanonicalRequest(sign, &names);
  EXPECT_EQ(names, signed_headers);
  const std::string date = scope.substr(0, 8);
  EXPECT_EQ(scope, date + "/eu-west-3/sts/aws4_request");
  EXPECT_EQ(Signature(secret, date, "eu-west-3", "sts",
                      StringToSign(r.Header("x-amz-date"), scope, canonical)),
            signature);
}

TEST(StsClientTest, ParsesTheDocumentedAssumeRoleReply) {
  auto c = ParseStsCredentials(kAssumeRoleReply, "AssumeRole");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->credentials.access_key_id, "ASIAIOSFODNN7EXAMPLE");
  EXPECT_EQ(c->credentials.secret_access_key, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY");
  EXPECT_TRUE(c->credentials.session_token.starts_with("IQoJb3JpZ2luX2VjEOz"));
  ASSERT_TRUE(c->expiration.has_value());
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::seconds>(c->expiration->time_since_epoch())
                .count(),
            1573306481);
  // The same document is not the reply of the other call.
  EXPECT_EQ(ParseStsCredentials(kAssumeRoleReply, "AssumeRoleWithWebIdentity").status().code(),
            Code::kCorruption);
}

TEST(StsClientTest, ParsesTheErrorResponse) {
  auto e = ParseStsError(
      "<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><Error><Type>Sender"
      "</Type><Code>AccessDenied</Code><Message>not authorized</Message></Error>"
      "<RequestId>x</RequestId></ErrorResponse>");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code, "AccessDenied");
  EXPECT_EQ(e->message, "not authorized");
  EXPECT_FALSE(ParseStsError("<html>bad gateway</html>").has_value());
  EXPECT_FALSE(ParseStsError("").has_value());
}

TEST(StsClientTest, EndpointFollowsTheSdkRules) {
  RemoteTestEnv env;
  auto ep = [&](const std::string& region) { return ResolveStsEndpoint(env.Context().env, region); };
  EXPECT_EQ(ep("eu-west-3")->url, "https://sts.eu-west-3.amazonaws.com");
  EXPECT_EQ(ep("eu-west-3")->signing_region, "eu-west-3");
  EXPECT_EQ(ep("cn-north-1")->url, "https://sts.cn-north-1.amazonaws.com.cn");
  EXPECT_EQ(ep("")->url, "https://sts.amazonaws.com");
  EXPECT_EQ(ep("")->signing_region, "us-east-1");
  env.vars["AWS_STS_REGIONAL_ENDPOINTS"] = "legacy";
  EXPECT_EQ(ep("eu-west-3")->url, "https://sts.amazonaws.com");
  EXPECT_EQ(ep("eu-west-3")->signing_region, "us-east-1");
  env.vars["AWS_STS_REGIONAL_ENDPOINTS"] = "Regional";
  EXPECT_EQ(ep("eu-west-3")->url, "https://sts.eu-west-3.amazonaws.com");
  env.vars["AWS_STS_REGIONAL_ENDPOINTS"] = "global";
  ExpectOneLine(ep("eu-west-3").status(), "AWS_STS_REGIONAL_ENDPOINTS");
  env.vars.erase("AWS_STS_REGIONAL_ENDPOINTS");
  EXPECT_EQ(ResolveStsEndpoint(env.Context().env, "eu-west-3", "legacy")->url,
            "https://sts.amazonaws.com");
  env.vars["AWS_ENDPOINT_URL"] = "http://127.0.0.1:1/";
  EXPECT_EQ(ep("eu-west-3")->url, "http://127.0.0.1:1");
  env.vars["AWS_ENDPOINT_URL_STS"] = "https://sts.example.test:8443";
  EXPECT_EQ(ep("eu-west-3")->url, "https://sts.example.test:8443");
  EXPECT_EQ(ep("eu-west-3")->signing_region, "eu-west-3");
  env.vars["AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"] = "true";
  EXPECT_EQ(ep("eu-west-3")->url, "https://sts.eu-west-3.amazonaws.com");
  env.vars.erase("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS");
  env.vars["AWS_ENDPOINT_URL_STS"] = "sts.example.test";
  EXPECT_EQ(ep("eu-west-3").status().code(), Code::kInvalidArgument);
}

TEST(StsClientTest, AssumeRoleIsSignedBySourceAndSendsItsParameters) {
  FakeStsServer sts;
  sts.set_signing_key_id("AKIASOURCE");
  FakeClock clock(FakeClock::kAutoAdvance);
  auto client = ClientFor(sts, &clock);
  AssumeRoleParams p = Params();
  p.external_id = "ext-42";
  p.duration_seconds = 900;
  Credentials source{"AKIASOURCE0001", "source-secret", "source-session", "profile base"};
  auto c = client->AssumeRole(p, source, {});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->credentials.access_key_id, "ASIAFAKEKEY1");
  EXPECT_EQ(c->credentials.session_token, "fake-session-token-1");
  ASSERT_EQ(sts.requests().size(), 1u);
  const ServedRequest r = sts.requests()[0];
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.path, "/");  // parameters in the body, never in the URL
  EXPECT_EQ(r.Form("Action"), "AssumeRole");
  EXPECT_EQ(r.Form("RoleArn"), "arn:aws:iam::123456789012:role/backup");
  EXPECT_EQ(r.Form("RoleSessionName"), "lakedump-test");
  EXPECT_EQ(r.Form("ExternalId"), "ext-42");
  EXPECT_EQ(r.Form("DurationSeconds"), "900");
  EXPECT_TRUE(r.Header("content-type").starts_with("application/x-www-form-urlencoded"));
  EXPECT_EQ(r.Header("x-amz-security-token"), "source-session");
  ExpectValidSignature(r, "source-secret");
}

TEST(StsClientTest, WebIdentityIsUnsignedAndCarriesTheToken) {
  FakeStsServer sts;
  sts.set_web_identity_token("eyJhbGciOi.jwt+/=");
  FakeClock clock(FakeClock::kAutoAdvance);
  auto c = ClientFor(sts, &clock)->AssumeRoleWithWebIdentity(Params(), "eyJhbGciOi.jwt+/=", {});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const ServedRequest r = sts.requests().at(0);
  EXPECT_EQ(r.Form("Action"), "AssumeRoleWithWebIdentity");
  EXPECT_EQ(r.Form("WebIdentityToken"), "eyJhbGciOi.jwt+/=");
  EXPECT_EQ(r.Header("authorization"), "");
  EXPECT_EQ(r.path, "/");
}

TEST(StsClientTest, RefusalIsOneLineWithoutTheToken) {
  FakeStsServer sts;
  FakeClock clock(FakeClock::kAutoAdvance);
  sts.Fail(1, 400, "InvalidIdentityToken", "Incorrect token audience for secret-jwt-value");
  auto c = ClientFor(sts, &clock)->AssumeRoleWithWebIdentity(Params(), "secret-jwt-value", {});
  EXPECT_EQ(c.status().code(), Code::kPermissionDenied);
  ExpectOneLine(c.status(), "STS AssumeRoleWithWebIdentity of arn:aws:iam::123456789012:role/"
                            "backup", {"secret-jwt-value"});
  ExpectOneLine(c.status(), "InvalidIdentityToken: Incorrect token audience for ***");

  sts.Fail(1, 403, "AccessDenied", "User: arn:aws:iam::1:user/x is not authorized\nto assume");
  Credentials source{"AKIASOURCE0001", "source-secret", "", "x"};
  auto d = ClientFor(sts, &clock)->AssumeRole(Params(), source, {});
  EXPECT_EQ(d.status().code(), Code::kPermissionDenied);
  ExpectOneLine(d.status(), "HTTP 403 AccessDenied: User: arn:aws:iam::1:user/x is not",
                {"source-secret"});

  sts.Fail(1, 400, "ValidationError", "1 validation error detected");
  EXPECT_EQ(ClientFor(sts, &clock)->AssumeRole(Params(), source, {}).status().code(),
            Code::kInvalidArgument);
}

TEST(StsClientTest, TransientFailuresAreRetriedTwice) {
  FakeStsServer sts;
  sts.set_web_identity_token("t");
  FakeClock clock(FakeClock::kAutoAdvance);
  sts.Fail(2, 503, "ServiceUnavailable", "try later");
  EXPECT_TRUE(ClientFor(sts, &clock)->AssumeRoleWithWebIdentity(Params(), "t", {}).ok());
  EXPECT_EQ(sts.requests().size(), 3u);

  sts.Fail(3, 400, "IDPCommunicationError", "the IdP did not answer");
  auto c = ClientFor(sts, &clock)->AssumeRoleWithWebIdentity(Params(), "t", {});
  EXPECT_EQ(c.status().code(), Code::kUnavailable);
  ExpectOneLine(c.status(), "IDPCommunicationError: the IdP did not answer");
  EXPECT_EQ(sts.requests().size(), 6u);
}

TEST(StsClientTest, MalformedOrHugeRepliesAreRefused) {
  FakeStsServer sts;
  sts.set_web_identity_token("t");
  FakeClock clock(FakeClock::kAutoAdvance);
  sts.ReplyOnce("<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult>"
                "<Credentials><AccessKeyId>ASIA1</AccessKeyId><SecretAccessKey>leaked-secret"
                "</SecretAccessKey></Credentials></AssumeRoleWithWebIdentityResult>"
                "</AssumeRoleWithWebIdentityResponse>");
  auto c = ClientFor(sts, &clock)->AssumeRoleWithWebIdentity(Params(), "t", {});
  EXPECT_EQ(c.status().code(), Code::kCorruption);
  ExpectOneLine(c.status(), "has no AccessKeyId, SecretAccessKey or SessionToken",
                {"leaked-secret"});

  sts.ReplyOnce(std::string(kMaxCredentialReply + 1, 'x'));
  auto d = ClientFor(sts, &clock)->AssumeRoleWithWebIdentity(Params(), "t", {});
  ExpectOneLine(d.status(), "larger than");
}

TEST(StsClientTest, UnreachableEndpointIsOneLine) {
  FakeClock clock(FakeClock::kAutoAdvance);
  std::string endpoint;
  {
    FakeStsServer gone;
    endpoint = gone.endpoint();
  }
  StsClient client({endpoint, "us-east-1"}, NewCurlTransport({}), &clock);
  auto c = client.AssumeRoleWithWebIdentity(Params(), "jwt-secret", {});
  EXPECT_EQ(c.status().code(), Code::kUnavailable);
  ExpectOneLine(c.status(), "STS AssumeRoleWithWebIdentity of arn:aws:iam::123456789012:role/"
                            "backup at " + endpoint, {"jwt-secret"});
}

TEST(StsClientTest, SessionNames) {
  EXPECT_TRUE(IsValidSessionName("lakedump-1700000000000"));
  EXPECT_TRUE(IsValidSessionName("a.b@c=d,e+f_g"));
  EXPECT_FALSE(IsValidSessionName("a"));
  EXPECT_FALSE(IsValidSessionName("has space"));
  EXPECT_FALSE(IsValidSessionName(std::string(65, 'a')));
  FakeClock clock;
  EXPECT_EQ(DefaultSessionName(&clock), "lakedump-1796083200000");
}

}  // namespace
}  // namespace lakedump
