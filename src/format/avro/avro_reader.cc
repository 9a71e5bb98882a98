#include "format/avro/avro_reader.h"

#include <fmt/format.h>

#include <algorithm>


namespace lakedump::avro {
namespace {

constexpr size_t kSyncSize = 16;
constexpr int64_t kMaxCount = int64_t{1} << 40;  // a negative count's magnitude

Status Bad(std::string_view why) { return Status::Corruption(fmt::format("Avro: {}", why)); }

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

Status AvroDecoder::Skip(const AvroSchema& schema, uint32_t id) {
  if (budget_ == 0) {
    return Bad(fmt::format("a record visits more values than its budget (at most {} a record, "
                           "{} a byte of the file)", kMaxValuesPerRecord, kValuesPerByte));
  }
  --budget_;
  const AvroNode& n = schema.node(id);
  switch (n.kind) {
    case AvroKind::kNull: return Status::OK();
    case AvroKind::kBoolean: return ReadFixed(1).status();
    case AvroKind::kInt:
    case AvroKind::kLong:
    case AvroKind::kEnum: return ReadLong().status();
    case AvroKind::kFloat: return ReadFixed(4).status();
    case AvroKind::kDouble: return ReadFixed(8).status();
    case AvroKind::kBytes:
    case AvroKind::kString: return ReadBytes().status();
    case AvroKind::kFixed:
      if (n.size > remaining()) return Bad("a value runs past the end");
      return ReadFixed(static_cast<size_t>(n.size)).status();
    case AvroKind::kRecord:
      for (uint32_t field : n.children) LD_RETURN_IF_ERROR(Skip(schema, field));
      return Status::OK();
    case AvroKind::kUnion: {
      LD_ASSIGN_OR_RETURN(int64_t branch, ReadLong());
      if (branch < 0 || static_cast<size_t>(branch) >= n.children.size()) {
        return Bad("a union branch out of range");
      }
      return Skip(schema, n.children[static_cast<size_t>(branch)]);
    }
    case AvroKind::kArray:
    case AvroKind::kMap: return SkipBlocks(schema, n);
  }
  return Bad("an unknown type");
}

Status AvroDecoder::SkipBlocks(const AvroSchema& schema, const AvroNode& n) {
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
      if (n.kind == AvroKind::kMap) LD_RETURN_IF_ERROR(ReadBytes().status());
      LD_RETURN_IF_ERROR(Skip(schema, n.children[0]));
    }
  }
}

namespace {

// The header: magic, metadata (at most kMaxHeaderEntries keys), sync marker; the schema parsed
// and compiled under its bounds.
Result<std::string_view> ReadHeader(AvroDecoder& d, AvroContainer& out) {
  LD_ASSIGN_OR_RETURN(std::string_view magic, d.ReadFixed(4));
  if (magic != std::string_view("Obj\x01", 4)) return Bad("not an object container file");
  size_t entries = 0;
  for (;;) {
    LD_ASSIGN_OR_RETURN(int64_t count, d.ReadLong());
    if (count == 0) break;
    if (count < 0) {
      if (count < -kMaxCount) return Bad("a header count out of range");
      count = -count;
      LD_RETURN_IF_ERROR(d.ReadLong().status());
    }
    if (static_cast<uint64_t>(count) > kMaxHeaderEntries - entries) {
      return Bad(fmt::format("the header has more than {} keys", kMaxHeaderEntries));
    }
    entries += static_cast<size_t>(count);
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
  LD_ASSIGN_OR_RETURN(out.schema, ParseSchemaJson(schema->second));
  LD_ASSIGN_OR_RETURN(out.compiled, AvroSchema::Compile(out.schema));
  return sync;
}

}  // namespace

Result<AvroContainer> ReadAvroContainer(std::string_view file, size_t max_records) {
  AvroContainer out;
  AvroDecoder d(file);
  LD_ASSIGN_OR_RETURN(std::string_view sync, ReadHeader(d, out));
  // The values every record together may visit: linear in the file's size.
  uint64_t file_budget = kValuesPerByte * file.size() + kMaxValuesPerRecord;
  while (d.remaining() > 0) {
    LD_ASSIGN_OR_RETURN(int64_t count, d.ReadLong());
    LD_ASSIGN_OR_RETURN(int64_t size, d.ReadLong());
    if (count < 0 || size < 0 || static_cast<uint64_t>(size) > d.remaining()) {
      return Bad("a block runs past the end");
    }
    if (count > size) {
      return Bad(fmt::format("a block of {} records in {} bytes (a record takes a byte at least)",
                             count, size));
    }
    if (static_cast<uint64_t>(count) > max_records - out.records.size()) {
      return Bad(fmt::format("more than {} records", max_records));
    }
    const size_t end = d.pos() + static_cast<size_t>(size);
    for (int64_t i = 0; i < count; ++i) {
      const size_t begin = d.pos();
      d.set_value_budget(std::min(file_budget, kMaxValuesPerRecord));
      const uint64_t before = d.value_budget();
      LD_RETURN_IF_ERROR(d.Skip(out.compiled, out.compiled.root()));
      file_budget -= before - d.value_budget();
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
