// PgCopyDecoder: decodes the byte stream of `COPY ... TO STDOUT (FORMAT binary)`
// straight into RowBatch columns: the 19-byte header, then per tuple an int16
// field count and per field an int32 length (-1 = NULL) and that many bytes
// in the type's send format, then the int16 -1 trailer.
//
// Input arrives in chunks (one CopyData message each from libpq); a tuple may
// span chunks: the incomplete tail is copied and completed by the next chunk.
// Values are appended to the batch's columns without per-row allocation.
//
// Not thread-safe; one decoder per COPY stream.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "table/row_batch.h"

namespace lakedump {

// How one field's bytes become a column value.
enum class PgWire : uint8_t {
  kBool,            // 1 byte -> kBool
  kInt2,            // -> kInt16
  kInt4,            // -> kInt32
  kInt8,            // -> kInt64
  kOid,             // uint32 -> kInt64
  kFloat4,          // -> kFloat
  kFloat8,          // -> kDouble
  kText,            // raw bytes -> kString or kJson (text, varchar, json, enum labels, ::text)
  kBytea,           // -> kBinary
  kJsonb,           // version byte 1 + text -> kJson
  kDate,            // int32 days since 2000-01-01 -> kDate
  kTime,            // int64 us since midnight -> kTime
  kTimestamp,       // int64 us since 2000-01-01 -> kTimestamp / kTimestampTz
  kUuid,            // 16 bytes -> kUuid
  kNumericDecimal,  // -> kDecimal(precision, scale)
  kNumericText,     // -> kString, numeric_out text
  kNumericDouble,   // -> kDouble
};

// What to do with date/timestamp ±infinity.
enum class PgInfinityPolicy : uint8_t {
  kClamp,  // +inf -> max int (INT32_MAX days / INT64_MAX us), -inf -> -max (DuckDB's encoding)
  kNull,
  kError,
};
// What to do with numeric NaN/±Infinity in a column decoded as decimal.
enum class PgNumericSpecialPolicy : uint8_t { kError, kNull };

struct PgFieldSpec {
  std::string name;       // column name, for errors
  std::string pg_type;    // format_type text, for errors
  PgWire wire = PgWire::kText;
  LogicalType type;       // the batch column's type
  bool round = false;     // kNumericDecimal: round extra fraction digits instead of failing
  // A one-dimensional array (lower bound 1) read as a list: `wire` is its elements' and
  // `type` the list type.
  bool array = false;
};

struct PgDecodeOptions {
  std::string table;      // "schema.table", for errors
  PgInfinityPolicy infinity = PgInfinityPolicy::kClamp;
  PgNumericSpecialPolicy numeric_special = PgNumericSpecialPolicy::kError;
};

class PgCopyDecoder {
 public:
  PgCopyDecoder(std::vector<PgFieldSpec> fields, PgDecodeOptions options);

  // Makes `chunk` the next input. REQUIRES: needs_input(); `chunk` stays valid
  // until needs_input() is true again.
  void Feed(std::string_view chunk);
  // True when every byte fed so far is decoded or copied aside.
  bool needs_input() const { return pos_ == input_.size(); }
  // The trailer has been decoded.
  bool finished() const { return finished_; }
  // Rows decoded so far (the row number in error messages).
  uint64_t rows() const { return rows_; }

  // Decodes complete tuples into `batch` until it holds `max_rows` rows, the
  // input runs out, or the trailer arrives. Errors name table, column and row.
  Status Decode(RowBatch* batch, size_t max_rows);

  // Values turned into NULL by a policy (infinity or numeric NaN set to kNull).
  uint64_t nulled_values() const { return nulled_values_; }

 private:
  Status DecodeHeader(bool* complete);
  Status DecodeField(size_t column, const uint8_t* p, int32_t len, ColumnVector* out,
                     bool element = false);
  Status DecodeArray(size_t column, const uint8_t* p, int32_t len, ColumnVector* out);
  // The numeric wires of DecodeField.
  Status DecodeNumeric(size_t column, const uint8_t* p, int32_t len, ColumnVector* out);
  // A value with no counterpart (an infinity, a numeric NaN): clamped to `clamp_value`,
  // NULL or refused, as the policies say. Called only for such values.
  template <typename V>
  Status SpecialValue(size_t column, std::string_view what, V clamp_value, bool infinity,
                      ColumnVector* out);
  Status FieldError(size_t column, std::string_view what) const;
  void Stash();  // copies the incomplete tail aside

  std::vector<PgFieldSpec> fields_;
  PgDecodeOptions options_;
  std::string carry_;          // incomplete tail + next chunk
  std::string_view input_;
  size_t pos_ = 0;
  bool header_done_ = false;
  bool finished_ = false;
  uint64_t rows_ = 0;
  uint64_t nulled_values_ = 0;
  std::string scratch_;        // numeric text, reused
};

}  // namespace lakedump
