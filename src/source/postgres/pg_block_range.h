// The range predicates that split a PostgreSQL table into work units by heap block (ctid), and
// the check that a predicate read back from a shard plan is exactly one of them (a plan on a
// shared store is not trusted to carry SQL). Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace lakedump {

// The predicate of blocks [lo, hi): "ctid >= '(lo,0)'::pg_catalog.tid AND ctid < ..."; the
// first unit (`open_below`) has no lower bound, the last (`open_above`) no upper bound.
// REQUIRES: not both open (a whole table has no predicate).
std::string BlockRangePredicate(uint64_t lo, uint64_t hi, bool open_below, bool open_above);

// True when `predicate` has the form BlockRangePredicate makes (block numbers of 1 to 10
// digits), and nothing else.
bool IsBlockRangePredicate(std::string_view predicate);

}  // namespace lakedump
