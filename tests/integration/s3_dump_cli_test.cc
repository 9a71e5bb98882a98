// End to end against a real S3 endpoint (radosgw in CI; skipped unless LD_TEST_S3_* are
// set): `lakedump dump` of the demo database to s3://bucket/prefix with multipart
// uploads, listed and downloaded by awscli (/usr/bin/aws), `lakedump ls` of it,
// --if-exists fail and resume, no incomplete multipart upload left, and the secret
// key in no output, log line or metadata.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/fault_proxy_process.h"
#include "integration/s3_test_env.h"

namespace lakedump {
namespace {

using json = nlohmann::json;
using testing_cli::ExpectOneLineError;
using testing_cli::Quote;
using testing_cli::ReadFile;
using testing_cli::RunLakedump;
using testing_cli::RunResult;

using testing_s3::Env;

class S3DumpCliTest : public testing_cli::DemoDatabaseSuite<S3DumpCliTest> {
 public:
  // 150,000 fact rows: one data file over 5 MiB, so it goes up as a multipart upload.
  static constexpr const char* kDemoArgs = "--rows 150000 --small-tables 3 --seed 11";
  static bool SkipDemo() { return Env("LD_TEST_S3_ENDPOINT").empty(); }

 protected:
  void SetUp() override {
    auto s3 = testing_s3::UseTestS3();
    if (!s3) GTEST_SKIP() << "LD_TEST_S3_* not set";
    endpoint_ = s3->endpoint;
    bucket_ = s3->bucket;
    secret_ = s3->secret;
    s3_ = *s3;
    prefix_ = "cli-" + std::to_string(::getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }

  std::string Url() const { return "s3://" + bucket_ + "/" + prefix_; }
  std::string S3Flags() const { return "--endpoint " + endpoint_; }

  // awscli's output (stdout and stderr) and exit code.
  std::string Aws(const std::string& args, int* rc = nullptr) const {
    return s3_.Aws(args, dir_, rc);
  }
  std::string OpenUploads() const {
    return Aws("s3api list-multipart-uploads --bucket " + bucket_ + " --prefix " + prefix_ +
               " --query 'Uploads[].Key' --output text");
  }
  void ExpectNoSecret(const std::string& text, const std::string& what) const {
    EXPECT_EQ(text.find(secret_), std::string::npos) << "the secret key appears in " << what;
  }

  std::string endpoint_, bucket_, secret_, prefix_;
  testing_s3::TestS3 s3_;
};

TEST_F(S3DumpCliTest, DumpListedByAwsCliThenFailAndResume) {
  const std::string trace = dir_.Sub("trace.json");
  RunResult r = RunLakedump("dump " + db_ + " " + Url() + " " + S3Flags() +
                                " --upload-parallelism 3 --part-size 5MiB --table-parallelism 2 "
                                "--json --progress plain --trace " + trace,
                            dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  ExpectNoSecret(r.out + r.err, "the dump's output");
  ExpectNoSecret(ReadFile(trace), "the trace");
  const json summary = json::parse(r.out);
  EXPECT_EQ(summary["status"], "ok");
  EXPECT_GE(summary["tables"].get<int>(), 11);

  // awscli lists and downloads the whole dump: every file the manifests name is there
  // with the recorded size and checksum-relevant bytes, and nothing else is.
  int rc = 0;
  const std::string local = dir_.Sub("downloaded");
  const std::string cp = Aws("s3 cp --recursive --only-show-errors " + Url() + " " + local, &rc);
  ASSERT_EQ(rc, 0) << cp;
  const std::string manifest_text = ReadFile(local + "/_manifest.json");
  ExpectNoSecret(manifest_text, "_manifest.json");
  const json m = json::parse(manifest_text);
  EXPECT_EQ(m["totals"]["rows"], summary["rows"]);
  std::string biggest_key;
  uint64_t biggest = 0;
  size_t named = 1;
  for (const json& t : m["tables"]) {
    const std::string table_text = ReadFile(local + "/" + t["key"].get<std::string>());
    ExpectNoSecret(table_text, t["key"]);
    ++named;
    const json table = json::parse(table_text);
    for (const json& f : table["files"]) {
      const std::string key = f["key"];
      ++named;
      std::error_code ec;
      EXPECT_EQ(std::filesystem::file_size(local + "/" + key, ec), f["bytes"].get<uint64_t>())
          << key;
      if (f["bytes"].get<uint64_t>() > biggest) {
        biggest = f["bytes"];
        biggest_key = prefix_ + "/" + key;
      }
    }
  }
  size_t downloaded = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(local)) {
    downloaded += e.is_regular_file() ? 1 : 0;
  }
  EXPECT_EQ(downloaded, named);
  // The biggest file went up in parts of 5 MiB (S3's minimum): its ETag says how many.
  ASSERT_GT(biggest, 5u << 20) << "the demo's biggest file is too small for a multipart test";
  const std::string head =
      Aws("s3api head-object --bucket " + bucket_ + " --key " + Quote(biggest_key), &rc);
  ASSERT_EQ(rc, 0) << head;
  const uint64_t parts = (biggest + (5u << 20) - 1) / (5u << 20);
  EXPECT_NE(head.find("-" + std::to_string(parts) + "\\\""), std::string::npos)
      << "expected a multipart ETag with " << parts << " parts: " << head;
  EXPECT_EQ(OpenUploads(), "None\n");

  RunResult ls = RunLakedump("ls " + Url() + " " + S3Flags() + " --json", dir_);
  ASSERT_EQ(ls.code, 0) << ls.err;
  EXPECT_EQ(json::parse(ls.out)["totals"]["rows"], summary["rows"]);
  ExpectNoSecret(ls.out + ls.err, "ls");

  // A second dump to the same place: refused by default, all reused with resume.
  ExpectOneLineError(RunLakedump("dump " + db_ + " " + Url() + " " + S3Flags(), dir_), 1,
                     "already holds a dump");
  r = RunLakedump("dump " + db_ + " " + Url() + " " + S3Flags() + " --if-exists resume --json",
                  dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["reused_tables"], summary["tables"]);
  EXPECT_EQ(OpenUploads(), "None\n");
}

TEST_F(S3DumpCliTest, WrongSecretIsAOneLineErrorThatNamesNoSecret) {
  setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret-0123456789", 1);
  RunResult r = RunLakedump("dump " + db_ + " " + Url() + " " + S3Flags(), dir_);
  ExpectOneLineError(r, 1, "SignatureDoesNotMatch");
  EXPECT_EQ(r.err.find("not-the-secret-0123456789"), std::string::npos) << r.err;
  setenv("AWS_SECRET_ACCESS_KEY", secret_.c_str(), 1);
  int rc = 0;
  const std::string listing = Aws("s3 ls --recursive s3://" + bucket_ + "/" + prefix_ + "/", &rc);
  EXPECT_EQ(listing.find("_manifest.json"), std::string::npos) << listing;
  EXPECT_EQ(OpenUploads(), "None\n");
  ExpectOneLineError(RunLakedump("dump " + db_ + " s3:///nobucket " + S3Flags(), dir_), 2, "s3://");
  ExpectOneLineError(
      RunLakedump("dump " + db_ + " s3://no-such-bucket-ld/x " + S3Flags(), dir_), 1,
      "no-such-bucket-ld");
}

// Per table of the dump under `root` (a local folder): the bytes of each data file, in
// file order. The recorded checksums are ours; the bytes are what the store holds.
std::map<std::string, std::vector<std::string>> FileBytes(const std::string& root) {
  std::map<std::string, std::vector<std::string>> out;
  const json manifest = json::parse(ReadFile(root + "/_manifest.json"));
  for (const json& t : manifest["tables"]) {
    const json tm = json::parse(ReadFile(root + "/" + t["key"].get<std::string>()));
    for (const json& f : tm["files"]) {
      out[tm["table"]].push_back(ReadFile(root + "/" + f["key"].get<std::string>()));
    }
  }
  return out;
}

TEST_F(S3DumpCliTest, ServerErrorsAndSlowDownAreRetriedAndCountedDataIdentical) {
  // 503 SlowDown on two requests of the dump's own (past the lease and the journal): the
  // dump succeeds, says it retried, and the files awscli
  // downloads are byte for byte those of a dump to a local folder.
  ProxyProcess proxy(endpoint_, {"--fail-requests", "10,14", "--fail-status", "503"});
  ASSERT_TRUE(proxy.ok());
  RunResult r = RunLakedump("dump " + db_ + " " + Url() + " --endpoint " + proxy.endpoint() +
                                " --upload-parallelism 2 --part-size 5MiB --json --progress none",
                            dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  const json summary = json::parse(r.out);
  EXPECT_GE(summary["retries"].get<int>(), 2) << r.out;
  EXPECT_GE(summary["throttles"].get<int>(), 2) << r.out;
  proxy.Kill();
  EXPECT_NE(proxy.output().find("injected 2"), std::string::npos) << proxy.output();

  const std::string local = dir_.Sub("local");
  ASSERT_EQ(RunLakedump("dump " + db_ + " " + local + " --progress none", dir_).code, 0);
  int rc = 0;
  const std::string downloaded = dir_.Sub("downloaded");
  const std::string cp =
      Aws("s3 cp --recursive --only-show-errors " + Url() + " " + downloaded, &rc);
  ASSERT_EQ(rc, 0) << cp;
  const auto s3_files = FileBytes(downloaded), local_files = FileBytes(local);
  EXPECT_EQ(s3_files.size(), local_files.size());
  EXPECT_TRUE(s3_files == local_files) << "files downloaded by awscli differ from a local dump";
  EXPECT_EQ(OpenUploads(), "None\n");
}

// An incomplete multipart upload under the prefix that no run journal names (another
// tool's) is no part of the dump: `verify` names it and passes; `--if-exists resume` leaves
// it alone (lakedump deletes only what it wrote, docs/dump-format.md "The run journal").
TEST_F(S3DumpCliTest, UnfinishedUploadsAreListedByVerifyAndLeftAloneWhenNoJournalNamesThem) {
  ASSERT_EQ(RunLakedump("dump " + db_ + " " + Url() + " " + S3Flags() + " --progress none", dir_)
                .code,
            0);
  int rc = 0;
  Aws("s3api create-multipart-upload --bucket " + bucket_ + " --key " + prefix_ +
          "/main/fact/part-99999.parquet",
      &rc);
  ASSERT_EQ(rc, 0);
  ASSERT_NE(OpenUploads().find("part-99999.parquet"), std::string::npos);
  RunResult v = RunLakedump("verify " + Url() + " " + S3Flags() + " --json", dir_);
  ASSERT_EQ(v.code, 0) << v.out << v.err;
  const json listed = json::parse(v.out)["unfinished_writes"];
  ASSERT_EQ(listed.size(), 1u) << v.out;
  EXPECT_NE(listed[0].get<std::string>().find("part-99999.parquet"), std::string::npos) << v.out;

  RunResult resumed = RunLakedump(
      "dump " + db_ + " " + Url() + " " + S3Flags() + " --if-exists resume --json", dir_);
  ASSERT_EQ(resumed.code, 0) << resumed.out << resumed.err;
  EXPECT_EQ(json::parse(resumed.out)["removed_unfinished_writes"], 0) << resumed.out;
  EXPECT_NE(OpenUploads().find("part-99999.parquet"), std::string::npos);
  RunResult deep = RunLakedump("verify " + Url() + " " + S3Flags() + " --deep", dir_);
  EXPECT_EQ(deep.code, 0) << deep.out << deep.err;
}

}  // namespace
}  // namespace lakedump
