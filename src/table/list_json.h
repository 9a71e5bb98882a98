// ListToJson: one list value as JSON array text, the form lists take where a target has no
// list type (SQLite). Pure function; thread-safe.
#pragma once

#include <cstddef>
#include <string>

#include "table/row_batch.h"

namespace lakedump {

// Row `row` of list column `list` as a JSON array: numbers and booleans as JSON numbers and
// booleans (decimals exact), NaN and infinities as the strings "NaN", "Infinity", "-Infinity",
// null elements as null, strings and JSON text as strings, binary as "\x" + hex, dates, times,
// timestamps ("YYYY-MM-DDTHH:MM:SS.ffffff", "Z" for timestamptz) and UUIDs as strings.
// REQUIRES: list.type().is_list() and the row is not null.
std::string ListToJson(const ColumnVector& list, size_t row);

}  // namespace lakedump
