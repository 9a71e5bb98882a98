// End-to-end: `lakedump dump --table-format iceberg` of the demo database, every
// table read back by an independent Iceberg reader (icebird, through
// tests/interop/iceberg_check.mjs, which also checks the Avro metadata with avsc
// and the Parquet field ids with hyparquet), and the bad-usage path.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <map>
#include <set>

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

// icebird's rows of a table: iceberg_read.mjs --rows [args] ({"rows","values"}).
json IcebirdRows(const std::string& interop, const std::string& table_dir, const std::string& args,
                 const TempDir& tmp) {
  const std::string out = tmp.Sub("icebird-rows.json");
  const int rc = std::system(("node " + interop + "/iceberg_read.mjs " +
                              Quote("file://" + table_dir) + " --rows " + args + " >" + out +
                              " 2>&1")
                                 .c_str());
  const std::string text = ReadFile(out);
  EXPECT_EQ(WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, 0) << text.substr(0, 2000);
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_object() ? j : json::object();
}

std::set<std::string> FilesUnder(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out.insert(fs::relative(e.path(), dir).string());
  }
  return out;
}

// History across runs: a second dump (--if-exists overwrite) of a changed source adds a
// snapshot; icebird reads the new rows at the current snapshot and the old ones by time
// travel (the first snapshot, and v1.metadata.json); gc --expire-snapshots then deletes
// exactly the first run's objects, and the first snapshot is gone from the metadata.
TEST_F(IcebergCliTest, OverwriteAddsASnapshotAndGcExpiresTheOldOne) {
  const std::string interop = InteropDir();
  if (interop.empty()) GTEST_SKIP() << "LD_INTEROP_DIR with node_modules not found";
  const std::string source = dir_.Sub("history.sqlite");
  fs::copy_file(db_, source);
  const std::string dest = dir_.Sub("again");
  const std::string args =
      "dump " + source + " " + dest + " --table-format iceberg --tables small_table_0001";
  ASSERT_EQ(RunLakedump(args, dir_).code, 0);
  const std::string table = dest + "/main/small_table_0001";
  const json first_manifest = json::parse(ReadFile(dest + "/_manifest.json"));
  const std::string run1 = first_manifest["tables"][0]["run_id"];
  const uint64_t rows1 = SqliteCount(source, "small_table_0001");
  ASSERT_GT(rows1, 10u);
  ASSERT_EQ(std::system(("sqlite3 " + Quote(source) +
                         " 'DELETE FROM small_table_0001 WHERE id > 10'")
                            .c_str()),
            0);
  RunResult r = RunLakedump(args + " --if-exists overwrite", dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
  const std::string run2 = json::parse(ReadFile(dest + "/_manifest.json"))["tables"][0]["run_id"];
  EXPECT_EQ(ReadFile(table + "/metadata/version-hint.text"), "2");
  const json v2 = json::parse(ReadFile(table + "/metadata/v2.metadata.json"));
  ASSERT_EQ(v2["snapshots"].size(), 2u);
  const std::string first_snapshot = v2["snapshots"][0]["snapshot-id"].dump();

  // The current snapshot: the new rows (and iceberg_check: equal to DuckDB's, metadata ok).
  EXPECT_EQ(IcebirdRows(interop, table, "", dir_)["rows"], 10);
  CheckWithIcebird(interop, dest, dir_);
  // Time travel: the first snapshot, and the first metadata file, read the old rows.
  EXPECT_EQ(IcebirdRows(interop, table, "--snapshot " + first_snapshot, dir_)["rows"], rows1);
  EXPECT_EQ(IcebirdRows(interop, table, "--metadata v1.metadata.json", dir_)["rows"], rows1);
  ASSERT_EQ(RunLakedump("verify " + dest, dir_).code, 0);
  RunResult ls = RunLakedump("ls " + dest, dir_);
  EXPECT_NE(ls.out.find("2 snapshots"), std::string::npos) << ls.out;

  // gc --expire-snapshots: exactly the first run's objects go (its data file, manifest and
  // manifest list); v3 names only the second snapshot.
  const std::set<std::string> before = FilesUnder(dest);
  std::set<std::string> of_run1;
  for (const std::string& f : before) {
    if (f.find(run1) != std::string::npos) of_run1.insert(f);
  }
  EXPECT_EQ(of_run1.size(), 3u);
  RunResult gc = RunLakedump("gc " + dest + " --expire-snapshots", dir_);
  ASSERT_EQ(gc.code, 0) << gc.err;
  EXPECT_NE(gc.out.find("1 snapshots expired in 1 tables, 3 objects deleted"), std::string::npos)
      << gc.out;
  std::set<std::string> want;
  for (const std::string& f : before) {
    if (!of_run1.count(f)) want.insert(f);
  }
  want.insert("main/small_table_0001/metadata/v3.metadata.json");
  EXPECT_EQ(FilesUnder(dest), want);
  const json v3 = json::parse(ReadFile(table + "/metadata/v3.metadata.json"));
  ASSERT_EQ(v3["snapshots"].size(), 1u);
  EXPECT_EQ(v3["snapshots"][0]["summary"]["lakedump.run-id"], run2);
  EXPECT_EQ(IcebirdRows(interop, table, "", dir_)["rows"], 10);
  CheckWithIcebird(interop, dest, dir_);
  ASSERT_EQ(RunLakedump("verify " + dest, dir_).code, 0);
  // --retain-last without --expire-snapshots is bad usage.
  EXPECT_EQ(RunLakedump("gc " + dest + " --retain-last 2", dir_).code, 2);
}

// A schema change across runs (docs/iceberg.md, "Schema changes"): a column dropped and one
// added between two dumps. The second snapshot has a new schema (schema-id 1) with the kept
// columns' field ids and a fresh id for the new column, in the metadata and in the Parquet
// files (iceberg_check: hyparquet's field_id, avsc's metrics by id); icebird reads the new
// column at the current snapshot and the old columns by time travel (the first snapshot with
// its schema, and v1.metadata.json).
TEST_F(IcebergCliTest, AColumnAddedAndOneDroppedKeepTheOtherFieldIds) {
  const std::string interop = InteropDir();
  if (interop.empty()) GTEST_SKIP() << "LD_INTEROP_DIR with node_modules not found";
  const std::string source = dir_.Sub("evolve.sqlite");
  fs::copy_file(db_, source);
  const std::string dest = dir_.Sub("evolve");
  const std::string args =
      "dump " + source + " " + dest + " --table-format iceberg --tables small_table_0002";
  ASSERT_EQ(RunLakedump(args, dir_).code, 0);
  const std::string table = dest + "/main/small_table_0002";
  const json v1 = json::parse(ReadFile(table + "/metadata/v1.metadata.json"));
  // id 1, name 2, amount 3, created 4, active 5.
  ASSERT_EQ(v1["schemas"][0]["fields"].size(), 5u);
  ASSERT_EQ(v1["schemas"][0]["fields"][1]["name"], "name");
  const std::string sql = dir_.Sub("evolve.sql");
  WriteFile(sql,
            "ALTER TABLE small_table_0002 DROP COLUMN name;\n"
            "ALTER TABLE small_table_0002 ADD COLUMN note TEXT;\n"
            "UPDATE small_table_0002 SET note = 'note ' || id;\n");
  ASSERT_EQ(std::system(("sqlite3 " + Quote(source) + " < " + Quote(sql)).c_str()), 0);
  RunResult r = RunLakedump(args + " --if-exists overwrite", dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
  EXPECT_EQ(ReadFile(table + "/metadata/version-hint.text"), "2");
  const json v2 = json::parse(ReadFile(table + "/metadata/v2.metadata.json"));
  EXPECT_EQ(v2["table-uuid"], v1["table-uuid"]);
  ASSERT_EQ(v2["schemas"].size(), 2u);
  EXPECT_EQ(v2["schemas"][0], v1["schemas"][0]);
  EXPECT_EQ(v2["schemas"][1]["schema-id"], 1);
  EXPECT_EQ(v2["current-schema-id"], 1);
  EXPECT_EQ(v2["last-column-id"], 6);
  ASSERT_EQ(v2["snapshots"].size(), 2u);
  EXPECT_EQ(v2["snapshots"][0]["schema-id"], 0);
  EXPECT_EQ(v2["snapshots"][1]["schema-id"], 1);
  std::vector<std::pair<int, std::string>> fields;
  for (const json& f : v2["schemas"][1]["fields"]) {
    fields.emplace_back(f["id"].get<int>(), f["name"].get<std::string>());
  }
  EXPECT_EQ(fields, (std::vector<std::pair<int, std::string>>{
                        {1, "id"}, {3, "amount"}, {4, "created"}, {5, "active"}, {6, "note"}}));
  EXPECT_EQ(json::parse(v2["properties"]["schema.name-mapping.default"].get<std::string>()),
            json::parse(R"([{"field-id":1,"names":["id"]},{"field-id":3,"names":["amount"]},
                {"field-id":4,"names":["created"]},{"field-id":5,"names":["active"]},
                {"field-id":6,"names":["note"]}])"));
  // Each kept column has its type of the first schema (none changed here).
  std::map<int, json> first_types;
  for (const json& f : v1["schemas"][0]["fields"]) first_types[f["id"].get<int>()] = f["type"];
  for (const json& f : v2["schemas"][1]["fields"]) {
    const int id = f["id"].get<int>();
    if (id != 6) {
      EXPECT_EQ(f["type"], first_types.at(id)) << f.dump();
    }
  }

  const auto text = [](const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
  const json now = IcebirdRows(interop, table, "", dir_);
  EXPECT_EQ(now["rows"], 100);
  ASSERT_EQ(now["values"].size(), 100u);
  for (const json& row : now["values"]) {
    EXPECT_FALSE(row.contains("name")) << row.dump();
    ASSERT_TRUE(row.contains("note")) << row.dump();
    EXPECT_EQ(row["note"], "note " + text(row["id"])) << row.dump();
    EXPECT_TRUE(row.contains("amount")) << row.dump();
  }
  CheckWithIcebird(interop, dest, dir_);
  for (const std::string& travel :
       {"--snapshot " + v2["snapshots"][0]["snapshot-id"].dump(),
        std::string("--metadata v1.metadata.json")}) {
    const json old = IcebirdRows(interop, table, travel, dir_);
    EXPECT_EQ(old["rows"], 100) << travel;
    ASSERT_EQ(old["values"].size(), 100u) << travel;
    for (const json& row : old["values"]) {
      EXPECT_TRUE(row.contains("name") && row["name"].is_string()) << travel << " " << row.dump();
      EXPECT_FALSE(row.contains("note")) << travel << " " << row.dump();
    }
  }
  ASSERT_EQ(RunLakedump("verify " + dest, dir_).code, 0);
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
  const json listed = json::parse(js.out);  // the loop below must not range over a temporary
  for (const json& t : listed["tables"]) {
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
