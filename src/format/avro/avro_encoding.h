// Avro binary encoding of values (Avro 1.11 specification, "Binary Encoding"):
// int and long as zig-zag varints, float/double little-endian, bytes and
// string as a long length then the bytes, fixed as the bytes alone, a union as
// the long index of the branch then the value, arrays and maps as blocks (a
// long count, the items, and a 0 count to end). Records are their fields in
// order, so a record is encoded by calling these in field order.
// Pure functions appending to a std::string; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace lakedump::avro {

void AppendLong(int64_t value, std::string* out);
inline void AppendInt(int32_t value, std::string* out) { AppendLong(value, out); }
void AppendBoolean(bool value, std::string* out);
void AppendFloat(float value, std::string* out);
void AppendDouble(double value, std::string* out);
// bytes and string share one encoding.
void AppendBytes(std::string_view value, std::string* out);
inline void AppendString(std::string_view value, std::string* out) { AppendBytes(value, out); }
// fixed: the bytes, no length (the schema holds the size).
inline void AppendFixed(std::string_view value, std::string* out) { out->append(value); }
// The branch of a union; the branch's value follows (nothing for null).
inline void AppendUnionBranch(int64_t index, std::string* out) { AppendLong(index, out); }
// An array or map written as one block of `count` items: call with the item
// count, append the items, then AppendBlockEnd. An empty array is AppendBlockEnd alone.
inline void AppendBlockStart(int64_t count, std::string* out) {
  if (count > 0) AppendLong(count, out);
}
inline void AppendBlockEnd(std::string* out) { out->push_back('\0'); }

}  // namespace lakedump::avro
