#include "format/iceberg/manifest_schemas.h"

#include <fmt/format.h>

#include "format/iceberg/iceberg_schema.h"
#include "format/iceberg/iceberg_table.h"

namespace lakedump::iceberg {
namespace {

using json = nlohmann::ordered_json;

json Field(std::string_view name, json type, int id) {
  return {{"name", name}, {"type", std::move(type)}, {"field-id", id}};
}

json OptionalField(std::string_view name, json type, int id) {
  return {{"name", name}, {"type", json::array({"null", std::move(type)})}, {"default", nullptr},
          {"field-id", id}};
}

// A map with non-string keys: an array of key/value records named k<K>_v<V>.
json IntMap(int field_id, std::string_view name, int key_id, int value_id, json value_type) {
  json record = {{"type", "record"},
                 {"name", fmt::format("k{}_v{}", key_id, value_id)},
                 {"fields", json::array({Field("key", "int", key_id),
                                         Field("value", std::move(value_type), value_id)})}};
  json array = {{"type", "array"}, {"items", std::move(record)}, {"logicalType", "map"}};
  return OptionalField(name, std::move(array), field_id);
}

json List(int field_id, std::string_view name, std::string_view item, int element_id) {
  json array = {{"type", "array"}, {"items", item}, {"element-id", element_id}};
  return OptionalField(name, std::move(array), field_id);
}

}  // namespace

json ManifestEntrySchema(const Schema& schema, std::optional<size_t> partition_column) {
  json partition_fields = json::array();
  if (partition_column) {
    const Column& c = schema.column(*partition_column);
    partition_fields.push_back(
        OptionalField(AvroCompatibleName(c.name), AvroType(c.type), kFirstPartitionFieldId));
  }
  json partition = {{"type", "record"}, {"name", "r102"}, {"fields", std::move(partition_fields)}};
  json data_file_fields = json::array({
      Field("content", "int", 134),
      Field("file_path", "string", 100),
      Field("file_format", "string", 101),
      Field("partition", std::move(partition), 102),
      Field("record_count", "long", 103),
      Field("file_size_in_bytes", "long", 104),
      IntMap(108, "column_sizes", 117, 118, "long"),
      IntMap(109, "value_counts", 119, 120, "long"),
      IntMap(110, "null_value_counts", 121, 122, "long"),
      IntMap(137, "nan_value_counts", 138, 139, "long"),
      IntMap(125, "lower_bounds", 126, 127, "bytes"),
      IntMap(128, "upper_bounds", 129, 130, "bytes"),
      OptionalField("key_metadata", "bytes", 131),
      List(132, "split_offsets", "long", 133),
      List(135, "equality_ids", "int", 136),
      OptionalField("sort_order_id", "int", 140),
      OptionalField("referenced_data_file", "string", 143),
  });
  json data_file = {{"type", "record"}, {"name", "r2"}, {"fields", std::move(data_file_fields)}};
  return {{"type", "record"},
          {"name", "manifest_entry"},
          {"fields", json::array({
                         Field("status", "int", 0),
                         OptionalField("snapshot_id", "long", 1),
                         OptionalField("sequence_number", "long", 3),
                         OptionalField("file_sequence_number", "long", 4),
                         Field("data_file", std::move(data_file), 2),
                     })}};
}

json ManifestFileSchema() {
  json summary = {{"type", "record"},
                  {"name", "r508"},
                  {"fields", json::array({
                                 Field("contains_null", "boolean", 509),
                                 OptionalField("contains_nan", "boolean", 518),
                                 OptionalField("lower_bound", "bytes", 510),
                                 OptionalField("upper_bound", "bytes", 511),
                             })}};
  json partitions = {{"type", "array"}, {"items", std::move(summary)}, {"element-id", 508}};
  return {{"type", "record"},
          {"name", "manifest_file"},
          {"fields", json::array({
                         Field("manifest_path", "string", 500),
                         Field("manifest_length", "long", 501),
                         Field("partition_spec_id", "int", 502),
                         Field("content", "int", 517),
                         Field("sequence_number", "long", 515),
                         Field("min_sequence_number", "long", 516),
                         Field("added_snapshot_id", "long", 503),
                         Field("added_files_count", "int", 504),
                         Field("existing_files_count", "int", 505),
                         Field("deleted_files_count", "int", 506),
                         Field("added_rows_count", "long", 512),
                         Field("existing_rows_count", "long", 513),
                         Field("deleted_rows_count", "long", 514),
                         OptionalField("partitions", std::move(partitions), 507),
                         OptionalField("key_metadata", "bytes", 519),
                     })}};
}

}  // namespace lakedump::iceberg
