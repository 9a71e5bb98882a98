#include "format/avro/avro_encoding.h"

#include <cstring>

namespace lakedump::avro {

void AppendLong(int64_t value, std::string* out) {
  // Zig-zag maps signed to unsigned so small magnitudes take few bytes.
  uint64_t n = (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
  while (n >= 0x80) {
    out->push_back(static_cast<char>((n & 0x7f) | 0x80));
    n >>= 7;
  }
  out->push_back(static_cast<char>(n));
}

void AppendBoolean(bool value, std::string* out) { out->push_back(value ? '\1' : '\0'); }

void AppendFloat(float value, std::string* out) {
  char b[4];
  std::memcpy(b, &value, 4);  // little-endian host (x86-64, aarch64)
  out->append(b, 4);
}

void AppendDouble(double value, std::string* out) {
  char b[8];
  std::memcpy(b, &value, 8);
  out->append(b, 8);
}

void AppendBytes(std::string_view value, std::string* out) {
  AppendLong(static_cast<int64_t>(value.size()), out);
  out->append(value);
}

}  // namespace lakedump::avro
