#include "store/object_store.h"

#include <string>

namespace lakedump {

Status ObjectStore::PutObject(std::string_view key, std::string_view data, WriteOptions options) {
  LD_ASSIGN_OR_RETURN(auto writer, NewWriter(key, options));
  LD_RETURN_IF_ERROR(writer->Append(data));
  return writer->Close();
}

Result<std::string> ObjectStore::GetObject(std::string_view key) {
  LD_ASSIGN_OR_RETURN(auto reader, NewReader(key));
  std::string out;
  LD_RETURN_IF_ERROR(reader->ReadAt(0, reader->size(), &out));
  return out;
}

Result<std::string> ObjectStore::GetObject(std::string_view key, uint64_t max_bytes) {
  LD_ASSIGN_OR_RETURN(auto reader, NewReader(key));
  if (reader->size() > max_bytes) {
    return Status::Corruption(std::string(key) + " is " + std::to_string(reader->size()) +
                              " bytes, more than the " + std::to_string(max_bytes) +
                              " bytes a lakedump metadata file may have (not read)");
  }
  std::string out;
  LD_RETURN_IF_ERROR(reader->ReadAt(0, reader->size(), &out));
  return out;
}

}  // namespace lakedump
