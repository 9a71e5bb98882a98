// Lists in an Iceberg dump: the list type with its element id in the schema, the element in
// the name mapping, the element's id on the Parquet leaf (the column's on its LIST group), and
// the element's metrics keyed by the element id, without bounds (as Iceberg's Java writer) and
// without a null count (the writer keeps none for a list leaf).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "format/iceberg/file_stats.h"
#include "format/iceberg/iceberg_schema.h"
#include "format/iceberg/iceberg_table.h"
#include "format/parquet/parquet_schema.h"
#include "format/parquet/parquet_writer.h"

namespace lakedump::iceberg {
namespace {

using json = nlohmann::json;

// id int64 not null, a list<int32> (null elements), s string, t list<string> (no null elements).
Schema WithLists() {
  return Schema({{"id", LogicalType::Of(TypeId::kInt64), false, ""},
                 {"a", LogicalType::List(LogicalType::Of(TypeId::kInt32), true), true, ""},
                 {"s", LogicalType::Of(TypeId::kString), true, ""},
                 {"t", LogicalType::List(LogicalType::Of(TypeId::kString), false), false, ""}});
}

TEST(IcebergListsTest, ElementIdsFollowEveryColumnsId) {
  const Schema schema = WithLists();
  EXPECT_EQ(parquet::ListElementFieldId(schema, 0), std::nullopt);
  EXPECT_EQ(parquet::ListElementFieldId(schema, 1), 5);
  EXPECT_EQ(parquet::ListElementFieldId(schema, 2), std::nullopt);
  EXPECT_EQ(parquet::ListElementFieldId(schema, 3), 6);
  EXPECT_EQ(parquet::LastFieldId(schema), 6);

  const json s = json::parse(SchemaJson(schema, 0).dump());
  EXPECT_EQ(s["fields"][0], json::parse(R"({"id":1,"name":"id","required":true,"type":"long"})"));
  EXPECT_EQ(s["fields"][1], json::parse(R"({"id":2,"name":"a","required":false,"type":
      {"type":"list","element-id":5,"element-required":false,"element":"int"}})"));
  EXPECT_EQ(s["fields"][2]["type"], "string");
  EXPECT_EQ(s["fields"][3], json::parse(R"({"id":4,"name":"t","required":true,"type":
      {"type":"list","element-id":6,"element-required":true,"element":"string"}})"));

  const json m = json::parse(NameMappingJson(schema).dump());
  EXPECT_EQ(m, json::parse(R"([{"field-id":1,"names":["id"]},
      {"field-id":2,"names":["a"],"fields":[{"field-id":5,"names":["element"]}]},
      {"field-id":3,"names":["s"]},
      {"field-id":4,"names":["t"],"fields":[{"field-id":6,"names":["element"]}]}])"));
}

TEST(IcebergListsTest, MetadataJsonCountsElementIdsInLastColumnId) {
  SnapshotInput in;
  in.schema = WithLists();
  in.location = "file:///d/public/t";
  in.table_uuid = "01234567-89ab-4def-8123-456789abcdef";
  in.file_tag = "RUN";
  auto files = BuildSnapshot(in);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  const json meta = json::parse((*files)[2].second);
  EXPECT_EQ(meta["last-column-id"], 6);
  EXPECT_EQ(meta["schemas"][0]["fields"][1]["type"]["element-id"], 5);
  const json mapping = json::parse(meta["properties"]["schema.name-mapping.default"].get<std::string>());
  EXPECT_EQ(mapping[3]["fields"][0]["field-id"], 6);
}

// rows (a, t): [1,2] [x]; null []; [] [y,z]; [null] []; [3] [w]
RowBatch Rows(const Schema& schema) {
  RowBatch b(schema);
  const int64_t ids[] = {1, 2, 3, 4, 5};
  for (int64_t id : ids) b.column(0).Append<int64_t>(id);
  ColumnVector& a = b.column(1);
  a.elements().Append<int32_t>(1);
  a.elements().Append<int32_t>(2);
  a.AppendList();
  a.AppendNull();
  a.AppendList();
  a.elements().AppendNull();
  a.AppendList();
  a.elements().Append<int32_t>(3);
  a.AppendList();
  for (int i = 0; i < 5; ++i) b.column(2).AppendNull();
  ColumnVector& t = b.column(3);
  t.elements().AppendBytes("x");
  t.AppendList();
  t.AppendList();
  t.elements().AppendBytes("y");
  t.elements().AppendBytes("z");
  t.AppendList();
  t.AppendList();
  t.elements().AppendBytes("w");
  t.AppendList();
  return b;
}

TEST(IcebergListsTest, ElementIdOnTheParquetLeafAndMetricsUnderIt) {
  const Schema schema = WithLists();
  StringSink sink;
  ParquetWriter w(schema, ParquetWriterOptions{}, &sink);
  ASSERT_TRUE(w.Write(Rows(schema)).ok());
  ASSERT_TRUE(w.Close().ok());
  const parquet::FileMetaData& footer = *w.footer();
  // schema, id, a (LIST), list, element, s, t (LIST), list, element
  ASSERT_EQ(footer.schema.size(), 9u);
  EXPECT_EQ(footer.schema[2].name, "a");
  EXPECT_EQ(footer.schema[2].field_id, 2);
  EXPECT_FALSE(footer.schema[3].field_id.has_value());
  EXPECT_EQ(footer.schema[4].name, "element");
  EXPECT_EQ(footer.schema[4].field_id, 5);
  EXPECT_EQ(footer.schema[5].field_id, 3);
  EXPECT_EQ(footer.schema[6].field_id, 4);
  EXPECT_EQ(footer.schema[8].field_id, 6);

  auto stats = StatsFromParquetFooter(schema, footer);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  // Keyed by 1 (id), 5 (a's element), 3 (s), 6 (t's element): never by a list's own id.
  for (const auto* m : {&stats->value_counts, &stats->column_sizes}) {
    EXPECT_EQ(m->count(2), 0u);
    EXPECT_EQ(m->count(4), 0u);
    EXPECT_EQ(m->count(5), 1u);
    EXPECT_EQ(m->count(6), 1u);
  }
  const auto& group = footer.row_groups[0];
  // The leaf's values, as the chunk counts them (one per element, null list or empty list).
  EXPECT_EQ(stats->value_counts.at(5), group.columns[1].meta_data->num_values);
  EXPECT_EQ(stats->value_counts.at(5), 6);  // 1, 2, null list, empty list, null, 3
  EXPECT_EQ(stats->value_counts.at(6), 6);  // x, y, z, empty, empty, w
  // The writer keeps no null count for a list leaf (its empty slots are null lists and
  // empty lists as well as null elements): the element's null count is unknown, left out.
  EXPECT_FALSE(group.columns[1].meta_data->statistics->null_count.has_value());
  EXPECT_EQ(stats->null_value_counts.count(5), 0u);
  EXPECT_EQ(stats->null_value_counts.count(6), 0u);
  EXPECT_EQ(stats->null_value_counts.at(1), 0);
  EXPECT_EQ(stats->null_value_counts.at(3), 5);
  // Bounds for the scalar columns only (s is all null: none).
  EXPECT_EQ(stats->lower_bounds.count(1), 1u);
  EXPECT_EQ(stats->lower_bounds.count(5), 0u);
  EXPECT_EQ(stats->upper_bounds.count(5), 0u);
  EXPECT_EQ(stats->lower_bounds.count(6), 0u);
  EXPECT_EQ(stats->upper_bounds.count(6), 0u);
  EXPECT_EQ(stats->lower_bounds.count(2) + stats->lower_bounds.count(4), 0u);
}

}  // namespace
}  // namespace lakedump::iceberg
