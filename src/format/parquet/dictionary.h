// A flat open-addressing hash table mapping column values to dictionary
// indices, for RLE_DICTIONARY encoding. Values are fixed-width numbers
// (compared by bit pattern, so -0.0 != 0.0 and NaNs with equal bits are one
// entry) or std::string_view pointing into memory that outlives the table.
// Fixed-width values live in the slots themselves (one memory access per
// probe); strings keep their hash next to the slot's index.
// Not thread-safe; reused across chunks via Clear().
#pragma once

#include <xxhash.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

namespace lakedump::parquet {

template <typename V>
class Dictionary {
  static constexpr bool kString = std::is_same_v<V, std::string_view>;
  // Fixed-width values are keyed by their bits; strings by their 64-bit hash.
  using Key = std::conditional_t<!kString && sizeof(V) == 4, uint32_t, uint64_t>;
  struct Slot {
    Key key;
    uint32_t index_plus_1;  // 0 = empty
  };

 public:
  Dictionary() { Rehash(1024); }

  void Clear() {
    values_.clear();
    // Keep the capacity: the next chunk of the column likely needs it again.
    std::fill(slots_.begin(), slots_.end(), Slot{0, 0});
  }

  size_t size() const { return values_.size(); }
  const std::vector<V>& values() const { return values_; }
  // Heap bytes held (for the writer's bounded buffer pool).
  size_t CapacityBytes() const {
    return values_.capacity() * sizeof(V) + slots_.capacity() * sizeof(Slot);
  }

  // Index of v, inserting it if new (*inserted tells which).
  uint32_t Insert(const V& v, bool* inserted) {
    const Key key = KeyOf(v);
    size_t slot = Mix(key) & mask_;
    while (true) {
      const Slot& s = slots_[slot];
      if (s.index_plus_1 == 0) break;
      if (s.key == key) {
        if constexpr (!kString) {
          *inserted = false;
          return s.index_plus_1 - 1;
        } else if (values_[s.index_plus_1 - 1] == v) {
          *inserted = false;
          return s.index_plus_1 - 1;
        }
      }
      slot = (slot + 1) & mask_;
    }
    const uint32_t idx = static_cast<uint32_t>(values_.size());
    values_.push_back(v);
    slots_[slot] = Slot{key, idx + 1};
    *inserted = true;
    if (values_.size() * 2 > slots_.size()) Rehash(slots_.size() * 2);
    return idx;
  }

 private:
  static Key KeyOf(const V& v) {
    if constexpr (kString) {
      return XXH3_64bits(v.data(), v.size());
    } else {
      Key bits = 0;
      std::memcpy(&bits, &v, sizeof(V));
      return bits;
    }
  }
  static uint64_t Mix(Key key) {
    if constexpr (kString) {
      return key;  // already a good hash
    } else {
      uint64_t h = static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ull;
      return h ^ (h >> 29);
    }
  }
  void Rehash(size_t capacity) {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(capacity, Slot{0, 0});
    mask_ = capacity - 1;
    for (const Slot& s : old) {
      if (s.index_plus_1 == 0) continue;
      size_t slot = Mix(s.key) & mask_;
      while (slots_[slot].index_plus_1 != 0) slot = (slot + 1) & mask_;
      slots_[slot] = s;
    }
  }

  std::vector<V> values_;
  std::vector<Slot> slots_;
  size_t mask_ = 0;
};

}  // namespace lakedump::parquet
