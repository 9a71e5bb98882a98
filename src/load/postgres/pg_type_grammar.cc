#include "load/postgres/pg_type_grammar.h"

#include <fmt/format.h>

#include "source/postgres/pg_conn.h"

namespace lakedump {

// How a built-in type takes modifiers.
enum class PgModifiers : uint8_t {
  kNone,       // no modifiers
  kNumeric,    // (precision) or (precision, scale)
  kLength,     // (n) for character types
  kBits,       // (n) for bit types
  kPrecision,  // (p) fractional digits of seconds, 0..6
};

struct PgBuiltinType {
  std::string_view name;    // as format_type() prints it, without modifiers
  PgModifiers modifiers;
  size_t modifier_at;       // where format_type() puts "(...)" in `name`
};

namespace {

constexpr size_t kEnd = std::string_view::npos;

// The built-in types format_type() names, each once. (Anything lakedump dumps is a column of
// the source; these are the names PostgreSQL 12..17 print for the built-in ones.)
constexpr PgBuiltinType kBuiltins[] = {
    {"smallint", PgModifiers::kNone, kEnd},
    {"integer", PgModifiers::kNone, kEnd},
    {"bigint", PgModifiers::kNone, kEnd},
    {"real", PgModifiers::kNone, kEnd},
    {"double precision", PgModifiers::kNone, kEnd},
    {"numeric", PgModifiers::kNumeric, kEnd},
    {"boolean", PgModifiers::kNone, kEnd},
    {"text", PgModifiers::kNone, kEnd},
    {"character varying", PgModifiers::kLength, kEnd},
    {"character", PgModifiers::kLength, kEnd},
    {"bpchar", PgModifiers::kNone, kEnd},
    {"\"char\"", PgModifiers::kNone, kEnd},
    {"name", PgModifiers::kNone, kEnd},
    {"bytea", PgModifiers::kNone, kEnd},
    {"date", PgModifiers::kNone, kEnd},
    {"time without time zone", PgModifiers::kPrecision, 4},
    {"time with time zone", PgModifiers::kPrecision, 4},
    {"timestamp without time zone", PgModifiers::kPrecision, 9},
    {"timestamp with time zone", PgModifiers::kPrecision, 9},
    {"interval", PgModifiers::kPrecision, kEnd},
    {"interval year", PgModifiers::kNone, kEnd},
    {"interval month", PgModifiers::kNone, kEnd},
    {"interval day", PgModifiers::kNone, kEnd},
    {"interval hour", PgModifiers::kNone, kEnd},
    {"interval minute", PgModifiers::kNone, kEnd},
    {"interval second", PgModifiers::kPrecision, kEnd},
    {"interval year to month", PgModifiers::kNone, kEnd},
    {"interval day to hour", PgModifiers::kNone, kEnd},
    {"interval day to minute", PgModifiers::kNone, kEnd},
    {"interval day to second", PgModifiers::kPrecision, kEnd},
    {"interval hour to minute", PgModifiers::kNone, kEnd},
    {"interval hour to second", PgModifiers::kPrecision, kEnd},
    {"interval minute to second", PgModifiers::kPrecision, kEnd},
    {"uuid", PgModifiers::kNone, kEnd},
    {"json", PgModifiers::kNone, kEnd},
    {"jsonb", PgModifiers::kNone, kEnd},
    {"jsonpath", PgModifiers::kNone, kEnd},
    {"xml", PgModifiers::kNone, kEnd},
    {"inet", PgModifiers::kNone, kEnd},
    {"cidr", PgModifiers::kNone, kEnd},
    {"macaddr", PgModifiers::kNone, kEnd},
    {"macaddr8", PgModifiers::kNone, kEnd},
    {"money", PgModifiers::kNone, kEnd},
    {"bit", PgModifiers::kBits, kEnd},
    {"bit varying", PgModifiers::kBits, kEnd},
    {"oid", PgModifiers::kNone, kEnd},
    {"pg_lsn", PgModifiers::kNone, kEnd},
    {"tsvector", PgModifiers::kNone, kEnd},
    {"tsquery", PgModifiers::kNone, kEnd},
    {"point", PgModifiers::kNone, kEnd},
    {"line", PgModifiers::kNone, kEnd},
    {"lseg", PgModifiers::kNone, kEnd},
    {"box", PgModifiers::kNone, kEnd},
    {"path", PgModifiers::kNone, kEnd},
    {"polygon", PgModifiers::kNone, kEnd},
    {"circle", PgModifiers::kNone, kEnd},
    {"int4range", PgModifiers::kNone, kEnd},
    {"int8range", PgModifiers::kNone, kEnd},
    {"numrange", PgModifiers::kNone, kEnd},
    {"tsrange", PgModifiers::kNone, kEnd},
    {"tstzrange", PgModifiers::kNone, kEnd},
    {"daterange", PgModifiers::kNone, kEnd},
    {"int4multirange", PgModifiers::kNone, kEnd},
    {"int8multirange", PgModifiers::kNone, kEnd},
    {"nummultirange", PgModifiers::kNone, kEnd},
    {"tsmultirange", PgModifiers::kNone, kEnd},
    {"tstzmultirange", PgModifiers::kNone, kEnd},
    {"datemultirange", PgModifiers::kNone, kEnd},
};

// The dump's text in an error: quoted, escaped, cut.
std::string Shown(std::string_view text) {
  std::string out = "\"";
  for (size_t i = 0; i < text.size() && i < 80; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out + (text.size() > 80 ? "...\"" : "\"");
}

Status Outside(std::string_view text, std::string_view why) {
  return Status::InvalidArgument(
      fmt::format("type {} is not one lakedump writes ({})", Shown(text), why));
}

// "(10, 2)" at the start of `text` (after '('): the integers, and where ')' is.
bool ParseModifierList(std::string_view text, size_t open, std::vector<int32_t>* out,
                       size_t* close) {
  size_t i = open + 1;
  for (;;) {
    while (i < text.size() && text[i] == ' ') ++i;
    bool negative = false;
    if (i < text.size() && text[i] == '-') {
      negative = true;
      ++i;
    }
    int64_t v = 0;
    size_t digits = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && digits < 9) {
      v = v * 10 + (text[i] - '0');
      ++i;
      ++digits;
    }
    if (digits == 0) return false;
    out->push_back(static_cast<int32_t>(negative ? -v : v));
    while (i < text.size() && text[i] == ' ') ++i;
    if (i >= text.size()) return false;
    if (text[i] == ')') {
      *close = i;
      return true;
    }
    if (text[i] != ',') return false;
    ++i;
  }
}

bool ModifiersFit(PgModifiers kind, const std::vector<int32_t>& m) {
  if (m.empty()) return true;
  switch (kind) {
    case PgModifiers::kNone:
      return false;
    case PgModifiers::kNumeric:
      return m.size() <= 2 && m[0] >= 1 && m[0] <= 1000 &&
             (m.size() == 1 || (m[1] >= -1000 && m[1] <= 1000));
    case PgModifiers::kLength:
      return m.size() == 1 && m[0] >= 1 && m[0] <= 10485760;
    case PgModifiers::kBits:
      return m.size() == 1 && m[0] >= 1 && m[0] <= 83886080;
    case PgModifiers::kPrecision:
      return m.size() == 1 && m[0] >= 0 && m[0] <= 6;
  }
  return false;
}

// One identifier at `*i`: plain lower case, or double-quoted.
bool ParseIdent(std::string_view text, size_t* i, std::string* out) {
  out->clear();
  if (*i < text.size() && text[*i] == '"') {
    for (size_t j = *i + 1; j < text.size(); ++j) {
      const unsigned char c = static_cast<unsigned char>(text[j]);
      if (c < 0x20 || c == 0x7f) return false;
      if (c != '"') {
        out->push_back(static_cast<char>(c));
        continue;
      }
      if (j + 1 < text.size() && text[j + 1] == '"') {
        out->push_back('"');
        ++j;
        continue;
      }
      *i = j + 1;
      return !out->empty() && out->size() <= 63;
    }
    return false;
  }
  auto first = [](char c) { return (c >= 'a' && c <= 'z') || c == '_'; };
  auto rest = [&](char c) { return first(c) || (c >= '0' && c <= '9') || c == '$'; };
  if (*i >= text.size() || !first(text[*i])) return false;
  while (*i < text.size() && rest(text[*i])) out->push_back(text[(*i)++]);
  return out->size() <= 63;
}

Result<PgColumnType> ParseNamedType(std::string_view text, std::string_view whole) {
  PgColumnType t;
  size_t i = 0;
  if (!ParseIdent(text, &i, &t.name)) return Outside(whole, "not a type name");
  if (i < text.size() && text[i] == '.') {
    ++i;
    t.schema = std::move(t.name);
    if (!ParseIdent(text, &i, &t.name)) return Outside(whole, "not a type name");
  }
  if (i != text.size()) return Outside(whole, "not a type name");
  return t;
}

}  // namespace

Result<PgColumnType> ParsePgColumnType(std::string_view text) {
  std::string_view body = text;
  bool array = false;
  if (body.ends_with("[]")) {
    array = true;
    body.remove_suffix(2);
  }
  if (body.empty()) return Outside(text, "empty");
  // The modifier list, if any, then the name without it.
  std::vector<int32_t> modifiers;
  std::string name(body);
  size_t modifier_at = kEnd;
  const size_t open = body.find('(');
  if (open != kEnd) {
    size_t close = 0;
    if (!ParseModifierList(body, open, &modifiers, &close)) {
      return Outside(text, "modifiers must be integers");
    }
    name = std::string(body.substr(0, open)) + std::string(body.substr(close + 1));
    modifier_at = close + 1 == body.size() ? kEnd : open;
  }
  for (const PgBuiltinType& b : kBuiltins) {
    if (b.name != name) continue;
    if (!modifiers.empty() && modifier_at != b.modifier_at) {
      return Outside(text, "modifiers out of place");
    }
    if (!ModifiersFit(b.modifiers, modifiers)) {
      return Outside(text, "modifiers out of range for the type");
    }
    PgColumnType t;
    t.builtin = &b;
    t.modifiers = std::move(modifiers);
    t.array = array;
    return t;
  }
  if (open != kEnd) return Outside(text, "modifiers on a type that is not built in");
  LD_ASSIGN_OR_RETURN(PgColumnType t, ParseNamedType(body, text));
  t.array = array;
  return t;
}

std::string PgColumnTypeSql(const PgColumnType& type) {
  std::string sql;
  if (type.builtin == nullptr) {
    sql = type.schema.empty() ? QuoteIdent(type.name) : QuoteQualified(type.schema, type.name);
  } else {
    std::string mods;
    for (size_t i = 0; i < type.modifiers.size(); ++i) {
      mods += fmt::format("{}{}", i ? "," : "", type.modifiers[i]);
    }
    if (!mods.empty()) mods = "(" + mods + ")";
    const std::string_view name = type.builtin->name;
    const size_t at = type.builtin->modifier_at == kEnd ? name.size() : type.builtin->modifier_at;
    sql = std::string(name.substr(0, at)) + mods + std::string(name.substr(at));
  }
  return type.array ? sql + "[]" : sql;
}

}  // namespace lakedump
