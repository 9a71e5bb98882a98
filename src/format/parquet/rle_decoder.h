// A streaming decoder of the RLE / bit-packed hybrid encoding (definition
// levels, dictionary indices, RLE booleans). Every read is bounds-checked;
// malformed input is Corruption. Borrows its input; not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/status.h"

namespace lakedump::parquet {

class RleDecoder {
 public:
  // REQUIRES: 0 <= bit_width <= 32.
  RleDecoder(std::string_view in, int bit_width) : in_(in), bit_width_(bit_width) {}

  // Writes exactly n values to out; values wider than T are Corruption.
  template <typename T>
  Status Get(size_t n, T* out) {
    size_t done = 0;
    while (done < n) {
      if (run_left_ == 0) LD_RETURN_IF_ERROR(NextRun());
      const size_t take = run_left_ < n - done ? run_left_ : n - done;
      if (!packed_) {
        if (static_cast<uint64_t>(static_cast<T>(run_value_)) != run_value_) return TooWide();
        for (size_t k = 0; k < take; ++k) out[done + k] = static_cast<T>(run_value_);
      } else {
        const uint64_t mask = bit_width_ == 32 ? 0xffffffffull : ((1ull << bit_width_) - 1);
        for (size_t k = 0; k < take; ++k) {
          while (bits_ < bit_width_) {
            acc_ |= static_cast<uint64_t>(static_cast<uint8_t>(in_[pos_++])) << bits_;
            bits_ += 8;
          }
          const uint64_t v = acc_ & mask;
          acc_ >>= bit_width_;
          bits_ -= bit_width_;
          if (static_cast<uint64_t>(static_cast<T>(v)) != v) return TooWide();
          out[done + k] = static_cast<T>(v);
        }
      }
      run_left_ -= take;
      done += take;
    }
    return Status::OK();
  }

 private:
  static Status TooWide() { return Status::Corruption("rle: value out of range"); }
  Status NextRun() {
    uint64_t header = 0;
    for (int shift = 0;; shift += 7) {
      if (pos_ >= in_.size()) return Status::Corruption("rle: truncated run header");
      if (shift > 56) return Status::Corruption("rle: run header too long");
      const uint8_t b = static_cast<uint8_t>(in_[pos_++]);
      header |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) break;
    }
    acc_ = 0;
    bits_ = 0;
    if (header & 1) {
      const uint64_t groups = header >> 1;
      if (groups == 0) return Status::Corruption("rle: empty bit-packed run");
      if (bit_width_ == 0) {
        run_left_ = groups * 8;
      } else if (groups > (in_.size() - pos_) / static_cast<size_t>(bit_width_)) {
        // A writer may cut the last run short; accept only what is present.
        const size_t avail_values = (in_.size() - pos_) * 8 / static_cast<size_t>(bit_width_);
        if (avail_values == 0) return Status::Corruption("rle: truncated bit-packed run");
        run_left_ = avail_values;
      } else {
        run_left_ = groups * 8;
      }
      packed_ = true;
    } else {
      const uint64_t run = header >> 1;
      if (run == 0) return Status::Corruption("rle: empty run");
      const size_t value_bytes = (static_cast<size_t>(bit_width_) + 7) / 8;
      if (value_bytes > in_.size() - pos_) return Status::Corruption("rle: truncated run value");
      uint64_t x = 0;
      for (size_t b = 0; b < value_bytes; ++b) {
        x |= static_cast<uint64_t>(static_cast<uint8_t>(in_[pos_ + b])) << (8 * b);
      }
      pos_ += value_bytes;
      run_value_ = x;
      run_left_ = run;
      packed_ = false;
    }
    return Status::OK();
  }

  std::string_view in_;
  int bit_width_;
  size_t pos_ = 0;
  uint64_t run_left_ = 0;
  uint64_t run_value_ = 0;
  bool packed_ = false;
  uint64_t acc_ = 0;
  int bits_ = 0;
};

}  // namespace lakedump::parquet
