// A flat open-addressing hash table mapping column values to dictionary
// indices, for RLE_DICTIONARY encoding. Values are fixed-width numbers
// (compared by bit pattern, so -0.0 != 0.0 and NaNs with equal bits are one
// entry) or std::string_view pointing into memory that outlives the table.
// Not thread-safe; reused across chunks via Clear().
#pragma once

#include <xxhash.h>

#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

namespace lakedump::parquet {

template <typename V>
class Dictionary {
 public:
  Dictionary() { Rehash(1024); }

  void Clear() {
    values_.clear();
    hashes_.clear();
    // Keep the capacity: the next chunk of the column likely needs it again.
    std::fill(slots_.begin(), slots_.end(), 0u);
  }

  size_t size() const { return values_.size(); }
  // Heap bytes held (for the writer's bounded buffer pool).
  size_t CapacityBytes() const {
    return values_.capacity() * sizeof(V) + hashes_.capacity() * 8 + slots_.capacity() * 4;
  }
  const std::vector<V>& values() const { return values_; }

  // Index of v, inserting it if new (*inserted tells which).
  uint32_t Insert(const V& v, bool* inserted) {
    const uint64_t h = Hash(v);
    size_t slot = h & mask_;
    while (true) {
      const uint32_t s = slots_[slot];
      if (s == 0) break;
      if (hashes_[s - 1] == h && Equal(values_[s - 1], v)) {
        *inserted = false;
        return s - 1;
      }
      slot = (slot + 1) & mask_;
    }
    const uint32_t idx = static_cast<uint32_t>(values_.size());
    values_.push_back(v);
    hashes_.push_back(h);
    slots_[slot] = idx + 1;
    *inserted = true;
    if (values_.size() * 2 > slots_.size()) Rehash(slots_.size() * 2);
    return idx;
  }

 private:
  static uint64_t Hash(const V& v) {
    if constexpr (std::is_same_v<V, std::string_view>) {
      return XXH3_64bits(v.data(), v.size());
    } else {
      uint64_t bits = 0;
      std::memcpy(&bits, &v, sizeof(V));
      bits *= 0x9E3779B97F4A7C15ull;
      return bits ^ (bits >> 29);
    }
  }
  static bool Equal(const V& a, const V& b) {
    if constexpr (std::is_same_v<V, std::string_view>) {
      return a == b;
    } else {
      return std::memcmp(&a, &b, sizeof(V)) == 0;
    }
  }
  void Rehash(size_t capacity) {
    slots_.assign(capacity, 0u);
    mask_ = capacity - 1;
    for (uint32_t i = 0; i < values_.size(); ++i) {
      size_t slot = hashes_[i] & mask_;
      while (slots_[slot] != 0) slot = (slot + 1) & mask_;
      slots_[slot] = i + 1;
    }
  }

  std::vector<V> values_;
  std::vector<uint64_t> hashes_;
  std::vector<uint32_t> slots_;  // 0 = empty, else index + 1
  size_t mask_ = 0;
};

}  // namespace lakedump::parquet
