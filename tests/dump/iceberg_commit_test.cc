// --table-format iceberg in the export service: each table's Iceberg metadata
// is written before its _table.json, version-hint.text last, metrics match the
// files, partitioned dumps get partition values, and a failure on the way
// leaves no version hint.
#include "dump/iceberg/iceberg_commit.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include <nlohmann/json.hpp>

#include "dump/export_service.h"
#include "lake/object_keys.h"
#include "lake/verifier.h"
#include "fakes/fake_database.h"
#include "fakes/fault_injection_store.h"
#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

using json = nlohmann::json;

DumpOptions IcebergOptions() {
  DumpOptions o;
  o.table_parallelism = 2;
  o.batch_rows = 500;
  o.parquet.row_group_rows = 400;
  o.progress = ProgressMode::kNone;
  o.table_format = TableFormat::kIceberg;
  return o;
}

bool Has(const MemoryStore& s, const std::string& key) {
  for (const auto& k : s.Keys()) {
    if (k == key) return true;
  }
  return false;
}

TEST(IcebergCommitTest, EveryTableGetsItsMetadataBesideItsFiles) {
  FakeDatabase db;
  db.AddTable(FakeTable{TableRef{"main", "a"}, 2000});
  db.AddTable(FakeTable{TableRef{"main", "empty"}, 0});
  MemoryStore store("ice");
  DumpOptions o = IcebergOptions();
  o.file_size = 1 << 10;  // several files per table
  ExportService service(&db, &store, o);
  auto r = service.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (const TableSummary& ts : r->manifest.tables) {
    auto t = ReadTableManifest(store, ts.key);
    ASSERT_TRUE(t.ok());
    const std::vector<std::string> keys = IcebergMetadataKeys(*t);
    ASSERT_EQ(keys.size(), 2u);
    for (const std::string& k : keys) EXPECT_TRUE(Has(store, k)) << k;
    EXPECT_EQ(*store.GetObject(IcebergHintKey(t->table)), "1");
    const json m = json::parse(*store.GetObject(IcebergMetadataFileKey(t->table, 1)));
    EXPECT_EQ(m["location"], "memory://ice/" + TablePrefix(t->table).substr(
                                                   0, TablePrefix(t->table).size() - 1));
    const json& summary = m["snapshots"][0]["summary"];
    EXPECT_EQ(summary["total-records"], std::to_string(t->rows));
    EXPECT_EQ(summary["total-data-files"], std::to_string(t->files.size()));
    EXPECT_EQ(summary["total-files-size"], std::to_string(t->bytes));
    if (ts.table.name == "a") {
      EXPECT_GT(t->files.size(), 1u);
    }
    // The manifest names every data file by its full location.
    const std::string manifest = *store.GetObject(keys[0]);
    for (const DataFile& f : t->files) {
      EXPECT_NE(manifest.find("memory://ice/" + f.key), std::string::npos) << f.key;
    }
  }
}

TEST(IcebergCommitTest, MetricsComeFromTheWritersFooter) {
  FakeDatabase db;
  db.AddTable(FakeTable{TableRef{"main", "a"}, 1000});
  DumpOptions o = IcebergOptions();
  MemoryStore store("m");
  ExportService service(&db, &store, o);
  ASSERT_TRUE(service.Run().ok());
  auto t = ReadTableManifest(store, TableManifestKey(TableRef{"main", "a"}));
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->files.size(), 1u);
  // _table.json does not carry the metrics; the manifest does: check the id column's
  // bounds (0..999, int64 little-endian) are in it.
  const std::string manifest = *store.GetObject(IcebergMetadataKeys(*t)[0]);
  std::string lo(8, '\0'), hi(8, '\0');
  const int64_t max = 999;
  std::memcpy(hi.data(), &max, 8);
  EXPECT_NE(manifest.find(lo), std::string::npos);
  EXPECT_NE(manifest.find(hi), std::string::npos);
}

TEST(IcebergCommitTest, PartitionedDumpRecordsEachFilesValue) {
  FakeDatabase db;
  db.AddTable(FakeTable{TableRef{"main", "p"}, 300});
  DumpOptions o = IcebergOptions();
  o.partition_by = "name";
  MemoryStore store("p");
  ExportService service(&db, &store, o);
  auto r = service.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto t = ReadTableManifest(store, TableManifestKey(TableRef{"main", "p"}));
  ASSERT_TRUE(t.ok());
  const json m = json::parse(*store.GetObject(IcebergMetadataFileKey(t->table, 1)));
  const json& spec = m["partition-specs"][0]["fields"];
  ASSERT_EQ(spec.size(), 1u);
  EXPECT_EQ(spec[0]["transform"], "identity");
  EXPECT_EQ(spec[0]["source-id"], 2);
  EXPECT_EQ(spec[0]["field-id"], 1000);
  EXPECT_EQ(m["last-partition-id"], 1000);
  EXPECT_EQ(m["snapshots"][0]["summary"]["changed-partition-count"],
            std::to_string(t->files.size()));
}

// Writers of a one-table, one-file dump, in order: the lease, the data file, the manifest,
// the manifest list, v1.metadata.json, version-hint.text, _table.json.
class IcebergFailureTest : public ::testing::TestWithParam<int> {};

// A failed write anywhere (the data file, _table.json, any Iceberg metadata object: the
// metadata is written beside _table.json, so their order varies) fails the run, commits
// nothing and leaves no version-hint.text over a table whose metadata is not all there.
TEST_P(IcebergFailureTest, AFailedWriteLeavesNoVersionHintOverMissingMetadata) {
  FakeDatabase db;
  db.AddTable(FakeTable{TableRef{"main", "a"}, 100});
  MemoryStore memory("f");
  FaultInjectionStore store(&memory);
  store.FailNth(FaultPoint::kNewWriter, GetParam(), Status::IOError("injected"));
  DumpOptions o = IcebergOptions();
  o.table_parallelism = 1;
  ExportService service(&db, &store, o);
  auto r = service.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("injected"), std::string::npos) << r.status().ToString();
  int metadata_objects = 0;
  bool hint = false;
  for (const std::string& k : memory.Keys()) {
    if (k.find("/metadata/") != std::string::npos) ++metadata_objects;
    hint = hint || IsIcebergVersionHint(k);
    EXPECT_NE(k, "_manifest.json");
  }
  // The hint is its table's last object: there only when the manifests, the manifest
  // list and v1.metadata.json are.
  if (hint) {
    EXPECT_EQ(metadata_objects, 4);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryWrite, IcebergFailureTest, ::testing::Range(1, 8));

TEST(IcebergCommitTest, OverwriteAsParquetRemovesTheOldMetadata) {
  FakeDatabase db;
  db.AddTable(FakeTable{TableRef{"main", "a"}, 100});
  MemoryStore store("o");
  {
    ExportService first(&db, &store, IcebergOptions());
    ASSERT_TRUE(first.Run().ok());
  }
  DumpOptions o = IcebergOptions();
  o.table_format = TableFormat::kParquet;
  o.if_exists = IfExists::kOverwrite;
  ExportService second(&db, &store, o);
  ASSERT_TRUE(second.Run().ok());
  for (const std::string& k : store.Keys()) {
    EXPECT_EQ(k.find("/metadata/"), std::string::npos) << k;
  }
}

TEST(IcebergCommitTest, ResumeKeepsCommittedTablesMetadata) {
  FakeDatabase db;
  db.AddTable(FakeTable{TableRef{"main", "a"}, 100});
  MemoryStore store("r");
  {
    ExportService first(&db, &store, IcebergOptions());
    ASSERT_TRUE(first.Run().ok());
  }
  DumpOptions o = IcebergOptions();
  o.if_exists = IfExists::kResume;
  ExportService again(&db, &store, o);
  auto r = again.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->reused_tables, 1u);
  auto t = ReadTableManifest(store, TableManifestKey(TableRef{"main", "a"}));
  ASSERT_TRUE(t.ok());
  for (const std::string& k : IcebergMetadataKeys(*t)) EXPECT_TRUE(Has(store, k)) << k;
}

// The run of the table's current metadata (through version-hint.text).
std::string MetadataRunId(MemoryStore& store, const std::string& table_prefix) {
  auto hint = store.GetObject(table_prefix + "metadata/version-hint.text");
  if (!hint.ok()) return "(missing)";
  auto text = store.GetObject(table_prefix + "metadata/v" + *hint + ".metadata.json");
  if (!text.ok()) return "(missing)";
  return json::parse(*text)["properties"].value("lakedump.run-id", "");
}

// Over a committed Iceberg dump, v2.metadata.json and version-hint.text are
// written only after the new manifest: a run failing at any write before leaves
// the old table (metadata naming the old run, its files there); a run that
// succeeds leaves the new table's metadata (its history keeps the old snapshot).
TEST(IcebergCommitTest, OverwriteKeepsTheCommittedIcebergTableUntilTheNewManifest) {
  bool failed = false, succeeded = false;
  for (int n = 1; n <= 200 && !succeeded; ++n) {
    FakeDatabase db;
    db.AddTable(FakeTable{TableRef{"main", "a"}, 1500});
    MemoryStore memory("iceberg-overwrite");
    ASSERT_TRUE(ExportService(&db, &memory, IcebergOptions()).Run().ok());
    auto old_table = ReadTableManifest(memory, TableManifestKey(TableRef{"main", "a"}));
    ASSERT_TRUE(old_table.ok());
    ASSERT_EQ(MetadataRunId(memory, "main/a/"), old_table->run_id);
    FaultInjectionStore store(&memory);
    store.FailNth(FaultPoint::kAppend, n, Status::IOError("injected: disk full"));
    DumpOptions o = IcebergOptions();
    o.if_exists = IfExists::kOverwrite;
    auto r = ExportService(&db, &store, o).Run();
    auto m = ReadDumpManifest(memory);
    ASSERT_TRUE(m.ok());
    ASSERT_EQ(m->tables.size(), 1u);
    auto t = ReadTableManifest(memory, m->tables[0].key);
    ASSERT_TRUE(t.ok());
    if (!r.ok() && t->run_id != old_table->run_id) {
      // Failed after its manifest (writing the deferred metadata): the Iceberg table
      // is still the old one, whole (nothing was swept), and verify says so.
      // (Or failed at version-hint.text, after the new v2: still the old table.)
      if (MetadataRunId(memory, "main/a/") != old_table->run_id) {
        EXPECT_EQ(MetadataRunId(memory, "main/a/"), t->run_id);
        continue;
      }
      for (const DataFile& f : old_table->files) EXPECT_TRUE(Has(memory, f.key)) << f.key;
      auto verified = Verify(memory);
      ASSERT_TRUE(verified.ok());
      bool reported = false;
      for (const auto& p : verified->problems) reported |= p.kind == "iceberg-metadata";
      EXPECT_TRUE(reported) << "append " << n;
      continue;
    }
    if (r.ok()) {
      succeeded = true;
      EXPECT_NE(t->run_id, old_table->run_id);
    } else {
      failed = true;
      EXPECT_EQ(t->run_id, old_table->run_id) << "failure at append " << n;
    }
    // Whichever dump is committed, its Iceberg table is whole and names its run.
    EXPECT_EQ(MetadataRunId(memory, "main/a/"), t->run_id) << "append " << n;
    for (const std::string& k : IcebergMetadataKeys(*t)) EXPECT_TRUE(Has(memory, k)) << k;
    auto verified = Verify(memory);
    ASSERT_TRUE(verified.ok());
    EXPECT_TRUE(verified->ok()) << "append " << n << ": "
                                << (verified->problems.empty() ? ""
                                                               : verified->problems[0].key + " " +
                                                                     verified->problems[0].message);
  }
  EXPECT_TRUE(failed);
  EXPECT_TRUE(succeeded);
}

TEST(IcebergCommitTest, OverwriteRefusesAForeignIcebergTable) {
  FakeDatabase db;
  db.AddTable(FakeTable{TableRef{"main", "a"}, 100});
  MemoryStore store("foreign");
  const std::string foreign = "warehouse/t/metadata/00001-abc.metadata.json";
  ASSERT_TRUE(store.PutObject(foreign, R"({"format-version":2,"properties":{}})").ok());
  ASSERT_TRUE(store.PutObject("warehouse/t/data/x.parquet", "PAR1").ok());
  for (int mode = 0; mode < 3; ++mode) {
    DumpOptions o = IcebergOptions();
    o.if_exists = mode == 1 ? IfExists::kResume : IfExists::kOverwrite;
    o.delete_foreign = mode == 2;
    ExportService service(&db, &store, o);
    auto r = service.Run();
    ASSERT_FALSE(r.ok());
    // No run journal names them: refused as foreign before the Iceberg check (which still
    // holds with --delete-foreign).
    EXPECT_EQ(r.status().code(), o.delete_foreign ? Code::kAlreadyExists : Code::kInvalidArgument);
    EXPECT_NE(r.status().message().find(o.delete_foreign ? "not written by lakedump"
                                                         : "no lakedump run wrote"),
              std::string::npos)
        << r.status().ToString();
    EXPECT_NE(r.status().message().find(foreign), std::string::npos);
  }
  // Nothing was written or deleted.
  const auto keys = store.Keys();
  EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()),
            std::set<std::string>({foreign, "warehouse/t/data/x.parquet"}));
}

TEST(IcebergCommitTest, VerifyClaimsTheMetadataAndReportsWhatIsMissing) {
  FakeDatabase db;
  db.AddTable(FakeTable{TableRef{"main", "a"}, 100});
  MemoryStore store("v");
  ExportService service(&db, &store, IcebergOptions());
  ASSERT_TRUE(service.Run().ok());
  auto clean = Verify(store);
  ASSERT_TRUE(clean.ok()) << clean.status().ToString();
  EXPECT_TRUE(clean->ok()) << (clean->problems.empty() ? "" : clean->problems[0].message);
  auto t = ReadTableManifest(store, TableManifestKey(TableRef{"main", "a"}));
  ASSERT_TRUE(t.ok());
  const std::string hint = IcebergHintKey(t->table);
  ASSERT_TRUE(store.Delete(std::span<const std::string>(&hint, 1)).ok());
  auto broken = Verify(store);
  ASSERT_TRUE(broken.ok());
  ASSERT_EQ(broken->problems.size(), 1u);
  EXPECT_EQ(broken->problems[0].key, hint);
  EXPECT_EQ(broken->problems[0].kind, "missing");
}

TEST(IcebergCommitTest, RootUris) {
  MemoryStore memory("x");
  EXPECT_EQ(StoreRootUri(memory), "memory://x");
  EXPECT_TRUE(IsIcebergVersionHint("main/t/metadata/version-hint.text"));
  EXPECT_FALSE(IsIcebergVersionHint("main/t/metadata/v1.metadata.json"));
}

}  // namespace
}  // namespace lakedump
