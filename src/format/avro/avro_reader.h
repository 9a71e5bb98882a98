// Reading Avro object container files (Avro 1.11 specification) that an earlier lakedump
// run wrote (Iceberg manifests and manifest lists), which are hostile until checked: the
// header (magic "Obj\x01", the metadata map with avro.schema and avro.codec, the 16-byte
// sync marker), then blocks whose records are split by skipping each over the writer's
// schema. Every length and count is checked against the bytes, the nesting of the schema
// is bounded, and only the "null" codec (what lakedump writes) is read.
// Pure functions and a decoder over borrowed bytes; not thread-safe per decoder.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace lakedump::avro {

// A position in encoded Avro bytes (borrowed; they must outlive the decoder). Reads past
// the end, or values that do not fit, are Corruption.
class AvroDecoder {
 public:
  explicit AvroDecoder(std::string_view bytes) : bytes_(bytes) {}

  Result<int64_t> ReadLong();  // zig-zag varint (also int)
  Result<std::string_view> ReadBytes();  // length-prefixed (also string)
  Result<std::string_view> ReadFixed(size_t size);
  // Skips one value of `schema` (a parsed Avro schema; named types as `names` holds them,
  // new ones added as they are defined).
  Status Skip(const nlohmann::json& schema, std::map<std::string, nlohmann::json>* names,
              int depth = 0);

  size_t pos() const { return pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }
  std::string_view Slice(size_t begin, size_t end) const {
    return bytes_.substr(begin, end - begin);
  }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

struct AvroContainer {
  std::map<std::string, std::string> metadata;  // the header's keys, avro.* included
  nlohmann::json schema;                        // avro.schema, parsed
  std::vector<std::string_view> records;        // each record's bytes (into the file)
};

// Splits `file` into its records. At most `max_records` records. The records view `file`,
// which must outlive the result.
Result<AvroContainer> ReadAvroContainer(std::string_view file, size_t max_records);

}  // namespace lakedump::avro
