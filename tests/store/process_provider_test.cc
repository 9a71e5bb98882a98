#include "store/s3/credentials/process_provider.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "fakes/temp_dir.h"

namespace lakedump {
namespace {

constexpr const char* kSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYPROCESSKEY";
constexpr const char* kToken = "FwoGZXIvYXdzEPROCESSTOKEN";

class ProcessProviderTest : public ::testing::Test {
 protected:
  // An executable script in the temp dir; returns its path.
  std::string Script(const std::string& name, const std::string& body) {
    const std::string path = dir_.Sub(name);
    std::ofstream(path) << "#!/bin/sh\n" << body;
    ::chmod(path.c_str(), 0755);
    return path;
  }
  static std::string Json(const std::string& extra = "") {
    return std::string("{\"Version\": 1, \"AccessKeyId\": \"AKIDPROCESS\", ") +
           "\"SecretAccessKey\": \"" + kSecret + "\", \"SessionToken\": \"" + kToken + "\"" +
           extra + "}";
  }
  Result<ExpiringCredentials> Run(const std::string& command,
                                  std::chrono::milliseconds timeout = kCredentialProcessTimeout) {
    return NewProcessProvider("dev", command, timeout)->Fetch({});
  }
  // The one-line error of a failed fetch: names the profile and never holds the secrets.
  std::string ErrorLine(const Result<ExpiringCredentials>& r) {
    EXPECT_FALSE(r.ok());
    if (r.ok()) return "";
    const std::string m = r.status().message();
    EXPECT_NE(m.find("profile dev: credential_process"), std::string::npos) << m;
    EXPECT_EQ(m.find(kSecret), std::string::npos) << m;
    EXPECT_EQ(m.find(kToken), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_NE(r.status().code(), Code::kNotFound);  // the chain must not move on
    return m;
  }

  TempDir dir_;
};

TEST_F(ProcessProviderTest, ReadsTheDocumentedJson) {
  const std::string helper =
      Script("helper", "printf '%s' '" + Json(", \"Expiration\": \"2026-12-01T01:00:00Z\"") + "'\n");
  Result<ExpiringCredentials> c = Run(helper);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->credentials.access_key_id, "AKIDPROCESS");
  EXPECT_EQ(c->credentials.secret_access_key, kSecret);
  EXPECT_EQ(c->credentials.session_token, kToken);
  EXPECT_EQ(c->credentials.source, "profile dev (credential_process)");
  EXPECT_EQ(c->expiration, ParseCredentialExpiration("2026-12-01T01:00:00Z"));
  EXPECT_EQ(NewProcessProvider("dev", helper)->Describe(), "profile dev (credential_process)");
}

TEST_F(ProcessProviderTest, NoExpirationMeansStatic) {
  Result<ExpiringCredentials> c = Run(Script("helper", "echo '" + Json() + "'\n"));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_FALSE(c->expiration.has_value());
}

// The command is split as awscli splits it and run without a shell: quotes group words, and
// nothing is expanded or interpreted ($HOME, ;, |, backquotes stay as they are).
TEST_F(ProcessProviderTest, RunsWithoutAShell) {
  const std::string helper = Script(
      "my helper", "printf '{\"Version\":1,\"AccessKeyId\":\"%s|%s|%s\",\"SecretAccessKey\":"
                   "\"s\"}' \"$1\" \"$2\" \"$#\"\n");
  const std::string command = "'" + helper + "' \"two words\" '$HOME;`id`|x'";
  Result<ExpiringCredentials> c = Run(command);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->credentials.access_key_id, "two words|$HOME;`id`|x|2");
}

TEST(SplitCommandLineTest, SplitsAsShlex) {
  auto w = SplitCommandLine(R"(  /usr/bin/helper --profile "a b" 'c "d"' e\ f "g\"h" "i\j" )");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(*w, (std::vector<std::string>{"/usr/bin/helper", "--profile", "a b", "c \"d\"", "e f",
                                          "g\"h", "i\\j"}));
  EXPECT_FALSE(SplitCommandLine("helper 'unterminated").ok());
  EXPECT_FALSE(SplitCommandLine("   ").ok());
  EXPECT_FALSE(SplitCommandLine("helper \\").ok());
  EXPECT_EQ(*SplitCommandLine("a ''"), (std::vector<std::string>{"a", ""}));
}

TEST_F(ProcessProviderTest, NonZeroExitNamesProfileAndStderrNeverStdout) {
  const std::string helper =
      Script("helper", "echo '" + Json() + "'\necho 'sso session expired' >&2\nexit 3\n");
  const std::string m = ErrorLine(Run(helper + " --secret-arg"));
  EXPECT_NE(m.find("exited with status 3: sso session expired"), std::string::npos) << m;
  EXPECT_NE(m.find("(" + helper + ")"), std::string::npos) << m;
  EXPECT_EQ(m.find("--secret-arg"), std::string::npos) << m;  // arguments may hold tokens
}

TEST_F(ProcessProviderTest, HangingProcessTimesOut) {
  // A child of the helper holds its output open too: killed with the process group.
  const std::string helper = Script("helper", "echo '" + Json() + "'\nsleep 600 &\nwait\n");
  const std::string m = ErrorLine(Run(helper, std::chrono::milliseconds(200)));
  EXPECT_NE(m.find("did not finish within 200 ms and was killed"), std::string::npos) << m;
}

TEST_F(ProcessProviderTest, BadJsonIsOneLineWithoutTheOutput) {
  const std::string json = Json();
  const std::string m = ErrorLine(
      Run(Script("helper", "echo '" + json.substr(0, json.size() - 1) + "'\n")));
  EXPECT_NE(m.find("printed no JSON object"), std::string::npos) << m;
  ErrorLine(Run(Script("text", "echo 'AccessKeyId=AKID SecretAccessKey=" + std::string(kSecret) +
                                   "'\n")));
}

TEST_F(ProcessProviderTest, WrongVersionAndMissingKeysAndBadExpiration) {
  std::string m = ErrorLine(Run(Script(
      "v2", "echo '{\"Version\": 2, \"AccessKeyId\": \"A\", \"SecretAccessKey\": \"" +
                std::string(kSecret) + "\"}'\n")));
  EXPECT_NE(m.find("\"Version\": 1"), std::string::npos) << m;
  m = ErrorLine(Run(Script("nov", "echo '{\"AccessKeyId\": \"A\", \"SecretAccessKey\": \"" +
                                      std::string(kSecret) + "\"}'\n")));
  EXPECT_NE(m.find("\"Version\": 1"), std::string::npos) << m;
  m = ErrorLine(Run(Script("nokey", "echo '{\"Version\": 1, \"SecretAccessKey\": \"" +
                                        std::string(kSecret) + "\"}'\n")));
  EXPECT_NE(m.find("no AccessKeyId"), std::string::npos) << m;
  m = ErrorLine(Run(Script("exp", "echo '" + Json(", \"Expiration\": \"in an hour\"") + "'\n")));
  EXPECT_NE(m.find("Expiration"), std::string::npos) << m;
  EXPECT_EQ(m.find("in an hour"), std::string::npos) << m;
}

TEST_F(ProcessProviderTest, MissingProgramIsAnErrorNotNotFound) {
  const std::string m = ErrorLine(Run(dir_.Sub("no-such-helper")));
  EXPECT_NE(m.find("cannot be started"), std::string::npos) << m;
}

}  // namespace
}  // namespace lakedump
