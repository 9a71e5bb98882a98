#include "store/s3/credentials/assume_role_provider.h"

#include <gtest/gtest.h>

#include "fakes/fake_credential_servers.h"
#include "fakes/temp_dir.h"
#include "store/credentials/remote_credentials_test_util.h"

namespace lakedump {
namespace {

class AssumeRoleProviderTest : public ::testing::Test {
 protected:
  void SetUp() override { env_.vars["AWS_ENDPOINT_URL_STS"] = sts_.endpoint(); }

  ProfileLookup Lookup() {
    return [this](const std::string& name) -> std::optional<ProfileValues> {
      auto it = profiles_.find(name);
      if (it == profiles_.end()) return std::nullopt;
      return it->second;
    };
  }
  Result<std::unique_ptr<CredentialProvider>> Provider(const std::string& profile) {
    return NewAssumeRoleProvider(profile, Lookup(), env_.Context());
  }
  Result<ExpiringCredentials> FetchOnce(const std::string& profile) {
    LD_ASSIGN_OR_RETURN(auto provider, Provider(profile));
    return provider->Fetch({});
  }

  std::map<std::string, ProfileValues> profiles_ = {
      {"base", {{"aws_access_key_id", "AKIABASE"}, {"aws_secret_access_key", "base-secret"}}}};
  FakeStsServer sts_;
  RemoteTestEnv env_;
};

TEST_F(AssumeRoleProviderTest, SourceProfileSignsTheCallWithItsParameters) {
  profiles_["dev"] = {{"role_arn", "arn:aws:iam::123456789012:role/dev"},
                      {"source_profile", "base"},
                      {"external_id", "ext-7"},
                      {"duration_seconds", "1800"},
                      {"role_session_name", "laptop"}};
  sts_.set_signing_key_id("AKIABASE");
  auto provider = Provider("dev");
  ASSERT_TRUE(provider.ok()) << provider.status().ToString();
  EXPECT_EQ((*provider)->Describe(),
            "profile dev, role arn:aws:iam::123456789012:role/dev (from profile base)");
  auto c = (*provider)->Fetch({});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->credentials.access_key_id, "ASIAFAKEKEY1");
  EXPECT_EQ(c->credentials.source, (*provider)->Describe());
  const ServedRequest r = sts_.requests().at(0);
  EXPECT_EQ(r.Form("RoleArn"), "arn:aws:iam::123456789012:role/dev");
  EXPECT_EQ(r.Form("ExternalId"), "ext-7");
  EXPECT_EQ(r.Form("DurationSeconds"), "1800");
  EXPECT_EQ(r.Form("RoleSessionName"), "laptop");
}

TEST_F(AssumeRoleProviderTest, ChainedRolesSignWithTheRoleBefore) {
  profiles_["hop"] = {{"role_arn", "arn:aws:iam::1:role/hop"}, {"source_profile", "base"}};
  profiles_["target"] = {{"role_arn", "arn:aws:iam::2:role/target"}, {"source_profile", "hop"}};
  auto c = FetchOnce("target");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->credentials.access_key_id, "ASIAFAKEKEY2");
  const auto r = sts_.requests();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].Form("RoleArn"), "arn:aws:iam::1:role/hop");
  EXPECT_NE(r[0].Header("authorization").find("Credential=AKIABASE/"), std::string::npos);
  EXPECT_EQ(r[1].Form("RoleArn"), "arn:aws:iam::2:role/target");
  EXPECT_NE(r[1].Header("authorization").find("Credential=ASIAFAKEKEY1/"), std::string::npos);
  EXPECT_EQ(r[1].Header("x-amz-security-token"), "fake-session-token-1");
}

TEST_F(AssumeRoleProviderTest, CyclesAndMissingSourcesAreRefused) {
  profiles_["a"] = {{"role_arn", "arn:aws:iam::1:role/a"}, {"source_profile", "b"}};
  profiles_["b"] = {{"role_arn", "arn:aws:iam::1:role/b"}, {"source_profile", "a"}};
  auto cycle = Provider("a");
  EXPECT_EQ(cycle.status().code(), Code::kInvalidArgument);
  ExpectOneLine(cycle.status(), "a cycle of role profiles");
  profiles_["c"] = {{"role_arn", "arn:aws:iam::1:role/c"}, {"source_profile", "nowhere"}};
  ExpectOneLine(Provider("c").status(), "profile nowhere (source_profile of profile c) is not");
  profiles_["d"] = {{"role_arn", "arn:aws:iam::1:role/d"}, {"source_profile", "d"}};
  ExpectOneLine(Provider("d").status(), "is its own source_profile but has no static keys");
  profiles_["e"] = {{"role_arn", "arn:aws:iam::1:role/e"}};
  ExpectOneLine(Provider("e").status(), "nothing to assume the role with");
  profiles_["f"] = {{"role_arn", "arn:aws:iam::1:role/f"}, {"source_profile", "base"},
                    {"credential_source", "Environment"}};
  ExpectOneLine(Provider("f").status(), "sets both source_profile and credential_source");
  EXPECT_TRUE(sts_.requests().empty());
}

TEST_F(AssumeRoleProviderTest, SelfReferenceUsesTheProfilesOwnKeys) {
  profiles_["self"] = {{"role_arn", "arn:aws:iam::1:role/self"}, {"source_profile", "self"},
                       {"aws_access_key_id", "AKIASELF"}, {"aws_secret_access_key", "s"}};
  ASSERT_TRUE(FetchOnce("self").ok());
  EXPECT_NE(sts_.requests().at(0).Header("authorization").find("Credential=AKIASELF/"),
            std::string::npos);
}

TEST_F(AssumeRoleProviderTest, MfaAndBadValuesAreOneLine) {
  profiles_["mfa"] = {{"role_arn", "arn:aws:iam::1:role/m"}, {"source_profile", "base"},
                      {"mfa_serial", "arn:aws:iam::1:mfa/me"}};
  auto mfa = Provider("mfa");
  EXPECT_EQ(mfa.status().code(), Code::kInvalidArgument);
  ExpectOneLine(mfa.status(), "profile mfa sets mfa_serial: lakedump cannot prompt");
  for (const char* bad : {"60", "50000", "1h", "", "99999999999"}) {
    profiles_["dur"] = {{"role_arn", "arn:aws:iam::1:role/m"}, {"source_profile", "base"},
                        {"duration_seconds", bad}};
    Status s = Provider("dur").status();
    if (std::string(bad).empty()) {
      EXPECT_TRUE(s.ok());
    } else {
      ExpectOneLine(s, "duration_seconds");
    }
  }
  profiles_["src"] = {{"role_arn", "arn:aws:iam::1:role/m"}, {"credential_source", "Laptop"}};
  ExpectOneLine(Provider("src").status(),
                "must be Environment, Ec2InstanceMetadata or EcsContainer");
  profiles_["name"] = {{"role_arn", "arn:aws:iam::1:role/m"}, {"source_profile", "base"},
                       {"role_session_name", "a b"}};
  ExpectOneLine(Provider("name").status(), "role_session_name");
}

TEST_F(AssumeRoleProviderTest, CredentialSourceEnvironment) {
  profiles_["envrole"] = {{"role_arn", "arn:aws:iam::1:role/e"},
                          {"credential_source", "Environment"}};
  auto missing = FetchOnce("envrole");
  EXPECT_EQ(missing.status().code(), Code::kInvalidArgument);
  ExpectOneLine(missing.status(), "profile envrole: its source environment");
  env_.vars["AWS_ACCESS_KEY_ID"] = "AKIAENV";
  env_.vars["AWS_SECRET_ACCESS_KEY"] = "env-secret";
  ASSERT_TRUE(FetchOnce("envrole").ok());
  EXPECT_NE(sts_.requests().at(0).Header("authorization").find("Credential=AKIAENV/"),
            std::string::npos);
}

TEST_F(AssumeRoleProviderTest, CredentialSourceInstanceMetadataAndContainer) {
  FakeImdsServer imds;
  imds.set_issued({"ASIAIMDS", "imds-secret-", "imds-token-", "2026-12-01T06:00:00Z", true});
  env_.vars["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = imds.endpoint();
  profiles_["ec2"] = {{"role_arn", "arn:aws:iam::1:role/x"},
                      {"credential_source", "Ec2InstanceMetadata"}};
  ASSERT_TRUE(FetchOnce("ec2").ok());
  EXPECT_NE(sts_.requests().at(0).Header("authorization").find("Credential=ASIAIMDS1/"),
            std::string::npos);
  EXPECT_EQ(sts_.requests().at(0).Header("x-amz-security-token"), "imds-token-1");

  FakeContainerServer ecs;
  ecs.set_issued({"ASIAECS", "ecs-secret-", "ecs-token-", "2026-12-01T06:00:00Z", true});
  env_.vars["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = ecs.endpoint() + "/creds";
  profiles_["ecs"] = {{"role_arn", "arn:aws:iam::1:role/x"},
                      {"credential_source", "EcsContainer"}};
  ASSERT_TRUE(FetchOnce("ecs").ok());
  EXPECT_NE(sts_.requests().at(1).Header("authorization").find("Credential=ASIAECS1/"),
            std::string::npos);
}

TEST_F(AssumeRoleProviderTest, WebIdentityTokenFileInAProfile) {
  TempDir dir;
  WriteFile(dir.Sub("jwt"), "profile-jwt");
  sts_.set_web_identity_token("profile-jwt");
  profiles_["wi"] = {{"role_arn", "arn:aws:iam::1:role/wi"},
                     {"web_identity_token_file", dir.Sub("jwt")}};
  auto provider = Provider("wi");
  ASSERT_TRUE(provider.ok()) << provider.status().ToString();
  EXPECT_EQ((*provider)->Describe(), "web identity, role arn:aws:iam::1:role/wi");
  ASSERT_TRUE((*provider)->Fetch({}).ok());
  EXPECT_EQ(sts_.requests().at(0).Form("Action"), "AssumeRoleWithWebIdentity");
}

TEST_F(AssumeRoleProviderTest, BaseProviderServesOtherSourceProfiles) {
  profiles_["proc"] = {{"credential_process", "/bin/false"}};
  profiles_["r"] = {{"role_arn", "arn:aws:iam::1:role/r"}, {"source_profile", "proc"}};
  ExpectOneLine(Provider("r").status(), "has neither static keys nor role_arn");
  std::string asked;
  BaseProfileProvider base = [&](const std::string& name)
      -> Result<std::unique_ptr<CredentialProvider>> {
    asked = name;
    return Status::InvalidArgument("base provider called");
  };
  auto p = NewAssumeRoleProvider("r", Lookup(), env_.Context(), base);
  ExpectOneLine(p.status(), "base provider called");
  EXPECT_EQ(asked, "proc");
}

}  // namespace
}  // namespace lakedump
