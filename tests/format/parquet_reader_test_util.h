// Test helpers for the Parquet reader: reading a whole file into canonical
// JSON rows (canonical_json.h) and reading files from disk.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "canonical_json.h"
#include "format/parquet/parquet_reader.h"

namespace lakedump::testing {

inline std::string ReadFileBytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Reads every row of `file`; *rows_json receives the canonical rows.
inline Status ReadAllCanonical(std::string_view file, ParquetReaderOptions options,
                               size_t batch_rows, Schema* schema, std::string* rows_json,
                               uint64_t* rows) {
  LD_ASSIGN_OR_RETURN(auto reader, ParquetReader::OpenBuffer(file, std::move(options)));
  *schema = reader->schema();
  RowBatch batch;
  *rows = 0;
  while (true) {
    LD_RETURN_IF_ERROR(reader->Next(batch_rows, &batch));
    if (batch.num_rows() == 0) break;
    LD_RETURN_IF_ERROR(batch.Validate(*schema));
    *rows += batch.num_rows();
    if (rows_json != nullptr) AppendCanonicalRows(*schema, batch, rows_json);
  }
  if (*rows != reader->num_rows()) return Status::Internal("row count differs from the footer");
  return Status::OK();
}

}  // namespace lakedump::testing
