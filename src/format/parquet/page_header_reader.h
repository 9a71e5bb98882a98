// Decoding of Parquet page headers for the reader, including DataPageHeaderV2
// (which the writer-side PageHeader in parquet_metadata.h does not model).
// Bounds-checked through ThriftReader; malformed input is Corruption.
// Free functions on values; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "base/status.h"
#include "format/parquet/parquet_metadata.h"

namespace lakedump::parquet {

struct ReaderPageHeader {
  int32_t type = 0;  // PageType; other values are possible (unknown pages are skipped)
  int32_t uncompressed_page_size = 0;
  int32_t compressed_page_size = 0;
  std::optional<int32_t> crc;
  // Data page v1 (type 0) or v2 (type 3): common fields.
  int32_t num_values = 0;
  int32_t encoding = 0;
  // v1 only.
  int32_t definition_level_encoding = 3;  // RLE
  // v2 only.
  int32_t num_nulls = 0;
  int32_t num_rows = 0;
  int32_t definition_levels_byte_length = 0;
  int32_t repetition_levels_byte_length = 0;
  bool is_compressed = true;
  // Dictionary page (type 2).
  int32_t dict_num_values = 0;
  int32_t dict_encoding = 0;
  bool has_v1 = false, has_v2 = false, has_dict = false;
};

// Decodes one page header from the start of `in`; *consumed receives its length.
Result<ReaderPageHeader> DecodeReaderPageHeader(std::string_view in, size_t* consumed);

}  // namespace lakedump::parquet
