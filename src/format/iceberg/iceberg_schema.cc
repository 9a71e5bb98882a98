#include "format/iceberg/iceberg_schema.h"

#include <fmt/format.h>

#include "format/parquet/parquet_schema.h"

namespace lakedump::iceberg {

using json = nlohmann::ordered_json;

int FieldIdOf(const Schema& schema, size_t index) {
  return parquet::ColumnFieldId(schema, index);
}

std::string TypeName(const LogicalType& type) {
  if (type.is_list()) return TypeName(type.ElementType());
  switch (type.id) {
    case TypeId::kBool: return "boolean";
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32: return "int";
    case TypeId::kInt64: return "long";
    case TypeId::kFloat: return "float";
    case TypeId::kDouble: return "double";
    case TypeId::kDecimal: return fmt::format("decimal({}, {})", type.precision, type.scale);
    case TypeId::kDate: return "date";
    case TypeId::kTime: return "time";
    case TypeId::kTimestamp: return "timestamp";
    case TypeId::kTimestampTz: return "timestamptz";
    case TypeId::kString:
    case TypeId::kJson: return "string";
    case TypeId::kUuid: return "uuid";
    case TypeId::kBinary: return "binary";
    case TypeId::kList: break;  // handled above
  }
  return "string";
}

json SchemaJson(const Schema& schema, int schema_id) {
  json fields = json::array();
  for (size_t i = 0; i < schema.num_columns(); ++i) {
    const Column& c = schema.column(i);
    json type = TypeName(c.type);
    if (const std::optional<int> element = parquet::ListElementFieldId(schema, i)) {
      type = {{"type", "list"},
              {"element-id", *element},
              {"element-required", !c.type.element_nullable},
              {"element", std::move(type)}};
    }
    fields.push_back({{"id", FieldIdOf(schema, i)},
                      {"name", c.name},
                      {"required", !c.nullable},
                      {"type", std::move(type)}});
  }
  return {{"type", "struct"}, {"schema-id", schema_id}, {"fields", std::move(fields)}};
}

json NameMappingJson(const Schema& schema) {
  json m = json::array();
  for (size_t i = 0; i < schema.num_columns(); ++i) {
    json field = {{"field-id", FieldIdOf(schema, i)},
                  {"names", json::array({schema.column(i).name})}};
    if (const std::optional<int> element = parquet::ListElementFieldId(schema, i)) {
      field["fields"] = json::array({{{"field-id", *element}, {"names", json::array({"element"})}}});
    }
    m.push_back(std::move(field));
  }
  return m;
}

json PartitionFieldsJson(const Schema& schema, std::optional<size_t> partition_column) {
  json fields = json::array();
  if (partition_column) {
    fields.push_back({{"name", schema.column(*partition_column).name},
                      {"transform", "identity"},
                      {"source-id", FieldIdOf(schema, *partition_column)},
                      {"field-id", kFirstPartitionFieldId}});
  }
  return fields;
}

json AvroType(const LogicalType& type) {
  switch (type.id) {
    case TypeId::kBool: return "boolean";
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32: return "int";
    case TypeId::kInt64: return "long";
    case TypeId::kFloat: return "float";
    case TypeId::kDouble: return "double";
    case TypeId::kDecimal:
      return {{"type", "fixed"},
              {"name", fmt::format("decimal_{}_{}", type.precision, type.scale)},
              {"size", parquet::DecimalFixedBytes(type.precision)},
              {"logicalType", "decimal"},
              {"precision", type.precision},
              {"scale", type.scale}};
    case TypeId::kDate: return {{"type", "int"}, {"logicalType", "date"}};
    case TypeId::kTime: return {{"type", "long"}, {"logicalType", "time-micros"}};
    case TypeId::kTimestamp:
      return {{"type", "long"}, {"logicalType", "timestamp-micros"}, {"adjust-to-utc", false}};
    case TypeId::kTimestampTz:
      return {{"type", "long"}, {"logicalType", "timestamp-micros"}, {"adjust-to-utc", true}};
    case TypeId::kString:
    case TypeId::kJson: return "string";
    case TypeId::kUuid:
      return {{"type", "fixed"}, {"name", "uuid_fixed"}, {"size", 16}, {"logicalType", "uuid"}};
    case TypeId::kBinary: return "bytes";
    case TypeId::kList: break;  // no partition on a list (refused by ExportService)
  }
  return "string";
}

}  // namespace lakedump::iceberg
