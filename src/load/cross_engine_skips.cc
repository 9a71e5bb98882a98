#include "load/cross_engine_skips.h"

#include <fmt/format.h>

#include "load/postgres/pg_ddl_text.h"
#include "load/postgres/sqlite_schema_to_pg.h"
#include "load/schema_subset.h"
#include "load/sqlite/sqlite_ddl_facts.h"

namespace lakedump {
namespace {

std::string JoinFactColumns(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + (s.empty() ? "<key>" : s);
  return out;
}

void SqliteTableSkips(const TablePlan& t, bool carried, std::vector<SkippedSchemaObject>* out) {
  const std::string table = t.target.QualifiedName();
  auto add = [&](std::string kind, std::string name, std::string reason) {
    out->push_back({"SQLite", std::move(kind), table, std::move(name), std::move(reason)});
  };
  if (t.definition.ddl.empty()) return;
  Result<SqliteTableFacts> facts = ReadSqliteTableFacts(t.definition.ddl, t.source.name);
  if (!facts.ok()) {
    add("table definition", "", facts.status().message() + "; created from its column types");
    return;
  }
  // With `carried`, the target made foreign keys, literal DEFAULTs and AUTOINCREMENT its own
  // and reported those it could not (load/postgres/sqlite_schema_to_pg.h).
  for (const SqliteTableFacts::ForeignKey& fk : carried ? std::vector<SqliteTableFacts::ForeignKey>{}
                                                        : facts->foreign_keys) {
    add("foreign key",
        fmt::format("({}) REFERENCES {} ({})", JoinFactColumns(fk.columns), fk.ref_table,
                    JoinFactColumns(fk.ref_columns)),
        "not created in PostgreSQL: SQLite enforces foreign keys only under PRAGMA foreign_keys, "
        "so the rows need not satisfy it");
  }
  for (size_t i = 0; i < facts->checks; ++i) {
    add("check", "", "a CHECK expression is SQLite SQL, which lakedump does not translate");
  }
  for (const auto& [column, sql] : facts->defaults) {
    if (carried && PgLiteralOfSqliteDefault(sql)) continue;
    add("default", column, fmt::format("DEFAULT {} is SQLite SQL, which lakedump does not translate", sql));
  }
  if (!facts->autoincrement.empty() && !carried) {
    add("autoincrement", facts->autoincrement,
        "the column is a plain integer in PostgreSQL: new rows need keys of their own (no "
        "identity or sequence is created)");
  }
  for (const auto& [column, collation] : facts->collations) {
    add("collation", fmt::format("{} COLLATE {}", column, collation),
        "PostgreSQL has no such collation: the column compares with the database's default "
        "(case-sensitively)");
  }
  for (const auto& [column, stored] : facts->generated) {
    add(stored ? "generated column (STORED)" : "generated column (VIRTUAL)", column,
        "loaded as a plain column holding the dumped values: its expression is SQLite SQL");
  }
}

void PostgresTableSkips(const TablePlan& t, std::vector<SkippedSchemaObject>* out) {
  const std::string table = t.source.QualifiedName();
  auto add = [&](std::string kind, std::string name, std::string reason) {
    out->push_back({"PostgreSQL", std::move(kind), table, std::move(name), std::move(reason)});
  };
  for (const std::string& check : PgCheckClausesFromDdl(t.definition.ddl)) {
    add("check", check, "a CHECK expression is PostgreSQL SQL, which lakedump does not translate");
  }
  const std::vector<PgColumnExtras> extras =
      PgColumnExtrasFromDdl(t.definition.ddl, t.definition.schema);
  for (size_t i = 0; i < extras.size(); ++i) {
    const std::string& column = t.definition.schema.column(i).name;
    if (extras[i].identity) {
      add("identity", column, "SQLite has no identity columns: a plain column in SQLite");
    } else if (!extras[i].default_expr.empty()) {
      add("default", column,
          fmt::format("DEFAULT {} is PostgreSQL SQL, which lakedump does not translate",
                      extras[i].default_expr));
    }
  }
}

// The archive's COMMENTs and GRANTs: SQLite has neither.
void PostgresArchiveSkips(const SchemaRestorePlan& plan, std::vector<SkippedSchemaObject>* out) {
  for (const nlohmann::json& o : plan.schema.value("objects", nlohmann::json::array())) {
    const std::string type = JsonString(o, "type");
    if (type != "COMMENT" && type != "ACL") continue;
    const std::string schema = JsonString(o, "schema");
    const std::string name = JsonString(o, "name");
    out->push_back({"PostgreSQL", type == "ACL" ? "grant" : "comment",
                    schema.empty() || schema == "-" ? "" : schema, name,
                    type == "ACL" ? "SQLite has no privileges" : "SQLite has no comments"});
  }
}

}  // namespace

void CrossEngineSkips(const SchemaRestorePlan& plan, const std::vector<const TablePlan*>& tables,
                      const TargetDatabase& target, bool carried,
                      std::vector<SkippedSchemaObject>* out) {
  const bool from_sqlite = plan.source_kind == "sqlite";
  const bool into_sqlite = !target.has_schemas();
  if (from_sqlite == into_sqlite) return;
  for (const TablePlan* t : tables) {
    if (from_sqlite) {
      SqliteTableSkips(*t, carried, out);
    } else {
      PostgresTableSkips(*t, out);
    }
  }
  if (!from_sqlite) PostgresArchiveSkips(plan, out);
}

std::string SkippedLine(const SkippedSchemaObject& s) {
  return fmt::format("skipped {} {}{}{}{}: {}", s.engine, s.kind,
                     s.table.empty() ? "" : " on " + s.table, s.name.empty() ? "" : " ",
                     s.name, s.reason);
}

}  // namespace lakedump
