// Temporary stand-in (branch dump only) until the Parquet writer lands: fails clearly.
#include "format/parquet/parquet_writer.h"

namespace lakedump {

class ParquetWriter::Impl {
 public:
  ParquetFileStats stats;
};

ParquetWriter::ParquetWriter(Schema, ParquetWriterOptions, ByteSink*)
    : impl_(std::make_unique<Impl>()) {}
ParquetWriter::~ParquetWriter() = default;
Status ParquetWriter::Write(const RowBatch&) {
  return Status::Unimplemented("the Parquet writer is not built in this branch yet");
}
Status ParquetWriter::Close() {
  return Status::Unimplemented("the Parquet writer is not built in this branch yet");
}
const ParquetFileStats& ParquetWriter::stats() const { return impl_->stats; }
uint64_t ParquetWriter::EstimatedFileSize() const { return 0; }

}  // namespace lakedump
