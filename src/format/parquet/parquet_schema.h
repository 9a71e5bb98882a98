// Mapping of lakedump column types to Parquet physical types, logical types
// and converted types (see docs/type-mapping.md), and the file schema list.
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <vector>

#include "format/parquet/column_chunk.h"
#include "format/parquet/parquet_metadata.h"
#include "table/schema.h"

namespace lakedump::parquet {

// Bytes of a FIXED_LEN_BYTE_ARRAY holding any decimal of `precision` digits.
int DecimalFixedBytes(int precision);

// Field ids (the Iceberg field ids of an Iceberg dump, written in every dump): the
// columns' own (Column::field_id, element_field_id) when set, else by position: column i
// has i + 1; the element of the k-th list column (0-based, in column order) has
// num_columns + k + 1, after every column's, as Iceberg's Java implementation assigns
// fresh ids (the fields of a struct first, then what they nest).
int ColumnFieldId(const Schema& schema, size_t index);
// The element's field id of column `index`; nullopt when it is not a list.
std::optional<int> ListElementFieldId(const Schema& schema, size_t index);
// The highest field id of `schema` (0 without columns).
int LastFieldId(const Schema& schema);

// One ColumnSpec per column, its schema element carrying ColumnFieldId (a list:
// on its LIST group, and ListElementFieldId on its element). Fails on a type that
// cannot be written.
Result<std::vector<ColumnSpec>> MakeColumnSpecs(const Schema& schema);

// The schema list of FileMetaData: a root ("schema") then one leaf per column.
std::vector<SchemaElement> MakeSchemaElements(const std::vector<ColumnSpec>& specs);

}  // namespace lakedump::parquet
