// How `lakedump load` writes lakedump values into SQLite: the declared type of
// each logical type, the storage class and text form of each value, and the
// reuse of a SQLite source's own CREATE TABLE. The forms are the ones the
// SQLite source (source/sqlite/sqlite_types.cc, sqlite_text.cc) reads back to
// the same logical values, so SQLite -> dump -> SQLite is lossless; the table
// is in docs/type-mapping.md ("Loading into SQLite"). Pure functions;
// thread-safe.
#pragma once

#include <sqlite3.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "source/sqlite/sqlite_text.h"    // SqliteTimestampText, SqliteTimeText
#include "source/sqlite/sqlite_values.h"  // SqliteAffinity
#include "table/row_batch.h"
#include "table/schema.h"

namespace lakedump {

// The declared type for a column whose dump did not come from SQLite:
// "INTEGER", "DECIMAL(10,2)", "TEXT", "TIMESTAMPTZ", ...
std::string SqliteDeclaredType(const LogicalType& type);

// The declared type to create `column` with: its recorded source type when the
// dump came from SQLite, it is a plain type name (IsSafeSqliteTypeName) and maps back to
// the column's logical type, else SqliteDeclaredType().
std::string SqliteColumnType(const Column& column, bool from_sqlite);

// CREATE TABLE <quoted_name> (...) from the schema: declared types, NOT NULL,
// PRIMARY KEY (...) as a table constraint.
std::string SqliteCreateTable(std::string_view quoted_name, const Schema& schema,
                              const std::vector<std::string>& primary_key, bool from_sqlite);

// The recorded SQLite DDL ("CREATE TABLE x (...)") with its table name
// replaced by new_name (quoted when the original name was quoted or new_name
// needs it), the rest kept byte for byte; nothing when the statement is not a
// plain CREATE TABLE the replacement can be sure of (TEMP, AS SELECT...).
std::optional<std::string> RenameTableInDdl(std::string_view ddl, std::string_view new_name);

// [A-Za-z_][A-Za-z0-9_]*
bool IsPlainIdentifier(std::string_view name);

// Binds value `row` of `column` to parameter `param` (1-based) of `stmt`, a column of
// `affinity`. NaN doubles bind as NULL (SQLite has no NaN; it would store NULL anyway).
// Decimals: whole values in int64 range as INTEGER (unless TEXT affinity, since NUMERIC
// affinity would go through a double for "12345678901234567.00"); others as the nearest
// double for INTEGER, REAL and NUMERIC affinity (what SQLite makes of the text, correctly
// rounded), else as exact text. `scratch` (one per parameter) holds text that must live
// until the statement steps.
int BindSqliteValue(sqlite3_stmt* stmt, int param, const ColumnVector& column, size_t row,
                    SqliteAffinity affinity, std::string* scratch);

}  // namespace lakedump
