// A table's Iceberg history read back (ParseTableHistory): what BuildSnapshot wrote parses, a
// second snapshot continues it, and every field a later dump or gc relies on is checked in
// hostile metadata; CannotAppend (files with other field ids, another partitioning);
// ExpireSnapshots.
#include <gtest/gtest.h>

#include <functional>

#include <nlohmann/json.hpp>

#include "format/iceberg/iceberg_history.h"
#include "format/iceberg/iceberg_table.h"
#include "format/iceberg/schema_evolution.h"
#include "format/iceberg/snapshot_input_util.h"

namespace lakedump::iceberg {
namespace {

using json = nlohmann::ordered_json;

constexpr const char* kLocation = kTestLocation;

Schema OneColumn() { return Schema({{"id", LogicalType::Of(TypeId::kInt64), false, ""}}); }

SnapshotInput Input(const std::string& run, int64_t id, const TableHistory* previous) {
  return TestSnapshotInput(run, id, OneColumn(), previous);
}

std::string MetadataText(const SnapshotInput& in) {
  auto files = BuildSnapshot(in);
  EXPECT_TRUE(files.ok()) << files.status().ToString();
  return files.ok() ? (*files)[2].second : "";
}

TEST(TableHistoryTest, ASecondSnapshotContinuesTheFirst) {
  auto h1 = ParseTableHistory(MetadataText(Input("run1", 11, nullptr)), 1, kLocation, &AnyRunId);
  ASSERT_TRUE(h1.ok()) << h1.status().ToString();
  EXPECT_EQ(h1->run_ids, std::vector<std::string>{"run1"});
  EXPECT_EQ(h1->current_snapshot_id, 11);
  auto files = BuildSnapshot(Input("run2", 22, &*h1));
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  EXPECT_EQ((*files)[2].first, "v2.metadata.json");
  EXPECT_EQ((*files)[3].second, "2");
  auto h2 = ParseTableHistory((*files)[2].second, 2, kLocation, &AnyRunId);
  ASSERT_TRUE(h2.ok()) << h2.status().ToString();
  EXPECT_EQ(h2->run_ids, (std::vector<std::string>{"run1", "run2"}));
  EXPECT_EQ(h2->snapshot_ids, (std::vector<int64_t>{11, 22}));
  EXPECT_EQ(h2->logged_metadata_files,
            std::vector<std::string>{std::string(kLocation) + "/metadata/v1.metadata.json"});
  EXPECT_EQ(h2->metadata["snapshots"][1]["parent-snapshot-id"], 11);
  EXPECT_EQ(h2->metadata["snapshots"][1]["summary"]["deleted-records"], "11");
  // The same snapshot id again is refused.
  EXPECT_FALSE(BuildSnapshot(Input("run3", 22, &*h2)).ok());
  // Expire the first: v3 keeps the second, logs v2.
  auto v3 = ExpireSnapshots(*h2, {11}, 99999, kLocation);
  ASSERT_TRUE(v3.ok());
  auto h3 = ParseTableHistory(*v3, 3, kLocation, &AnyRunId);
  ASSERT_TRUE(h3.ok()) << h3.status().ToString();
  EXPECT_EQ(h3->run_ids, std::vector<std::string>{"run2"});
  EXPECT_EQ(h3->logged_metadata_files.size(), 2u);
  EXPECT_EQ(h3->metadata["snapshot-log"].size(), 1u);
  EXPECT_EQ(ExpireSnapshots(*h2, {22}, 99999, kLocation).status().code(), Code::kInvalidArgument);
}

TEST(TableHistoryTest, HostileMetadataIsRefusedNamingWhy) {
  const json good = json::parse(MetadataText(Input("run1", 11, nullptr)));
  ASSERT_TRUE(ParseTableHistory(good.dump(), 1, kLocation, &AnyRunId).ok());
  const std::vector<std::pair<std::string, std::function<void(json&)>>> cases = {
      {"not JSON", [](json& m) { m = "x"; }},
      {"format version 2", [](json& m) { m["format-version"] = 1; }},
      {"not written by lakedump", [](json& m) { m["properties"].erase("lakedump.run-id"); }},
      {"location", [](json& m) { m["location"] = "s3://other/t"; }},
      {"no table-uuid", [](json& m) { m["table-uuid"] = 7; }},
      {"last-sequence-number", [](json& m) { m["last-sequence-number"] = "1"; }},
      {"no snapshots list", [](json& m) { m["snapshots"] = json::object(); }},
      {"manifest list is not under",
       [](json& m) { m["snapshots"][0]["manifest-list"] = "s3://b/d/main/other/metadata/x"; }},
      {"beyond last-sequence-number", [](json& m) { m["snapshots"][0]["sequence-number"] = 5; }},
      {"positive and unique", [](json& m) { m["snapshots"][0]["snapshot-id"] = -3; }},
      {"current snapshot is not listed", [](json& m) { m["current-snapshot-id"] = 12; }},
      {"without a lakedump run id",
       [](json& m) { m["snapshots"][0]["summary"]["lakedump.run-id"] = "x"; }},
      {"metadata-log entry",
       [](json& m) {
         m["metadata-log"].push_back({{"timestamp-ms", 1}, {"metadata-file", "/etc/passwd"}});
       }},
      {"snapshot-log entry", [](json& m) { m["snapshot-log"].push_back(1); }},
      {"current schema", [](json& m) { m["current-schema-id"] = 4; }},
  };
  for (const auto& [why, damage] : cases) {
    json m = good;
    damage(m);
    auto h = ParseTableHistory(m.dump(), 1, kLocation, &AnyRunId);
    ASSERT_FALSE(h.ok()) << why;
    EXPECT_EQ(h.status().code(), Code::kCorruption) << why;
    EXPECT_NE(h.status().message().find(why), std::string::npos) << h.status().ToString();
    EXPECT_NE(h.status().message().find("v1.metadata.json"), std::string::npos);
  }
}

TEST(TableHistoryTest, CannotAppendFilesWithOtherIdsOrAnotherPartitioning) {
  auto h = ParseTableHistory(MetadataText(Input("run1", 11, nullptr)), 1, kLocation, &AnyRunId);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(CannotAppend(*h, OneColumn(), std::nullopt), std::nullopt);
  EXPECT_EQ(CannotAppend(*h, OneColumn(), 0), "the table's partitioning changed");
  // long -> int is no promotion: the column needs a new id (2), which these files lack.
  const Schema other({{"id", LogicalType::Of(TypeId::kInt32), false, ""}});
  auto cannot = CannotAppend(*h, other, std::nullopt);
  ASSERT_TRUE(cannot.has_value());
  EXPECT_NE(cannot->find("other field ids"), std::string::npos) << *cannot;
  auto evolved = EvolveSchema(*h, other);
  ASSERT_TRUE(evolved.ok()) << evolved.status().ToString();
  EXPECT_EQ(evolved->column(0).field_id, 2);
  EXPECT_EQ(CannotAppend(*h, *evolved, std::nullopt), std::nullopt);
}

}  // namespace
}  // namespace lakedump::iceberg
