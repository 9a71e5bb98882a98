// The exact SQLite values of a dumped table (docs/dump-format.md "SQLite values"): SQLite
// keeps a storage class per value (INTEGER, REAL, TEXT, BLOB), and a column's declared type is
// only an intent, so a DATETIME column may hold '2024-01-01', '2024-01-01T10:00:00+02:00' and
// the integer 1704067200, and an untyped column INTEGERs, REALs, TEXTs and BLOBs at once. The
// typed Parquet column keeps the value every reader understands (a timestamp, a string...);
// for a value whose typed form `load` would not write back byte for byte with its storage
// class, the row's cell of one more column, `_lakedump_sqlite_values` (binary, last, present
// only when a column of the table can hold such a value), records the exact value:
//
//   entry := varint(column index) class payload      (entries in increasing column order)
//   class := 1 INTEGER (8 bytes, little-endian two's complement)
//          | 2 REAL    (8 bytes, little-endian IEEE 754)
//          | 3 TEXT    (varint(length) bytes)
//          | 4 BLOB    (varint(length) bytes)
//
// The cell is NULL for a row whose every value comes back as it was. Pure functions;
// thread-safe.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "table/row_batch.h"
#include "table/schema.h"

namespace lakedump {

inline constexpr std::string_view kSqliteValuesColumn = "_lakedump_sqlite_values";
inline constexpr std::string_view kSqliteValuesSourceType = "lakedump:sqlite-values";

// Whether a column of this declared type and mapped type can hold a value that its typed form
// does not give back exactly: false only where SQLite's own affinity makes every value the
// mapping accepts come back as it was (INTEGER affinity for integer types, TEXT affinity for
// string, REAL affinity for double).
bool SqliteColumnMayDrift(std::string_view declared_type, const LogicalType& type);

// Appends the values column to `schema` when one of its columns may drift; sets (*drifts)[i]
// for each such column. InvalidArgument when the table already has a column of that name.
Status AddSqliteValuesColumn(Schema* schema, std::vector<uint8_t>* drifts);

// Whether `column` is the values column of a SQLite dump (name, type binary, source type).
bool IsSqliteValuesColumn(const Column& column);

// When the last column of `schema` (of more than one) is the values column: removes it, true.
bool TakeSqliteValuesColumn(Schema* schema);

// True when `value`, just appended as the last value of `column`, is what `load` writes back
// for it: the same storage class and the same bytes.
bool SqliteValueRoundTrips(sqlite3_value* value, const ColumnVector& column);

// Appends one entry (column index, exact value) to a row's cell.
void AppendSqliteValue(size_t column, sqlite3_value* value, std::string* cell);

// One decoded entry; text and blob point into the cell.
struct SqliteExactValue {
  size_t column = 0;
  int storage_class = SQLITE_NULL;  // SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB
  int64_t integer = 0;
  double real = 0;
  std::string_view bytes;
};

// Decodes a cell of a table of `columns` columns. A cell that is not exactly a sequence of
// well-formed entries on increasing column indexes below `columns` is InvalidArgument.
Status ParseSqliteValues(std::string_view cell, size_t columns, std::vector<SqliteExactValue>* out);

// Binds an exact value to parameter `param` of `stmt` (the bytes must outlive the step).
int BindSqliteExactValue(sqlite3_stmt* stmt, int param, const SqliteExactValue& value);

}  // namespace lakedump
