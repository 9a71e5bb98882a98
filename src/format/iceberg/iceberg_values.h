// Iceberg's single-value binary serialization (table spec, Appendix D) of
// lakedump values, used for lower/upper bounds and partition values:
//   boolean: 1 byte 0/1; int (int8/16/32, date): 4 bytes LE; long (int64, time,
//   timestamp[tz]): 8 bytes LE; float/double: IEEE LE; decimal: the unscaled
//   value as big-endian two's complement in the fewest bytes; string (and json,
//   which maps to string): UTF-8 bytes; uuid: 16 bytes big-endian; binary: as is.
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "table/row_batch.h"
#include "table/types.h"

namespace lakedump::iceberg {

// The value at `row` of `column`; nullopt for a null.
std::optional<std::string> SingleValueAt(const ColumnVector& column, size_t row);

// A Parquet statistics value of a column of `type` as written by lakedump's
// Parquet writer (PLAIN encoding of its physical type), as a single value.
// Corruption if its size does not fit the type.
Result<std::string> SingleValueFromParquetStat(const LogicalType& type, std::string_view stat);

// <0, 0, >0 as a < b in the type's Iceberg order (signed numbers, -0.0 before
// +0.0, unsigned bytes for string/binary/uuid). REQUIRES: well-formed values.
int CompareSingleValues(const LogicalType& type, std::string_view a, std::string_view b);

// Appends the Avro encoding of a single value of `type` as the partition
// record's field holds it (IcebergAvroType in iceberg_schema.h; decimals as a
// fixed of the precision's size, sign-extended).
void AppendAvroValue(const LogicalType& type, std::string_view value, std::string* out);

// The decimal's unscaled value in the fewest big-endian two's-complement bytes.
std::string MinimalBigEndian(int128_t value);

}  // namespace lakedump::iceberg
