// Reading the footer (FileMetaData) of a Parquet file, through a read-at
// callback so the format layer stays independent of stores. Validates the
// magic bytes and the footer length against the file size; a malformed footer
// is Corruption. Thread-safe (stateless).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "format/parquet/parquet_metadata.h"

namespace lakedump::parquet {

// Reads exactly `len` bytes at `offset` into *out (replacing its contents).
using ReadAtFn = std::function<Status(uint64_t offset, uint64_t len, std::string* out)>;

// Longest footer accepted (a guard against absurd lengths).
inline constexpr uint64_t kMaxFooterBytes = 256ull << 20;

Result<FileMetaData> ReadParquetFooter(uint64_t file_size, const ReadAtFn& read_at);
Result<FileMetaData> ReadParquetFooter(std::string_view file);

}  // namespace lakedump::parquet
