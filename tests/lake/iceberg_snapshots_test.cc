// ls --snapshots' listing of a table's Iceberg history (lake/iceberg_snapshots.h): each
// snapshot's id, increment, operation, time and counts, and what a hostile summary gets.
#include "lake/iceberg_snapshots.h"

#include <gtest/gtest.h>

namespace lakedump {
namespace {

using ojson = nlohmann::ordered_json;

iceberg::TableHistory History() {
  iceberg::TableHistory h;
  h.metadata["snapshots"] = ojson::array(
      {{{"snapshot-id", 11}, {"sequence-number", 1}, {"timestamp-ms", 1'700'000'000'000},
        {"summary", {{"operation", "append"}, {"added-records", "200"},
                     {"total-records", "200"}, {"total-delete-files", "0"}}}},
       {{"snapshot-id", 22}, {"parent-snapshot-id", 11}, {"sequence-number", 2},
        {"timestamp-ms", 1'700'000'060'000},
        {"summary", {{"operation", "overwrite"}, {"lakedump.increment", "1"},
                     {"lakedump.inserts", "3"}, {"lakedump.updates", "4"},
                     {"lakedump.deletes", "5"}, {"total-records", "207"},
                     {"total-delete-files", "1"}}}},
       {{"snapshot-id", 33}, {"parent-snapshot-id", 22}, {"sequence-number", 3},
        {"timestamp-ms", 1'700'000'120'000},
        {"summary", {{"operation", "replace"}, {"lakedump.increment", "1"},
                     {"total-records", "-1"}, {"lakedump.inserts", "1e3"},
                     {"total-delete-files", "0"}}}}});
  h.snapshot_ids = {11, 22, 33};
  h.run_ids = {"r1", "r2", "r3"};
  h.current_snapshot_id = 33;
  return h;
}

TEST(IcebergSnapshotsTest, ListsEachSnapshotWithItsIncrementOperationAndCounts) {
  const std::vector<IcebergSnapshotInfo> list = ListIcebergSnapshots(History());
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].increment, 0);
  EXPECT_EQ(list[0].operation, "append");
  EXPECT_FALSE(list[0].parent.has_value());
  EXPECT_EQ(list[1].increment, 1);
  EXPECT_EQ(list[1].parent, 11);
  EXPECT_EQ(list[1].counts.at("deletes"), 5u);
  EXPECT_EQ(list[1].run_id, "r2");
  EXPECT_TRUE(list[2].current);
  EXPECT_EQ(list[2].operation, "replace");
  // Counts that are not counts are left out, never shown as numbers.
  EXPECT_EQ(list[2].counts.count("total-records"), 0u);
  EXPECT_EQ(list[2].counts.count("inserts"), 0u);

  EXPECT_EQ(FormatIcebergSnapshot(list[1]),
            "                   22  increment 1     overwrite  2023-11-14T22:14:20.000Z  "
            "3 inserts, 4 updates, 5 deletes; 207 records, 1 delete files");
  EXPECT_NE(FormatIcebergSnapshot(list[2]).find("compacted: the same rows in clean files; "
                                                "? records, 0 delete files  (current)"),
            std::string::npos)
      << FormatIcebergSnapshot(list[2]);
  const nlohmann::json j = IcebergSnapshotJson(list[1]);
  EXPECT_EQ(j["snapshot_id"], 22);
  EXPECT_EQ(j["parent_snapshot_id"], 11);
  EXPECT_EQ(j["increment"], 1);
  EXPECT_EQ(j["time"], "2023-11-14T22:14:20.000Z");
  EXPECT_EQ(j["counts"]["updates"], 4);
}

}  // namespace
}  // namespace lakedump
