// The RLE / bit-packed hybrid encoding of Parquet (Encodings.md), used for
// definition levels and dictionary indices, plus a bounds-checked decoder.
// Free functions on caller-owned buffers; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace lakedump::parquet {

// Bits needed to store values 0..max_value (0 for max_value == 0).
int BitWidth(uint64_t max_value);

// Appends the hybrid encoding of values[0..n) at `bit_width` (0..32) to *out.
// Repeats of 8 or more become RLE runs, the rest bit-packed groups of 8 (the
// last group is zero-padded; readers stop at the page's value count).
void RleEncode(const uint8_t* values, size_t n, int bit_width, std::string* out);
void RleEncode(const uint32_t* values, size_t n, int bit_width, std::string* out);

// Decodes exactly n values; Corruption if the input ends early or is malformed.
Status RleDecode(std::string_view in, int bit_width, size_t n, std::vector<uint32_t>* out);

// Appends the unsigned LEB128 varint.
inline void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

}  // namespace lakedump::parquet
