// Hostile keys over a real S3 (radosgw; skipped without LD_TEST_S3_ENDPOINT), checked with
// awscli (/usr/bin/aws): a stray object whose key holds "\r" is really gone after
// `dump --if-exists overwrite`, and a multipart upload whose key has a ".." segment does not
// stop `gc`, which addresses it literally and aborts it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/s3_test_env.h"

namespace lakedump {
namespace {

using namespace testing_cli;
using ::testing::HasSubstr;
using json = nlohmann::json;

class S3HostileKeysTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s3 = testing_s3::UseTestS3();
    if (!s3) GTEST_SKIP() << "LD_TEST_S3_* not set";
    s3_ = *s3;
    prefix_ = "hostile-" + std::to_string(::getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name();
    db_ = dir_.Sub("src.sqlite");
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db_.c_str(), &h), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(h, "CREATE TABLE t(a INTEGER); INSERT INTO t VALUES (1), (2);",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(h);
  }
  std::string Url() const { return "s3://" + s3_.bucket + "/" + prefix_; }
  std::string Flags() const { return " --endpoint " + s3_.endpoint; }
  std::string Aws(const std::string& args, int* rc = nullptr) const {
    return s3_.Aws(args, dir_, rc);
  }
  // Every key under the prefix, as awscli lists them (JSON keeps control characters exact).
  std::vector<std::string> Keys() const {
    int rc = 0;
    const std::string out = Aws("s3api list-objects-v2 --bucket " + s3_.bucket + " --prefix " +
                                    prefix_ + "/ --output json",
                                &rc);
    EXPECT_EQ(rc, 0) << out;
    std::vector<std::string> keys;
    if (out.find('{') == std::string::npos) return keys;
    const json j = json::parse(out.substr(out.find('{')), nullptr, false);
    if (j.is_discarded() || !j.contains("Contents")) return keys;
    for (const json& o : j["Contents"]) keys.push_back(o["Key"]);
    return keys;
  }

  testing_s3::TestS3 s3_;
  std::string prefix_, db_;
  TempDir dir_;
};

// The finding: DeleteObjects did not escape "\r": `--if-exists overwrite` "succeeded" and left
// the stray object (now refused as not lakedump's; `--delete-foreign` deletes it).
TEST_F(S3HostileKeysTest, OverwriteDeletesStrayKeyWithCarriageReturn) {
  RunResult r = RunLakedump("dump " + db_ + " " + Url() + Flags(), dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string stray = prefix_ + "/main/t/stray\rname.parquet";
  WriteFile(dir_.Sub("body"), "x");
  int rc = 0;
  const std::string put = Aws("s3api put-object --bucket " + s3_.bucket + " --key " +
                                  Quote(stray) + " --body " + dir_.Sub("body"),
                              &rc);
  ASSERT_EQ(rc, 0) << put;
  std::vector<std::string> keys = Keys();
  ASSERT_NE(std::find(keys.begin(), keys.end(), stray), keys.end()) << "the stray was not put";

  // Not lakedump's (no journal names it): refused, then deleted with --delete-foreign.
  r = RunLakedump("dump " + db_ + " " + Url() + Flags() + " --if-exists overwrite", dir_);
  ASSERT_EQ(r.code, 2) << r.err;
  r = RunLakedump("dump " + db_ + " " + Url() + Flags() + " --if-exists overwrite --delete-foreign",
                  dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  keys = Keys();
  for (const std::string& k : keys) EXPECT_EQ(k.find('\r'), std::string::npos) << k;
  EXPECT_EQ(std::find(keys.begin(), keys.end(), stray), keys.end());
  r = RunLakedump("verify " + Url() + Flags(), dir_);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
}

// The finding: `gc` stopped on an upload whose key has a ".." segment (the request went to
// another path than the one signed: "check the credentials"). Beside a dump, gc now goes on
// and leaves it alone: no run journal can name such a key, so it is not lakedump's.
TEST_F(S3HostileKeysTest, GcAbortsUploadWithDotDotKey) {
  const std::string key = prefix_ + "/main/../evil.parquet";
  int rc = 0;
  const std::string created = Aws("s3api create-multipart-upload --bucket " + s3_.bucket +
                                      " --key " + Quote(key) + " --output json",
                                  &rc);
  ASSERT_EQ(rc, 0) << created;
  const std::string uploads_cmd = "s3api list-multipart-uploads --bucket " + s3_.bucket +
                                  " --prefix " + prefix_ + "/ --output json";
  std::string listed = Aws(uploads_cmd, &rc);
  ASSERT_THAT(listed, HasSubstr("UploadId")) << "the upload was not created: " << listed;

  RunResult r = RunLakedump("dump " + db_ + " " + Url() + Flags(), dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  r = RunLakedump("gc " + Url() + Flags() + " --older-than 0s", dir_);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("credentials")));
  listed = Aws(uploads_cmd, &rc);
  EXPECT_THAT(listed, HasSubstr("UploadId")) << listed;
  Aws("s3api abort-multipart-upload --bucket " + s3_.bucket + " --key " + Quote(key) +
      " --upload-id " + nlohmann::json::parse(created)["UploadId"].get<std::string>());
}

// A key with a ".." segment put next to a dump is reported by name, not as a credentials
// problem; `--if-exists overwrite` refuses it (not lakedump's), `--delete-foreign` deletes it.
TEST_F(S3HostileKeysTest, DotDotKeyInADumpIsNamed) {
  RunResult r = RunLakedump("dump " + db_ + " " + Url() + Flags(), dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  WriteFile(dir_.Sub("body"), "x");
  int rc = 0;
  Aws("s3api put-object --bucket " + s3_.bucket + " --key " +
          Quote(prefix_ + "/main/../t/x.parquet") + " --body " + dir_.Sub("body"),
      &rc);
  ASSERT_EQ(rc, 0);
  r = RunLakedump("verify " + Url() + Flags(), dir_);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_THAT(r.out + r.err, HasSubstr("main/../t/x.parquet"));
  EXPECT_THAT(r.out + r.err, ::testing::Not(HasSubstr("credentials")));
  // No run journal can name it: --if-exists overwrite refuses the destination, naming it;
  // --delete-foreign deletes it as listed (literally).
  r = RunLakedump("dump " + db_ + " " + Url() + Flags() + " --if-exists overwrite", dir_);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("main/../t/x.parquet"));
  r = RunLakedump("dump " + db_ + " " + Url() + Flags() + " --if-exists overwrite --delete-foreign",
                  dir_);
  EXPECT_EQ(r.code, 0) << r.err;
  for (const std::string& k : Keys()) EXPECT_EQ(k.find(".."), std::string::npos) << k;
}

}  // namespace
}  // namespace lakedump
