// FileEncoder: the file format the export service writes (Parquet in
// production; tests may plug a trivial format to exercise the pipeline alone).
// Ownership: an encoder borrows its sink. Not thread-safe: one producer.
#pragma once

#include <functional>
#include <memory>

#include "base/byte_sink.h"
#include "format/parquet/parquet_writer.h"
#include "table/row_batch.h"
#include "table/schema.h"

namespace lakedump {

class FileEncoder {
 public:
  virtual ~FileEncoder() = default;
  virtual Status Write(const RowBatch& batch) = 0;
  // Flushes everything to the sink (footer included).
  virtual Status Close() = 0;
  // Bytes written plus buffered (at the compression measured so far), to
  // decide when a file rolls over.
  virtual uint64_t EstimatedFileSize() const = 0;
  // False until the estimate is based on written (compressed) bytes; then
  // FlushBuffered() makes it so. Encoders without buffering: always true.
  virtual bool EstimateMeasured() const { return true; }
  virtual Status FlushBuffered() { return Status::OK(); }
  // After Close(): the Parquet footer written (for Iceberg metrics), or null
  // for a format without one.
  virtual const parquet::FileMetaData* footer() const { return nullptr; }
};

using FileEncoderFactory =
    std::function<std::unique_ptr<FileEncoder>(const Schema& schema, ByteSink* sink)>;

// Parquet files with the given writer options.
FileEncoderFactory ParquetEncoderFactory(ParquetWriterOptions options);

}  // namespace lakedump
