// Moving RowBatch values into row-group column buffers: validation of the
// values the writer must refuse (invalid UTF-8, decimals beyond their
// precision, times outside a day, nulls in required columns) and conversion
// to the Parquet physical representation. Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/status.h"
#include "base/utf8.h"
#include "format/parquet/column_chunk.h"
#include "table/row_batch.h"

namespace lakedump::parquet {

// Checks every value of column `col` (schema column `column`). `first_row` is
// the file row number of the batch's first row, for messages.
Status ValidateColumn(const Column& column, const ColumnVector& col, uint64_t first_row);

// Appends rows [begin, end) of `col` to `buf` in physical form.
void AppendColumn(const ColumnSpec& spec, const lakedump::LogicalType& type, const ColumnVector& col,
                  size_t begin, size_t end, ColumnBuffer* buf);

}  // namespace lakedump::parquet
