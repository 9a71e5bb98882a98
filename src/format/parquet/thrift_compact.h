// Thrift compact protocol, written by hand for the Parquet footer and page
// headers: a streaming encoder (ThriftWriter) and a bounds-checked decoder
// (ThriftReader) that never reads past its input, limits nesting depth and
// reports malformed input as Corruption.
//
// Both are single-use value objects; not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace lakedump {

// Compact protocol element types (the low nibble of a field header).
enum class ThriftType : uint8_t {
  kStop = 0,
  kTrue = 1,
  kFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

// Appends compact-protocol bytes to a caller-owned string.
// Fields must be written in any order but each struct is bracketed by
// BeginStruct()/EndStruct() so field-id deltas restart per struct.
class ThriftWriter {
 public:
  explicit ThriftWriter(std::string* out) : out_(out) { last_id_.push_back(0); }

  void BeginStruct() { last_id_.push_back(0); }
  void EndStruct() {  // writes the stop byte
    out_->push_back(0);
    last_id_.pop_back();
  }

  void FieldBool(int16_t id, bool v) {
    FieldHeader(id, v ? ThriftType::kTrue : ThriftType::kFalse);
  }
  void FieldI8(int16_t id, int8_t v) {
    FieldHeader(id, ThriftType::kByte);
    out_->push_back(static_cast<char>(v));
  }
  void FieldI16(int16_t id, int16_t v) {
    FieldHeader(id, ThriftType::kI16);
    Varint(ZigZag(v));
  }
  void FieldI32(int16_t id, int32_t v) {
    FieldHeader(id, ThriftType::kI32);
    Varint(ZigZag(v));
  }
  void FieldI64(int16_t id, int64_t v) {
    FieldHeader(id, ThriftType::kI64);
    Varint(ZigZag(v));
  }
  void FieldBinary(int16_t id, std::string_view v) {
    FieldHeader(id, ThriftType::kBinary);
    Binary(v);
  }
  // Followed by the struct's fields and EndStruct().
  void FieldStruct(int16_t id) {
    FieldHeader(id, ThriftType::kStruct);
    BeginStruct();
  }
  // Followed by `size` elements written with the element functions below.
  void FieldList(int16_t id, ThriftType elem, uint32_t size) {
    FieldHeader(id, ThriftType::kList);
    ListHeader(elem, size);
  }

  // List elements.
  void I32(int32_t v) { Varint(ZigZag(v)); }
  void I64(int64_t v) { Varint(ZigZag(v)); }
  void Binary(std::string_view v) {
    Varint(v.size());
    out_->append(v);
  }
  // A struct as a list element: BeginStruct(), fields, EndStruct().

  static uint64_t ZigZag(int64_t v) {
    return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  }

 private:
  void FieldHeader(int16_t id, ThriftType type);
  void ListHeader(ThriftType elem, uint32_t size);
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      out_->push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out_->push_back(static_cast<char>(v));
  }

  std::string* out_;
  std::vector<int16_t> last_id_;
};

// Reads compact-protocol bytes from a borrowed buffer.
class ThriftReader {
 public:
  static constexpr int kMaxDepth = 32;
  // Longest list accepted; the real bound is the remaining input (each element >= 1 byte).
  static constexpr uint32_t kMaxListSize = 1u << 28;

  explicit ThriftReader(std::string_view in) : in_(in) {}

  size_t position() const { return pos_; }

  Status BeginStruct() {
    if (++depth_ > kMaxDepth) return Status::Corruption("thrift: structs nested too deeply");
    last_id_[depth_] = 0;
    return Status::OK();
  }
  void EndStruct() { --depth_; }
  // Reads the next field header; *type == kStop at the end of the struct.
  // For booleans the value is in the type (kTrue / kFalse).
  Status ReadFieldHeader(int16_t* id, ThriftType* type);
  Status ReadListHeader(ThriftType* elem, uint32_t* size);

  Status ReadBool(ThriftType field_type, bool* v);  // field_type from the header
  Status ReadI8(int8_t* v);
  Status ReadI16(int16_t* v);
  Status ReadI32(int32_t* v);
  Status ReadI64(int64_t* v);
  Status ReadBinary(std::string* v);
  // Skips a value of the given type (including whole nested structs/lists).
  Status Skip(ThriftType type);

 private:
  // The container cases of Skip.
  Status SkipList();  // a list or a set
  Status SkipMap();
  Status SkipStruct();
  Status ReadVarint(uint64_t* v);
  Status ReadByte(uint8_t* b) {
    if (pos_ >= in_.size()) return Truncated();
    *b = static_cast<uint8_t>(in_[pos_++]);
    return Status::OK();
  }
  static Status Truncated() { return Status::Corruption("thrift: truncated input"); }

  std::string_view in_;
  size_t pos_ = 0;
  int depth_ = 0;
  int16_t last_id_[kMaxDepth + 2] = {};
  // Elements inside a list/set/map are not fields: booleans there are bytes.
  int skip_depth_ = 0;
};

}  // namespace lakedump
