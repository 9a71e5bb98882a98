// The credential chain end to end, against the test radosgw (skipped unless LD_TEST_S3_* are
// set): `lakedump dump -v --json --trace` with keys from the environment, a profile and a
// credential_process; `-v` names the source; the secret key and session token appear in no
// output, trace, or in the argv of lakedump and of the child it starts. Known fake secrets sent
// to the endpoint (refused there) appear nowhere either.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <map>
#include <optional>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/s3_test_env.h"

namespace lakedump {
namespace {

using testing_cli::ReadFile;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_cli::WriteFile;
using testing_s3::Env;

constexpr const char* kFakeSecret = "FAKEsecretKEYxxxxxxxxxxxxxxxxxxxxxxxx0042";
constexpr const char* kFakeToken = "FAKEsessionTOKENyyyyyyyyyyyyyyyyyyyyyy0042";

class S3CredentialsCliTest : public testing_cli::DemoDatabaseSuite<S3CredentialsCliTest> {
 public:
  static constexpr const char* kDemoArgs = "--rows 2000 --small-tables 1 --seed 5";
  static bool SkipDemo() { return Env("LD_TEST_S3_ENDPOINT").empty(); }

 protected:
  void SetUp() override {
    auto s3 = testing_s3::UseTestS3();
    if (!s3) GTEST_SKIP() << "LD_TEST_S3_* not set";
    s3_ = *s3;
    key_ = Env("LD_TEST_S3_ACCESS_KEY");
    prefix_ = "creds-" + std::to_string(::getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (const char* v : {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                          "AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE"}) {
      const char* value = std::getenv(v);
      saved_[v] = value ? std::optional<std::string>(value) : std::nullopt;
    }
  }
  void TearDown() override {
    for (const auto& [name, value] : saved_) {
      if (value) setenv(name.c_str(), value->c_str(), 1); else unsetenv(name.c_str());
    }
  }

  // No keys in the environment; the profile files are ours.
  void ProfilesOnly(const std::string& credentials, const std::string& config) {
    unsetenv("AWS_ACCESS_KEY_ID");
    unsetenv("AWS_SECRET_ACCESS_KEY");
    unsetenv("AWS_SESSION_TOKEN");
    WriteFile(dir_.Sub("credentials"), credentials);
    WriteFile(dir_.Sub("config"), config);
    setenv("AWS_SHARED_CREDENTIALS_FILE", dir_.Sub("credentials").c_str(), 1);
    setenv("AWS_CONFIG_FILE", dir_.Sub("config").c_str(), 1);
  }
  // A credential_process that prints `json` and records its own argv and its parent's (lakedump)
  // in argv.txt.
  std::string Helper(const std::string& json, int exit_code = 0) {
    const std::string path = dir_.Sub("helper.sh");
    WriteFile(path, "#!/bin/sh\n"
                    "{ tr '\\0' ' ' </proc/$PPID/cmdline; echo; echo \"$0 $*\"; } >>" +
                        dir_.Sub("argv.txt") + "\necho '" + json + "'\necho 'helper says no' >&2\n"
                        "exit " + std::to_string(exit_code) + "\n");
    ::chmod(path.c_str(), 0755);
    return path;
  }
  static std::string Json(const std::string& key, const std::string& secret,
                          const std::string& extra = "") {
    return "{\"Version\": 1, \"AccessKeyId\": \"" + key + "\", \"SecretAccessKey\": \"" + secret +
           "\"" + extra + "}";
  }

  // `dump -v --json --trace` into a prefix of its own; what it printed and traced.
  RunResult Dump(const std::string& flags = "") {
    ++runs_;
    trace_ = dir_.Sub("trace-" + std::to_string(runs_) + ".json");
    return RunLakedump("dump " + db_ + " s3://" + s3_.bucket + "/" + prefix_ + "-" +
                           std::to_string(runs_) + " --endpoint " + s3_.endpoint +
                           " -v --json --trace " + trace_ + " " + flags,
                       dir_);
  }
  // A run that succeeded printed its --json summary and wrote its trace (so that the search
  // below looks at something).
  void ExpectSummaryAndTrace(const RunResult& r) {
    EXPECT_NE(r.out.find("\"status\""), std::string::npos) << r.out;
    EXPECT_NE(ReadFile(trace_).find("traceEvents"), std::string::npos);
  }
  // None of `secrets` in the run's output, its trace, or the argv.txt the helper wrote.
  void ExpectNowhere(const RunResult& r, const std::vector<std::string>& secrets) {
    const std::string argv = ReadFile(dir_.Sub("argv.txt"));
    for (const std::string& secret : secrets) {
      ASSERT_FALSE(secret.empty());
      EXPECT_EQ(r.out.find(secret), std::string::npos) << "stdout: " << r.out;
      EXPECT_EQ(r.err.find(secret), std::string::npos) << "stderr: " << r.err;
      EXPECT_EQ(ReadFile(trace_).find(secret), std::string::npos) << "in the trace";
      EXPECT_EQ(argv.find(secret), std::string::npos) << "argv: " << argv;
    }
  }

  testing_s3::TestS3 s3_;
  std::string key_, prefix_, trace_;
  int runs_ = 0;
  std::map<std::string, std::optional<std::string>> saved_;
};

TEST_F(S3CredentialsCliTest, EachSourceNamedByVerboseAndTheSecretNowhere) {
  RunResult r = Dump();
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("credentials: environment (AWS_ACCESS_KEY_ID)\n"), std::string::npos)
      << r.err;
  ExpectSummaryAndTrace(r);
  ExpectNowhere(r, {s3_.secret});

  ProfilesOnly("[backup]\naws_access_key_id = " + key_ + "\naws_secret_access_key = " +
                   s3_.secret + "\n",
               "");
  r = Dump("--profile backup");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("credentials: profile backup in " + dir_.Sub("credentials") + "\n"),
            std::string::npos) << r.err;
  ExpectSummaryAndTrace(r);
  ExpectNowhere(r, {s3_.secret});

  ProfilesOnly("", "[profile proc]\ncredential_process = " +
                       Helper(Json(key_, s3_.secret, ", \"Expiration\": \"2099-01-01T00:00:00Z\"")) +
                       " --flag 'two words'\n");
  setenv("AWS_PROFILE", "proc", 1);
  r = Dump();
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("credentials: profile proc (credential_process)\n"), std::string::npos)
      << r.err;
  ExpectSummaryAndTrace(r);
  ExpectNowhere(r, {s3_.secret});
  // The helper ran, with its own arguments split as awscli splits them.
  EXPECT_NE(ReadFile(dir_.Sub("argv.txt")).find("helper.sh --flag two words"), std::string::npos)
      << ReadFile(dir_.Sub("argv.txt"));
}

// Fake keys the endpoint refuses: the failure names where they came from, and neither the
// secret nor the session token shows, whichever source gave them.
TEST_F(S3CredentialsCliTest, RefusedFakeSecretsAppearNowhere) {
  setenv("AWS_ACCESS_KEY_ID", "AKIAFAKEFAKEFAKE0042", 1);
  setenv("AWS_SECRET_ACCESS_KEY", kFakeSecret, 1);
  setenv("AWS_SESSION_TOKEN", kFakeToken, 1);
  RunResult r = Dump();
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("check the credentials (environment (AWS_ACCESS_KEY_ID))"),
            std::string::npos) << r.err;
  ExpectNowhere(r, {kFakeSecret, kFakeToken});

  ProfilesOnly("", "[profile proc]\ncredential_process = " +
                       Helper(Json("AKIAFAKEFAKEFAKE0042", kFakeSecret,
                                   ", \"SessionToken\": \"" + std::string(kFakeToken) + "\"")) +
                       "\n");
  r = Dump("--profile proc");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("profile proc (credential_process)"), std::string::npos) << r.err;
  ExpectNowhere(r, {kFakeSecret, kFakeToken});
}

// A credential_process that fails after printing secrets: one line naming the profile, its
// stderr's line, never its output.
TEST_F(S3CredentialsCliTest, FailingCredentialProcessIsOneLine) {
  ProfilesOnly("", "[profile proc]\ncredential_process = " +
                       Helper(Json("AKIAFAKEFAKEFAKE0042", kFakeSecret), 3) + "\n");
  RunResult r = Dump("--profile proc");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("profile proc: credential_process (" + dir_.Sub("helper.sh") +
                       ") exited with status 3: helper says no"),
            std::string::npos) << r.err;
  ExpectNowhere(r, {kFakeSecret});
}

}  // namespace
}  // namespace lakedump
