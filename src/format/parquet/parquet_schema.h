// Mapping of lakedump column types to Parquet physical types, logical types
// and converted types (see docs/type-mapping.md), and the file schema list.
// Pure functions; thread-safe.
#pragma once

#include <vector>

#include "format/parquet/column_chunk.h"
#include "format/parquet/parquet_metadata.h"
#include "table/schema.h"

namespace lakedump::parquet {

// Bytes of a FIXED_LEN_BYTE_ARRAY holding any decimal of `precision` digits.
int DecimalFixedBytes(int precision);

// One ColumnSpec per column, its schema element carrying field_id = index + 1
// (the Iceberg field id). Fails on a type that cannot be written.
Result<std::vector<ColumnSpec>> MakeColumnSpecs(const Schema& schema);

// The schema list of FileMetaData: a root ("schema") then one leaf per column.
std::vector<SchemaElement> MakeSchemaElements(const std::vector<ColumnSpec>& specs);

}  // namespace lakedump::parquet
