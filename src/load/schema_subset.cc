#include "load/schema_subset.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "lake/table_selection.h"
#include "load/load_service.h"

namespace lakedump {
namespace {

std::string Quote(std::string_view name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

bool Selected(const SchemaRestorePlan& plan, const TableRef& t) {
  return std::find(plan.tables.begin(), plan.tables.end(), t) != plan.tables.end();
}

bool FromSqlite(const SchemaRestorePlan& plan) { return plan.source_kind == "sqlite"; }

}  // namespace

std::string JsonString(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

std::vector<PlainIndex> PlainIndexesToCreate(const SchemaRestorePlan& plan) {
  std::vector<PlainIndex> out;
  const nlohmann::json indexes = plan.schema.value("indexes", nlohmann::json::array());
  if (!indexes.is_array()) return out;
  for (const nlohmann::json& ix : indexes) {
    if (!ix.is_object() || !ix.contains("columns") || !ix["columns"].is_array()) continue;
    if (ix.value("primary", false) || ix.value("constraint", false)) continue;
    const TableRef source{JsonString(ix, "schema"), JsonString(ix, "table")};
    if (!Selected(plan, source)) continue;
    PlainIndex p;
    p.table = MapTargetTable(source, plan.schema_map);
    p.name = JsonString(ix, "name");
    p.unique = ix.value("unique", false);
    bool ok = !p.name.empty() && !ix["columns"].empty();
    for (const nlohmann::json& c : ix["columns"]) {
      if (!c.is_string()) ok = false;
      else p.columns.push_back(c.get<std::string>());
    }
    if (!ok) continue;
    if (FromSqlite(plan) && p.name.starts_with("sqlite_autoindex_")) {
      p.name = source.name;
      for (const std::string& c : p.columns) p.name += "_" + c;
      p.name += "_key";
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::string CreateIndexStatement(const PlainIndex& index, const std::string& qualified) {
  std::string sql = fmt::format("CREATE {}INDEX IF NOT EXISTS {} ON {} (",
                                index.unique ? "UNIQUE " : "", Quote(index.name), qualified);
  for (size_t i = 0; i < index.columns.size(); ++i) sql += (i ? ", " : "") + Quote(index.columns[i]);
  return sql + ")";
}

std::vector<std::string> SkippedObjectWarnings(const SchemaRestorePlan& plan,
                                               std::string_view target) {
  std::vector<std::string> out;
  const nlohmann::json objects = plan.schema.value("objects", nlohmann::json::array());
  if (!objects.is_array()) return out;
  const std::string source = FromSqlite(plan) ? "SQLite" : "PostgreSQL";
  // What the table load and the plain indexes already bring across.
  static const std::set<std::string> kCovered = {
      "table", "TABLE", "SCHEMA", "CONSTRAINT", "DEFAULT", "SEQUENCE OWNED BY", "COMMENT",
      "ACL", "TABLE ATTACH", "INDEX ATTACH"};
  std::set<std::string> plain;
  for (const PlainIndex& p : PlainIndexesToCreate(plan)) plain.insert(p.name);
  const nlohmann::json indexes = plan.schema.value("indexes", nlohmann::json::array());
  for (const nlohmann::json& ix : indexes) {
    if (ix.is_object() && (ix.value("primary", false) || ix.value("constraint", false))) {
      plain.insert(JsonString(ix, "name"));
    }
  }
  // Indexes of partitions: the data comes through the partitioned parent, whose own
  // index (if on plain columns) is built.
  std::set<std::pair<std::string, std::string>> partitions;
  for (const nlohmann::json& p : plan.schema.value("partitions", nlohmann::json::array())) {
    partitions.insert({JsonString(p, "schema"), JsonString(p, "name")});
  }
  for (const nlohmann::json& ix : indexes) {
    if (partitions.count({JsonString(ix, "schema"), JsonString(ix, "table")})) {
      plain.insert(JsonString(ix, "name"));
    }
  }
  for (const nlohmann::json& o : objects) {
    const std::string type = JsonString(o, "type");
    const std::string name = JsonString(o, "name");
    if (kCovered.count(type)) continue;
    if ((type == "index" || type == "INDEX") && plain.count(name)) continue;
    if (FromSqlite(plan) && name.starts_with("sqlite_autoindex_")) continue;
    const std::string schema = JsonString(o, "schema");
    std::string what = type;
    std::transform(what.begin(), what.end(), what.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    out.push_back(fmt::format("skipped {} {} {}{}: cannot be restored into {}", source, what,
                              schema.empty() || schema == "-" ? "" : schema + ".", name, target));
  }
  return out;
}

std::string UntrustedSchemaLine(size_t not_restored) {
  return fmt::format(
      "{} schema objects of the dump (views, functions, types, sequences, triggers, "
      "indexes on expressions...) were not restored: a dump's schema is code, run only for a "
      "dump you trust; restore them with `lakedump load --trust-dump`",
      not_restored);
}

}  // namespace lakedump
