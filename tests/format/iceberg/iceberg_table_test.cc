// Iceberg metadata from format/iceberg: values in the spec's single-value
// serialization (Appendix D), metrics from a Parquet footer, and the manifest,
// manifest list and metadata.json of a snapshot (field ids, header keys, totals).
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include <nlohmann/json.hpp>

#include "format/iceberg/file_stats.h"
#include "format/iceberg/iceberg_schema.h"
#include "format/iceberg/iceberg_table.h"
#include "format/iceberg/iceberg_values.h"
#include "format/iceberg/manifest_schemas.h"
#include "format/parquet/parquet_writer.h"

namespace lakedump::iceberg {
namespace {

using json = nlohmann::json;

std::string Hex(std::string_view s) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out += d[c >> 4];
    out += d[c & 15];
  }
  return out;
}

template <typename T>
std::string Le(T v) {
  std::string s(sizeof(T), '\0');
  std::memcpy(s.data(), &v, sizeof(T));
  return s;
}

TEST(IcebergTypesTest, SpecParquetMapping) {
  EXPECT_EQ(TypeName(LogicalType::Of(TypeId::kBool)), "boolean");
  EXPECT_EQ(TypeName(LogicalType::Of(TypeId::kInt8)), "int");
  EXPECT_EQ(TypeName(LogicalType::Of(TypeId::kInt16)), "int");
  EXPECT_EQ(TypeName(LogicalType::Of(TypeId::kInt32)), "int");
  EXPECT_EQ(TypeName(LogicalType::Of(TypeId::kInt64)), "long");
  EXPECT_EQ(TypeName(LogicalType::Of(TypeId::kFloat)), "float");
  EXPECT_EQ(TypeName(LogicalType::Of(TypeId::kDouble)), "double");
  EXPECT_EQ(TypeName(LogicalType::Decimal(38, 10)), "decimal(38, 10)");
  EXPECT_EQ(TypeName(LogicalType::Of(TypeId::kDate)), "date");
  EXPECT_EQ(TypeName(LogicalType::Of(TypeId::kTime)), "time");
  EXPECT_EQ(TypeName(LogicalType::Of(TypeId::kTimestamp)), "timestamp");
  EXPECT_EQ(TypeName(LogicalType::Of(TypeId::kTimestampTz)), "timestamptz");
  EXPECT_EQ(TypeName(LogicalType::Of(TypeId::kString)), "string");
  EXPECT_EQ(TypeName(LogicalType::Of(TypeId::kJson)), "string");
  EXPECT_EQ(TypeName(LogicalType::Of(TypeId::kUuid)), "uuid");
  EXPECT_EQ(TypeName(LogicalType::Of(TypeId::kBinary)), "binary");
}

TEST(IcebergValuesTest, DecimalsInFewestBigEndianBytes) {
  EXPECT_EQ(Hex(MinimalBigEndian(0)), "00");
  EXPECT_EQ(Hex(MinimalBigEndian(1)), "01");
  EXPECT_EQ(Hex(MinimalBigEndian(-1)), "ff");
  EXPECT_EQ(Hex(MinimalBigEndian(127)), "7f");
  EXPECT_EQ(Hex(MinimalBigEndian(128)), "0080");
  EXPECT_EQ(Hex(MinimalBigEndian(-128)), "80");
  EXPECT_EQ(Hex(MinimalBigEndian(-129)), "ff7f");
  EXPECT_EQ(Hex(MinimalBigEndian(1234)), "04d2");  // 12.34 as decimal(4,2)
  const int128_t big = static_cast<int128_t>(1) << 100;
  EXPECT_EQ(Hex(MinimalBigEndian(big)), "10000000000000000000000000");
}

TEST(IcebergValuesTest, ParquetStatisticsBecomeSingleValues) {
  // int32 and int64 stay little-endian; decimals stored as INT32/INT64/FLBA become big-endian.
  auto v = SingleValueFromParquetStat(LogicalType::Of(TypeId::kInt32), Le<int32_t>(-2));
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(Hex(*v), "feffffff");
  v = SingleValueFromParquetStat(LogicalType::Decimal(9, 2), Le<int32_t>(-1234));
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(Hex(*v), "fb2e");
  v = SingleValueFromParquetStat(LogicalType::Decimal(18, 0), Le<int64_t>(256));
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(Hex(*v), "0100");
  // decimal(20,0) is a 9-byte FLBA: sign-extended big-endian in, fewest bytes out.
  v = SingleValueFromParquetStat(LogicalType::Decimal(20, 0),
                                 std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xfe", 9));
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(Hex(*v), "fe");
  EXPECT_FALSE(SingleValueFromParquetStat(LogicalType::Of(TypeId::kInt64), "abc").ok());
  EXPECT_FALSE(SingleValueFromParquetStat(LogicalType::Of(TypeId::kUuid), "short").ok());
}

TEST(IcebergValuesTest, ComparesInTheTypesOrder) {
  const auto i32 = LogicalType::Of(TypeId::kInt32);
  EXPECT_LT(CompareSingleValues(i32, Le<int32_t>(-5), Le<int32_t>(3)), 0);
  const auto dbl = LogicalType::Of(TypeId::kDouble);
  EXPECT_LT(CompareSingleValues(dbl, Le<double>(-0.0), Le<double>(0.0)), 0);
  EXPECT_GT(CompareSingleValues(dbl, Le<double>(2.5), Le<double>(-7.0)), 0);
  const auto dec = LogicalType::Decimal(20, 0);
  EXPECT_LT(CompareSingleValues(dec, MinimalBigEndian(-300), MinimalBigEndian(2)), 0);
  const auto str = LogicalType::Of(TypeId::kString);
  EXPECT_LT(CompareSingleValues(str, "a", "\xc3\xa9"), 0);  // unsigned bytes
  EXPECT_LT(CompareSingleValues(str, "ab", "abc"), 0);
}

TEST(IcebergValuesTest, AvroPartitionValues) {
  std::string out;
  AppendAvroValue(LogicalType::Of(TypeId::kInt32), Le<int32_t>(-1), &out);
  AppendAvroValue(LogicalType::Of(TypeId::kString), "ab", &out);
  AppendAvroValue(LogicalType::Decimal(10, 2), MinimalBigEndian(-2), &out);  // fixed(5)
  EXPECT_EQ(Hex(out), "01" "046162" "fffffffffe");
}

TEST(IcebergSchemaTest, AvroNamesFollowJava) {
  EXPECT_EQ(AvroCompatibleName("region"), "region");
  EXPECT_EQ(AvroCompatibleName("1st"), "_1st");
  EXPECT_EQ(AvroCompatibleName("a-b"), "a_x2Db");
  EXPECT_EQ(AvroCompatibleName("a b"), "a_x20b");
}

// Every field of every record in an Avro schema carries a field-id, every
// array an element-id or (a map) key/value records with ids.
void ExpectIds(const json& type, const std::string& where) {
  if (type.is_array()) {
    for (const json& t : type) ExpectIds(t, where);
    return;
  }
  if (!type.is_object()) return;
  if (type["type"] == "record") {
    for (const json& f : type["fields"]) {
      EXPECT_TRUE(f.contains("field-id")) << where << "." << f["name"];
      ExpectIds(f["type"], where + "." + f["name"].get<std::string>());
    }
  } else if (type["type"] == "array") {
    if (type.value("logicalType", "") != "map") {
      EXPECT_TRUE(type.contains("element-id")) << where;
    }
    ExpectIds(type["items"], where + "[]");
  }
}

TEST(IcebergSchemaTest, ManifestSchemasCarryJavasNamesAndIds) {
  Schema s({{"id", LogicalType::Of(TypeId::kInt64), false, ""},
            {"region", LogicalType::Of(TypeId::kString), true, ""}});
  const json entry = json::parse(ManifestEntrySchema(s, 1).dump());
  ExpectIds(entry, "manifest_entry");
  EXPECT_EQ(entry["name"], "manifest_entry");
  const json& data_file = entry["fields"][4];
  EXPECT_EQ(data_file["name"], "data_file");
  EXPECT_EQ(data_file["field-id"], 2);
  EXPECT_EQ(data_file["type"]["name"], "r2");
  std::map<std::string, int> ids;
  for (const json& f : data_file["type"]["fields"]) ids[f["name"]] = f["field-id"];
  EXPECT_EQ(ids["content"], 134);
  EXPECT_EQ(ids["file_path"], 100);
  EXPECT_EQ(ids["file_format"], 101);
  EXPECT_EQ(ids["partition"], 102);
  EXPECT_EQ(ids["record_count"], 103);
  EXPECT_EQ(ids["file_size_in_bytes"], 104);
  EXPECT_EQ(ids["column_sizes"], 108);
  EXPECT_EQ(ids["value_counts"], 109);
  EXPECT_EQ(ids["null_value_counts"], 110);
  EXPECT_EQ(ids["nan_value_counts"], 137);
  EXPECT_EQ(ids["lower_bounds"], 125);
  EXPECT_EQ(ids["upper_bounds"], 128);
  EXPECT_EQ(ids["split_offsets"], 132);
  EXPECT_EQ(ids["sort_order_id"], 140);
  const json& sizes = data_file["type"]["fields"][6]["type"][1];
  EXPECT_EQ(sizes["logicalType"], "map");
  EXPECT_EQ(sizes["items"]["name"], "k117_v118");
  const json& partition = data_file["type"]["fields"][3]["type"];
  EXPECT_EQ(partition["name"], "r102");
  EXPECT_EQ(partition["fields"][0]["name"], "region");
  EXPECT_EQ(partition["fields"][0]["field-id"], 1000);

  const json list = json::parse(ManifestFileSchema().dump());
  ExpectIds(list, "manifest_file");
  EXPECT_EQ(list["name"], "manifest_file");
  std::map<std::string, int> lids;
  for (const json& f : list["fields"]) lids[f["name"]] = f["field-id"];
  EXPECT_EQ(lids["manifest_path"], 500);
  EXPECT_EQ(lids["manifest_length"], 501);
  EXPECT_EQ(lids["partition_spec_id"], 502);
  EXPECT_EQ(lids["added_snapshot_id"], 503);
  EXPECT_EQ(lids["added_files_count"], 504);
  EXPECT_EQ(lids["existing_files_count"], 505);
  EXPECT_EQ(lids["deleted_files_count"], 506);
  EXPECT_EQ(lids["partitions"], 507);
  EXPECT_EQ(lids["added_rows_count"], 512);
  EXPECT_EQ(lids["existing_rows_count"], 513);
  EXPECT_EQ(lids["deleted_rows_count"], 514);
  EXPECT_EQ(lids["sequence_number"], 515);
  EXPECT_EQ(lids["min_sequence_number"], 516);
  EXPECT_EQ(lids["content"], 517);
  EXPECT_EQ(lids["key_metadata"], 519);
  EXPECT_EQ(list["fields"][13]["type"][1]["items"]["name"], "r508");
}

Schema TwoColumns() {
  return Schema({{"id", LogicalType::Of(TypeId::kInt64), false, ""},
                 {"name", LogicalType::Of(TypeId::kString), true, ""}});
}

TEST(IcebergFileStatsTest, FromTheWritersFooter) {
  const Schema schema = TwoColumns();
  ParquetWriterOptions o;
  o.row_group_rows = 3;
  StringSink sink;
  ParquetWriter w(schema, o, &sink);
  RowBatch b(schema);
  const char* names[] = {"m", nullptr, "b", "z", nullptr};
  for (int i = 0; i < 5; ++i) {
    b.column(0).Append<int64_t>(10 - i * 3);  // 10 7 4 1 -2
    if (names[i]) {
      b.column(1).AppendBytes(names[i]);
    } else {
      b.column(1).AppendNull();
    }
  }
  ASSERT_TRUE(w.Write(b).ok());
  ASSERT_TRUE(w.Close().ok());
  ASSERT_NE(w.footer(), nullptr);
  ASSERT_EQ(w.footer()->row_groups.size(), 2u);
  auto stats = StatsFromParquetFooter(schema, *w.footer());
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->value_counts.at(1), 5);
  EXPECT_EQ(stats->value_counts.at(2), 5);
  EXPECT_EQ(stats->null_value_counts.at(1), 0);
  EXPECT_EQ(stats->null_value_counts.at(2), 2);
  EXPECT_EQ(stats->lower_bounds.at(1), Le<int64_t>(-2));
  EXPECT_EQ(stats->upper_bounds.at(1), Le<int64_t>(10));
  EXPECT_EQ(stats->lower_bounds.at(2), "b");
  EXPECT_EQ(stats->upper_bounds.at(2), "z");
  ASSERT_EQ(stats->split_offsets.size(), 2u);
  EXPECT_EQ(stats->split_offsets[0], 4);  // after "PAR1"
  EXPECT_GT(stats->split_offsets[1], stats->split_offsets[0]);
  int64_t sizes = 0;
  for (const auto& [id, n] : stats->column_sizes) sizes += n;
  // The chunks follow each other from byte 4 on: the second row group starts
  // where the first one's chunks end, and every chunk byte is counted once.
  const auto& g0 = w.footer()->row_groups[0];
  EXPECT_EQ(stats->split_offsets[1],
            4 + g0.columns[0].meta_data->total_compressed_size +
                g0.columns[1].meta_data->total_compressed_size);
  EXPECT_GT(sizes, 0);
  EXPECT_LT(sizes + 4, static_cast<int64_t>(sink.str().size()));
  // The Parquet schema carries the Iceberg field ids.
  ASSERT_EQ(w.footer()->schema.size(), 3u);
  EXPECT_FALSE(w.footer()->schema[0].field_id.has_value());
  EXPECT_EQ(w.footer()->schema[1].field_id, 1);
  EXPECT_EQ(w.footer()->schema[2].field_id, 2);
}

// The header key-values of an Avro container (just enough of a reader for tests).
std::map<std::string, std::string> AvroHeader(const std::string& f) {
  std::map<std::string, std::string> out;
  EXPECT_EQ(f.substr(0, 4), std::string("Obj\x01", 4));
  size_t pos = 4;
  auto read_long = [&]() {
    uint64_t n = 0;
    int shift = 0;
    for (;;) {
      const uint8_t b = static_cast<uint8_t>(f[pos++]);
      n |= static_cast<uint64_t>(b & 0x7f) << shift;
      shift += 7;
      if (!(b & 0x80)) break;
    }
    return static_cast<int64_t>((n >> 1) ^ (~(n & 1) + 1));
  };
  for (int64_t count = read_long(); count != 0; count = read_long()) {
    for (int64_t i = 0; i < count; ++i) {
      const int64_t kl = read_long();
      std::string k = f.substr(pos, static_cast<size_t>(kl));
      pos += static_cast<size_t>(kl);
      const int64_t vl = read_long();
      out[k] = f.substr(pos, static_cast<size_t>(vl));
      pos += static_cast<size_t>(vl);
    }
  }
  return out;
}

TEST(IcebergTableTest, SnapshotFilesAndMetadataJson) {
  SnapshotInput in;
  in.schema = TwoColumns();
  in.location = "s3://bucket/dump/main/t";
  in.table_uuid = "01234567-89ab-4def-8123-456789abcdef";
  in.snapshot_id = 42;
  in.timestamp_ms = 1764547200000;
  in.file_tag = "RUN";
  for (int i = 0; i < 2; ++i) {
    DataFileEntry f;
    f.path = in.location + "/part-" + std::to_string(i) + ".parquet";
    f.record_count = 10 + i;
    f.file_size_in_bytes = 1000 + i;
    f.stats.value_counts = {{1, 10 + i}, {2, 10 + i}};
    f.stats.split_offsets = {4};
    in.files.push_back(f);
  }
  auto files = BuildSnapshot(in);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  ASSERT_EQ(files->size(), 4u);
  EXPECT_EQ((*files)[0].first, "RUN-m0.avro");
  EXPECT_EQ((*files)[1].first, "snap-RUN.avro");
  EXPECT_EQ((*files)[2].first, "v1.metadata.json");
  EXPECT_EQ((*files)[3].first, "version-hint.text");
  EXPECT_EQ((*files)[3].second, "1");

  const auto mh = AvroHeader((*files)[0].second);
  EXPECT_EQ(mh.at("avro.codec"), "null");
  EXPECT_EQ(mh.at("format-version"), "2");
  EXPECT_EQ(mh.at("content"), "data");
  EXPECT_EQ(mh.at("partition-spec-id"), "0");
  EXPECT_EQ(json::parse(mh.at("partition-spec")), json::array());
  EXPECT_EQ(json::parse(mh.at("schema"))["fields"][1]["id"], 2);
  EXPECT_EQ(json::parse(mh.at("avro.schema"))["name"], "manifest_entry");
  const auto lh = AvroHeader((*files)[1].second);
  EXPECT_EQ(json::parse(lh.at("avro.schema"))["name"], "manifest_file");
  EXPECT_EQ(lh.at("snapshot-id"), "42");
  EXPECT_EQ(lh.at("format-version"), "2");

  const json m = json::parse((*files)[2].second);
  EXPECT_EQ(m["format-version"], 2);
  EXPECT_EQ(m["table-uuid"], in.table_uuid);
  EXPECT_EQ(m["location"], in.location);
  EXPECT_EQ(m["last-sequence-number"], 1);
  EXPECT_EQ(m["last-updated-ms"], in.timestamp_ms);
  EXPECT_EQ(m["last-column-id"], 2);
  EXPECT_EQ(m["current-schema-id"], 0);
  EXPECT_EQ(m["schemas"][0]["fields"][0],
            json({{"id", 1}, {"name", "id"}, {"required", true}, {"type", "long"}}));
  EXPECT_EQ(m["default-spec-id"], 0);
  EXPECT_EQ(m["partition-specs"][0]["fields"], json::array());
  EXPECT_EQ(m["last-partition-id"], 999);
  EXPECT_EQ(m["default-sort-order-id"], 0);
  EXPECT_EQ(m["sort-orders"][0]["order-id"], 0);
  EXPECT_EQ(m["current-snapshot-id"], 42);
  EXPECT_EQ(m["refs"]["main"]["snapshot-id"], 42);
  const json& snap = m["snapshots"][0];
  EXPECT_EQ(snap["sequence-number"], 1);
  EXPECT_EQ(snap["manifest-list"], "s3://bucket/dump/main/t/metadata/snap-RUN.avro");
  EXPECT_EQ(snap["summary"]["operation"], "append");
  EXPECT_EQ(snap["summary"]["total-records"], "21");
  EXPECT_EQ(snap["summary"]["total-data-files"], "2");
  EXPECT_EQ(snap["summary"]["total-files-size"], "2001");
  EXPECT_EQ(snap["summary"]["total-delete-files"], "0");
  EXPECT_EQ(snap["summary"]["total-position-deletes"], "0");
  EXPECT_EQ(snap["summary"]["total-equality-deletes"], "0");
  EXPECT_EQ(m["snapshot-log"][0]["snapshot-id"], 42);
  EXPECT_EQ(m["metadata-log"], json::array());
  EXPECT_EQ(json::parse(m["properties"]["schema.name-mapping.default"].get<std::string>()),
            json::parse(R"([{"field-id":1,"names":["id"]},{"field-id":2,"names":["name"]}])"));
}

TEST(IcebergTableTest, RefusesBadInput) {
  SnapshotInput in;
  in.schema = TwoColumns();
  in.location = "file:///x/";
  EXPECT_FALSE(BuildSnapshot(in).ok());
  in.location = "file:///x";
  in.snapshot_id = 0;
  EXPECT_FALSE(BuildSnapshot(in).ok());
  in.snapshot_id = 7;
  in.partition_column = 5;
  EXPECT_FALSE(BuildSnapshot(in).ok());
}

}  // namespace
}  // namespace lakedump::iceberg
