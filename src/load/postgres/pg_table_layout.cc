#include "load/postgres/pg_table_layout.h"

#include <fmt/format.h>

#include <algorithm>

#include "load/postgres/pg_ddl_text.h"
#include "load/postgres/pg_source_types.h"
#include "load/postgres/postgres_target.h"

namespace lakedump {
namespace {

// The first at most `max` bytes of `s`, not cutting a UTF-8 sequence.
std::string_view Utf8Prefix(std::string_view s, size_t max) {
  if (s.size() <= max) return s;
  size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

// The keys of the plan: the structured primary key and unique lists, and -- for an older dump
// without structured unique keys -- its UNIQUE text clauses when trusted.
Result<std::vector<PgKey>> PlanKeys(const TablePlan& plan, bool from_postgres, LoadNotes& notes,
                                    uint64_t* skipped) {
  const TableDefinition& def = plan.definition;
  std::vector<PgKey> keys;
  if (!def.primary_key.empty()) keys.push_back(PgKey{true, def.primary_key, ""});
  for (const auto& unique : def.unique_keys) {
    if (!unique.empty()) keys.push_back(PgKey{false, unique, ""});
  }
  for (const PgKey& key : keys) {
    for (const std::string& col : key.columns) {
      const bool known = std::any_of(def.schema.columns().begin(), def.schema.columns().end(),
                                     [&](const Column& c) { return c.name == col; });
      if (!known) {
        return Status::Corruption(fmt::format(
            "table {}: its _table.json names key column \"{}\", which is not one of its "
            "columns",
            plan.source.QualifiedName(), col));
      }
    }
  }
  if (!from_postgres || plan.structured_keys) return keys;
  std::vector<std::string> text_unique;
  for (std::string& clause : PgKeyClausesFromDdl(def.ddl)) {
    if (clause.starts_with("UNIQUE")) text_unique.push_back(std::move(clause));
  }
  if (text_unique.empty()) return keys;
  if (plan.trust_schema) {
    for (std::string& clause : text_unique) keys.push_back(PgKey{false, {}, std::move(clause)});
    return keys;
  }
  *skipped += text_unique.size();
  notes.WarnOnce("text-unique-keys",
        "this dump (written by an older lakedump) records UNIQUE keys only as DDL text; they "
        "are not applied to an untrusted load");
  return keys;
}

}  // namespace

std::string PgIdentifierWithSuffix(std::string_view base, std::string_view suffix) {
  return std::string(Utf8Prefix(base, kPgMaxIdentifierBytes - suffix.size())) +
         std::string(suffix);
}

std::string PgDefaultKeyName(const std::string& table, const PgKey& key) {
  if (key.primary) return PgIdentifierWithSuffix(table, "_pkey");
  std::string cols;
  if (!key.clause.empty()) {
    const size_t open = key.clause.find('('), close = key.clause.find(')');
    if (open != std::string::npos && close != std::string::npos && close > open) {
      for (char c : key.clause.substr(open + 1, close - open - 1)) {
        if (c == '"') continue;
        cols += (c == ',' ? '_' : c);
      }
      std::erase(cols, ' ');
    }
  } else {
    for (size_t i = 0; i < key.columns.size(); ++i) cols += (i ? "_" : "") + key.columns[i];
  }
  return PgIdentifierWithSuffix(table + "_" + cols, "_key");
}

std::string PgKeySql(const PgKey& key) {
  if (!key.clause.empty()) return key.clause;
  std::string sql = key.primary ? "PRIMARY KEY (" : "UNIQUE (";
  for (size_t i = 0; i < key.columns.size(); ++i) {
    sql += (i ? ", " : "") + QuoteIdent(key.columns[i]);
  }
  return sql + ")";
}

Result<PgTableLayout> PlanPgTableLayout(PgConn& conn, const TablePlan& plan, LoadNotes& notes) {
  const Schema& schema = plan.definition.schema;
  const std::string name = plan.target.QualifiedName();
  const bool from_postgres = plan.source_kind == "postgresql" || plan.source_kind == "postgres";
  const bool trusted = plan.trust_schema;
  PgTableLayout layout;
  layout.types.resize(schema.num_columns());
  layout.defaults.resize(schema.num_columns());
  uint64_t skipped = 0;

  std::vector<std::string> recorded;
  for (const Column& c : schema.columns()) {
    recorded.push_back(from_postgres ? c.source_type : std::string());
  }
  LD_ASSIGN_OR_RETURN(std::vector<std::string> resolved,
                      ResolvePgSourceTypes(conn, recorded, /*base_types_only=*/!trusted));
  std::vector<PgColumnExtras> extras;
  if (from_postgres) extras = PgColumnExtrasFromDdl(plan.definition.ddl, schema);
  bool all_source_types = from_postgres;
  std::string fallen_back;
  for (size_t i = 0; i < schema.num_columns(); ++i) {
    const bool usable = !resolved[i].empty();
    all_source_types = all_source_types && usable;
    layout.types[i] = usable ? resolved[i] : PgTypeForLogical(schema.column(i).type);
    if (!usable && !recorded[i].empty()) {
      fallen_back += (fallen_back.empty() ? "" : ", ") + QuoteIdent(schema.column(i).name);
    }
    // Defaults only with the source's own type (they are written for it).
    if (i < extras.size() && !extras[i].default_expr.empty()) {
      if (!trusted) {
        ++skipped;
      } else if (usable) {
        layout.defaults[i] = " DEFAULT " + extras[i].default_expr;
      }
    }
    if (usable && i < extras.size() && extras[i].identity) {
      layout.identity_columns.push_back(schema.column(i).name);
    }
  }
  if (!fallen_back.empty()) {
    notes.Warn(fmt::format(
        "table {}: the source types of column(s) {} are not {} in the target; created from "
        "their logical types instead",
        name, fallen_back, trusted ? "known" : "base types known"));
  }
  if (from_postgres) {
    std::vector<std::string> checks = PgCheckClausesFromDdl(plan.definition.ddl);
    // CHECK constraints are written for the source's types: only with all of them.
    if (!trusted) {
      skipped += checks.size();
    } else if (all_source_types) {
      layout.checks = std::move(checks);
    }
  }
  LD_ASSIGN_OR_RETURN(layout.keys, PlanKeys(plan, from_postgres, notes, &skipped));
  notes.SkipSchemaItems(skipped);
  return layout;
}

}  // namespace lakedump
