#include "store/s3/credentials.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "store/s3/credentials/credential_chain.h"

namespace lakedump {
namespace {

class CredentialsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    home_ = std::filesystem::temp_directory_path() /
            ("ld-creds-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(home_ / ".aws");
    env_["HOME"] = home_.string();
    // Unit tests never ask the network: no instance metadata (on an EC2 runner it would answer).
    env_["AWS_EC2_METADATA_DISABLED"] = "true";
  }
  void TearDown() override { std::filesystem::remove_all(home_); }

  void Write(const std::string& name, const std::string& text) {
    std::ofstream(home_ / ".aws" / name) << text;
  }
  EnvLookup Env() {
    return [this](const std::string& n) -> std::optional<std::string> {
      auto it = env_.find(n);
      if (it == env_.end()) return std::nullopt;
      return it->second;
    };
  }

  std::filesystem::path home_;
  std::map<std::string, std::string> env_;
};

TEST_F(CredentialsTest, ExplicitOptionsWin) {
  env_["AWS_ACCESS_KEY_ID"] = "ENVKEY";
  env_["AWS_SECRET_ACCESS_KEY"] = "envsecret";
  S3Options o;
  o.access_key_id = "OPTKEY";
  o.secret_access_key = "optsecret";
  o.region = "eu-west-3";
  auto c = ResolveS3Config(o, Env());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->credentials.access_key_id, "OPTKEY");
  EXPECT_EQ(c->credentials.source, "options");
  EXPECT_EQ(c->region, "eu-west-3");
}

TEST_F(CredentialsTest, EnvironmentThenDefaultRegion) {
  env_["AWS_ACCESS_KEY_ID"] = "ENVKEY";
  env_["AWS_SECRET_ACCESS_KEY"] = "envsecret";
  env_["AWS_SESSION_TOKEN"] = "tok";
  env_["AWS_DEFAULT_REGION"] = "ap-south-1";
  env_["AWS_ENDPOINT_URL"] = "http://127.0.0.1:9000/";
  auto c = ResolveS3Config({}, Env());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->credentials.secret_access_key, "envsecret");
  EXPECT_EQ(c->credentials.session_token, "tok");
  EXPECT_EQ(c->region, "ap-south-1");
  EXPECT_EQ(c->endpoint, "http://127.0.0.1:9000");
  env_["AWS_REGION"] = "us-west-2";
  env_["AWS_ENDPOINT_URL_S3"] = "http://s3only:1";
  c = ResolveS3Config({}, Env());
  EXPECT_EQ(c->region, "us-west-2");
  EXPECT_EQ(c->endpoint, "http://s3only:1");
}

TEST_F(CredentialsTest, ProfileFromFiles) {
  Write("credentials",
        "[default]\naws_access_key_id = DEFKEY\naws_secret_access_key = defsecret\n"
        "# comment\n[work]\naws_access_key_id=WORKKEY\naws_secret_access_key=worksecret\n");
  Write("config",
        "[default]\nregion = eu-north-1\n[profile work]\nregion = us-east-2\n"
        "s3 =\n  endpoint_url = http://work-s3:7480\nca_bundle = /etc/work.pem\n");
  auto c = ResolveS3Config({}, Env());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->credentials.access_key_id, "DEFKEY");
  EXPECT_EQ(c->region, "eu-north-1");
  EXPECT_EQ(c->endpoint, "");
  env_["AWS_PROFILE"] = "work";
  c = ResolveS3Config({}, Env());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->credentials.access_key_id, "WORKKEY");
  EXPECT_EQ(c->profile, "work");
  EXPECT_EQ(c->region, "us-east-2");
  EXPECT_EQ(c->endpoint, "http://work-s3:7480");
  EXPECT_EQ(c->ca_bundle, "/etc/work.pem");
  EXPECT_NE(c->credentials.source.find("profile work"), std::string::npos);
}

TEST_F(CredentialsTest, ProfileOptionBeatsEnvironmentKeys) {
  Write("credentials", "[work]\naws_access_key_id=WORKKEY\naws_secret_access_key=ws\n");
  env_["AWS_ACCESS_KEY_ID"] = "ENVKEY";
  env_["AWS_SECRET_ACCESS_KEY"] = "envsecret";
  S3Options o;
  o.profile = "work";
  auto c = ResolveS3Config(o, Env());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->credentials.access_key_id, "WORKKEY");
  o.profile = "missing";
  c = ResolveS3Config(o, Env());
  EXPECT_EQ(c.status().code(), Code::kInvalidArgument);
  EXPECT_NE(c.status().message().find("missing"), std::string::npos);
}

TEST_F(CredentialsTest, MissingCredentialsNameWhatWasLookedAt) {
  auto c = ResolveS3Config({}, Env());
  ASSERT_EQ(c.status().code(), Code::kInvalidArgument);
  EXPECT_NE(c.status().message().find("AWS_ACCESS_KEY_ID"), std::string::npos);
  EXPECT_NE(c.status().message().find(".aws/credentials"), std::string::npos);
  EXPECT_NE(c.status().message().find("profile \"default\""), std::string::npos);
}

TEST_F(CredentialsTest, AddressingStyleFromOptionsThenProfileThenAuto) {
  env_["AWS_ACCESS_KEY_ID"] = "ENVKEY";
  env_["AWS_SECRET_ACCESS_KEY"] = "envsecret";
  auto c = ResolveS3Config({}, Env());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->addressing, "auto");
  Write("config", "[default]\nregion = eu-west-1\ns3 =\n  addressing_style = virtual\n");
  c = ResolveS3Config({}, Env());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->addressing, "virtual");
  S3Options o;
  o.addressing = "path";
  c = ResolveS3Config(o, Env());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->addressing, "path");
  S3Options legacy;
  legacy.virtual_host_style = true;
  Write("config", "[default]\ns3 =\n  addressing_style = path\n");
  c = ResolveS3Config(legacy, Env());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->addressing, "virtual");
}

TEST_F(CredentialsTest, UnknownAddressingStyleSaysWhereItCameFrom) {
  env_["AWS_ACCESS_KEY_ID"] = "ENVKEY";
  env_["AWS_SECRET_ACCESS_KEY"] = "envsecret";
  Write("config", "[default]\ns3 =\n  addressing_style = dns\n");
  auto c = ResolveS3Config({}, Env());
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kInvalidArgument);
  EXPECT_NE(c.status().message().find("\"dns\""), std::string::npos) << c.status().message();
  EXPECT_NE(c.status().message().find("s3.addressing_style"), std::string::npos);
  EXPECT_NE(c.status().message().find("auto, path or virtual"), std::string::npos);
}

// A provider for a hook slot: static keys named `name`, or NotFound naming `name`'s variable.
class NamedProvider final : public CredentialProvider {
 public:
  NamedProvider(std::string name, bool applies) : name_(std::move(name)), applies_(applies) {}
  std::string Describe() const override { return name_; }
  Result<ExpiringCredentials> Fetch(std::stop_token) override {
    if (!applies_) return Status::NotFound(name_ + "_VARIABLE");
    return ExpiringCredentials{{name_ + "KEY", name_ + "secret", "", name_}, std::nullopt};
  }

 private:
  std::string name_;
  bool applies_;
};

CredentialProviderFactory Slot(const std::string& name, const bool* applies) {
  return [name, applies](const CredentialSources&) {
    return std::make_unique<NamedProvider>(name, *applies);
  };
}

class CredentialChainTest : public CredentialsTest {
 protected:
  CredentialChainTest() {
    hooks_.web_identity = Slot("WEBIDENTITY", &web_identity_);
    hooks_.container = Slot("CONTAINER", &container_);
    hooks_.instance_metadata = Slot("IMDS", &imds_);
  }
  // The access key id the chain picks, or the error's message.
  std::string Pick(const S3Options& o = {}) {
    auto c = ResolveS3Config(o, Env(), &hooks_);
    if (!c.ok()) return c.status().message();
    EXPECT_EQ(c->credential_cache->Describe(), c->credentials.source);
    return c->credentials.access_key_id;
  }
  std::string Helper(const std::string& key) {
    const std::string path = (home_ / ("helper-" + key)).string();
    std::ofstream(path) << "#!/bin/sh\necho '{\"Version\": 1, \"AccessKeyId\": \"" << key
                        << "\", \"SecretAccessKey\": \"s\"}'\n";
    ::chmod(path.c_str(), 0755);
    return path;
  }

  CredentialChainHooks hooks_;
  bool web_identity_ = true, container_ = true, imds_ = true;
};

// Each source wins over every later one, in the AWS SDKs' order.
TEST_F(CredentialChainTest, OrderOfTheChain) {
  Write("credentials", "[default]\naws_access_key_id=PROFILEKEY\naws_secret_access_key=p\n");
  env_["AWS_ACCESS_KEY_ID"] = "ENVKEY";
  env_["AWS_SECRET_ACCESS_KEY"] = "e";
  S3Options o;
  o.access_key_id = "OPTKEY";
  o.secret_access_key = "o";
  EXPECT_EQ(Pick(o), "OPTKEY");
  EXPECT_EQ(Pick(), "ENVKEY");
  env_.erase("AWS_ACCESS_KEY_ID");
  env_.erase("AWS_SECRET_ACCESS_KEY");
  EXPECT_EQ(Pick(), "WEBIDENTITYKEY");
  web_identity_ = false;
  EXPECT_EQ(Pick(), "PROFILEKEY");
  std::filesystem::remove(home_ / ".aws" / "credentials");
  EXPECT_EQ(Pick(), "CONTAINERKEY");
  container_ = false;
  EXPECT_EQ(Pick(), "IMDSKEY");
  imds_ = false;
  const std::string m = Pick();
  EXPECT_NE(m.find("no S3 credentials found: looked at options, "
                   "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, WEBIDENTITY_VARIABLE, profile "
                   "\"default\" in "),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("CONTAINER_VARIABLE, IMDS_VARIABLE: set AWS_ACCESS_KEY_ID"), std::string::npos)
      << m;
}

// --profile puts the profile before the environment's keys and the providers after it.
TEST_F(CredentialChainTest, ExplicitProfileComesFirst) {
  Write("config", "[profile dev]\ncredential_process = " + Helper("DEVKEY") + "\n");
  env_["AWS_ACCESS_KEY_ID"] = "ENVKEY";
  env_["AWS_SECRET_ACCESS_KEY"] = "e";
  S3Options o;
  o.profile = "dev";
  EXPECT_EQ(Pick(o), "DEVKEY");
  env_["AWS_PROFILE"] = "dev";
  EXPECT_EQ(Pick(), "ENVKEY");
  env_.erase("AWS_ACCESS_KEY_ID");
  env_.erase("AWS_SECRET_ACCESS_KEY");
  EXPECT_EQ(Pick(), "WEBIDENTITYKEY");
  web_identity_ = false;
  auto c = ResolveS3Config({}, Env(), &hooks_);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->credentials.access_key_id, "DEVKEY");
  EXPECT_EQ(c->credential_cache->Describe(), "profile dev (credential_process)");
}

// Within a profile: keys of the credentials file, then credential_process, then keys of the
// config file; a partial pair is an error, not a fall-through.
TEST_F(CredentialChainTest, WithinAProfile) {
  web_identity_ = false;
  Write("credentials", "[default]\naws_access_key_id=CREDKEY\naws_secret_access_key=c\n");
  Write("config", "[default]\naws_access_key_id=CONFKEY\naws_secret_access_key=c\n"
                  "credential_process = " + Helper("PROCKEY") + "\n");
  EXPECT_EQ(Pick(), "CREDKEY");
  Write("credentials", "");
  EXPECT_EQ(Pick(), "PROCKEY");
  Write("config", "[default]\naws_access_key_id=CONFKEY\naws_secret_access_key=c\n");
  EXPECT_EQ(Pick(), "CONFKEY");
  Write("config", "[default]\naws_access_key_id=CONFKEY\n");
  const std::string m = Pick();
  EXPECT_NE(m.find("has aws_access_key_id but no aws_secret_access_key"), std::string::npos) << m;
}

TEST_F(CredentialChainTest, PartialEnvironmentKeysAreAnError) {
  env_["AWS_ACCESS_KEY_ID"] = "ENVKEY";
  const std::string m = Pick();
  EXPECT_NE(m.find("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not"),
            std::string::npos) << m;
}

// An SSO profile is refused in one line that says what to do, and stops the chain (the
// container and instance metadata would otherwise answer with other credentials).
TEST_F(CredentialChainTest, SsoProfileRefusedUnlessItHasACredentialProcess) {
  Write("config", "[profile sso]\nsso_session = corp\nsso_account_id = 111122223333\n"
                  "sso_role_name = Backup\n");
  env_["AWS_PROFILE"] = "sso";
  web_identity_ = false;
  auto c = ResolveS3Config({}, Env(), &hooks_);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kInvalidArgument);
  EXPECT_NE(c.status().message().find("profile sso uses IAM Identity Center (sso_*)"),
            std::string::npos) << c.status().message();
  EXPECT_NE(c.status().message().find("run `aws sso login --profile sso`"), std::string::npos);
  EXPECT_NE(c.status().message().find("credential_process"), std::string::npos);
  Write("config", "[profile sso]\nsso_session = corp\ncredential_process = " +
                      Helper("SSOKEY") + "\n");
  EXPECT_EQ(Pick(), "SSOKEY");
}

// role_arn goes to the AssumeRole hook (which reads the rest of the profile); without one it
// is refused rather than answered by another source.
TEST_F(CredentialChainTest, RoleArnProfileUsesTheAssumeRoleHook) {
  Write("config", "[profile role]\nrole_arn = arn:aws:iam::1:role/x\nsource_profile = base\n"
                  "[profile base]\naws_access_key_id=BASEKEY\naws_secret_access_key=b\n");
  env_["AWS_PROFILE"] = "role";
  web_identity_ = false;
  std::string m = Pick();
  EXPECT_NE(m.find("profile role has role_arn"), std::string::npos) << m;
  std::string asked;
  hooks_.assume_role = [&asked](const CredentialSources& sources, const std::string& profile,
                                const CredentialChainHooks&)
      -> Result<std::unique_ptr<CredentialProvider>> {
    asked = profile + " " + sources.files->Get(profile, "role_arn");
    return std::unique_ptr<CredentialProvider>(std::make_unique<NamedProvider>("ROLE", true));
  };
  EXPECT_EQ(Pick(), "ROLEKEY");
  EXPECT_EQ(asked, "role arn:aws:iam::1:role/x");
}

TEST_F(CredentialsTest, ToStringNeverShowsSecrets) {
  Credentials c{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "tok", "env"};
  std::string s = c.ToString();
  EXPECT_EQ(s, "AKIA****MPLE from env");
  EXPECT_EQ(s.find("wJalr"), std::string::npos);
  EXPECT_EQ(s.find("tok"), std::string::npos);
}

}  // namespace
}  // namespace lakedump
