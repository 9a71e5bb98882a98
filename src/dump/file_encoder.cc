#include "dump/file_encoder.h"

namespace lakedump {
namespace {

class ParquetEncoder final : public FileEncoder {
 public:
  ParquetEncoder(const Schema& schema, const ParquetWriterOptions& options, ByteSink* sink)
      : writer_(schema, options, sink) {}
  Status Write(const RowBatch& batch) override { return writer_.Write(batch); }
  Status Close() override { return writer_.Close(); }
  uint64_t EstimatedFileSize() const override { return writer_.EstimatedFileSize(); }
  bool EstimateMeasured() const override { return writer_.measured_compression(); }
  Status FlushBuffered() override { return writer_.FlushRowGroup(); }
  const parquet::FileMetaData* footer() const override { return writer_.footer(); }

 private:
  ParquetWriter writer_;
};

}  // namespace

FileEncoderFactory ParquetEncoderFactory(ParquetWriterOptions options) {
  return [options](const Schema& schema, ByteSink* sink) -> std::unique_ptr<FileEncoder> {
    return std::make_unique<ParquetEncoder>(schema, options, sink);
  };
}

}  // namespace lakedump
