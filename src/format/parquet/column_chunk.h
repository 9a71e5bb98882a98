// Column chunk encoding: the buffered values of one column of one row group
// (ColumnBuffer, already in their Parquet physical form) become a sequence of
// pages (an optional PLAIN dictionary page, then data pages v1 in
// RLE_DICTIONARY or PLAIN) plus the chunk's ColumnMetaData.
//
// ChunkEncoder owns reusable scratch buffers and dictionaries; one per thread
// of encoding, not thread-safe. ColumnSpec is immutable and shared.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "format/codec/codec.h"
#include "format/parquet/parquet_metadata.h"

namespace lakedump::parquet {

// How one table column is stored.
struct ColumnSpec {
  std::string name;
  Type physical = Type::kInt64;
  int32_t type_length = 0;   // FIXED_LEN_BYTE_ARRAY only
  bool nullable = true;
  bool utf8 = false;         // string/json: statistics truncate on character boundaries
  bool signed_flba = false;  // FLBA decimals compare as signed big-endian integers
  bool dictionary = true;    // may try a dictionary (EncodeOptions::dictionary on)
  SchemaElement element;     // the leaf's schema element
  // A list column (the spec's 3-level LIST): `<name> (LIST) { repeated group list {
  // <element> } }`, `element` being the leaf named "element". Its leaf has repetition and
  // definition levels (ColumnBuffer::rep_levels/def_levels); nullable is then true (the leaf
  // may be absent).
  bool list = false;
  bool list_nullable = true;     // the list itself may be null
  bool element_nullable = true;  // an element may be null
  int max_def = 0;  // 0 required, 1 optional; a list: list_nullable + 1 + element_nullable
  int max_rep = 0;  // 1 for a list
  std::optional<int32_t> field_id;  // a list's id, for its LIST group (the leaf has its element's)
};

// Values of one column of the row group being built, in physical form:
//   BOOLEAN: uint8_t per row; INT32/FLOAT: 4 bytes; INT64/DOUBLE: 8 bytes;
//   FLBA: type_length bytes; BYTE_ARRAY: offsets (rows+1) into arena.
// Null rows hold a zero placeholder (fixed) or an empty value (variable).
// A list column holds one slot per level entry instead of one per row: a null or empty list is
// one slot without a value, a list of n elements n slots (a null element without a value);
// `rows` then counts slots and `validity` says which slots hold a value.
struct ColumnBuffer {
  size_t rows = 0;
  size_t null_count = 0;
  std::vector<uint8_t> validity;  // 1 byte per row, 1 = valid; empty while no nulls
  std::vector<uint8_t> data;
  std::vector<uint64_t> offsets{0};
  std::vector<uint8_t> arena;
  std::vector<uint8_t> rep_levels;  // lists: one per slot (0 = a new row)
  std::vector<uint8_t> def_levels;  // lists: one per slot

  void Clear() {
    rows = 0;
    null_count = 0;
    validity.clear();
    data.clear();
    offsets.assign(1, 0);
    arena.clear();
    rep_levels.clear();
    def_levels.clear();
  }
  size_t ByteSize() const {
    return data.size() + arena.size() + validity.size() + rep_levels.size() + def_levels.size();
  }
  // Heap bytes held, used or not (for the writer's bounded buffer pool).
  size_t CapacityBytes() const {
    return validity.capacity() + data.capacity() + offsets.capacity() * 8 + arena.capacity() +
           rep_levels.capacity() + def_levels.capacity();
  }
  // Makes room for `more_rows` more rows of `value_width` bytes each (or, if
  // `variable`, their offsets and `arena_bytes` of values) so appends do not
  // reallocate and copy. Only reserves: capacity costs address space, not
  // memory, until it is written.
  void Reserve(size_t more_rows, size_t value_width, bool variable, size_t arena_bytes,
               bool nullable);
};

struct EncodeOptions {
  uint64_t page_bytes = 1 << 20;
  bool dictionary = true;
  uint64_t dictionary_limit_bytes = 1 << 20;
  Codec codec = Codec::kUncompressed;
};

// One encoded chunk. meta's offsets are relative to the chunk's first byte.
struct EncodedChunk {
  std::string bytes;
  ColumnMetaData meta;
};

class ChunkEncoder {
 public:
  ChunkEncoder();
  ~ChunkEncoder();
  ChunkEncoder(const ChunkEncoder&) = delete;
  ChunkEncoder& operator=(const ChunkEncoder&) = delete;

  // `codec` may be null for uncompressed.
  Status Encode(const ColumnSpec& spec, const ColumnBuffer& buffer, const EncodeOptions& options,
                const lakedump::Codec* codec, EncodedChunk* out);

  // Heap bytes held by the scratch buffers and dictionaries.
  size_t CapacityBytes() const;

  struct State;  // scratch buffers and dictionaries (defined in the .cc)

 private:
  std::unique_ptr<State> state_;
};

}  // namespace lakedump::parquet
