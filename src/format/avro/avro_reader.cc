#include "format/avro/avro_reader.h"

#include <fmt/format.h>


namespace lakedump::avro {
namespace {

using json = nlohmann::json;

constexpr int kMaxDepth = 32;
constexpr size_t kSyncSize = 16;
constexpr int64_t kMaxCount = int64_t{1} << 40;  // a negative count's magnitude

Status Bad(std::string_view why) { return Status::Corruption(fmt::format("Avro: {}", why)); }

bool IsPrimitive(const std::string& t) {
  return t == "null" || t == "boolean" || t == "int" || t == "long" || t == "float" ||
         t == "double" || t == "bytes" || t == "string";
}

}  // namespace

Result<int64_t> AvroDecoder::ReadLong() {
  uint64_t n = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos_ >= bytes_.size()) return Bad("a number runs past the end");
    const uint8_t b = static_cast<uint8_t>(bytes_[pos_++]);
    n |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return static_cast<int64_t>((n >> 1) ^ (~(n & 1) + 1));
  }
  return Bad("a number is longer than 10 bytes");
}

Result<std::string_view> AvroDecoder::ReadBytes() {
  LD_ASSIGN_OR_RETURN(int64_t n, ReadLong());
  if (n < 0 || static_cast<uint64_t>(n) > remaining()) return Bad("a length runs past the end");
  return ReadFixed(static_cast<size_t>(n));
}

Result<std::string_view> AvroDecoder::ReadFixed(size_t size) {
  if (size > remaining()) return Bad("a value runs past the end");
  std::string_view v = bytes_.substr(pos_, size);
  pos_ += size;
  return v;
}

Status AvroDecoder::Skip(const json& schema, std::map<std::string, json>* names, int depth) {
  if (depth > kMaxDepth) return Bad("the schema nests too deeply");
  if (schema.is_array()) {  // a union: the branch, then its value
    LD_ASSIGN_OR_RETURN(int64_t branch, ReadLong());
    if (branch < 0 || static_cast<size_t>(branch) >= schema.size()) {
      return Bad("a union branch out of range");
    }
    return Skip(schema[static_cast<size_t>(branch)], names, depth + 1);
  }
  if (schema.is_string()) {
    const std::string t = schema.get<std::string>();
    if (t == "null") return Status::OK();
    if (t == "boolean") return ReadFixed(1).status();
    if (t == "int" || t == "long") return ReadLong().status();
    if (t == "float") return ReadFixed(4).status();
    if (t == "double") return ReadFixed(8).status();
    if (t == "bytes" || t == "string") return ReadBytes().status();
    auto named = names->find(t);
    if (named == names->end()) return Bad(fmt::format("unknown type {}", t));
    const json definition = named->second;  // a copy: the map may grow below
    return Skip(definition, names, depth + 1);
  }
  if (!schema.is_object() || !schema.contains("type")) return Bad("a schema that is not a type");
  const json& type = schema["type"];
  if (!type.is_string()) return Skip(type, names, depth + 1);
  const std::string t = type.get<std::string>();
  if (IsPrimitive(t)) return Skip(type, names, depth + 1);  // with a logicalType
  const auto define = [&]() -> Status {
    if (!schema.contains("name") || !schema["name"].is_string()) return Bad("a type without a name");
    (*names)[schema["name"].get<std::string>()] = schema;
    return Status::OK();
  };
  if (t == "record") {
    LD_RETURN_IF_ERROR(define());
    if (!schema.contains("fields") || !schema["fields"].is_array()) {
      return Bad("a record without fields");
    }
    for (const json& f : schema["fields"]) {
      if (!f.is_object() || !f.contains("type")) return Bad("a field without a type");
      LD_RETURN_IF_ERROR(Skip(f["type"], names, depth + 1));
    }
    return Status::OK();
  }
  if (t == "fixed") {
    LD_RETURN_IF_ERROR(define());
    if (!schema.contains("size") || !schema["size"].is_number_unsigned()) {
      return Bad("a fixed type without a size");
    }
    return ReadFixed(schema["size"].get<size_t>()).status();
  }
  if (t == "enum") {
    LD_RETURN_IF_ERROR(define());
    return ReadLong().status();
  }
  if (t == "array" || t == "map") {
    const char* inner = t == "array" ? "items" : "values";
    if (!schema.contains(inner)) return Bad(fmt::format("an {} without {}", t, inner));
    for (;;) {
      LD_ASSIGN_OR_RETURN(int64_t count, ReadLong());
      if (count == 0) return Status::OK();
      if (count < 0) {
        if (count < -kMaxCount) return Bad("a block count out of range");
        count = -count;
        LD_RETURN_IF_ERROR(ReadLong().status());  // the block's byte size
      }
      // Every item lakedump writes takes a byte at least: a larger count is not ours.
      if (static_cast<uint64_t>(count) > remaining()) return Bad("a block count runs past the end");
      for (int64_t i = 0; i < count; ++i) {
        if (t == "map") LD_RETURN_IF_ERROR(ReadBytes().status());
        LD_RETURN_IF_ERROR(Skip(schema[inner], names, depth + 1));
      }
    }
  }
  return Bad(fmt::format("unknown type {}", t));
}

Result<AvroContainer> ReadAvroContainer(std::string_view file, size_t max_records) {
  AvroContainer out;
  AvroDecoder d(file);
  LD_ASSIGN_OR_RETURN(std::string_view magic, d.ReadFixed(4));
  if (magic != std::string_view("Obj\x01", 4)) return Bad("not an object container file");
  for (;;) {
    LD_ASSIGN_OR_RETURN(int64_t count, d.ReadLong());
    if (count == 0) break;
    if (count < 0) {
      if (count < -kMaxCount) return Bad("a header count out of range");
      count = -count;
      LD_RETURN_IF_ERROR(d.ReadLong().status());
    }
    if (static_cast<uint64_t>(count) > d.remaining()) return Bad("a header count runs past the end");
    for (int64_t i = 0; i < count; ++i) {
      LD_ASSIGN_OR_RETURN(std::string_view key, d.ReadBytes());
      LD_ASSIGN_OR_RETURN(std::string_view value, d.ReadBytes());
      out.metadata[std::string(key)] = std::string(value);
    }
  }
  LD_ASSIGN_OR_RETURN(std::string_view sync, d.ReadFixed(kSyncSize));
  const auto codec = out.metadata.find("avro.codec");
  if (codec != out.metadata.end() && codec->second != "null") {
    return Bad(fmt::format("codec {} is not read", codec->second));
  }
  const auto schema = out.metadata.find("avro.schema");
  if (schema == out.metadata.end()) return Bad("no avro.schema");
  out.schema = json::parse(schema->second, nullptr, /*allow_exceptions=*/false);
  if (out.schema.is_discarded()) return Bad("avro.schema is not JSON");
  std::map<std::string, json> names;
  while (d.remaining() > 0) {
    LD_ASSIGN_OR_RETURN(int64_t count, d.ReadLong());
    LD_ASSIGN_OR_RETURN(int64_t size, d.ReadLong());
    if (count < 0 || size < 0 || static_cast<uint64_t>(size) > d.remaining()) {
      return Bad("a block runs past the end");
    }
    if (static_cast<uint64_t>(count) > max_records - out.records.size()) {
      return Bad(fmt::format("more than {} records", max_records));
    }
    const size_t end = d.pos() + static_cast<size_t>(size);
    for (int64_t i = 0; i < count; ++i) {
      const size_t begin = d.pos();
      LD_RETURN_IF_ERROR(d.Skip(out.schema, &names));
      if (d.pos() > end) return Bad("a record runs past its block");
      out.records.push_back(d.Slice(begin, d.pos()));
    }
    if (d.pos() != end) return Bad("a block's records do not fill it");
    LD_ASSIGN_OR_RETURN(std::string_view block_sync, d.ReadFixed(kSyncSize));
    if (block_sync != sync) return Bad("a block's sync marker differs from the header's");
  }
  return out;
}

}  // namespace lakedump::avro
