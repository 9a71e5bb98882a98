// Dumps the tool must read back, and metadata it must not trust (issue 16): keys checked by
// path segment ("ab..cd" is a name, ".." is not), file entries without a checksum or size,
// metadata files too large to be ours, and data files whose row counts disagree.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "base/checksum.h"
#include "dump/export_service.h"
#include "lake/manifest.h"
#include "lake/object_keys.h"
#include "lake/verifier.h"
#include "fakes/fake_database.h"
#include "fakes/small_dump_options.h"
#include "fakes/fault_injection_store.h"
#include "fakes/temp_dir.h"
#include "format/parquet_craft.h"
#include "store/local/local_store.h"
#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

DumpOptions SmallOptions() { return SmallDumpOptions(2, 500, 400); }

void DumpTables(ObjectStore* store, const std::vector<FakeTable>& tables,
                DumpOptions options = SmallOptions()) {
  FakeDatabase db;
  for (const FakeTable& t : tables) db.AddTable(t);
  ExportService service(&db, store, options);
  auto r = service.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

std::string ProblemsOf(const VerifyReport& r) {
  std::string out;
  for (const VerifyProblem& p : r.problems) out += p.ToString() + "\n";
  return out;
}

// The finding: a table named "ab..cd" dumped with exit 0, then failed `verify` and `load`
// (file keys were refused for containing ".." anywhere). Keys are checked by segment.
TEST(HostileDumpTest, TableNameWithDotDotVerifiesAndReadsBack) {
  MemoryStore store;
  const TableRef ref{"main", "ab..cd"};
  DumpTables(&store, {FakeTable{ref, 1200}, FakeTable{TableRef{"..", ".."}, 10}});
  VerifyOptions o;
  o.deep = true;
  auto report = Verify(store, o);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->ok()) << ProblemsOf(*report);
  EXPECT_EQ(report->rows, 1210u);
  auto t = ReadTableManifest(store, TableManifestKey(ref));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->rows, 1200u);
  EXPECT_EQ(TableManifestKey(TableRef{"..", ".."}), "%2E./%2E./_table.json");
}

// A file key that would leave its folder, or is absolute, is still refused.
TEST(HostileDumpTest, FileKeysAreValidatedBySegment) {
  MemoryStore store;
  DumpTables(&store, {FakeTable{TableRef{"main", "t"}, 100}});
  const std::string key = TableManifestKey(TableRef{"main", "t"});
  json j = json::parse(*store.GetObject(key));
  for (const char* bad : {"main/../../etc/passwd", "/etc/passwd", "main//t.parquet", "a/./b"}) {
    json k = j;
    k["files"][0]["key"] = bad;
    auto parsed = ParseTableManifest(k.dump(), key);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), Code::kCorruption);
  }
  json ok = j;
  ok["files"][0]["key"] = "main/ab..cd/x=1..2/part.parquet";
  EXPECT_TRUE(ParseTableManifest(ok.dump(), key).ok());
}

// The finding: `load` accepted a file entry with an empty xxh64 and bytes 0 (and then checked
// neither). Both are required: such a _table.json is corrupt.
TEST(HostileDumpTest, FileEntryWithoutChecksumOrSizeIsCorrupt) {
  MemoryStore store;
  DumpTables(&store, {FakeTable{TableRef{"main", "t"}, 100}});
  const std::string key = TableManifestKey(TableRef{"main", "t"});
  const json j = json::parse(*store.GetObject(key));
  json no_hash = j;
  no_hash["files"][0]["xxh64"] = "";
  auto a = ParseTableManifest(no_hash.dump(), key);
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(a.status().message(), HasSubstr("xxh64"));
  json no_bytes = j;
  no_bytes["files"][0]["bytes"] = 0;
  no_bytes["bytes"] = 0;
  auto b = ParseTableManifest(no_bytes.dump(), key);
  ASSERT_FALSE(b.ok());
  EXPECT_THAT(b.status().message(), HasSubstr("0 bytes"));

  ASSERT_TRUE(store.PutObject(key, no_hash.dump()).ok());
  auto report = Verify(store, {});
  ASSERT_TRUE(report.ok());
  ASSERT_FALSE(report->ok());
  EXPECT_EQ(report->problems[0].kind, "table-manifest") << ProblemsOf(*report);
}

// The finding: a 3 GB sparse _manifest.json was read whole. Metadata files are refused from
// their size, before a byte is read.
TEST(HostileDumpTest, OversizedManifestIsRefusedFromItsSize) {
  TempDir dir;
  {
    auto store = LocalStore::Open(dir.path());
    ASSERT_TRUE(store.ok());
    DumpTables(store->get(), {FakeTable{TableRef{"main", "t"}, 10}});
  }
  ASSERT_EQ(::truncate(dir.Sub("_manifest.json").c_str(), 3ll << 30), 0);
  auto local = LocalStore::Open(dir.path());
  ASSERT_TRUE(local.ok());
  FaultInjectionStore store(local->get());  // counts the reads
  auto m = ReadDumpManifest(store);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), Code::kCorruption);
  EXPECT_THAT(m.status().message(), HasSubstr("more than the"));
  EXPECT_EQ(store.calls(FaultPoint::kRead), 0);  // refused from its size: not a byte read
  auto report = Verify(store, {});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_FALSE(report->ok());
  EXPECT_EQ(report->problems[0].kind, "manifest");
}

// The finding: a data file of no columns claiming 2^62 rows (its _table.json and manifest
// agreeing, checksums valid) made `verify --deep` spin. It is refused at once (a spin would
// hang this test: ctest's timeout fails it).
TEST(HostileDumpTest, ZeroColumnFileClaimingRowsFailsVerifyPromptly) {
  MemoryStore store;
  const TableRef ref{"main", "t"};
  DumpTables(&store, {FakeTable{ref, 100}});
  const std::string tkey = TableManifestKey(ref);
  json t = json::parse(*store.GetObject(tkey));
  const std::string fkey = t["files"][0]["key"];
  const uint64_t rows = uint64_t{1} << 62;
  const std::string crafted = testing::RewriteParquet(
      *store.GetObject(fkey), [](size_t, parquet::PageHeader*, std::string*) {},
      [&](parquet::FileMetaData* m) {
        m->schema.resize(1);
        m->schema[0].num_children = 0;
        m->column_orders.clear();
        m->num_rows = static_cast<int64_t>(rows);
        m->row_groups.resize(1);
        m->row_groups[0].columns.clear();
        m->row_groups[0].num_rows = static_cast<int64_t>(rows);
      });
  ASSERT_FALSE(crafted.empty());
  ASSERT_TRUE(store.PutObject(fkey, crafted).ok());
  t["columns"] = json::array();
  t["files"][0]["rows"] = rows;
  t["files"][0]["bytes"] = crafted.size();
  t["files"][0]["xxh64"] = Xxh64Hex(crafted);
  t["rows"] = rows;
  t["bytes"] = crafted.size();
  ASSERT_TRUE(store.PutObject(tkey, t.dump()).ok());
  json m = json::parse(*store.GetObject(std::string(kManifestKey)));
  m["tables"][0]["rows"] = rows;
  m["tables"][0]["bytes"] = crafted.size();
  m["totals"]["rows"] = rows;
  m["totals"]["bytes"] = crafted.size();
  ASSERT_TRUE(store.PutObject(kManifestKey, m.dump()).ok());

  VerifyOptions o;
  o.deep = true;
  auto report = Verify(store, o);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_FALSE(report->ok());
  EXPECT_THAT(ProblemsOf(*report), HasSubstr("has no columns")) << ProblemsOf(*report);
}

// A long partition value (past NAME_MAX) makes a shortened folder; the data file entry keeps
// the whole escaped value.
TEST(HostileDumpTest, LongPartitionSegmentIsShortened) {
  const std::string value(300, 'v');
  const std::string partition = "p=" + value;
  const std::string key = DataFileKey(TableRef{"main", "t"}, partition, 0, 0, "run");
  const size_t first = key.find('/', 5) + 1;
  const std::string segment = key.substr(first, key.find('/', first) - first);
  EXPECT_LE(segment.size(), 200u);
  EXPECT_EQ(segment.substr(0, 10), partition.substr(0, 10));
  EXPECT_NE(DataFileKey(TableRef{"main", "t"}, partition + "w", 0, 0, "run"), key);
  EXPECT_EQ(DataFileKey(TableRef{"main", "t"}, "p=1..2", 0, 0, "run"),
            "main/t/p=1..2/part-0000-00000-run.parquet");
}

}  // namespace
}  // namespace lakedump
