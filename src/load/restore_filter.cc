#include "load/restore_filter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <tuple>

#include "lake/manifest.h"

namespace lakedump {
namespace {

// Glob matching with per-character wildcards (iterative, with backtracking to the last *).
bool Match(const PgNamePart& p, std::string_view s) {
  size_t pi = 0, si = 0, star = std::string::npos, mark = 0;
  while (si < s.size()) {
    if (pi < p.chars.size() && !p.literal[pi] && p.chars[pi] == '*') {
      star = pi++;
      mark = si;
    } else if (pi < p.chars.size() &&
               ((!p.literal[pi] && p.chars[pi] == '?') ||
                (p.literal[pi] && p.chars[pi] == s[si]))) {
      ++pi;
      ++si;
    } else if (star != std::string::npos) {
      pi = star + 1;
      si = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.chars.size() && !p.literal[pi] && p.chars[pi] == '*') ++pi;
  return pi == p.chars.size();
}

bool AnySchema(const std::vector<std::string>& patterns, std::string_view schema) {
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) {
    auto parts = ParsePgNamePattern(p, 1);
    return parts.ok() && Match(parts->front(), schema);
  });
}

}  // namespace

Result<std::vector<PgNamePart>> ParsePgNamePattern(std::string_view pattern, size_t max_parts) {
  std::vector<PgNamePart> parts(1);
  bool quoted = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '"') {
      if (quoted && i + 1 < pattern.size() && pattern[i + 1] == '"') {
        parts.back().chars += '"';
        parts.back().literal.push_back(true);
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (!quoted && c == '.') {
      parts.emplace_back();
    } else {
      const bool wildcard = !quoted && (c == '*' || c == '?');
      parts.back().chars += quoted ? c : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      parts.back().literal.push_back(!wildcard);
    }
  }
  if (quoted) {
    return Status::InvalidArgument(fmt::format("pattern {} has an unterminated quote", pattern));
  }
  if (parts.size() > max_parts) {
    return Status::InvalidArgument(fmt::format(
        "pattern {}: too many dotted names (at most {})", pattern,
        max_parts == 1 ? "a schema" : "schema.name"));
  }
  return parts;
}

bool PgNamePartMatches(const PgNamePart& part, std::string_view name) { return Match(part, name); }

Status RestoreFilter::Check() const {
  for (const auto& [option, patterns, max] :
       {std::tuple{"--table", &tables, size_t{2}}, std::tuple{"--schema", &schemas, size_t{1}},
        std::tuple{"--exclude-schema", &exclude_schemas, size_t{1}}}) {
    for (const std::string& p : *patterns) {
      auto parsed = ParsePgNamePattern(p, max);
      if (!parsed.ok()) return parsed.status().WithContext(option);
    }
  }
  return Status::OK();
}

bool RestoreFilter::NamedByTable(const TableRef& object) const {
  return std::any_of(tables.begin(), tables.end(), [&](const std::string& p) {
    auto parts = ParsePgNamePattern(p, 2);
    if (!parts.ok()) return false;
    if (parts->size() == 1) return Match(parts->front(), object.name);
    return Match((*parts)[0], object.schema) && Match((*parts)[1], object.name);
  });
}

bool RestoreFilter::SchemaIncluded(std::string_view schema) const {
  return schemas.empty() || AnySchema(schemas, schema);
}

bool RestoreFilter::SchemaExcluded(std::string_view schema) const {
  return AnySchema(exclude_schemas, schema);
}

bool RestoreFilter::Keeps(const TableRef& table) const {
  if (!tables.empty() && !NamedByTable(table)) return false;
  return SchemaIncluded(table.schema) && !SchemaExcluded(table.schema);
}

Status CheckRestoreFilter(const RestoreFilter& filter, const DumpManifest& manifest) {
  LD_RETURN_IF_ERROR(filter.Check());
  std::vector<TableRef> objects, schemas;  // what -t and -n may name
  for (const TableSummary& t : manifest.tables) objects.push_back(t.table);
  const nlohmann::json& recorded = manifest.schema.is_object() && manifest.schema.contains("objects")
                                       ? manifest.schema["objects"]
                                       : nlohmann::json::array();
  for (const nlohmann::json& o : recorded.is_array() ? recorded : nlohmann::json::array()) {
    if (!o.is_object() || !o.contains("type") || !o["type"].is_string() ||
        !o.contains("schema") || !o["schema"].is_string() || !o.contains("name") ||
        !o["name"].is_string()) {
      continue;
    }
    const std::string type = o["type"].get<std::string>();
    const TableRef ref{o["schema"].get<std::string>(), o["name"].get<std::string>()};
    if (type == "VIEW" || type == "MATERIALIZED VIEW" || type == "SEQUENCE" ||
        type == "FOREIGN TABLE") {
      objects.push_back(ref);
    }
    if (type == "SCHEMA") objects.push_back({ref.name, ""});
  }
  for (const std::string& p : filter.tables) {
    RestoreFilter one;
    one.tables = {p};
    if (std::none_of(objects.begin(), objects.end(),
                     [&](const TableRef& t) { return !t.name.empty() && one.NamedByTable(t); })) {
      return Status::InvalidArgument(fmt::format(
          "--table {} matches no table, view or sequence of the dump (`lakedump ls DUMP` lists "
          "them; quote a name with capitals or dots: -t 'schema.\"Name\"')",
          p));
    }
  }
  for (const std::string& p : filter.schemas) {
    RestoreFilter one;
    one.schemas = {p};
    if (std::none_of(objects.begin(), objects.end(),
                     [&](const TableRef& t) { return one.SchemaIncluded(t.schema); })) {
      return Status::InvalidArgument(
          fmt::format("--schema {} matches no schema of the dump", p));
    }
  }
  return Status::OK();
}

Result<std::pair<std::string, std::string>> ParseRoleMapping(std::string_view text) {
  // Each side: a name up to '=' (or the end), or a "quoted" one ("" is one quote).
  const auto side = [&](size_t* i, std::string* out) {
    if (*i < text.size() && text[*i] == '"') {
      for (size_t j = *i + 1; j < text.size(); ++j) {
        if (text[j] != '"') {
          *out += text[j];
        } else if (j + 1 < text.size() && text[j + 1] == '"') {
          *out += '"';
          ++j;
        } else {
          *i = j + 1;
          return true;
        }
      }
      return false;
    }
    const size_t eq = text.find('=', *i);
    const size_t end = eq == std::string_view::npos ? text.size() : eq;
    *out = std::string(text.substr(*i, end - *i));
    *i = end;
    return true;
  };
  std::string from, to;
  size_t i = 0;
  bool ok = side(&i, &from) && i < text.size() && text[i] == '=';
  if (ok) {
    ++i;
    ok = side(&i, &to) && i == text.size();
  }
  if (!ok || from.empty() || to.empty()) {
    return Status::InvalidArgument(fmt::format(
        "--role-map {}: expected OLD=NEW, e.g. --role-map app_owner=staging (\"quote\" a "
        "name holding =)",
        text));
  }
  return std::make_pair(std::move(from), std::move(to));
}

}  // namespace lakedump
