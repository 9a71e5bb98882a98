// The closed grammar of the column types an increment may carry (docs/incremental.md,
// "Load"): the format_type() text lakedump records for a PostgreSQL column, parsed into a
// structured form that is turned back into SQL from our own strings only; no text of the dump
// is ever pasted into a statement.
//   type     := builtin [ "(" int { "," int } ")" ] [ "[]" ]   modifiers where the type has them
//             | ident [ "." ident ] [ "[]" ]                    a type of the target (enum, domain)
//   builtin  := one of the names format_type() prints for the built-in types ("integer",
//               "character varying", "timestamp with time zone", "interval day to second",
//               ...), the modifier list in format_type()'s place ("timestamp(3) with time
//               zone", "numeric(10,2)[]")
//   ident    := [a-z_][a-z0-9_$]* | a double-quoted identifier ("" for a quote; no control
//               characters)
// Modifiers are checked against each type's range (numeric(1..1000, -1000..1000),
// varchar(1..10485760), timestamp(0..6), ...). Anything else is refused.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace lakedump {

struct PgBuiltinType;  // one entry of the closed list (pg_type_grammar.cc)

struct PgColumnType {
  const PgBuiltinType* builtin = nullptr;  // null: a named type of the target
  std::string schema;                      // named types: "" = unqualified
  std::string name;                        // named types: the unquoted name
  std::vector<int32_t> modifiers;          // builtin types only
  bool array = false;
};

// InvalidArgument (naming the text, shown escaped) when `text` is outside the grammar.
Result<PgColumnType> ParsePgColumnType(std::string_view text);

// The type as SQL: the built-in name from the closed list with the parsed modifiers, or the
// named type's identifiers quoted; "[]" for an array.
std::string PgColumnTypeSql(const PgColumnType& type);

}  // namespace lakedump
