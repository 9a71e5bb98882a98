#include "format/parquet/rle.h"

#include <cstring>

namespace lakedump::parquet {
namespace {

// Packs 8 values LSB-first into bit_width bytes. REQUIRES: v[i] < 2^bit_width.
template <typename V>
inline void Pack8(const V* v, int bit_width, char* out) {
  // Common widths (definition levels, dictionaries up to 64 Ki entries) fit one
  // accumulator; little-endian, so its low bit_width bytes are the output.
  if (bit_width <= 8) {
    uint64_t acc = 0;
    for (int i = 0; i < 8; ++i) acc |= static_cast<uint64_t>(v[i]) << (i * bit_width);
    std::memcpy(out, &acc, static_cast<size_t>(bit_width));
    return;
  }
  if (bit_width <= 16) {
    unsigned __int128 acc = 0;
    for (int i = 0; i < 8; ++i) acc |= static_cast<unsigned __int128>(v[i]) << (i * bit_width);
    std::memcpy(out, &acc, static_cast<size_t>(bit_width));
    return;
  }
  uint64_t acc = 0;
  int bits = 0;
  int o = 0;
  for (int i = 0; i < 8; ++i) {
    acc |= static_cast<uint64_t>(v[i]) << bits;
    bits += bit_width;
    while (bits >= 8) {
      out[o++] = static_cast<char>(acc & 0xff);
      acc >>= 8;
      bits -= 8;
    }
  }
}

template <typename V>
inline size_t RunLength(const V* v, size_t i, size_t n) {
  const V x = v[i];
  size_t j = i + 1;
  while (j < n && v[j] == x) ++j;
  return j - i;
}

// True when a run of at least 8 equal values starts at i.
template <typename V>
inline bool RunOf8At(const V* v, size_t i, size_t n) {
  if (n - i < 8) return false;
  const V x = v[i];
  for (int k = 1; k < 8; ++k) {
    if (v[i + k] != x) return false;
  }
  return true;
}

template <typename V>
void Encode(const V* v, size_t n, int bit_width, std::string* out) {
  const int value_bytes = (bit_width + 7) / 8;
  size_t i = 0;
  while (i < n) {
    if (RunOf8At(v, i, n)) {
      const size_t run = RunLength(v, i, n);
      PutVarint(static_cast<uint64_t>(run) << 1, out);
      uint32_t x = static_cast<uint32_t>(v[i]);
      for (int b = 0; b < value_bytes; ++b) out->push_back(static_cast<char>((x >> (8 * b)) & 0xff));
      i += run;
      continue;
    }
    // Bit-packed groups until a run of 8 starts at a group boundary.
    size_t j = i;
    size_t groups = 0;
    while (j < n && (groups == 0 || !RunOf8At(v, j, n))) {
      j += 8;
      ++groups;
    }
    PutVarint((static_cast<uint64_t>(groups) << 1) | 1, out);
    const size_t at = out->size();
    out->resize(at + groups * static_cast<size_t>(bit_width));
    char* dst = out->data() + at;
    for (size_t g = 0; g < groups; ++g) {
      const size_t start = i + g * 8;
      if (start + 8 <= n) {
        Pack8(v + start, bit_width, dst);
      } else {
        V tail[8] = {};
        std::memcpy(tail, v + start, (n - start) * sizeof(V));
        Pack8(tail, bit_width, dst);
      }
      dst += bit_width;
    }
    i = j < n ? j : n;
  }
}

}  // namespace

int BitWidth(uint64_t max_value) {
  int w = 0;
  while (max_value != 0) {
    ++w;
    max_value >>= 1;
  }
  return w;
}

void RleEncode(const uint8_t* values, size_t n, int bit_width, std::string* out) {
  Encode(values, n, bit_width, out);
}

void RleEncode(const uint32_t* values, size_t n, int bit_width, std::string* out) {
  Encode(values, n, bit_width, out);
}

Status RleDecode(std::string_view in, int bit_width, size_t n, std::vector<uint32_t>* out) {
  if (bit_width < 0 || bit_width > 32) return Status::Corruption("rle: bad bit width");
  const size_t value_bytes = (static_cast<size_t>(bit_width) + 7) / 8;
  size_t pos = 0;
  out->clear();
  out->reserve(n);
  while (out->size() < n) {
    uint64_t header = 0;
    for (int shift = 0;; shift += 7) {
      if (pos >= in.size()) return Status::Corruption("rle: truncated run header");
      if (shift > 56) return Status::Corruption("rle: run header too long");
      const uint8_t b = static_cast<uint8_t>(in[pos++]);
      header |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) break;
    }
    if (header & 1) {
      const uint64_t groups = header >> 1;
      if (groups == 0 || groups > (in.size() - pos) / (bit_width == 0 ? 1 : bit_width) + 1) {
        return Status::Corruption("rle: bad bit-packed run");
      }
      const uint64_t bytes = groups * static_cast<uint64_t>(bit_width);
      if (bytes > in.size() - pos) return Status::Corruption("rle: truncated bit-packed run");
      uint64_t acc = 0;
      int bits = 0;
      size_t p = pos;
      const uint64_t mask = bit_width == 32 ? 0xffffffffull : ((1ull << bit_width) - 1);
      for (uint64_t k = 0; k < groups * 8 && out->size() < n; ++k) {
        while (bits < bit_width) {
          acc |= static_cast<uint64_t>(static_cast<uint8_t>(in[p++])) << bits;
          bits += 8;
        }
        out->push_back(static_cast<uint32_t>(acc & mask));
        acc >>= bit_width;
        bits -= bit_width;
      }
      pos += bytes;
    } else {
      const uint64_t run = header >> 1;
      if (run == 0) return Status::Corruption("rle: empty run");
      if (value_bytes > in.size() - pos) return Status::Corruption("rle: truncated run value");
      uint32_t x = 0;
      for (size_t b = 0; b < value_bytes; ++b) {
        x |= static_cast<uint32_t>(static_cast<uint8_t>(in[pos + b])) << (8 * b);
      }
      pos += value_bytes;
      if (bit_width < 32 && (x >> bit_width) != 0) return Status::Corruption("rle: value too wide");
      const uint64_t take = run < n - out->size() ? run : n - out->size();
      out->insert(out->end(), take, x);
    }
  }
  return Status::OK();
}

}  // namespace lakedump::parquet
