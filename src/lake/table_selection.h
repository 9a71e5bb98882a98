// Table selection patterns, as --tables/--exclude give them to dump, load and verify:
// shell globs over "schema.table" or the plain table name. Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "source/table_source.h"

namespace lakedump {

// A pattern matches a table when it matches "schema.table" or the plain table name
// ('*', '?' and [...] as in shell globs; '*' also matches '.').
bool TablePatternMatches(std::string_view pattern, const TableRef& table);

// True when one of `patterns` matches `table`.
bool AnyTablePatternMatches(const std::vector<std::string>& patterns, const TableRef& table);

// True when `pattern` holds a glob character ('*', '?' or '['), false for an exact name.
bool IsTableGlob(std::string_view pattern);

}  // namespace lakedump
