// ColumnChunkReader: decodes one column chunk (one flat column of one row
// group) page by page into ColumnVectors. It owns the chunk's bytes (read once
// by the caller), the current decompressed page and the decoded dictionary:
// memory is bounded by one column chunk plus one page. Errors name the file,
// the column and the row group. Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "format/codec/codec.h"
#include "format/parquet/parquet_metadata.h"
#include "format/parquet/read_schema.h"
#include "format/parquet/value_decoder.h"
#include "table/row_batch.h"

namespace lakedump::parquet {

// Largest page accepted (uncompressed), and most values in one page: guards
// against absurd headers before allocating.
inline constexpr int64_t kMaxPageBytes = 512ll << 20;
inline constexpr int32_t kMaxPageValues = 1 << 24;

class ColumnChunkReader {
 public:
  // `codec` is borrowed (nullptr = uncompressed); `context` prefixes errors.
  ColumnChunkReader(const FieldInfo& field, std::string chunk, int64_t num_rows,
                    const lakedump::Codec* codec, std::string context, bool verify_crc);

  // Appends exactly n rows to *out; Corruption if the chunk holds fewer.
  Status Read(size_t n, ColumnVector* out);
  // Rows not yet returned.
  int64_t rows_left() const { return rows_left_; }

 private:
  Status LoadNextPage();
  Status LoadDictionary(const PageHeader& h, std::string_view body);
  Status DecodeDataPage(const PageHeader& h, std::string_view body);
  Status Error(const std::string& what) const;
  Status Decompress(std::string_view in, size_t size, std::string* out) const;

  const FieldInfo& field_;
  std::string chunk_;
  size_t pos_ = 0;
  int64_t rows_left_;
  int64_t rows_in_pages_ = 0;  // rows in pages loaded so far
  const lakedump::Codec* codec_;
  std::string context_;
  bool verify_crc_;

  bool has_dict_ = false;
  std::unique_ptr<ColumnVector> dict_;   // converted dictionary values
  std::unique_ptr<ColumnVector> page_;   // the current page's rows
  size_t page_pos_ = 0;

  // Scratch.
  std::string decompressed_;
  PhysicalValues values_;
  std::vector<uint8_t> levels_;
  std::vector<uint32_t> indices_;
};

}  // namespace lakedump::parquet
