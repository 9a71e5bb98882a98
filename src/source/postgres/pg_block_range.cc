#include "source/postgres/pg_block_range.h"

#include <fmt/format.h>

namespace lakedump {
namespace {

bool Consume(std::string_view* s, std::string_view literal) {
  if (!s->starts_with(literal)) return false;
  s->remove_prefix(literal.size());
  return true;
}

// "ctid <op> '(N,0)'::pg_catalog.tid" at the front of *s, N of 1 to 10 digits: consumed when
// it is there, *s left as it was otherwise.
bool ConsumeBound(std::string_view* s, std::string_view op) {
  std::string_view rest = *s;
  if (!Consume(&rest, "ctid ") || !Consume(&rest, op) || !Consume(&rest, " '(")) return false;
  size_t digits = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
  if (digits < 1 || digits > 10) return false;
  rest.remove_prefix(digits);
  if (!Consume(&rest, ",0)'::pg_catalog.tid")) return false;
  *s = rest;
  return true;
}

}  // namespace

std::string BlockRangePredicate(uint64_t lo, uint64_t hi, bool open_below, bool open_above) {
  std::string p;
  if (!open_below) p = fmt::format("ctid >= '({},0)'::pg_catalog.tid", lo);
  if (!open_above) {
    if (!p.empty()) p += " AND ";
    p += fmt::format("ctid < '({},0)'::pg_catalog.tid", hi);
  }
  return p;
}

bool IsBlockRangePredicate(std::string_view p) {
  if (ConsumeBound(&p, "<")) return p.empty();
  if (!ConsumeBound(&p, ">=")) return false;
  return p.empty() || (Consume(&p, " AND ") && ConsumeBound(&p, "<") && p.empty());
}

}  // namespace lakedump
