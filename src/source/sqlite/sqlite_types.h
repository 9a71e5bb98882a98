// SQLite declared types -> lakedump LogicalTypes, and decoding of one SQLite
// value (any storage class) into a column of a given LogicalType.
//
// SQLite is dynamically typed: the declared type is an intent, each value has
// its own storage class (NULL, INTEGER, REAL, TEXT, BLOB). The mapping below
// reads the intent; DecodeSqliteValue then accepts only the storage classes and
// text forms that convert losslessly (the full table is in docs/type-mapping.md).
// Pure functions; thread-safe.
#pragma once

#include <sqlite3.h>

#include <string>
#include <string_view>

#include "table/row_batch.h"
#include "table/types.h"

namespace lakedump {

struct SqliteTypeMapping {
  LogicalType type;
  // True when the declared type is one of the known names (INTEGER, VARCHAR(n),
  // DATE...); false when it was guessed by SQLite's affinity rules or is empty.
  bool exact = false;
};

// Maps a declared column type ("VARCHAR(32)", "numeric(12,2)", "", ...).
SqliteTypeMapping MapSqliteDeclaredType(std::string_view declared);

// The type of a result column with no declared type (an expression in a
// query), from the storage class of its first value.
LogicalType TypeForStorageClass(int sqlite_type);

// Appends `value` to *out (whose type is the target). On a value that does not
// fit, returns false and sets *why to e.g. `TEXT value "abc" is not an
// integer`. When lax_text is set, string columns take BLOBs too, rendered as \x
// followed by lowercase hex.
//
// `value` may be the unprotected sqlite3_value of sqlite3_column_value(): the
// SQLite source's connections are opened SQLITE_OPEN_NOMUTEX, so a connection
// has no mutex for "protected" to refer to, and the caller holds our own
// per-connection mutex instead. One sqlite3_column_value() per column and then
// sqlite3_value_*() calls skips the per-call statement checks and error
// bookkeeping (sqlite3ApiExit) that every sqlite3_column_*() call pays.
bool DecodeSqliteValue(sqlite3_value* value, bool lax_text, ColumnVector* out, std::string* why);

// The same for column `col` of the current row of `stmt`.
inline bool DecodeSqliteValue(sqlite3_stmt* stmt, int col, bool lax_text, ColumnVector* out,
                              std::string* why) {
  return DecodeSqliteValue(sqlite3_column_value(stmt, col), lax_text, out, why);
}

}  // namespace lakedump
