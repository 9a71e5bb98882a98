// The per-file metrics an Iceberg manifest's data_file carries, taken from the
// footer the Parquet writer built (no file is read back): column_sizes (the
// compressed bytes of each column's chunks), value_counts (values including
// nulls), null_value_counts, lower/upper bounds (single-value serialization,
// merged over row groups in the type's order; no NaN, which the writer keeps
// out of its statistics), and split_offsets (each row group's first byte).
// Values; thread-safe to read.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "format/parquet/parquet_metadata.h"
#include "table/schema.h"

namespace lakedump::iceberg {

struct FileStats {
  // Keyed by field id.
  std::map<int, int64_t> column_sizes;
  std::map<int, int64_t> value_counts;
  std::map<int, int64_t> null_value_counts;
  std::map<int, std::string> lower_bounds;
  std::map<int, std::string> upper_bounds;
  std::vector<int64_t> split_offsets;
};

// Column i of `schema` is leaf i of the footer (lakedump writes flat schemas;
// a list column's leaf is its element, whose metrics are keyed by the element's
// field id, without bounds, and without a null count: the writer keeps none for a
// list leaf).
// A bound is left out when any row group holding non-null values lacks it
// (e.g. a long string's max that cannot be rounded up). Corruption when the
// footer does not match the schema.
Result<FileStats> StatsFromParquetFooter(const Schema& schema,
                                         const parquet::FileMetaData& footer);

}  // namespace lakedump::iceberg
