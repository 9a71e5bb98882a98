// Schema evolution over a table's Iceberg history (EvolveSchema): columns matched by name keep
// their field ids (also through an allowed type promotion), added and retyped columns get ids
// above last-column-id, a dropped column's id is never given again; the next metadata appends
// the new schema (or reuses an identical one), and the Parquet writer and the metrics use the
// columns' ids. Hostile current schemas are refused naming why.
#include <gtest/gtest.h>

#include <functional>

#include <nlohmann/json.hpp>

#include "format/iceberg/file_stats.h"
#include "format/iceberg/iceberg_history.h"
#include "format/iceberg/iceberg_schema.h"
#include "format/iceberg/iceberg_table.h"
#include "format/iceberg/schema_evolution.h"
#include "format/iceberg/snapshot_input_util.h"
#include "format/parquet/parquet_schema.h"
#include "format/parquet/parquet_writer.h"

namespace lakedump::iceberg {
namespace {

using json = nlohmann::ordered_json;

constexpr const char* kLocation = kTestLocation;

// id long (1), name string (2), amount double (3), tags list<int> (4, element 7),
// price decimal(10, 2) (5), n int (6): last-column-id 7.
Schema First() {
  return Schema({{"id", LogicalType::Of(TypeId::kInt64), false, ""},
                 {"name", LogicalType::Of(TypeId::kString), true, ""},
                 {"amount", LogicalType::Of(TypeId::kDouble), true, ""},
                 {"tags", LogicalType::List(LogicalType::Of(TypeId::kInt32), true), true, ""},
                 {"price", LogicalType::Decimal(10, 2), true, ""},
                 {"n", LogicalType::Of(TypeId::kInt32), true, ""}});
}

// name dropped; tags list<long> and price decimal(12, 2) and n long (promotions); amount
// now a string (not a promotion: a drop plus an add); note added. Another column order.
Schema Second() {
  return Schema({{"id", LogicalType::Of(TypeId::kInt64), false, ""},
                 {"tags", LogicalType::List(LogicalType::Of(TypeId::kInt64), true), true, ""},
                 {"price", LogicalType::Decimal(12, 2), true, ""},
                 {"n", LogicalType::Of(TypeId::kInt64), false, ""},
                 {"amount", LogicalType::Of(TypeId::kString), true, ""},
                 {"note", LogicalType::Of(TypeId::kString), true, ""}});
}

SnapshotInput Input(const std::string& run, int64_t id, Schema schema,
                    const TableHistory* previous) {
  return TestSnapshotInput(run, id, std::move(schema), previous);
}

TableHistory Read(const std::string& text, int version) {
  auto h = ParseTableHistory(text, version, kLocation, &AnyRunId);
  EXPECT_TRUE(h.ok()) << h.status().ToString();
  return h.ok() ? *h : TableHistory{};
}

std::string Build(const SnapshotInput& in) {
  auto files = BuildSnapshot(in);
  EXPECT_TRUE(files.ok()) << files.status().ToString();
  return files.ok() ? (*files)[2].second : "";
}

std::vector<int> Ids(const Schema& s) {
  std::vector<int> out;
  for (size_t i = 0; i < s.num_columns(); ++i) {
    out.push_back(FieldIdOf(s, i));
    if (auto e = parquet::ListElementFieldId(s, i)) out.push_back(*e);
  }
  return out;
}

TEST(SchemaEvolutionTest, AllowedPromotions) {
  EXPECT_TRUE(IsAllowedPromotion("long", "long"));
  EXPECT_TRUE(IsAllowedPromotion("int", "long"));
  EXPECT_TRUE(IsAllowedPromotion("float", "double"));
  EXPECT_TRUE(IsAllowedPromotion("decimal(10, 2)", "decimal(12, 2)"));
  EXPECT_FALSE(IsAllowedPromotion("long", "int"));
  EXPECT_FALSE(IsAllowedPromotion("double", "float"));
  EXPECT_FALSE(IsAllowedPromotion("decimal(12, 2)", "decimal(10, 2)"));
  EXPECT_FALSE(IsAllowedPromotion("decimal(10, 2)", "decimal(12, 3)"));
  EXPECT_FALSE(IsAllowedPromotion("int", "string"));
  EXPECT_FALSE(IsAllowedPromotion("string", "binary"));
  EXPECT_FALSE(IsAllowedPromotion("decimal(10, 2)x", "decimal(12, 2)"));
}

TEST(SchemaEvolutionTest, KeptColumnsKeepTheirIdsNewOnesGoAboveLastColumnId) {
  const TableHistory h1 = Read(Build(Input("run1", 11, First(), nullptr)), 1);
  // Unchanged: the same ids as by position.
  auto same = EvolveSchema(h1, First());
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_EQ(Ids(*same), (std::vector<int>{1, 2, 3, 4, 7, 5, 6}));

  auto evolved = EvolveSchema(h1, Second());
  ASSERT_TRUE(evolved.ok()) << evolved.status().ToString();
  // id 1; tags 4 and its element 7 (list<int> -> list<long>); price 5; n 6 (int -> long,
  // now required); amount (double -> string) 8; note 9. name's 2 and amount's 3 are gone.
  EXPECT_EQ(Ids(*evolved), (std::vector<int>{1, 4, 7, 5, 6, 8, 9}));
  EXPECT_EQ(parquet::LastFieldId(*evolved), 9);
  EXPECT_EQ(CannotAppend(h1, *evolved, std::nullopt), std::nullopt);
  // Files written with ids by position (not the history's) cannot continue it.
  auto positional = CannotAppend(h1, Second(), std::nullopt);
  ASSERT_TRUE(positional.has_value());
  EXPECT_NE(positional->find("other field ids"), std::string::npos) << *positional;

  // v2: both schemas, the new one current, last-column-id 9, the name mapping by new ids.
  auto files = BuildSnapshot(Input("run2", 22, *evolved, &h1));
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  const json v2 = json::parse((*files)[2].second);
  ASSERT_EQ(v2["schemas"].size(), 2u);
  EXPECT_EQ(v2["schemas"][0]["schema-id"], 0);
  EXPECT_EQ(v2["schemas"][1]["schema-id"], 1);
  EXPECT_EQ(v2["current-schema-id"], 1);
  EXPECT_EQ(v2["last-column-id"], 9);
  EXPECT_EQ(v2["snapshots"][0]["schema-id"], 0);
  EXPECT_EQ(v2["snapshots"][1]["schema-id"], 1);
  EXPECT_EQ(v2["schemas"][0],
            json::parse(Build(Input("run1", 11, First(), nullptr)))["schemas"][0]);
  const json& fields = v2["schemas"][1]["fields"];
  EXPECT_EQ(fields[1], json::parse(R"({"id":4,"name":"tags","required":false,"type":
      {"type":"list","element-id":7,"element-required":false,"element":"long"}})"));
  EXPECT_EQ(fields[2], json::parse(R"j({"id":5,"name":"price","required":false,
      "type":"decimal(12, 2)"})j"));
  EXPECT_EQ(fields[3], json::parse(R"({"id":6,"name":"n","required":true,"type":"long"})"));
  EXPECT_EQ(fields[4], json::parse(R"({"id":8,"name":"amount","required":false,
      "type":"string"})"));
  EXPECT_EQ(fields[5]["id"], 9);
  const json mapping =
      json::parse(v2["properties"]["schema.name-mapping.default"].get<std::string>());
  EXPECT_EQ(mapping, json::parse(R"([{"field-id":1,"names":["id"]},
      {"field-id":4,"names":["tags"],"fields":[{"field-id":7,"names":["element"]}]},
      {"field-id":5,"names":["price"]},{"field-id":6,"names":["n"]},
      {"field-id":8,"names":["amount"]},{"field-id":9,"names":["note"]}])"));

  // v3, the same columns again: no third schema. v4 with the first columns: name comes
  // back with a new id (10), never its old 2, so a third schema; last-column-id only grows.
  const TableHistory h2 = Read((*files)[2].second, 2);
  auto again = EvolveSchema(h2, Second());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(Ids(*again), Ids(*evolved));
  const TableHistory h3 = Read(Build(Input("run3", 33, *again, &h2)), 3);
  EXPECT_EQ(h3.metadata["schemas"].size(), 2u);
  EXPECT_EQ(h3.metadata["current-schema-id"], 1);
  auto back = EvolveSchema(h3, First());
  ASSERT_TRUE(back.ok());
  // id 1; name 10; amount double again (string -> double is no promotion): 11; tags long ->
  // int is no promotion either: 12, element 13; price decimal(12,2) -> (10,2): 14; n 15.
  EXPECT_EQ(Ids(*back), (std::vector<int>{1, 10, 11, 12, 13, 14, 15}));
  const json v4 = json::parse(Build(Input("run4", 44, *back, &h3)));
  EXPECT_EQ(v4["schemas"].size(), 3u);
  EXPECT_EQ(v4["current-schema-id"], 2);
  EXPECT_EQ(v4["last-column-id"], 15);
}

TEST(SchemaEvolutionTest, AKeptPartitionColumnKeepsTheSpec) {
  SnapshotInput in = Input("run1", 11, First(), nullptr);
  in.partition_column = 5;  // n
  const TableHistory h1 = Read(Build(in), 1);
  auto evolved = EvolveSchema(h1, Second());
  ASSERT_TRUE(evolved.ok());
  EXPECT_EQ(CannotAppend(h1, *evolved, 3), std::nullopt);  // n, id 6 still
  EXPECT_EQ(CannotAppend(h1, *evolved, 4), "the table's partitioning changed");  // amount, new id
}

TEST(SchemaEvolutionTest, HostileCurrentSchemasAreRefusedNamingWhy) {
  const json good = json::parse(Build(Input("run1", 11, First(), nullptr)));
  const std::vector<std::pair<std::string, std::function<void(json&)>>> cases = {
      {"type lakedump does not write",
       [](json& m) { m["schemas"][0]["fields"][0]["type"] = {{"type", "struct"}}; }},
      {"positive field id", [](json& m) { m["schemas"][0]["fields"][1]["id"] = -2; }},
      {"positive field id", [](json& m) { m["schemas"][0]["fields"][1]["id"] = "2"; }},
      {"positive element id",
       [](json& m) { m["schemas"][0]["fields"][3]["type"]["element-id"] = 0; }},
      {"repeats a field id", [](json& m) { m["schemas"][0]["fields"][1]["id"] = 1; }},
      {"repeats a field id",
       [](json& m) { m["schemas"][0]["fields"][3]["type"]["element-id"] = 6; }},
      {"repeats a field name", [](json& m) { m["schemas"][0]["fields"][1]["name"] = "id"; }},
      {"without a name", [](json& m) { m["schemas"][0]["fields"][1].erase("required"); }},
      {"too large", [](json& m) { m["last-column-id"] = 1 << 30; }},
  };
  for (const auto& [why, damage] : cases) {
    json m = good;
    damage(m);
    const TableHistory h = Read(m.dump(), 1);
    auto evolved = EvolveSchema(h, Second());
    ASSERT_FALSE(evolved.ok()) << why;
    EXPECT_EQ(evolved.status().code(), Code::kCorruption) << why;
    EXPECT_NE(evolved.status().message().find(why), std::string::npos)
        << evolved.status().ToString();
    auto cannot = CannotAppend(h, Second(), std::nullopt);
    ASSERT_TRUE(cannot.has_value()) << why;
    EXPECT_NE(cannot->find(why), std::string::npos) << *cannot;
  }
}

TEST(SchemaEvolutionTest, TheParquetFileAndItsMetricsCarryTheColumnsIds) {
  Schema schema({{"id", LogicalType::Of(TypeId::kInt64), false, ""},
                 {"tags", LogicalType::List(LogicalType::Of(TypeId::kInt64), true), true, ""},
                 {"note", LogicalType::Of(TypeId::kString), true, ""}});
  std::vector<Column> cols = schema.columns();
  cols[0].field_id = 1;
  cols[1].field_id = 4;
  cols[1].element_field_id = 7;
  cols[2].field_id = 9;
  schema = Schema(std::move(cols));
  StringSink sink;
  ParquetWriter w(schema, ParquetWriterOptions{}, &sink);
  RowBatch b(schema);
  for (int i = 0; i < 3; ++i) {
    b.column(0).Append<int64_t>(i);
    b.column(1).elements().Append<int64_t>(i * 10);
    b.column(1).AppendList();
    b.column(2).AppendBytes("x");
  }
  ASSERT_TRUE(w.Write(b).ok());
  ASSERT_TRUE(w.Close().ok());
  const parquet::FileMetaData& footer = *w.footer();
  // schema, id, tags (LIST), list, element, note
  ASSERT_EQ(footer.schema.size(), 6u);
  EXPECT_EQ(footer.schema[1].field_id, 1);
  EXPECT_EQ(footer.schema[2].field_id, 4);
  EXPECT_FALSE(footer.schema[3].field_id.has_value());
  EXPECT_EQ(footer.schema[4].field_id, 7);
  EXPECT_EQ(footer.schema[5].field_id, 9);
  auto stats = StatsFromParquetFooter(schema, footer);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  std::vector<int> keys;
  for (const auto& [id, n] : stats->value_counts) keys.push_back(id);
  EXPECT_EQ(keys, (std::vector<int>{1, 7, 9}));
  EXPECT_EQ(stats->lower_bounds.count(9), 1u);
}

}  // namespace
}  // namespace lakedump::iceberg
