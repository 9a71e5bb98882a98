// libFuzzer target: the Thrift compact decoder through the footer and page
// header decoder. Any input must yield a value or an error, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "format/parquet/parquet_metadata.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  auto meta = lakedump::parquet::DecodeFileMetaData(in);
  if (meta.ok()) {
    std::string again;
    lakedump::parquet::EncodeFileMetaData(*meta, &again);
  }
  size_t consumed = 0;
  auto h = lakedump::parquet::DecodePageHeader(in, &consumed);
  if (h.ok()) {
    std::string again;
    lakedump::parquet::EncodePageHeader(*h, &again);
  }
  return 0;
}
