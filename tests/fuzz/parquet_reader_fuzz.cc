// libFuzzer target: a whole Parquet file through ParquetReader (footer,
// schema, pages, encodings, codecs). Any input must read or fail cleanly.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "format/parquet/parquet_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A private copy so that ASan catches reads past the end of the file.
  const std::string file(reinterpret_cast<const char*>(data), size);
  auto reader = lakedump::ParquetReader::OpenBuffer(file);
  if (!reader.ok()) return 0;
  lakedump::RowBatch batch;
  for (int i = 0; i < 10000; ++i) {
    if (!(*reader)->Next(1024, &batch).ok() || batch.num_rows() == 0) break;
  }
  return 0;
}
