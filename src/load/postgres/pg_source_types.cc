#include "load/postgres/pg_source_types.h"

#include <fmt/format.h>

#include <cstdlib>

namespace lakedump {
namespace {

// Built-in typmodin functions (array types use their element's). A type whose typmodin is
// not here cannot be created with modifiers from a dump.
constexpr std::string_view kTypmodIn[] = {
    "bpchartypmodin",      "varchartypmodin", "numerictypmodin",
    "timetypmodin",        "timetztypmodin",  "timestamptypmodin",
    "timestamptztypmodin", "intervaltypmodin", "bittypmodin",
    "varbittypmodin",
};

struct Found {
  std::string oid;       // "" = not resolved
  char typtype = 0;      // of the type (or, for an array, of its element)
  std::string typmodin;  // "-" when none
};

// Resolves one name; "" oid when to_regtype() rejects it (a syntax error in PostgreSQL 15
// is an error, not NULL: a rejected name, not a failed load).
Result<Found> ResolveOne(PgConn& conn, const std::string& name) {
  Found f;
  auto r = conn.Query(
      "SELECT t.oid, coalesce(e.typtype, t.typtype), t.typmodin::pg_catalog.text "
      "FROM pg_catalog.pg_type t LEFT JOIN pg_catalog.pg_type e "
      "ON e.oid = t.typelem AND t.typcategory = 'A' "
      "WHERE t.oid = pg_catalog.to_regtype($1)",
      {name});
  if (!r.ok()) {
    if (conn.broken()) return r.status();
    return f;
  }
  if (PQntuples(r->get()) != 1) return f;
  f.oid = std::string(PgValue(r->get(), 0, 0));
  const std::string_view typtype = PgValue(r->get(), 0, 1);
  f.typtype = typtype.empty() ? 0 : typtype[0];
  f.typmodin = std::string(PgValue(r->get(), 0, 2));
  return f;
}

bool Allowed(char typtype, bool base_types_only) {
  if (base_types_only) return typtype == 'b';
  return typtype == 'b' || typtype == 'e' || typtype == 'd' || typtype == 'r' || typtype == 'm';
}

}  // namespace

bool ParsePgTypeModifiers(std::string_view text, std::vector<std::string>* modifiers) {
  modifiers->clear();
  const size_t open = text.find('(');
  if (open == std::string_view::npos) return text.find(')') == std::string_view::npos;
  const size_t close = text.find(')', open);
  if (close == std::string_view::npos) return false;
  // One modifier list only ("timestamp(3) without time zone", "numeric(10,2)[]").
  if (text.find_first_of("()", close + 1) != std::string_view::npos) return false;
  std::string current;
  for (size_t i = open + 1; i <= close; ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      if (current.size() >= 9) return false;  // fits an int4
      current += c;
    } else if (c == ',' || c == ')') {
      if (current.empty()) return false;
      modifiers->push_back(std::move(current));
      current.clear();
    } else if (c != ' ') {
      return false;
    }
  }
  return !modifiers->empty();
}

Result<std::vector<std::string>> ResolvePgSourceTypes(PgConn& conn,
                                                      const std::vector<std::string>& recorded,
                                                      bool base_types_only) {
  std::vector<std::string> out(recorded.size());
  for (size_t i = 0; i < recorded.size(); ++i) {
    const std::string& text = recorded[i];
    std::vector<std::string> mods;
    if (text.empty() || !ParsePgTypeModifiers(text, &mods)) continue;
    LD_ASSIGN_OR_RETURN(Found found, ResolveOne(conn, text));
    if (found.oid.empty() || !Allowed(found.typtype, base_types_only)) continue;
    std::string typmod = "-1";
    if (!mods.empty()) {
      std::string_view fn;
      for (std::string_view known : kTypmodIn) {
        if (found.typmodin == known) fn = known;
      }
      if (fn.empty()) continue;
      std::string array = "{";
      for (size_t m = 0; m < mods.size(); ++m) array += (m ? "," : "") + mods[m];
      array += "}";
      // The function name is one of ours (kTypmodIn), never the server's or the dump's text.
      auto r = conn.Query(fmt::format("SELECT pg_catalog.{}($1::pg_catalog.cstring[])", fn),
                          {array});
      if (!r.ok()) {
        if (conn.broken()) return r.status();
        continue;  // out of range for the type ("numeric(2000)")
      }
      typmod = std::string(PgValue(r->get(), 0, 0));
    }
    LD_ASSIGN_OR_RETURN(PgResult formatted,
                        conn.Query("SELECT pg_catalog.format_type($1::pg_catalog.oid, "
                                   "$2::pg_catalog.int4)",
                                   {found.oid, typmod}));
    const std::string server(PgValue(formatted.get(), 0, 0));
    if (server == text) out[i] = server;
  }
  return out;
}

}  // namespace lakedump
