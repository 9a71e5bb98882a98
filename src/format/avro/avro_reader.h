// Reading Avro object container files (Avro 1.11 specification) that an earlier lakedump
// run wrote (Iceberg manifests and manifest lists), which are hostile until checked: the
// header (magic "Obj\x01", the metadata map with avro.schema and avro.codec, the 16-byte
// sync marker), then blocks whose records are split by skipping each over the writer's
// schema. Only the "null" codec (what lakedump writes) is read. CPU and memory are bounded
// by the file's size: the schema is compiled once under the bounds of avro_schema.h; every
// length and count is checked against the bytes left; a block holds no more records than
// bytes (a lakedump record takes one byte at least); the header holds at most
// kMaxHeaderEntries keys; a record visits at most kMaxValuesPerRecord values and a file at
// most kValuesPerByte values a byte of it (array and map items included).
//
// Why not Apache's Avro C library (libavro, packaged by Debian as libavro-dev 1.11.1)? It was
// evaluated for issue 29 and has no bound on a schema's expansion: the fanned-out schema of
// tests/data/fuzz-regressions/avro (1.8 KB, zero-byte records) took it 1.3 to 1.6 s and 200 MB for
// three records, since its generic value materializes every nested field, and it has no hook
// to cap that. Resolving schemas and building values, which lakedump does not need (it only
// splits records and reads a few leading fields), is most of its code. So this reader stays.
// Pure functions and a decoder over borrowed bytes; not thread-safe per decoder.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "format/avro/avro_schema.h"

namespace lakedump::avro {

// A position in encoded Avro bytes (borrowed; they must outlive the decoder). Reads past
// the end, or values that do not fit, are Corruption.
class AvroDecoder {
 public:
  explicit AvroDecoder(std::string_view bytes) : bytes_(bytes) {}

  Result<int64_t> ReadLong();  // zig-zag varint (also int)
  Result<std::string_view> ReadBytes();  // length-prefixed (also string)
  Result<std::string_view> ReadFixed(size_t size);
  // Skips one value of `node` of `schema`, counting the values it visits against the
  // budget (kMaxValuesPerRecord unless set).
  Status Skip(const AvroSchema& schema, uint32_t node);
  void set_value_budget(uint64_t values) { budget_ = values; }
  uint64_t value_budget() const { return budget_; }

  size_t pos() const { return pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }
  std::string_view Slice(size_t begin, size_t end) const {
    return bytes_.substr(begin, end - begin);
  }

 private:
  Status SkipBlocks(const AvroSchema& schema, const AvroNode& n);  // an array's or a map's

  std::string_view bytes_;
  size_t pos_ = 0;
  uint64_t budget_ = kMaxValuesPerRecord;
};

inline constexpr size_t kMaxHeaderEntries = 256;
inline constexpr uint64_t kValuesPerByte = 64;

struct AvroContainer {
  std::map<std::string, std::string> metadata;  // the header's keys, avro.* included
  nlohmann::json schema;                        // avro.schema, parsed
  AvroSchema compiled;                          // avro.schema, compiled
  std::vector<std::string_view> records;        // each record's bytes (into the file)
};

// Splits `file` into its records. At most `max_records` records. The records view `file`,
// which must outlive the result.
Result<AvroContainer> ReadAvroContainer(std::string_view file, size_t max_records);

}  // namespace lakedump::avro
