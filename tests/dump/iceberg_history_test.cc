// Iceberg history across runs: a dump over a committed Iceberg dump (--if-exists overwrite)
// appends its snapshot to each table's history (v<N+1>.metadata.json, parent, sequence
// numbers, logs) and keeps the earlier snapshots' files; gc --expire-snapshots trims the
// history and deletes exactly the files only expired snapshots named; changed columns are a new
// schema keeping the unchanged columns' field ids (in the metadata and the Parquet files); a
// history that does not check, or whose partitioning changed, is not continued (a warning, a
// new history).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "dump/export_service.h"
#include "dump/iceberg/iceberg_commit.h"
#include "dump/iceberg/iceberg_expire.h"
#include "lake/object_keys.h"
#include "lake/verifier.h"
#include "fakes/fake_database.h"
#include "format/avro/avro_reader.h"
#include "format/iceberg/removed_files.h"
#include "format/parquet/parquet_reader.h"
#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

using json = nlohmann::json;

const TableRef kTable{"main", "a"};

bool Has(const MemoryStore& s, const std::string& key) {
  const auto keys = s.Keys();
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

DumpOptions Options(IfExists if_exists = IfExists::kFail) {
  DumpOptions o;
  o.table_parallelism = 1;
  o.batch_rows = 500;
  o.progress = ProgressMode::kNone;
  o.table_format = TableFormat::kIceberg;
  o.if_exists = if_exists;
  return o;
}

// Dumps `rows` rows of table main.a (its columns renamed by `renamed`) into `store`;
// returns the committed table manifest.
TableManifest DumpRows(MemoryStore& store, uint64_t rows, DumpOptions o,
                       std::vector<std::string>* warnings = nullptr,
                       std::map<std::string, std::string> renamed = {}) {
  FakeDatabase db;
  FakeTable table{kTable, rows};
  table.renamed_columns = std::move(renamed);
  db.AddTable(table);
  auto r = ExportService(&db, &store, o).Run();
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (warnings != nullptr && r.ok()) *warnings = r->warnings;
  auto m = ReadDumpManifest(store);
  EXPECT_TRUE(m.ok());
  auto t = ReadTableManifest(store, m->tables.at(0).key);
  EXPECT_TRUE(t.ok());
  return *t;
}

json CurrentMetadata(MemoryStore& store) {
  auto hint = store.GetObject(IcebergHintKey(kTable));
  EXPECT_TRUE(hint.ok());
  auto text = store.GetObject(IcebergMetadataFileKey(kTable, std::stoi(*hint)));
  EXPECT_TRUE(text.ok());
  return json::parse(*text);
}

std::set<std::string> KeysWith(MemoryStore& store, const std::string& run) {
  std::set<std::string> out;
  for (const std::string& k : store.Keys()) {
    if (k.find(run) != std::string::npos) out.insert(k);
  }
  return out;
}

void ExpectVerifies(MemoryStore& store) {
  auto v = Verify(store);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_TRUE(v->ok()) << (v->problems.empty() ? "" : v->problems[0].kind + " " +
                                                          v->problems[0].key + ": " +
                                                          v->problems[0].message);
}

TEST(IcebergHistoryTest, AnOverwriteAppendsASnapshotAndKeepsTheOldFiles) {
  MemoryStore store("h");
  const TableManifest first = DumpRows(store, 1500, Options());
  const json v1 = CurrentMetadata(store);
  const std::set<std::string> first_objects = KeysWith(store, first.run_id);
  const TableManifest second = DumpRows(store, 700, Options(IfExists::kOverwrite));
  ASSERT_NE(second.run_id, first.run_id);

  EXPECT_EQ(*store.GetObject(IcebergHintKey(kTable)), "2");
  const json v2 = CurrentMetadata(store);
  EXPECT_EQ(v2["table-uuid"], v1["table-uuid"]);
  EXPECT_EQ(v2["last-sequence-number"], 2);
  ASSERT_EQ(v2["snapshots"].size(), 2u);
  const json& old_snap = v2["snapshots"][0];
  const json& new_snap = v2["snapshots"][1];
  EXPECT_EQ(old_snap, v1["snapshots"][0]);
  EXPECT_EQ(new_snap["parent-snapshot-id"], v1["current-snapshot-id"]);
  EXPECT_EQ(new_snap["sequence-number"], 2);
  EXPECT_EQ(v2["current-snapshot-id"], new_snap["snapshot-id"]);
  EXPECT_EQ(v2["refs"]["main"]["snapshot-id"], new_snap["snapshot-id"]);
  EXPECT_EQ(new_snap["summary"]["operation"], "overwrite");
  EXPECT_EQ(new_snap["summary"]["lakedump.run-id"], second.run_id);
  EXPECT_EQ(new_snap["summary"]["deleted-records"], "1500");
  EXPECT_EQ(new_snap["summary"]["total-records"], "700");
  ASSERT_EQ(v2["snapshot-log"].size(), 2u);
  EXPECT_EQ(v2["snapshot-log"][1]["snapshot-id"], new_snap["snapshot-id"]);
  ASSERT_EQ(v2["metadata-log"].size(), 1u);
  EXPECT_EQ(v2["metadata-log"][0]["metadata-file"], "memory://h/main/a/metadata/v1.metadata.json");
  EXPECT_EQ(v2["metadata-log"][0]["timestamp-ms"], v1["last-updated-ms"]);
  // The first snapshot's files (data, manifest, manifest list) are all still there; its
  // _table.json went with the old dump.
  std::set<std::string> still = KeysWith(store, first.run_id);
  for (const std::string& k : first_objects) {
    if (k.find("/_table") != std::string::npos) continue;
    EXPECT_TRUE(still.count(k)) << k;
  }
  for (const DataFile& f : first.files) EXPECT_TRUE(still.count(f.key)) << f.key;
  EXPECT_TRUE(Has(store, IcebergMetadataFileKey(kTable, 1)));
  // Its manifest list names its own manifest, then one listing the first snapshot's files as
  // DELETED entries.
  auto list = store.GetObject("main/a/metadata/snap-" + second.run_id + ".avro");
  ASSERT_TRUE(list.ok());
  auto refs = iceberg::ReadManifestList(*list);
  ASSERT_TRUE(refs.ok()) << refs.status().ToString();
  ASSERT_EQ(refs->size(), 2u);
  EXPECT_EQ((*refs)[1].path, "memory://h/main/a/metadata/" + second.run_id + "-m1.avro");
  auto removed = store.GetObject("main/a/metadata/" + second.run_id + "-m1.avro");
  ASSERT_TRUE(removed.ok());
  auto entries = avro::ReadAvroContainer(*removed, 1000);
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  EXPECT_EQ(entries->records.size(), first.files.size());
  for (std::string_view e : entries->records) EXPECT_EQ(e[0], 4) << "status DELETED (2)";
  ExpectVerifies(store);

  // A third run: v3, three snapshots, the chain of parents kept.
  const TableManifest third = DumpRows(store, 10, Options(IfExists::kOverwrite));
  const json v3 = CurrentMetadata(store);
  ASSERT_EQ(v3["snapshots"].size(), 3u);
  EXPECT_EQ(v3["snapshots"][2]["parent-snapshot-id"], new_snap["snapshot-id"]);
  EXPECT_EQ(v3["last-sequence-number"], 3);
  EXPECT_EQ(v3["metadata-log"].size(), 2u);
  ExpectVerifies(store);
}

TEST(IcebergHistoryTest, ExpireDeletesExactlyWhatOnlyExpiredSnapshotsNamed) {
  for (int retain : {1, 2}) {
    MemoryStore store("e");
    const TableManifest r1 = DumpRows(store, 1200, Options());
    const TableManifest r2 = DumpRows(store, 800, Options(IfExists::kOverwrite));
    const TableManifest r3 = DumpRows(store, 300, Options(IfExists::kOverwrite));
    const auto before_keys = store.Keys();
    const std::set<std::string> before(before_keys.begin(), before_keys.end());
    std::set<std::string> expected_gone = KeysWith(store, r1.run_id);
    if (retain == 1) {
      for (const std::string& k : KeysWith(store, r2.run_id)) expected_gone.insert(k);
    }
    ExpireOptions o;
    o.retain_last = retain;
    o.now_ms = 4'000'000'000'000;
    auto r = ExpireIcebergSnapshots(store, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->tables, 1u);
    EXPECT_EQ(r->snapshots_expired, retain == 1 ? 2u : 1u);
    EXPECT_EQ(std::set<std::string>(r->deleted.begin(), r->deleted.end()), expected_gone);
    const auto after_keys = store.Keys();
    std::set<std::string> after(after_keys.begin(), after_keys.end());
    std::set<std::string> want = before;
    for (const std::string& k : expected_gone) want.erase(k);
    want.insert(IcebergMetadataFileKey(kTable, 4));
    EXPECT_EQ(after, want);
    const json v4 = CurrentMetadata(store);
    EXPECT_EQ(v4["snapshots"].size(), static_cast<size_t>(retain));
    EXPECT_EQ(v4["snapshots"].back()["summary"]["lakedump.run-id"], r3.run_id);
    EXPECT_EQ(v4["snapshot-log"].size(), static_cast<size_t>(retain));
    EXPECT_EQ(v4["metadata-log"].size(), 3u);
    for (const DataFile& f : r3.files) EXPECT_TRUE(after.count(f.key)) << f.key;
    ExpectVerifies(store);
    // Nothing more to expire: nothing changes.
    auto again = ExpireIcebergSnapshots(store, o);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->snapshots_expired, 0u);
    EXPECT_TRUE(again->deleted.empty());
  }
}

TEST(IcebergHistoryTest, ExpireOlderThanKeepsRecentSnapshots) {
  MemoryStore store("t");
  DumpRows(store, 100, Options());
  DumpRows(store, 100, Options(IfExists::kOverwrite));
  ExpireOptions o;
  o.older_than = std::chrono::hours(1);
  // The snapshots were stamped by the real clock (iceberg_commit.cc).
  o.now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                 SystemClock().WallNow().time_since_epoch())
                 .count();
  auto r = ExpireIcebergSnapshots(store, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->snapshots_expired, 0u);  // both were taken just now
  EXPECT_EQ(CurrentMetadata(store)["snapshots"].size(), 2u);
  o.retain_last = 0;
  EXPECT_EQ(ExpireIcebergSnapshots(store, o).status().code(), Code::kInvalidArgument);
}

TEST(IcebergHistoryTest, ADamagedHistoryIsNotContinuedButReplacedWithAWarning) {
  MemoryStore store("d");
  const TableManifest first = DumpRows(store, 100, Options());
  json v1 = CurrentMetadata(store);
  const std::string uuid = v1["table-uuid"];
  v1["snapshots"][0]["manifest-list"] = "file:///elsewhere/snap.avro";  // hostile
  ASSERT_TRUE(store.PutObject(IcebergMetadataFileKey(kTable, 1), v1.dump()).ok());
  std::vector<std::string> warnings;
  const TableManifest second = DumpRows(store, 50, Options(IfExists::kOverwrite), &warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("history is not continued"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("manifest list is not under"), std::string::npos) << warnings[0];
  const json v2 = CurrentMetadata(store);
  EXPECT_EQ(*store.GetObject(IcebergHintKey(kTable)), "2");
  EXPECT_EQ(v2["snapshots"].size(), 1u);
  EXPECT_NE(v2["table-uuid"], uuid);
  EXPECT_EQ(v2["metadata-log"].size(), 0u);
  // The old snapshot's files went with the old dump.
  EXPECT_TRUE(KeysWith(store, first.run_id).empty());
  ExpectVerifies(store);
}

// The Parquet field ids of a data file, in column order (top-level columns).
std::vector<int> ParquetFieldIds(MemoryStore& store, const std::string& key) {
  auto bytes = store.GetObject(key);
  EXPECT_TRUE(bytes.ok());
  auto reader = ParquetReader::OpenBuffer(*bytes);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  std::vector<int> ids;
  if (!reader.ok()) return ids;
  const auto& elements = (*reader)->metadata().schema;
  for (size_t i = 1; i < elements.size(); ++i) ids.push_back(elements[i].field_id.value_or(-1));
  return ids;
}

TEST(IcebergHistoryTest, AColumnChangeIsANewSchemaKeepingTheOtherColumnsIds) {
  MemoryStore store("s");
  const TableManifest first = DumpRows(store, 300, Options());
  const json v1 = CurrentMetadata(store);
  // "amount" becomes "total": a dropped column (id 3) and an added one (id 5).
  std::vector<std::string> warnings;
  const TableManifest second = DumpRows(store, 200, Options(IfExists::kOverwrite), &warnings,
                                        {{"amount", "total"}});
  EXPECT_TRUE(warnings.empty()) << warnings[0];
  const json v2 = CurrentMetadata(store);
  EXPECT_EQ(v2["table-uuid"], v1["table-uuid"]);
  ASSERT_EQ(v2["snapshots"].size(), 2u);
  ASSERT_EQ(v2["schemas"].size(), 2u);
  EXPECT_EQ(v2["schemas"][0], v1["schemas"][0]);
  EXPECT_EQ(v2["current-schema-id"], 1);
  EXPECT_EQ(v2["schemas"][1]["schema-id"], 1);
  EXPECT_EQ(v2["last-column-id"], 5);
  EXPECT_EQ(v2["snapshots"][0]["schema-id"], 0);
  EXPECT_EQ(v2["snapshots"][1]["schema-id"], 1);
  std::vector<std::pair<int, std::string>> fields;
  for (const json& f : v2["schemas"][1]["fields"]) {
    fields.emplace_back(f["id"].get<int>(), f["name"].get<std::string>());
  }
  EXPECT_EQ(fields, (std::vector<std::pair<int, std::string>>{
                        {1, "id"}, {2, "name"}, {5, "total"}, {4, "day"}}));
  const json mapping =
      json::parse(v2["properties"]["schema.name-mapping.default"].get<std::string>());
  EXPECT_EQ(mapping[2], json::parse(R"({"field-id":5,"names":["total"]})"));
  // The data files carry the ids of their snapshot's schema.
  for (const DataFile& f : first.files) {
    EXPECT_EQ(ParquetFieldIds(store, f.key), (std::vector<int>{1, 2, 3, 4})) << f.key;
  }
  for (const DataFile& f : second.files) {
    EXPECT_EQ(ParquetFieldIds(store, f.key), (std::vector<int>{1, 2, 5, 4})) << f.key;
  }
  ExpectVerifies(store);

  // Renamed back: "amount" is added again with a new id (6), never its old 3.
  const TableManifest third = DumpRows(store, 100, Options(IfExists::kOverwrite), &warnings);
  EXPECT_TRUE(warnings.empty());
  const json v3 = CurrentMetadata(store);
  ASSERT_EQ(v3["schemas"].size(), 3u);
  EXPECT_EQ(v3["current-schema-id"], 2);
  EXPECT_EQ(v3["last-column-id"], 6);
  EXPECT_EQ(v3["schemas"][2]["fields"][2]["id"], 6);
  EXPECT_EQ(v3["schemas"][2]["fields"][2]["name"], "amount");
  for (const DataFile& f : third.files) {
    EXPECT_EQ(ParquetFieldIds(store, f.key), (std::vector<int>{1, 2, 6, 4})) << f.key;
  }
  ExpectVerifies(store);
}

TEST(IcebergHistoryTest, APartitioningChangeStartsANewHistory) {
  MemoryStore store("p");
  DumpRows(store, 100, Options());
  DumpOptions o = Options(IfExists::kOverwrite);
  o.partition_by = "name";
  std::vector<std::string> warnings;
  DumpRows(store, 100, o, &warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("partitioning changed"), std::string::npos) << warnings[0];
  EXPECT_EQ(CurrentMetadata(store)["snapshots"].size(), 1u);
  ExpectVerifies(store);
}

}  // namespace
}  // namespace lakedump
