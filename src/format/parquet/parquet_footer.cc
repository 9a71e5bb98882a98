#include "format/parquet/parquet_footer.h"

#include <cstring>

#include <fmt/format.h>

namespace lakedump::parquet {

Result<FileMetaData> ReadParquetFooter(uint64_t file_size, const ReadAtFn& read_at) {
  if (file_size < 12) {
    return Status::Corruption(fmt::format("not a Parquet file: {} bytes is too small", file_size));
  }
  std::string tail;
  LD_RETURN_IF_ERROR(read_at(file_size - 8, 8, &tail));
  if (tail.size() != 8) return Status::Corruption("short read of the Parquet footer");
  if (tail.compare(4, 4, "PAR1") != 0) {
    return Status::Corruption("not a Parquet file: no PAR1 magic at the end");
  }
  uint32_t len;
  std::memcpy(&len, tail.data(), 4);
  if (len > file_size - 12 || len > kMaxFooterBytes) {
    return Status::Corruption(fmt::format("Parquet footer length {} does not fit a {}-byte file",
                                          len, file_size));
  }
  std::string footer;
  LD_RETURN_IF_ERROR(read_at(file_size - 8 - len, len, &footer));
  if (footer.size() != len) return Status::Corruption("short read of the Parquet footer");
  std::string head;
  LD_RETURN_IF_ERROR(read_at(0, 4, &head));
  if (head != "PAR1") return Status::Corruption("not a Parquet file: no PAR1 magic at the start");
  return DecodeFileMetaData(footer);
}

Result<FileMetaData> ReadParquetFooter(std::string_view file) {
  return ReadParquetFooter(file.size(), [file](uint64_t off, uint64_t len, std::string* out) {
    if (off > file.size() || len > file.size() - off) return Status::Corruption("read past end");
    out->assign(file.substr(off, len));
    return Status::OK();
  });
}

}  // namespace lakedump::parquet
