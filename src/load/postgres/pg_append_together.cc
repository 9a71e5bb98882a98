#include "load/postgres/pg_append_together.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include "load/postgres/pg_restore_filters.h"

namespace lakedump {
namespace {

// Foreign keys between the tables (their positions): a partition counts as its ancestors, so a
// key on or to a partitioned table orders its partitions. pg_partition_ancestors (PostgreSQL
// 12 on) gives a partition's; a table is itself too (the function gives nothing for a table
// that is not in a partition tree).
constexpr const char* kEdgesSql = R"SQL(
WITH p(i, oid) AS (
  SELECT u.i - 1, pg_catalog.to_regclass(u.t)::pg_catalog.oid
  FROM pg_catalog.unnest($1::pg_catalog.text[]) WITH ORDINALITY u(t, i)
), a(i, anc) AS (
  {ancestors}
)
SELECT DISTINCT pa.i, ch.i FROM pg_catalog.pg_constraint k
JOIN a ch ON ch.anc = k.conrelid
JOIN a pa ON pa.anc = k.confrelid
WHERE k.contype = 'f' AND pa.i <> ch.i)SQL";

// A text[] literal of the names (each double-quoted, with \ and " escaped).
std::string TextArray(const std::vector<std::string>& names) {
  std::string out = "{";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += ',';
    out += '"';
    for (char c : names[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out + "}";
}

Result<std::vector<std::pair<size_t, size_t>>> ForeignKeyEdges(
    PgConn& conn, const std::vector<PgStagedAppend>& tables) {
  const std::string ancestors =
      conn.server_version() >= 120000
          ? "SELECT p.i, p.oid FROM p UNION SELECT p.i, x.relid FROM p CROSS JOIN LATERAL "
            "pg_catalog.pg_partition_ancestors(p.oid) x"
          : "SELECT p.i, p.oid FROM p";
  std::vector<std::string> names;
  for (const PgStagedAppend& t : tables) names.push_back(t.final_table);
  LD_ASSIGN_OR_RETURN(PgResult r, conn.Query(fmt::format(fmt::runtime(kEdgesSql),
                                                         fmt::arg("ancestors", ancestors)),
                                             {TextArray(names)}));
  std::vector<std::pair<size_t, size_t>> edges;
  for (int row = 0; row < PQntuples(r.get()); ++row) {
    edges.emplace_back(std::strtoull(PQgetvalue(r.get(), row, 0), nullptr, 10),
                       std::strtoull(PQgetvalue(r.get(), row, 1), nullptr, 10));
  }
  return edges;
}

// The statements of the transaction, with the table each belongs to (empty: none).
std::vector<std::pair<std::string, std::string>> Statements(
    const std::vector<PgStagedAppend>& tables, const std::vector<size_t>& order,
    const std::vector<std::string>& matviews, bool disable_triggers, int64_t lock_timeout_ms) {
  std::vector<std::pair<std::string, std::string>> out = {
      {"BEGIN", ""},
      {fmt::format("SET LOCAL lock_timeout = '{}ms'", std::max<int64_t>(0, lock_timeout_ms)), ""},
      {"SET CONSTRAINTS ALL DEFERRED", ""}};
  if (disable_triggers) out.push_back({"SET LOCAL session_replication_role = replica", ""});
  for (size_t i : order) {
    if (!tables[i].insert_sql.empty()) out.push_back({tables[i].insert_sql, tables[i].name});
    out.push_back({"DROP TABLE " + tables[i].staging, tables[i].name});
  }
  for (const std::string& m : matviews) out.push_back({"REFRESH MATERIALIZED VIEW " + m, m});
  out.push_back({"COMMIT", ""});
  return out;
}

}  // namespace

std::vector<size_t> ForeignKeyOrder(size_t n, const std::vector<std::pair<size_t, size_t>>& edges,
                                    std::vector<size_t>* cyclic) {
  std::vector<std::set<size_t>> parents(n);
  for (const auto& [parent, child] : edges) {
    if (parent < n && child < n && parent != child) parents[child].insert(parent);
  }
  std::vector<size_t> order;
  std::vector<bool> placed(n, false);
  // Each round places, in original order, every table whose parents are all placed.
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t i = 0; i < n; ++i) {
      if (placed[i]) continue;
      const bool ready = std::all_of(parents[i].begin(), parents[i].end(),
                                     [&](size_t p) { return placed[p]; });
      if (!ready) continue;
      placed[i] = true;
      order.push_back(i);
      progress = true;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (placed[i]) continue;
    order.push_back(i);
    if (cyclic != nullptr) cyclic->push_back(i);
  }
  return order;
}

Result<std::vector<std::string>> PgMatviewsToRefresh(
    PgConn& conn, const nlohmann::json& schema,
    const std::vector<std::pair<std::string, std::string>>& schema_map) {
  std::vector<std::string> candidates;
  if (!schema.is_object() || !schema.contains("objects") || !schema["objects"].is_array()) {
    return candidates;
  }
  for (const nlohmann::json& o : schema["objects"]) {
    if (!o.is_object() || o.value("type", "") != "MATERIALIZED VIEW") continue;
    std::string nsp = o.value("schema", ""), name = o.value("name", "");
    if (nsp.empty() || name.empty() || IsUnpopulatedMatview(schema, nsp, name)) continue;
    for (const auto& [from, to] : schema_map) {
      if (nsp == from) {
        nsp = to;
        break;
      }
    }
    candidates.push_back(QuoteQualified(nsp, name));
  }
  std::vector<std::string> out;
  if (candidates.empty()) return out;
  LD_ASSIGN_OR_RETURN(
      PgResult r,
      conn.Query("SELECT u.i FROM pg_catalog.unnest($1::pg_catalog.text[]) WITH ORDINALITY u(t, i) "
                 "JOIN pg_catalog.pg_class c ON c.oid = pg_catalog.to_regclass(u.t) "
                 "WHERE c.relkind = 'm' ORDER BY u.i",
                 {TextArray(candidates)}));
  for (int row = 0; row < PQntuples(r.get()); ++row) {
    out.push_back(candidates[std::strtoull(PQgetvalue(r.get(), row, 0), nullptr, 10) - 1]);
  }
  return out;
}

Status PgCommitAppendsTogether(PgConn& conn, const std::vector<PgStagedAppend>& tables,
                               const std::vector<std::string>& matviews, bool disable_triggers,
                               int64_t lock_timeout_ms) {
  if (tables.empty() && matviews.empty()) return Status::OK();
  LD_ASSIGN_OR_RETURN(auto edges, ForeignKeyEdges(conn, tables));
  std::vector<size_t> cyclic;
  const std::vector<size_t> order = ForeignKeyOrder(tables.size(), edges, &cyclic);
  Status s = Status::OK();
  std::string failed_table;
  for (const auto& [sql, table] :
       Statements(tables, order, matviews, disable_triggers, lock_timeout_ms)) {
    s = conn.ExecOne(sql);
    if (!s.ok()) {
      failed_table = table;
      break;
    }
  }
  if (s.ok()) return s;
  if (!conn.broken() && PQtransactionStatus(conn.raw()) != PQTRANS_IDLE) {
    conn.Exec("ROLLBACK").IgnoreError();
  }
  std::string hint;
  if (!cyclic.empty() && !disable_triggers) {
    std::vector<std::string> names;
    for (size_t i : cyclic) names.push_back(tables[i].name);
    hint = fmt::format(
        "; the foreign keys of {} form a cycle: make them DEFERRABLE, or load as a superuser "
        "with --disable-triggers",
        fmt::join(names, ", "));
  }
  if (s.message().find("session_replication_role") != std::string::npos) {
    hint = "; --disable-triggers needs a superuser (it sets session_replication_role)";
  }
  return Status(s.code(), fmt::format(
                              "moving the loaded rows into the existing tables failed{}: {}; "
                              "every table was rolled back, none is loaded{}",
                              failed_table.empty() ? "" : " at table " + failed_table,
                              s.message(), hint));
}

Status PgDropStaged(PgConn& conn, const std::vector<PgStagedAppend>& tables) {
  Status first = Status::OK();
  for (const PgStagedAppend& t : tables) {
    Status s = conn.ExecOne("DROP TABLE IF EXISTS " + t.staging);
    if (!s.ok() && first.ok()) first = s.WithContext("table " + t.name + ": dropping its staging table");
  }
  return first;
}

}  // namespace lakedump
