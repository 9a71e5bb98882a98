// How a lakedump table schema appears in Iceberg metadata: field ids (the
// columns' own, or 1..n in column order: the same ids the Parquet writer puts in
// each column's field_id), Iceberg type names per the spec's Parquet mapping, the
// schema and partition-spec JSON, the name mapping, and the Avro type of an identity
// partition field. See docs/iceberg.md for the type mapping.
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "table/schema.h"

namespace lakedump::iceberg {

// Iceberg's first partition field id (Java starts partition ids at 1000).
inline constexpr int kFirstPartitionFieldId = 1000;

// The field id of column `index` (0-based): the column's own (Column::field_id) or by
// position; a list's element has its own (parquet::ListElementFieldId).
int FieldIdOf(const Schema& schema, size_t index);

// "boolean", "int", "long", "float", "double", "decimal(P, S)", "date", "time",
// "timestamp", "timestamptz", "string", "uuid", "binary" for a primitive type
// (a list's: its element's). int8/int16 widen to int; json is string (Iceberg
// v2 has no JSON type). The source already maps what has no lakedump type
// (numeric beyond 38 digits, interval, timetz...) to string.
std::string TypeName(const LogicalType& type);

// {"type":"struct","schema-id":0,"fields":[{"id":1,"name":..,"required":..,"type":..}]};
// a list column's type is {"type":"list","element-id":E,"element-required":..,"element":..}.
nlohmann::ordered_json SchemaJson(const Schema& schema, int schema_id);

// [{"field-id":1,"names":["col"]}, ...] (the table property schema.name-mapping.default);
// a list column's entry nests its element: "fields":[{"field-id":E,"names":["element"]}].
nlohmann::ordered_json NameMappingJson(const Schema& schema);

// The partition spec's fields: [] or one identity field on `partition_column`.
nlohmann::ordered_json PartitionFieldsJson(const Schema& schema,
                                           std::optional<size_t> partition_column);

// The Avro type of a value of `type` in a manifest's partition record (Iceberg's
// Avro mapping): "int", "long", {"type":"fixed",...,"logicalType":"decimal"}, ...
nlohmann::ordered_json AvroType(const LogicalType& type);

}  // namespace lakedump::iceberg
