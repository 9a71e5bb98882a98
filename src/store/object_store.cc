#include "store/object_store.h"

#include <string>

#include "base/md5.h"

namespace lakedump {

std::string Md5Etag(std::string_view bytes) { return Md5Hex(bytes); }

Status ObjectWriter::Close() {
  if (closed_) return Status::OK();
  LD_RETURN_IF_ERROR(DoClose());
  closed_ = true;
  return Status::OK();
}

Status ObjectStore::PutObject(std::string_view key, std::string_view data, WriteOptions options) {
  LD_ASSIGN_OR_RETURN(auto writer, NewWriter(key, options));
  LD_RETURN_IF_ERROR(writer->Append(data));
  return writer->Close();
}

Result<ObjectStore::WholeObject> ObjectStore::ReadWhole(std::string_view key,
                                                       std::optional<uint64_t> max_bytes) {
  LD_ASSIGN_OR_RETURN(auto reader, NewReader(key));
  WholeObject out;
  out.size = reader->size();
  if (max_bytes && out.size > *max_bytes) return out;
  LD_RETURN_IF_ERROR(reader->ReadAt(0, out.size, &out.bytes));
  return out;
}

Result<std::string> ObjectStore::GetObject(std::string_view key) {
  LD_ASSIGN_OR_RETURN(WholeObject whole, ReadWhole(key, std::nullopt));
  return std::move(whole.bytes);
}

Result<std::string> ObjectStore::GetObject(std::string_view key, uint64_t max_bytes) {
  LD_ASSIGN_OR_RETURN(WholeObject whole, ReadWhole(key, max_bytes));
  if (whole.size > max_bytes) {
    return Status::Corruption(std::string(key) + " is " + std::to_string(whole.size) +
                              " bytes, more than the " + std::to_string(max_bytes) +
                              " bytes a lakedump metadata file may have (not read)");
  }
  return std::move(whole.bytes);
}

}  // namespace lakedump
