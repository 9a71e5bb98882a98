// --table-format iceberg to a real S3 endpoint (radosgw; skipped unless LD_TEST_S3_* are
// set and tests/interop has its node_modules): every table's metadata names s3:// locations,
// and icebird, reading the tables over S3 (tests/interop/fetch_shim.mjs fetches through
// awscli), returns the same rows as from a local Iceberg dump of the same database (which
// tests/cli/iceberg_cli_test.cc holds equal to the source).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/s3_test_env.h"

namespace lakedump {
namespace {

using json = nlohmann::json;
using namespace testing_cli;

// icebird's {"rows","sha256"} for a table URL, or an empty object on failure.
json ReadWithIcebird(const std::string& interop, const std::string& url,
                     const std::string& s3_endpoint, const TempDir& tmp) {
  const std::string out = tmp.Sub("icebird.txt");
  const std::string env =
      s3_endpoint.empty() ? "" : "LD_ICEBERG_S3_ENDPOINT=" + Quote(s3_endpoint) + " ";
  const std::string cmd =
      env + "node " + interop + "/iceberg_read.mjs " + Quote(url) + " >" + out + " 2>&1";
  const int rc = std::system(cmd.c_str());
  const std::string text = ReadFile(out);
  EXPECT_EQ(WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, 0) << url << ": " << text;
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_object() ? j : json::object();
}

TEST(IcebergS3Test, TablesReadOverS3EqualTheLocalDump) {
  auto s3 = testing_s3::UseTestS3();
  if (!s3) GTEST_SKIP() << "LD_TEST_S3_* not set";
  const std::string interop = InteropDir();
  if (interop.empty()) GTEST_SKIP() << "LD_INTEROP_DIR with node_modules not found";
  TempDir tmp;
  const std::string db = tmp.Sub("demo.sqlite");
  ASSERT_EQ(RunLakedump("demo " + db + " --rows 5000 --small-tables 2 --seed 5", tmp).code, 0);
  const std::string local = tmp.Sub("local");
  const std::string prefix = "iceberg-" + std::to_string(::getpid());
  const std::string remote = "s3://" + s3->bucket + "/" + prefix;
  const std::string tables = " --tables 'small_*,store_dimension,date_dimension'";
  RunResult r = RunLakedump("dump " + db + " " + local + " --table-format iceberg" + tables, tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  r = RunLakedump("dump " + db + " " + remote + " --table-format iceberg --endpoint " +
                      s3->endpoint + tables,
                  tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  const json m = json::parse(ReadFile(local + "/_manifest.json"));
  ASSERT_EQ(m["tables"].size(), 4u);
  for (const json& t : m["tables"]) {
    const std::string dir = t["schema"].get<std::string>() + "/" + t["table"].get<std::string>();
    const std::string meta_dir = remote + "/" + dir + "/metadata/";
    const std::string v1 = s3->Aws("s3 cp " + meta_dir + "v1.metadata.json -", tmp);
    const json meta = json::parse(v1, nullptr, false);
    ASSERT_TRUE(meta.is_object()) << v1;
    EXPECT_EQ(meta["location"], remote + "/" + dir);
    EXPECT_EQ(meta["snapshots"][0]["manifest-list"].get<std::string>().rfind(meta_dir, 0), 0u);
    const json here = ReadWithIcebird(interop, "file://" + local + "/" + dir, "", tmp);
    const json there = ReadWithIcebird(interop, remote + "/" + dir, s3->endpoint, tmp);
    EXPECT_EQ(here["rows"], t["rows"]) << dir;
    EXPECT_EQ(there, here) << dir;
  }
  s3->Aws("s3 rm --quiet --recursive " + remote + "/", tmp);
}

}  // namespace
}  // namespace lakedump
