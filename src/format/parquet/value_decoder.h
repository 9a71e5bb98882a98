// Decoding the values section of a Parquet page into physical values
// (PLAIN, RLE booleans, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
// DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT), and converting physical values to
// lakedump values appended to a ColumnVector. Malformed input is Corruption,
// an encoding we do not know is Unimplemented. Free functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "format/parquet/read_schema.h"
#include "table/row_batch.h"

namespace lakedump::parquet {

// The physical values of one page or dictionary.
struct PhysicalValues {
  size_t count = 0;
  // Fixed-width types: count * PhysicalWidth() bytes (BOOLEAN: one byte 0/1 per value), in
  // `fixed` or, for PLAIN, in the page buffer itself (not copied).
  std::string_view data;
  std::string fixed;
  // BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY: views into the page buffer or into `owned`.
  std::vector<std::string_view> var;
  std::string owned;

  void Clear() {
    count = 0;
    data = {};
    fixed.clear();
    var.clear();
    owned.clear();
  }
};

// Bytes per value in PhysicalValues::fixed; 0 for the variable (`var`) types.
size_t PhysicalWidth(Type t);

// Decodes `count` values of `leaf`'s physical type encoded with `encoding`
// (a parquet Encoding value; not the dictionary encodings) from `data`.
// `out->data` and `var` views may point into `data`, which must outlive `out`.
Status DecodeValues(const LeafInfo& leaf, int32_t encoding, std::string_view data, size_t count,
                    PhysicalValues* out);

// Appends value i of `v` converted by leaf.conv to `out`.
Status AppendConverted(const LeafInfo& leaf, const PhysicalValues& v, size_t i, ColumnVector* out);

// Appends rows [begin, begin + n) of `src` to `dst` (same type).
void CopyRows(const ColumnVector& src, size_t begin, size_t n, ColumnVector* dst);

}  // namespace lakedump::parquet
