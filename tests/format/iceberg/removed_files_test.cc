// An overwrite snapshot lists the files it replaces as DELETED entries (status 2): the live
// entries of the parent snapshot's manifests (ReadManifestList, LiveEntriesOf), written into
// a manifest of their own after the snapshot's manifest, with explicit sequence numbers and
// the data_file records as they were; a partitioned table's summary says whether a null
// partition is among them. Manifests that are not lakedump's shape are refused.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "format/avro/avro_reader.h"
#include "format/iceberg/iceberg_history.h"
#include "format/iceberg/iceberg_table.h"
#include "format/iceberg/removed_files.h"
#include "format/iceberg/snapshot_input_util.h"

namespace lakedump::iceberg {
namespace {

using json = nlohmann::ordered_json;

constexpr const char* kLocation = kTestLocation;

Schema Columns() {
  return Schema({{"id", LogicalType::Of(TypeId::kInt64), false, ""},
                 {"region", LogicalType::Of(TypeId::kString), true, ""}});
}

// `files` files "part-<i>-<run>.parquet" of 10 + i records; partitioned by region, the
// first file's value null.
SnapshotInput Input(const std::string& run, int64_t id, const TableHistory* previous,
                    int files, bool partitioned) {
  SnapshotInput in = TestSnapshotInput(run, id, Columns(), previous);
  if (partitioned) in.partition_column = 1;
  in.files.clear();
  for (int i = 0; i < files; ++i) {
    DataFileEntry f;
    f.path = std::string(kLocation) + "/part-" + std::to_string(i) + "-" + run + ".parquet";
    f.record_count = static_cast<uint64_t>(10 + i);
    f.file_size_in_bytes = 100;
    if (partitioned && i > 0) f.partition_value = "r" + std::to_string(i);
    in.files.push_back(f);
  }
  return in;
}

using Files = std::vector<std::pair<std::string, std::string>>;

Files Build(const SnapshotInput& in) {
  auto files = BuildSnapshot(in);
  EXPECT_TRUE(files.ok()) << files.status().ToString();
  return files.ok() ? *files : Files{};
}

const std::string& Named(const Files& files, const std::string& name) {
  for (const auto& [n, bytes] : files) {
    if (n == name) return bytes;
  }
  static const std::string kNone;
  ADD_FAILURE() << "no " << name;
  return kNone;
}

// The parent's live files, as the dump reads them from its manifest list and manifests.
std::vector<RemovedManifest> Removed(const Files& parent, const std::string& run) {
  auto refs = ReadManifestList(Named(parent, "snap-" + run + ".avro"));
  EXPECT_TRUE(refs.ok()) << refs.status().ToString();
  std::vector<RemovedManifest> out;
  for (const ManifestRef& ref : refs.ok() ? *refs : std::vector<ManifestRef>{}) {
    const std::string name = ref.path.substr(ref.path.rfind('/') + 1);
    auto m = LiveEntriesOf(Named(parent, name), ref, kLocation);
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    if (m.ok() && !m->entries.empty()) out.push_back(std::move(*m));
  }
  return out;
}

TEST(RemovedFilesTest, AnOverwriteListsTheParentsFilesAsDeleted) {
  for (bool partitioned : {false, true}) {
    SCOPED_TRACE(partitioned ? "partitioned" : "unpartitioned");
    const Files v1 = Build(Input("run1", 11, nullptr, 3, partitioned));
    const TableHistory h1 = *ParseTableHistory(v1[2].second, 1, kLocation, &AnyRunId);
    std::vector<RemovedManifest> removed = Removed(v1, "run1");
    ASSERT_EQ(removed.size(), 1u);
    ASSERT_EQ(removed[0].entries.size(), 3u);
    EXPECT_EQ(removed[0].partitioned, partitioned);
    EXPECT_EQ(removed[0].entries[1].record_count, 11);
    EXPECT_EQ(removed[0].entries[0].data_sequence_number, 1);  // inherited: v1's
    EXPECT_EQ(removed[0].entries[0].partition_null, partitioned);

    SnapshotInput in = Input("run2", 22, &h1, 1, partitioned);
    in.removed = removed;
    const Files v2 = Build(in);
    // m0, m1 (the removed files), the list, v2, the hint.
    ASSERT_EQ(v2.size(), 5u);
    EXPECT_EQ(v2[1].first, "run2-m1.avro");
    EXPECT_EQ(v2[3].first, "v2.metadata.json");
    auto refs = ReadManifestList(Named(v2, "snap-run2.avro"));
    ASSERT_TRUE(refs.ok()) << refs.status().ToString();
    ASSERT_EQ(refs->size(), 2u);
    EXPECT_EQ((*refs)[1].path, std::string(kLocation) + "/metadata/run2-m1.avro");
    EXPECT_EQ((*refs)[1].sequence_number, 2);
    // Its entries: status 2, this snapshot's id, explicit sequence number 1, the same
    // data_file bytes; none of them live.
    auto m1 = avro::ReadAvroContainer(Named(v2, "run2-m1.avro"), 100);
    ASSERT_TRUE(m1.ok()) << m1.status().ToString();
    ASSERT_EQ(m1->records.size(), 3u);
    for (size_t i = 0; i < 3; ++i) {
      avro::AvroDecoder d(m1->records[i]);
      EXPECT_EQ(*d.ReadLong(), 2);   // DELETED
      EXPECT_EQ(*d.ReadLong(), 1);   // union branch: long
      EXPECT_EQ(*d.ReadLong(), 22);  // snapshot_id
      EXPECT_EQ(*d.ReadLong(), 1);
      EXPECT_EQ(*d.ReadLong(), 1);   // sequence_number
      EXPECT_EQ(*d.ReadLong(), 1);
      EXPECT_EQ(*d.ReadLong(), 1);   // file_sequence_number
      EXPECT_EQ(m1->records[i].substr(d.pos()), removed[0].entries[i].data_file);
    }
    EXPECT_EQ(m1->metadata.at("partition-spec-id"), "0");
    EXPECT_EQ(m1->metadata.at("content"), "data");
    auto none = LiveEntriesOf(Named(v2, "run2-m1.avro"), (*refs)[1], kLocation);
    ASSERT_TRUE(none.ok()) << none.status().ToString();
    EXPECT_TRUE(none->entries.empty());
    // v3 after v2 removes only v2's one live file.
    const TableHistory h2 = *ParseTableHistory(v2[3].second, 2, kLocation, &AnyRunId);
    std::vector<RemovedManifest> again = Removed(v2, "run2");
    ASSERT_EQ(again.size(), 1u);
    ASSERT_EQ(again[0].entries.size(), 1u);
    EXPECT_EQ(again[0].entries[0].data_sequence_number, 2);
    SnapshotInput in3 = Input("run3", 33, &h2, 2, partitioned);
    in3.removed = again;
    EXPECT_EQ(Build(in3).size(), 5u);
  }
}

TEST(RemovedFilesTest, ManifestsNotOfLakedumpsShapeAreRefused) {
  const Files v1 = Build(Input("run1", 11, nullptr, 2, false));
  auto refs = ReadManifestList(Named(v1, "snap-run1.avro"));
  ASSERT_TRUE(refs.ok());
  const std::string& manifest = Named(v1, "run1-m0.avro");
  // A file outside the table's location.
  auto elsewhere = LiveEntriesOf(manifest, (*refs)[0], "s3://b/d/main/other");
  ASSERT_FALSE(elsewhere.ok());
  EXPECT_NE(elsewhere.status().message().find("not under"), std::string::npos);
  // Cut short, or a manifest list where a manifest belongs (and the other way round).
  EXPECT_EQ(LiveEntriesOf(manifest.substr(0, manifest.size() - 20), (*refs)[0], kLocation)
                .status()
                .code(),
            Code::kCorruption);
  EXPECT_EQ(LiveEntriesOf(Named(v1, "snap-run1.avro"), (*refs)[0], kLocation).status().code(),
            Code::kCorruption);
  EXPECT_EQ(ReadManifestList(manifest).status().code(), Code::kCorruption);
  EXPECT_EQ(ReadManifestList("not avro").status().code(), Code::kCorruption);
}

}  // namespace
}  // namespace lakedump::iceberg
