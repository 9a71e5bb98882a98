// Iceberg schema evolution for a table dumped again over its history: which field ids
// the columns of the new dump get, as Iceberg's own schema updates assign them. The
// history's metadata was read from a store and is not trusted: its current schema is
// checked field by field. See docs/iceberg.md ("Schema changes").
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "base/status.h"
#include "format/iceberg/iceberg_history.h"
#include "table/schema.h"

namespace lakedump::iceberg {

// True when a column of Iceberg type `from` may be read as `to` keeping its field id
// (the spec's allowed promotions): the same type, int -> long, float -> double,
// decimal(P, S) -> decimal(P', S) with P' > P. Type names as TypeName() writes them.
bool IsAllowedPromotion(const std::string& from, const std::string& to);

// `schema` with every column's field id set (Column::field_id, and a list's
// element_field_id) to continue `history`. A column matches the field of the same name in
// the history's current schema; it keeps that field's id when its Iceberg type is the
// same or an allowed promotion (a list: when both are lists and the element's type is;
// the element then keeps its id too), whatever its nullability. Every other column (added,
// renamed, or retyped otherwise: a drop plus an add) gets fresh ids above the highest the
// table ever had (last-column-id and every schema's ids), in column order, a list's
// element right after its column, as Java's UpdateSchema assigns them; so a dropped
// column's id is never given again. Corruption (with a one-line reason) when the current
// schema is not one lakedump writes (a field without a positive integer id, a name, a
// required flag, a primitive or list type; ids or names repeated) or ids would overflow.
Result<Schema> EvolveSchema(const TableHistory& history, const Schema& schema);

}  // namespace lakedump::iceberg
