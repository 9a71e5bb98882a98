// ParquetWriter: streams RowBatches into a Parquet file written to a ByteSink.
// Only the row group being built is buffered (plus, with threads > 1, the row
// group being encoded meanwhile); row groups are appended in order.
//
// Ownership: the writer borrows `sink` (must outlive it) and `pool`.
// Not thread-safe: one producer calls Write()/Close().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/byte_sink.h"
#include "base/status.h"
#include "format/codec/codec.h"
#include "format/parquet/parquet_metadata.h"
#include "table/row_batch.h"
#include "table/schema.h"

namespace lakedump {

class ThreadPool;

struct ParquetWriterOptions {
  CodecKind codec = CodecKind::kSnappy;
  int compression_level = 0;            // 0 = codec default
  uint64_t row_group_rows = 122880;     // a row group ends at this many rows...
  uint64_t row_group_bytes = 64 << 20;  // ...or at about this many encoded bytes
  uint64_t page_bytes = 1 << 20;        // target uncompressed data page size
  bool dictionary = true;
  // When not empty (and `dictionary` on): the only top-level columns that try a dictionary;
  // the others go PLAIN at once (for columns known to be unique, the dictionary's trial costs).
  std::vector<std::string> dictionary_columns;
  uint64_t dictionary_limit_bytes = 1 << 20;  // past this, the column falls back to PLAIN
  // Threads encoding a row group's columns (on `pool`, helped by the caller)
  // while the caller fills the next row group. The output bytes do not depend
  // on it. > 1 needs `pool`.
  int threads = 1;
  ThreadPool* pool = nullptr;
  std::vector<std::pair<std::string, std::string>> key_value_metadata;
};

struct ParquetFileStats {
  uint64_t rows = 0;
  uint64_t bytes = 0;        // file size
  uint64_t row_groups = 0;
};

class ParquetWriter {
 public:
  ParquetWriter(Schema schema, ParquetWriterOptions options, ByteSink* sink);
  ~ParquetWriter();
  ParquetWriter(const ParquetWriter&) = delete;
  ParquetWriter& operator=(const ParquetWriter&) = delete;

  // Appends the batch's rows. A batch that does not match the schema, invalid
  // UTF-8, a decimal out of its precision, or a null in a required column fails
  // with a message naming the column and the row; the writer is then unusable
  // and nothing more is written.
  Status Write(const RowBatch& batch);
  // Flushes the last row group and writes the footer.
  Status Close();
  // Adds a key-value pair to the footer's metadata, after the options' (before Close).
  void AddKeyValueMetadata(std::string key, std::string value);

  const ParquetFileStats& stats() const;
  // The footer written by a successful Close() (row groups, column chunk
  // sizes, statistics); null before. Valid for the writer's lifetime.
  const parquet::FileMetaData* footer() const;
  // Bytes written to the sink so far plus what is buffered, scaled by the
  // compression of the row groups written so far (unscaled before the first).
  uint64_t EstimatedFileSize() const;
  // True once a row group was written (EstimatedFileSize() then scales).
  bool measured_compression() const;
  // Ends the row group being filled and writes every finished row group now.
  Status FlushRowGroup();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// "lakedump version X.Y.Z (build H)"
std::string CreatedBy();

}  // namespace lakedump
