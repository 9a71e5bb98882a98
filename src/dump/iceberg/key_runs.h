// The key index's order and its runs (docs/iceberg.md, "The key index").
//
// A key index holds its entries sorted by key, so that an increment finds its changed keys by
// one merge with them, never a lookup per entry. Keys are EncodeIndexKey's bytes. A key of one
// integer column (smallint, integer, bigint) is ordered by its value, and consecutive values in
// consecutive rows of one data file make one run (key, file, pos, rows): keys key..key+rows-1
// at positions pos..pos+rows-1. A table dumped in key order then has an index of a few runs
// per data file, however many rows it has. Any other key is ordered by its bytes (memcmp), each
// run one row.
//
// KeyRunSorter sorts runs that come in any order (a data file's rows, an index written before
// indexes were sorted), holding at most its memory bound and spilling sorted chunks to
// temporary files past it (base/spill_file.h), then merging them.
// IndexKeyOrder is immutable (thread-safe); KeyRunSorter is not thread-safe.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/spill_file.h"
#include "base/status.h"
#include "table/schema.h"
#include "table/types.h"

namespace lakedump {

class IndexKeyOrder {
 public:
  // `types`: the key columns' types, in key order.
  explicit IndexKeyOrder(const std::vector<LogicalType>& types);
  // The key of `schema`'s columns `columns`.
  IndexKeyOrder(const Schema& schema, const std::vector<size_t>& columns);

  // The key makes runs (one integer column).
  bool integer() const { return width_ != 0; }
  // Corruption unless `key` is a key of this order (an integer key: its width, not null).
  Status Check(std::string_view key) const;
  // <0, 0, >0. REQUIRES: both keys passed Check.
  int Compare(std::string_view a, std::string_view b) const {
    if (width_ == 0) return a.compare(b);
    const int64_t x = Value(a), y = Value(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  // b - a for integer keys (saturated at the int64 range); 0 for equal keys of any order, and 1
  // for other keys that differ. REQUIRES: both keys passed Check.
  int64_t Distance(std::string_view a, std::string_view b) const;
  // The key `n` after `key` (integer keys only; REQUIRES: it exists, n >= 0).
  std::string Advance(std::string_view key, int64_t n) const;
  // The key of value `v` (integer keys only; REQUIRES: `v` fits the column's type).
  std::string KeyOf(int64_t v) const;
  // The integer column's width in bytes (integer keys only).
  size_t width() const { return width_; }
  // An integer key's value (integer keys only). REQUIRES: `key` passed Check.
  int64_t IntegerValue(std::string_view key) const { return Value(key); }
  // The last value of a run of `rows` rows from `key` exists (no overflow).
  bool RunFits(std::string_view key, int64_t rows) const;

 private:
  // An integer key's value: its bytes after the not-null mark, little-endian, sign-extended.
  // Fixed-size copies, so that each is one load, not a call of memcpy.
  int64_t Value(std::string_view key) const {
    const char* p = key.data() + 1;
    switch (width_) {
      case 8: return Load<int64_t>(p);
      case 4: return Load<int32_t>(p);
      case 2: return Load<int16_t>(p);
      default: return Load<int8_t>(p);
    }
  }
  template <typename T>
  static int64_t Load(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return static_cast<int64_t>(v);  // the bytes are little-endian, as the host (key_runs.cc)
  }
  size_t width_ = 0;  // bytes of the integer column; 0: not an integer key
};

// A run of a key index: keys key, key+1, ... at positions pos, pos+1, ... of data file `file`
// (an id of the caller's file table), `rows` of them (1 for keys that are not integers).
struct KeyRun {
  std::string key;
  uint32_t file = 0;
  int64_t pos = 0;
  int64_t rows = 1;
};

// Called for every run in key order; the run is valid during the call only.
using KeyRunVisitor = std::function<Status(const KeyRun& run)>;

// Appends `next` to *last when it continues it (the next keys at the next positions of the same
// file): true.
bool ExtendRun(const IndexKeyOrder& order, KeyRun* last, const KeyRun& next);

class KeyRunSorter {
 public:
  // `memory_bytes`: the runs held at most before a sorted chunk is spilled.
  KeyRunSorter(const IndexKeyOrder& order, size_t memory_bytes);
  ~KeyRunSorter();

  // Adds one run (its key Checked by the caller); consecutive runs that continue each other
  // are held as one.
  Status Add(const KeyRun& run);
  // Every run added, in key order, runs that continue each other joined: Corruption when a key
  // was added twice. Once.
  Status Finish(const KeyRunVisitor& visit);

 private:
  Status Spill();
  Status MergeSpills(const KeyRunVisitor& visit);

  const IndexKeyOrder& order_;
  size_t memory_bytes_;
  size_t held_bytes_ = 0;
  std::vector<KeyRun> runs_;
  std::vector<std::unique_ptr<SpillFile>> spills_;
};

}  // namespace lakedump
