// End-to-end: `lakedump dump --table-format iceberg` of the demo database, every
// table read back by an independent Iceberg reader (icebird, through
// tests/interop/iceberg_check.mjs, which also checks the Avro metadata with avsc
// and the Parquet field ids with hyparquet), and the bad-usage path.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"

namespace lakedump {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace testing_cli;

class IcebergCliTest : public testing_cli::DemoDatabaseSuite<IcebergCliTest> {
 public:
  static constexpr const char* kDemoArgs = "--rows 20000 --small-tables 3 --seed 11";
};

uint64_t SqliteCount(const std::string& db, const std::string& table) {
  sqlite3* h = nullptr;
  uint64_t n = 0;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return 0;
  sqlite3_stmt* st = nullptr;
  const std::string sql = "SELECT count(*) FROM \"" + table + "\"";
  if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    n = static_cast<uint64_t>(sqlite3_column_int64(st, 0));
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return n;
}

// Runs iceberg_check.mjs on a dump; returns its output, failing the test unless
// every check passed.
std::string CheckWithIcebird(const std::string& interop, const std::string& dest,
                             const TempDir& tmp) {
  const std::string out = tmp.Sub("iceberg-check.txt");
  const std::string cmd =
      "node " + interop + "/iceberg_check.mjs " + Quote(dest) + " --quiet >" + out + " 2>&1";
  const int rc = std::system(cmd.c_str());
  const std::string text = ReadFile(out);
  EXPECT_EQ(WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, 0) << text;
  EXPECT_NE(text.find(" passed, 0 failed"), std::string::npos) << text;
  return text;
}

TEST_F(IcebergCliTest, DemoDumpReadByIcebirdEqualsTheSource) {
  const std::string interop = InteropDir();
  if (interop.empty()) GTEST_SKIP() << "LD_INTEROP_DIR with node_modules not found";
  const std::string dest = dir_.Sub("out");
  // Small row groups and files: several files per big table, several row groups per file.
  RunResult r = RunLakedump("dump " + db_ + " " + dest +
                                " --table-format iceberg --row-group-size 3000 --file-size 256KiB",
                            dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  const json m = json::parse(ReadFile(dest + "/_manifest.json"));
  EXPECT_EQ(m["options"]["table_format"], "iceberg");
  size_t multi_file_tables = 0;
  for (const json& t : m["tables"]) {
    const std::string table = t["table"];
    EXPECT_EQ(t["rows"].get<uint64_t>(), SqliteCount(db_, table)) << table;
    if (t["files"].get<int>() > 1) ++multi_file_tables;
    const std::string meta =
        dest + "/" + t["schema"].get<std::string>() + "/" + table + "/metadata/";
    EXPECT_EQ(ReadFile(meta + "version-hint.text"), "1") << table;
    const json v1 = json::parse(ReadFile(meta + "v1.metadata.json"));
    EXPECT_EQ(v1["snapshots"][0]["summary"]["total-records"],
              std::to_string(t["rows"].get<uint64_t>()));
  }
  EXPECT_GE(multi_file_tables, 1u);
  const std::string text = CheckWithIcebird(interop, dest, dir_);
  // 4 checks per table: metadata.json, icebird rows, Avro manifests, Parquet field ids.
  EXPECT_NE(text.find(std::to_string(4 * m["tables"].size()) + " passed, 0 failed"),
            std::string::npos)
      << text;
}

TEST_F(IcebergCliTest, PartitionedTableReadByIcebird) {
  const std::string interop = InteropDir();
  if (interop.empty()) GTEST_SKIP() << "LD_INTEROP_DIR with node_modules not found";
  const std::string dest = dir_.Sub("part");
  RunResult r = RunLakedump("dump " + db_ + " " + dest +
                                " --table-format iceberg --tables store_dimension "
                                "--partition-by store_region",
                            dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  const json v1 =
      json::parse(ReadFile(dest + "/main/store_dimension/metadata/v1.metadata.json"));
  ASSERT_EQ(v1["partition-specs"][0]["fields"].size(), 1u);
  EXPECT_EQ(v1["partition-specs"][0]["fields"][0]["name"], "store_region");
  CheckWithIcebird(interop, dest, dir_);
}

TEST_F(IcebergCliTest, OverwriteReplacesTheTablesMetadata) {
  const std::string interop = InteropDir();
  if (interop.empty()) GTEST_SKIP() << "LD_INTEROP_DIR with node_modules not found";
  const std::string dest = dir_.Sub("again");
  const std::string args =
      "dump " + db_ + " " + dest + " --table-format iceberg --tables 'small_*'";
  ASSERT_EQ(RunLakedump(args, dir_).code, 0);
  RunResult r = RunLakedump(args + " --if-exists overwrite", dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  // One manifest and one manifest list per table: the first run's were swept.
  for (const auto& e : fs::recursive_directory_iterator(dest)) {
    if (e.path().filename() == "metadata") {
      EXPECT_EQ(std::distance(fs::directory_iterator(e.path()), fs::directory_iterator{}), 4)
          << e.path();
    }
  }
  CheckWithIcebird(interop, dest, dir_);
}

TEST_F(IcebergCliTest, DefaultWritesNoIcebergMetadata) {
  const std::string dest = dir_.Sub("plain");
  RunResult r = RunLakedump("dump " + db_ + " " + dest + " --tables 'small_*'", dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  for (const auto& e : fs::recursive_directory_iterator(dest)) {
    EXPECT_NE(e.path().filename(), "metadata") << e.path();
  }
  const json m = json::parse(ReadFile(dest + "/_manifest.json"));
  EXPECT_EQ(m["options"]["table_format"], "parquet");
}

// `ls` of an Iceberg dump: each table is an Iceberg table with its snapshot count (read
// from the metadata version-hint.text names); a broken table is shown as such, and a
// plain dump has no iceberg column.
TEST_F(IcebergCliTest, LsShowsEachTablesSnapshotCount) {
  const std::string dest = dir_.Sub("listed");
  ASSERT_EQ(RunLakedump("dump " + db_ + " " + dest + " --table-format iceberg --tables 'small_*'",
                        dir_)
                .code,
            0);
  RunResult ls = RunLakedump("ls " + dest, dir_);
  ASSERT_EQ(ls.code, 0) << ls.err;
  EXPECT_NE(ls.out.find("table format: iceberg"), std::string::npos) << ls.out;
  const json m = json::parse(ReadFile(dest + "/_manifest.json"));
  ASSERT_EQ(m["tables"].size(), 3u);
  for (const json& t : m["tables"]) {
    const std::string name = t["table"];
    const size_t at = ls.out.find("\nmain." + name + " ");
    ASSERT_NE(at, std::string::npos) << name << "\n" << ls.out;
    const std::string line = ls.out.substr(at + 1, ls.out.find('\n', at + 1) - at - 1);
    EXPECT_TRUE(line.ends_with("  1 snapshot")) << line;
  }
  RunResult js = RunLakedump("ls " + dest + " --json", dir_);
  ASSERT_EQ(js.code, 0) << js.err;
  for (const json& t : json::parse(js.out)["tables"]) {
    EXPECT_EQ(t["iceberg"]["snapshots"], 1) << t.dump();
    EXPECT_EQ(t["iceberg"]["run_id"], t["run_id"]) << t.dump();
    EXPECT_FALSE(t["iceberg"].contains("problem")) << t.dump();
  }
  // One table's hint gone: that table no longer opens, and ls says so (exit 0: the dump is there).
  const std::string first = m["tables"][0]["table"];
  ASSERT_TRUE(fs::remove(dest + "/main/" + first + "/metadata/version-hint.text"));
  RunResult broken = RunLakedump("ls " + dest, dir_);
  ASSERT_EQ(broken.code, 0) << broken.err;
  EXPECT_NE(broken.out.find("not readable: no version-hint.text"), std::string::npos)
      << broken.out;
  // A plain dump: no iceberg column.
  const std::string plain = dir_.Sub("listed-plain");
  ASSERT_EQ(RunLakedump("dump " + db_ + " " + plain + " --tables 'small_*'", dir_).code, 0);
  RunResult plain_ls = RunLakedump("ls " + plain, dir_);
  ASSERT_EQ(plain_ls.code, 0) << plain_ls.err;
  EXPECT_EQ(plain_ls.out.find("iceberg"), std::string::npos) << plain_ls.out;
}

TEST_F(IcebergCliTest, UnknownTableFormatIsBadUsage) {
  const std::string dest = dir_.Sub("bad");
  RunResult r = RunLakedump("dump " + db_ + " " + dest + " --table-format delta", dir_);
  ExpectOneLineError(r, 2, "--table-format \"delta\": expected parquet or iceberg");
  EXPECT_FALSE(fs::exists(dest + "/_manifest.json"));
}

}  // namespace
}  // namespace lakedump
