// A row delta (an increment's changes, docs/iceberg.md "Increments"): a snapshot that keeps its
// parent's manifests, adds its own data file and a position delete manifest (content 1) at the
// next sequence number, and whose summary grows the parent's totals. A later overwrite lists
// the delete files as DELETED entries too.
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
using Files = std::vector<std::pair<std::string, std::string>>;

Schema Columns() {
  return Schema({{"id", LogicalType::Of(TypeId::kInt64), false, ""},
                 {"v", LogicalType::Of(TypeId::kString), true, ""}});
}

const std::string& Named(const Files& files, const std::string& name) {
  for (const auto& [n, bytes] : files) {
    if (n == name) return bytes;
  }
  static const std::string kNone;
  ADD_FAILURE() << "no " << name;
  return kNone;
}

// A row delta of run `run` after `h`: one data file of 3 rows, 2 position deletes.
SnapshotInput Delta(const std::string& run, int64_t id, const TableHistory& h,
                    const std::string& parent_list, bool with_file) {
  SnapshotInput in = TestSnapshotInput(run, id, Columns(), &h);
  if (!with_file) in.files.clear();
  if (with_file) in.files[0].record_count = 3;
  in.row_delta = true;
  in.position_deletes =
      DeleteFileEntry{std::string(kTestLocation) + "/" + run + "-deletes.parquet", 2, 50};
  auto refs = ReadManifestList(parent_list);
  EXPECT_TRUE(refs.ok()) << refs.status().ToString();
  for (const ManifestRef& r : refs.ok() ? *refs : std::vector<ManifestRef>{}) {
    if (r.live_files > 0) in.kept_manifests.push_back(r.record);
  }
  in.summary["lakedump.increment"] = "1";
  return in;
}

TEST(RowDeltaTest, KeepsTheParentsFilesAndAddsPositionDeletes) {
  auto v1 = BuildSnapshot(TestSnapshotInput("run1", 10, Columns(), nullptr));
  ASSERT_TRUE(v1.ok()) << v1.status().ToString();
  const TableHistory h1 = *ParseTableHistory((*v1)[2].second, 1, kTestLocation, &AnyRunId);
  auto v2 = BuildSnapshot(Delta("run2", 20, h1, Named(*v1, "snap-run1.avro"), true));
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  // m0 (its data file), m1 (its deletes), the list, v2, the hint.
  ASSERT_EQ(v2->size(), 5u);
  EXPECT_EQ((*v2)[1].first, "run2-m1.avro");
  auto refs = ReadManifestList(Named(*v2, "snap-run2.avro"));
  ASSERT_TRUE(refs.ok()) << refs.status().ToString();
  ASSERT_EQ(refs->size(), 3u);
  EXPECT_EQ((*refs)[0].content, 0);
  EXPECT_EQ((*refs)[1].content, 1);
  EXPECT_EQ((*refs)[1].sequence_number, 2);
  EXPECT_EQ((*refs)[2].path, std::string(kTestLocation) + "/metadata/run1-m0.avro");
  EXPECT_EQ((*refs)[2].sequence_number, 1);  // the parent's manifest, as it was
  auto deletes = LiveEntriesOf(Named(*v2, "run2-m1.avro"), (*refs)[1], kTestLocation);
  ASSERT_TRUE(deletes.ok()) << deletes.status().ToString();
  ASSERT_EQ(deletes->entries.size(), 1u);
  EXPECT_EQ(deletes->content, 1);
  EXPECT_EQ(deletes->entries[0].data_sequence_number, 2);  // inherited: applies up to 2
  EXPECT_EQ(deletes->entries[0].record_count, 2);
  auto container = avro::ReadAvroContainer(Named(*v2, "run2-m1.avro"), 10);
  ASSERT_TRUE(container.ok());
  EXPECT_EQ(container->metadata.at("content"), "deletes");

  const json m = json::parse((*v2)[3].second);
  EXPECT_EQ(m["last-sequence-number"], 2);
  const json& s = m["snapshots"][1];
  EXPECT_EQ(s["parent-snapshot-id"], 10);
  EXPECT_EQ(s["summary"]["operation"], "overwrite");
  EXPECT_EQ(s["summary"]["total-records"], "13");
  EXPECT_EQ(s["summary"]["total-data-files"], "2");
  EXPECT_EQ(s["summary"]["total-delete-files"], "1");
  EXPECT_EQ(s["summary"]["total-position-deletes"], "2");
  EXPECT_EQ(s["summary"]["lakedump.increment"], "1");

  // Deletes alone: operation "delete", no data manifest of its own.
  const TableHistory h2 = *ParseTableHistory((*v2)[3].second, 2, kTestLocation, &AnyRunId);
  auto v3 = BuildSnapshot(Delta("run3", 30, h2, Named(*v2, "snap-run2.avro"), false));
  ASSERT_TRUE(v3.ok()) << v3.status().ToString();
  ASSERT_EQ(v3->size(), 4u);
  EXPECT_EQ((*v3)[0].first, "run3-m1.avro");
  const json m3 = json::parse((*v3)[2].second);
  EXPECT_EQ(m3["snapshots"][2]["summary"]["operation"], "delete");
  EXPECT_EQ(m3["snapshots"][2]["summary"]["total-position-deletes"], "4");
  auto refs3 = ReadManifestList(Named(*v3, "snap-run3.avro"));
  ASSERT_TRUE(refs3.ok());
  EXPECT_EQ(refs3->size(), 4u);  // its deletes, then v2's three
}

TEST(RowDeltaTest, NeedsAHistoryAndNoPartition) {
  SnapshotInput in = TestSnapshotInput("run1", 10, Columns(), nullptr);
  in.row_delta = true;
  EXPECT_EQ(BuildSnapshot(in).status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace lakedump::iceberg
