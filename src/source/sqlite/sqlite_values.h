// The exact SQLite values of a dumped table (docs/dump-format.md "SQLite values"): SQLite
// keeps a storage class per value (INTEGER, REAL, TEXT, BLOB), and a column's declared type is
// only an intent, so a DATETIME column may hold '2024-01-01', '2024-01-01T10:00:00+02:00' and
// the integer 1704067200, and an untyped column INTEGERs, REALs, TEXTs and BLOBs at once. The
// typed Parquet column keeps the value every reader understands (a timestamp, a string...).
// Most values need nothing more: `load` writes the typed value back into a column of the same
// declared type, and SQLite's affinity turns it into what it was (a REAL 12.5 into a
// NUMERIC(10,2) column, a DATE's 'YYYY-MM-DD', an INTEGER into an INTEGER column). For a
// value where that is not so (a TEXT 'true' in a BOOLEAN column, a 16-byte BLOB in a UUID
// column, a timestamp written with 'T', an offset or as unix seconds), the row's cell of one
// more column, `_lakedump_sqlite_values` (binary, last), records the exact value:
//
//   entry := varint(column index) class payload      (entries in increasing column order)
//   class := 1 INTEGER (8 bytes, little-endian two's complement)
//          | 2 REAL    (8 bytes, little-endian IEEE 754)
//          | 3 TEXT    (varint(length) bytes)
//          | 4 BLOB    (varint(length) bytes)
//
// The cell is NULL for a row whose every value comes back as it was. A table gets the column
// only when it needs it: when one of its first kExactValuesScanRows rows holds such a value, or,
// past that many rows, when one of its columns could hold one (SqliteColumnMayDrift); most
// tables have no such column at all (sqlite_table_source.h, PlanExactValues). Pure functions;
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

// A table of more rows than this whose columns could drift gets the values column without its
// rows being looked at first (the look would cost a second read of the table).
inline constexpr uint64_t kExactValuesScanRows = 100000;

// SQLite's type affinity of a declared type (https://sqlite.org/datatype3.html 3.1).
enum class SqliteAffinity { kInteger, kText, kBlob, kReal, kNumeric };
SqliteAffinity SqliteAffinityOf(std::string_view declared_type);

// Whether a column of this declared type and mapped type can hold a value that `load` would
// not write back as it was (the same storage class and bytes), given what the source accepts
// for the type: false for integers (INTEGER affinity), doubles (REAL affinity), decimals
// (NUMERIC affinity: an INTEGER or a REAL comes back as such), dates ('YYYY-MM-DD' only), JSON,
// and text in a column of TEXT affinity (unless `lax_types`, which reads BLOBs there as text).
bool SqliteColumnMayDrift(std::string_view declared_type, const LogicalType& type, bool lax_types);

// Appends the values column to `schema`. InvalidArgument when the table already has a column
// of that name.
Status AddSqliteValuesColumn(Schema* schema);

// Whether `column` is the values column of a SQLite dump (name, type binary, source type).
bool IsSqliteValuesColumn(const Column& column);

// When the last column of `schema` (of more than one) is the values column: removes it, true.
bool TakeSqliteValuesColumn(Schema* schema);

// True when `value`, just appended as the last value of `column`, is what `load` writes back
// for it into a column of the same declared type: the same storage class and the same bytes.
// REQUIRES: the column may drift (SqliteColumnMayDrift); cheap (no text is formatted).
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
