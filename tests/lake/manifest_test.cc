#include "lake/manifest.h"
#include "lake/no_snapshot.h"

#include <gtest/gtest.h>

#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

TableManifest SampleTable() {
  TableManifest t;
  t.table = TableRef{"main", "orders"};
  t.schema = Schema({Column{"id", LogicalType::Of(TypeId::kInt64), false, "INTEGER"},
                     Column{"price", LogicalType::Decimal(12, 2), true, "NUMERIC(12,2)"}});
  t.ddl = "CREATE TABLE orders (id INTEGER PRIMARY KEY, price NUMERIC(12,2))";
  t.primary_key = {"id"};
  t.codec = "snappy";
  t.run_id = "R";
  t.files = {DataFile{"main/orders/part-0000-00000-R.parquet", 10, 100, "0123456789abcdef", ""},
             DataFile{"main/orders/part-0000-00001-R.parquet", 5, 60, "fedcba9876543210", ""}};
  t.rows = 15;
  t.bytes = 160;
  return t;
}

TEST(ManifestTest, TableRoundTrip) {
  const TableManifest t = SampleTable();
  auto parsed = ParseTableManifest(ToJson(t).dump(), "t.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->table, t.table);
  ASSERT_EQ(parsed->schema.num_columns(), 2u);
  EXPECT_EQ(parsed->schema.column(1).type, LogicalType::Decimal(12, 2));
  EXPECT_EQ(parsed->schema.column(1).source_type, "NUMERIC(12,2)");
  EXPECT_FALSE(parsed->schema.column(0).nullable);
  EXPECT_EQ(parsed->ddl, t.ddl);
  EXPECT_EQ(parsed->primary_key, t.primary_key);
  ASSERT_EQ(parsed->files.size(), 2u);
  EXPECT_EQ(parsed->files[1].xxh64, "fedcba9876543210");
  EXPECT_EQ(parsed->rows, 15u);
}

TEST(ManifestTest, DumpRoundTrip) {
  DumpManifest d;
  d.dump_id = "20260101T000000Z-00000001";
  d.created_by = "lakedump version test";
  d.source = {{"kind", "sqlite"}};
  d.tables = {TableSummary{TableRef{"main", "orders"}, "main/orders/_table.json", 15, 2, 160,
                           "snappy", 0.5}};
  d.total_rows = 15;
  d.total_files = 2;
  d.total_bytes = 160;
  const nlohmann::json j = ToJson(d);
  EXPECT_EQ(j["format"], "lakedump-dump");
  EXPECT_EQ(j["format_version"], 1);
  auto parsed = ParseDumpManifest(j.dump(), "_manifest.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->dump_id, d.dump_id);
  ASSERT_EQ(parsed->tables.size(), 1u);
  EXPECT_EQ(parsed->tables[0].key, "main/orders/_table.json");
  EXPECT_EQ(parsed->total_rows, 15u);
}

TEST(ManifestTest, NoSnapshotRoundTripsAndIsNotOneSnapshot) {
  DumpManifest d;
  d.dump_id = "20260101T000000Z-00000001";
  d.options = {{"shards", 2}};
  EXPECT_TRUE(ManifestIsOneSnapshot(d));
  EXPECT_FALSE(ToJson(d).contains("no_snapshot"));
  EXPECT_EQ(ToJson(d)["single_snapshot"], true);
  d.options["no_snapshot"] = true;  // what a --no-snapshot coordinator records
  EXPECT_TRUE(ManifestHasNoSnapshot(d));
  EXPECT_FALSE(ManifestIsOneSnapshot(d));
  const nlohmann::json j = ToJson(d);
  EXPECT_EQ(j["no_snapshot"], true);
  EXPECT_EQ(j["single_snapshot"], false);
  auto parsed = ParseDumpManifest(j.dump(), "_manifest.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_TRUE(ManifestHasNoSnapshot(*parsed));
  EXPECT_FALSE(ManifestIsOneSnapshot(*parsed));
  // A top-level field that disagrees with the options was not written by lakedump.
  for (const nlohmann::json& bad : {nlohmann::json("yes"), nlohmann::json(false)}) {
    nlohmann::json k = j;
    k["no_snapshot"] = bad;
    EXPECT_EQ(ParseDumpManifest(k.dump(), "_manifest.json").status().code(), Code::kCorruption)
        << bad;
  }
  // Options that are not an object say nothing of it.
  d.options = "odd";
  EXPECT_FALSE(ManifestHasNoSnapshot(d));
}

TEST(ManifestTest, RefusesNewerMajorVersion) {
  nlohmann::json j = ToJson(DumpManifest{});
  j["format_version"] = 2;
  auto parsed = ParseDumpManifest(j.dump(), "_manifest.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), Code::kUnimplemented);
  EXPECT_NE(parsed.status().message().find("format version 2"), std::string::npos);
}

TEST(ManifestTest, AcceptsNewerMinorVersionAndUnknownFields) {
  nlohmann::json j = ToJson(DumpManifest{});
  j["format_minor_version"] = 7;
  j["something_new"] = {1, 2, 3};
  EXPECT_TRUE(ParseDumpManifest(j.dump(), "m").ok());
}

TEST(ManifestTest, RefusesNonJsonAndOtherFormats) {
  auto a = ParseDumpManifest("PAR1 not json", "_manifest.json");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), Code::kCorruption);
  EXPECT_NE(a.status().message().find("not valid JSON"), std::string::npos);
  auto b = ParseDumpManifest(R"({"format":"other","format_version":1})", "m");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("not a lakedump dump file"), std::string::npos);
  auto c = ParseDumpManifest(R"({"format":"lakedump-dump","format_version":1})", "m");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kCorruption);
}

TEST(ManifestTest, RefusesInconsistentTable) {
  TableManifest t = SampleTable();
  t.rows = 16;
  EXPECT_EQ(ParseTableManifest(ToJson(t).dump(), "t").status().code(), Code::kCorruption);
  t = SampleTable();
  t.files[0].key = "../../etc/passwd";
  EXPECT_EQ(ParseTableManifest(ToJson(t).dump(), "t").status().code(), Code::kCorruption);
}

TEST(ManifestTest, ReadDumpManifestSaysNoDump) {
  MemoryStore store("empty");
  auto m = ReadDumpManifest(store);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), Code::kNotFound);
  EXPECT_NE(m.status().message().find("no dump at"), std::string::npos);
}

}  // namespace
}  // namespace lakedump
