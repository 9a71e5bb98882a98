// Mapping a Parquet file schema (FileMetaData.schema, flattened tree) back to a
// lakedump Schema: for each top-level field, the lakedump type and how its
// physical values convert to it (LeafConversion). Lists of a primitive type
// (the spec's 3-level LIST, the legacy 2-level form, an unannotated repeated
// primitive) become lakedump lists; other nested, repeated and unsupported
// fields are recorded with the reason so that the reader can refuse them by
// name when selected. Values; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "format/parquet/parquet_metadata.h"
#include "table/schema.h"

namespace lakedump::parquet {

// How one physical value becomes a lakedump value.
enum class Conv : uint8_t {
  kBool,          // BOOLEAN -> kBool
  kI32ToI8,       // INT32 -> kInt8
  kI32ToI16,      // INT32 -> kInt16 (also UINT_8)
  kI32,           // INT32 -> kInt32 / kDate
  kU32ToI64,      // INT32 (UINT_32) -> kInt64
  kI32ToDecimal,  // INT32 -> kDecimal
  kI32MillisToMicros,  // INT32 TIME(MILLIS) -> kTime
  kI64,           // INT64 -> kInt64 / kTime / kTimestamp(Tz) in micros
  kI64ToDecimal,  // INT64 -> kDecimal (also UINT_64 as decimal(20,0))
  kU64ToDecimal,
  kI64MillisToMicros,
  kI64NanosToMicros,
  kInt96ToMicros,  // INT96 (Impala/Spark timestamps) -> kTimestamp
  kFloat,
  kDouble,
  kBytes,           // BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY -> kString / kBinary / kJson
  kBytesToDecimal,  // big-endian two's complement -> kDecimal
  kUuid,            // FIXED_LEN_BYTE_ARRAY(16) -> kUuid
};

struct LeafInfo {
  Type physical = Type::kInt32;
  int32_t type_length = 0;  // FIXED_LEN_BYTE_ARRAY
  int max_def = 0;          // 0 (required) or 1 (optional); lists: up to 3
  Conv conv = Conv::kI32;
  // Lists (max_rep 1): a slot's definition level below list_def is a null list, below
  // elem_def an empty list, below max_def a null element; max_def is a value.
  int max_rep = 0;
  int list_def = 0;
  int elem_def = 0;
};

struct FieldInfo {
  Column column;          // name, lakedump type, nullable, source_type = Parquet type text
  size_t first_leaf = 0;  // index of its first leaf column (column chunk)
  size_t num_leaves = 0;
  LeafInfo leaf;          // valid when supported
  std::string unsupported;  // non-empty: why the field cannot be read
};

// Walks the schema tree. Corruption if the tree itself is malformed.
Result<std::vector<FieldInfo>> MapParquetSchema(const std::vector<SchemaElement>& elements);

}  // namespace lakedump::parquet
