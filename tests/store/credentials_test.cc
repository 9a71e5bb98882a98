#include "store/s3/credentials.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

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

TEST_F(CredentialsTest, ToStringNeverShowsSecrets) {
  Credentials c{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "tok", "env"};
  std::string s = c.ToString();
  EXPECT_EQ(s, "AKIA****MPLE from env");
  EXPECT_EQ(s.find("wJalr"), std::string::npos);
  EXPECT_EQ(s.find("tok"), std::string::npos);
}

}  // namespace
}  // namespace lakedump
