// PgCopyEncoder: RowBatch rows -> the byte stream of
// `COPY t (cols) FROM STDIN (FORMAT binary)`, the inverse of PgCopyDecoder:
// the 19-byte header, per row an int16 field count and per field an int32
// length (-1 = NULL) and the value in the target type's binary (send) format,
// then the int16 -1 trailer.
//
// Each field is encoded for the *target column's* PostgreSQL type (a logical
// int64 going into an int4 column is sent as 4 bytes, with a range check).
// Pairs of logical and PostgreSQL types without a binary encoder here use
// PgEncoding::kAsText: the value's PostgreSQL text form, sent into a text
// staging column and cast to the real type when the table is committed
// (postgres_target.cc). Infinity encodings of the dump side (dates at
// ±INT32_MAX days, timestamps at ±INT64_MAX us, see PgInfinityPolicy::kClamp)
// become PostgreSQL's ±infinity again.
//
// A list going into a one-dimensional array column whose element type has a binary encoding
// here (PgEncoding::kArray) is sent in array_send's form: ndim (0 for an empty list, else 1), a
// has-null flag, the target column's element type OID, the length and lower bound 1, then each
// element as an int32 length (-1 = NULL) and its binary form. The dump keeps a column as a list
// only when every value is one-dimensional with lower bound 1 (docs/type-mapping.md), so this is
// the array the text path would build. Elements of other types (domains, names, inet, ...) keep
// the text path.
//
// PgCopyFormat::kText writes `COPY ... (FORMAT text)` instead, every field in its
// PostgreSQL text input form (the kAsText form, escaped; NULL = \N): for a table loaded
// straight into its real types that has a column without a binary encoding.
//
// Not thread-safe; one encoder per COPY stream. Pure apart from the output.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "table/row_batch.h"

namespace lakedump {

// How one logical value is written into the COPY stream.
enum class PgEncoding : uint8_t {
  kBool,
  kInt2,         // any logical integer, range-checked
  kInt4,
  kInt8,
  kOid,          // uint32
  kFloat4,       // from float (or double, range-checked by IEEE rounding)
  kFloat8,       // from float or double
  kNumeric,      // from decimal, any integer, or numeric text ("-12.30", "NaN", "Infinity")
  kText,         // raw bytes of string/json (text, varchar, bpchar, name, enum labels, json)
  kBytea,        // raw bytes of binary
  kJsonb,        // version byte 1 + the JSON text
  kDate,         // days since 2000-01-01
  kTime,         // microseconds since midnight
  kTimestamp,    // microseconds since 2000-01-01 (timestamp and timestamptz)
  kUuid,         // 16 bytes
  kArray,        // a list into a 1-D array: array_send's form, elements by PgEncodeField::element
  kAsText,       // PostgreSQL text input form, into a text staging column
  kArrayAsText,  // JSON array text (the dump's array form) -> array literal, into text
};

// Built-in type OIDs the load side encodes (pg_type.dat).
enum : uint32_t {
  kPgBoolOid = 16, kPgByteaOid = 17, kPgNameOid = 19, kPgInt8Oid = 20, kPgInt2Oid = 21,
  kPgInt4Oid = 23, kPgTextOid = 25, kPgOidOid = 26, kPgJsonOid = 114, kPgFloat4Oid = 700,
  kPgFloat8Oid = 701, kPgBpcharOid = 1042, kPgVarcharOid = 1043, kPgDateOid = 1082,
  kPgTimeOid = 1083, kPgTimestampOid = 1114, kPgTimestampTzOid = 1184, kPgNumericOid = 1700,
  kPgUuidOid = 2950, kPgJsonbOid = 3802,
};

// A target column's type as the catalog describes it, domains resolved.
struct PgTargetType {
  uint32_t base_oid = 0;
  char typtype = 'b';    // 'e' = enum
  char category = 'U';   // 'A' = array
  // An array type (the element type's typarray; not int2vector, oidvector, point...): its
  // element type as array_recv checks it (pg_type.typelem, a domain not resolved), else 0.
  uint32_t element_oid = 0;
  char element_typtype = 'b';
  char element_category = 'U';

  PgTargetType Element() const {
    return PgTargetType{element_oid, element_typtype, element_category};
  }
};

// The binary encoding of `from` into a column of type `to`, or kAsText /
// kArrayAsText when there is none (the column is then staged as text). kArray when `from` is a
// list and `to` an array whose element type has a binary encoding of the list's elements
// (ChoosePgElementEncoding).
PgEncoding ChoosePgEncoding(const LogicalType& from, const PgTargetType& to);
// The binary encoding of list `from`'s elements into array type `to`'s elements, or kAsText
// when there is none (or `to` is no array).
PgEncoding ChoosePgElementEncoding(const LogicalType& from, const PgTargetType& to);
// True for the encodings that need a text staging column.
inline bool IsTextStaged(PgEncoding e) {
  return e == PgEncoding::kAsText || e == PgEncoding::kArrayAsText;
}

// The COPY stream's format (FORMAT binary or FORMAT text).
enum class PgCopyFormat : uint8_t { kBinary, kText };

struct PgEncodeField {
  std::string name;     // column name, for errors
  std::string pg_type;  // target type (format_type), for errors
  PgEncoding encoding = PgEncoding::kText;
  PgEncoding element = PgEncoding::kText;  // kArray: how each element is written
  uint32_t element_oid = 0;                // kArray: the target's element type

  // The field of a `from` value going into a column of type `to` (ChoosePgEncoding).
  static PgEncodeField Choose(std::string name, std::string pg_type, const LogicalType& from,
                              const PgTargetType& to);
};

class PgCopyEncoder {
 public:
  // `table` ("schema.table") names the table in errors. fields[i] encodes batch column
  // batch_columns[i] (by default, and when batch_columns is empty, column i); a batch column
  // no field names is not sent (a column the target computes itself: GENERATED ALWAYS AS).
  // batch_width: the batch's column count (default: the number of fields).
  PgCopyEncoder(std::string table, std::vector<PgEncodeField> fields,
                PgCopyFormat format = PgCopyFormat::kBinary,
                std::vector<size_t> batch_columns = {}, size_t batch_width = 0);

  // Appends the header (binary; text has none). Call once, first.
  void Begin(std::string* out) const;
  // Appends rows *next_row.. of `batch` to *out until out->size() >= limit or
  // the batch ends; advances *next_row. Errors name table, column and row
  // (counted over every batch of this encoder, from 1).
  // REQUIRES: batch.num_columns() == batch_width.
  Status Encode(const RowBatch& batch, size_t* next_row, std::string* out, size_t limit);
  // Appends the trailer (binary; text has none).
  void End(std::string* out) const;

  uint64_t rows() const { return rows_; }
  const std::string& table() const { return table_; }

 private:
  // Rows are encoded in blocks, column by column (one type dispatch per column and block):
  // pass 1 adds each field's size to its row's (and renders the fields whose size depends on
  // the value into the column's scratch), pass 2 writes every field at its row's position.
  struct ColumnScratch {
    std::string bytes;              // rendered fields (length word included), rows of the block
    std::vector<uint32_t> offsets;  // row r's field: bytes[offsets[r], offsets[r + 1])
  };
  // Pass 1 for column c over rows [row, row + m). A value that cannot be encoded at block row
  // r < *fail_row sets *fail_row = r and *fail to the error.
  void SizeColumn(size_t c, const ColumnVector& col, size_t row, size_t m, size_t* fail_row,
                  Status* fail);
  // The part of pass 1 for a value-dependent encoding: renders the fields into columns_[c].
  void RenderColumn(size_t c, const ColumnVector& col, size_t row, size_t m, size_t* fail_row,
                    Status* fail);
  // Pass 2 for column c over block rows [0, m): writes at pos_[r] and advances it.
  void WriteColumn(size_t c, const ColumnVector& col, size_t row, size_t m, char* base);
  // Renders one field (length word + value) of a value-dependent encoding into *out.
  Status RenderField(size_t c, const ColumnVector& col, size_t row, size_t block_row,
                     std::string* out);
  // Encode for PgCopyFormat::kText: row by row, every field's text form.
  Status EncodeText(const RowBatch& batch, size_t* next_row, std::string* out, size_t limit);
  // `block_row`: the row's index among the rows not yet counted in rows_.
  Status FieldError(size_t c, std::string_view what, size_t block_row = 0) const;

  std::string table_;
  std::vector<PgEncodeField> fields_;
  std::vector<size_t> batch_columns_;  // per field: its batch column
  size_t batch_width_ = 0;
  PgCopyFormat format_;
  uint64_t rows_ = 0;
  std::string scratch_;
  std::vector<uint32_t> sizes_;  // per block row
  std::vector<size_t> pos_;      // per block row: where its next field goes
  std::vector<ColumnScratch> columns_;
};

// numeric_send of a decimal number given as text: "-12.30", "0.001", "NaN",
// "Infinity", "-Infinity" (optional sign, digits, optional point and digits;
// dscale = the fraction digits). InvalidArgument for anything else.
Status AppendPgNumericFromText(std::string_view text, std::string* out);
// numeric_send of unscaled * 10^-scale with dscale = scale.
void AppendPgNumericFromDecimal(int128_t unscaled, int scale, std::string* out);

// PostgreSQL's text input form of value `row` of `col` (NULL excluded):
// dates/timestamps with BC and ±infinity, bytea as \x hex, floats with
// round-trip digits.
void AppendPgText(const ColumnVector& col, size_t row, std::string* out);

// Appends `text` to `out` escaped for COPY's text format: the delimiter (tab), the line ends
// and the backslash itself.
void AppendCopyEscaped(std::string_view text, std::string* out);
// Value `row` of `col` (NULL excluded) in COPY's text format: AppendPgText's form, escaped
// (AppendCopyEscaped) where it can hold a tab, line end or backslash. `scratch` is reused.
void AppendCopyField(const ColumnVector& col, size_t row, std::string* scratch, std::string* out);

// One non-null value `row` of `col` as a binary COPY field (int32 length, then the value's
// send form) in encoding `e`, one of the binary encodings but kArray (pg_copy_array.cc).
// InvalidArgument for a value the target type cannot hold (an integer out of range, a
// timestamp before 4713 BC, numeric text that is no number).
Status AppendPgBinaryValue(const ColumnVector& col, size_t row, PgEncoding e, std::string* out);
// array_send's form of list value `row` of `col` (not NULL) as a binary COPY field (int32
// length first): elements in encoding `element`, typed `element_oid`. Errors as
// AppendPgBinaryValue's, for the first element that has one.
Status AppendPgArraySend(const ColumnVector& col, size_t row, PgEncoding element,
                         uint32_t element_oid, std::string* out);

// Days since 2000-01-01 of the dump's days since 1970 (its ±infinity encodings become
// PostgreSQL's).
int32_t PgDate(int32_t unix_days);
// µs since 2000 of the dump's µs since 1970 (±infinity and the escape range, docs/type-mapping.md);
// false if the timestamp is before 4713 BC (cannot be shifted to PostgreSQL's epoch).
bool PgTimestamp(int64_t unix_micros, int64_t* pg);

// The dump's JSON text of an array (array_to_json) -> a PostgreSQL array
// literal: [1,null,[2]] -> {1,NULL,{2}}; strings quoted and escaped, objects
// and scalars inside kept as their JSON text. InvalidArgument if `json` is not a
// JSON array.
Status JsonArrayToPgLiteral(std::string_view json, std::string* out);

}  // namespace lakedump
