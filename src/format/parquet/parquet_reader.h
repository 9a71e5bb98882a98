// ParquetReader: reads flat Parquet files (ours and other writers', e.g.
// DuckDB, Arrow, Spark, Impala) into RowBatches, row group by row group.
// Supports PLAIN, dictionary (RLE_DICTIONARY / PLAIN_DICTIONARY), RLE booleans,
// DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and
// BYTE_STREAM_SPLIT, data pages v1 and v2, and the codecs none, snappy, gzip,
// zstd and lz4_raw. Nested and repeated columns, legacy LZ4, LZO and BROTLI are
// Unimplemented errors naming the column; malformed input is Corruption naming
// the file, column and row group -- never a crash or a read past the file.
//
// Memory: the footer, plus for the row group being read one column chunk per
// selected column and one decoded page per column. Decompression draws from a
// MemoryBudget: before a row group is read, the reader reserves what its compressed
// chunks may decompress into (each chunk's total_uncompressed_size, at most
// kMaxPageBytes: a page may not declare more), waiting while other readers of the same
// budget hold it; a row group that declares more than the whole budget is refused with
// one line before anything is allocated.
// Ownership: the reader owns its read_at callback (which may borrow a store
// reader or a buffer that must outlive the reader). Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/memory_budget.h"
#include "base/status.h"
#include "format/parquet/parquet_metadata.h"
#include "table/row_batch.h"
#include "table/schema.h"

namespace lakedump {

struct ParquetReaderOptions {
  // Top-level columns to read, in this order; empty = all. Unsupported columns
  // (nested, repeated) not selected here do not prevent reading the others.
  std::vector<std::string> columns;
  // Check the CRC of pages that carry one.
  bool verify_crc = true;
  // Names the file in error messages.
  std::string name;
  // Decompression buffers draw from it (shared by the readers of one load or verify;
  // borrowed). Null: the reader's own, of kDefaultDecompressionMemory.
  MemoryBudget* budget = nullptr;
};

// The default budget for decompression buffers of one load or verify.
inline constexpr uint64_t kDefaultDecompressionMemory = uint64_t{1} << 30;

class ParquetReader {
 public:
  // Reads exactly `len` bytes at `offset` into *out (replacing its contents).
  using ReadAtFn = std::function<Status(uint64_t offset, uint64_t len, std::string* out)>;

  // Reads and checks the footer and maps the schema.
  static Result<std::unique_ptr<ParquetReader>> Open(uint64_t file_size, ReadAtFn read_at,
                                                     ParquetReaderOptions options = {});
  // Reads a file held in memory. REQUIRES: `file` outlives the reader.
  static Result<std::unique_ptr<ParquetReader>> OpenBuffer(std::string_view file,
                                                           ParquetReaderOptions options = {});

  ~ParquetReader();
  ParquetReader(const ParquetReader&) = delete;
  ParquetReader& operator=(const ParquetReader&) = delete;

  // The selected columns mapped to lakedump types (INT96 -> timestamp, unsigned
  // 64-bit -> decimal(20,0), unsigned 32-bit -> int64, unsigned 8/16 -> int16/int32,
  // legacy TIMESTAMP_* converted types -> timestamptz, millis/nanos -> micros).
  const Schema& schema() const;
  // Rows in the file (from the footer).
  uint64_t num_rows() const;
  size_t num_row_groups() const;
  const parquet::FileMetaData& metadata() const;

  // Replaces *batch's contents with the next up to max_rows rows (never
  // crossing a row group); 0 rows means the end of the file.
  // REQUIRES: max_rows > 0.
  Status Next(size_t max_rows, RowBatch* batch);
  // Makes Next() continue at the first row of row group g (rows left in the current row group
  // are skipped). REQUIRES: g <= num_row_groups() (== : the end of the file).
  void SeekRowGroup(size_t g);

 private:
  class Impl;
  explicit ParquetReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lakedump
