#include "source/postgres/pg_catalog.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

#include <nlohmann/json.hpp>

namespace lakedump {
namespace {

constexpr const char* kListTablesSql = R"SQL(
WITH RECURSIVE tree(root, relid) AS (
  SELECT c.oid, c.oid FROM pg_catalog.pg_class c WHERE c.relkind = 'p'
  UNION ALL
  SELECT t.root, i.inhrelid FROM tree t JOIN pg_catalog.pg_inherits i ON i.inhparent = t.relid
), part AS (
  SELECT t.root, sum(c.relpages)::int8 AS pages,
         sum(CASE WHEN c.reltuples < 0 THEN pg_catalog.pg_stat_get_live_tuples(c.oid)
                  ELSE c.reltuples END)::float8 AS tuples
  FROM tree t JOIN pg_catalog.pg_class c ON c.oid = t.relid
  WHERE c.relkind <> 'p' GROUP BY t.root
)
SELECT n.nspname, c.relname, c.relkind,
       CASE WHEN c.relkind = 'p' THEN coalesce(p.pages, 0) ELSE c.relpages END::int8,
       CASE WHEN c.relkind = 'p' THEN coalesce(p.tuples, 0)
            WHEN c.reltuples < 0 THEN pg_catalog.pg_stat_get_live_tuples(c.oid)
            ELSE c.reltuples END::float8,
       pg_catalog.current_setting('block_size')::int8
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN part p ON p.root = c.oid
WHERE (c.relkind IN ('r', 'p') OR (c.relkind = 'm' AND $1::bool AND c.relispopulated))
  AND NOT c.relispartition
  AND n.nspname NOT IN ('pg_catalog', 'information_schema')
  AND n.nspname !~ '^pg_toast' AND n.nspname !~ '^pg_temp_'
ORDER BY 1, 2)SQL";

int64_t ToInt(std::string_view text) {
  int64_t v = 0;
  std::from_chars(text.data(), text.data() + text.size(), v);
  return v;
}

// Maps one column and appends it to the plan's schema, fields and SELECT list.
void AddMappedColumn(const PgColumnInfo& info, const PgTypeOptions& options, PgTablePlan* plan) {
  PgColumnMapping m = MapPgColumn(info, options);
  if (m.text_fallback) plan->text_fallback_columns.push_back(info.name);
  if (!plan->select_list.empty()) plan->select_list += ", ";
  plan->select_list += m.select_expr;
  plan->select_exprs.push_back(m.select_expr);
  if (info.base_category == 'A' && info.array_as_text) {
    plan->shape_text_columns.push_back(info.name);
  }
  plan->plain_select_list =
      plan->plain_select_list && m.select_expr == QuoteIdent(info.name) && !info.generated;
  plan->fields.push_back(m.field);
  plan->definition.schema.AddColumn(m.column);
}

std::string CreateTableDdl(const TableRef& ref, const std::vector<std::string>& lines) {
  std::string ddl = "CREATE TABLE " + QuoteQualified(ref.schema, ref.name) + " (";
  for (size_t i = 0; i < lines.size(); ++i) ddl += (i == 0 ? "\n" : ",\n") + lines[i];
  return ddl + (lines.empty() ? ")" : "\n)");
}

}  // namespace

bool IsSimpleDefault(const std::string& expr) {
  // A hand-written matcher (std::regex is slow and trips GCC 12 warnings under ASan):
  //   core (::type)*   with core = number | (number) | 'string' | keyword | clock/uuid function.
  const std::string_view s = expr;
  const size_t n = s.size();
  size_t i = 0;
  auto digits = [&] {
    const size_t start = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') ++i;
    return i > start;
  };
  auto number = [&] {
    const size_t start = i;
    if (i < n && s[i] == '-') ++i;
    if (!digits()) {
      i = start;
      return false;
    }
    if (i < n && s[i] == '.' && !(++i, digits())) return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
      ++i;
      if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
      if (!digits()) return false;
    }
    return true;
  };
  if (n == 0) return false;
  if (s[0] == '\'') {
    for (i = 1;; ++i) {
      if (i >= n) return false;
      if (s[i] == '\'') {
        if (i + 1 < n && s[i + 1] == '\'') {
          ++i;
          continue;
        }
        ++i;
        break;
      }
    }
  } else if (s[0] == '(') {
    i = 1;
    if (!number() || i >= n || s[i] != ')') return false;
    ++i;
  } else if (!number()) {
    static constexpr std::string_view kWords[] = {
        "true", "false", "NULL", "CURRENT_TIMESTAMP", "CURRENT_DATE", "CURRENT_TIME",
        "LOCALTIMESTAMP", "LOCALTIME", "now()", "gen_random_uuid()", "clock_timestamp()",
        "statement_timestamp()", "transaction_timestamp()"};
    bool matched = false;
    for (std::string_view w : kWords) {
      if (s.substr(0, w.size()) == w && (w.size() == n || s[w.size()] == ':')) {
        i = w.size();
        matched = true;
        break;
      }
    }
    if (!matched) return false;
  }
  while (i < n) {  // casts: ::name, ::name(10,2), ::name[]
    if (s.substr(i, 2) != "::") return false;
    i += 2;
    const size_t start = i;
    while (i < n) {
      const unsigned char c = static_cast<unsigned char>(s[i]);
      if (!(std::isalnum(c) || c == '_' || c == ' ' || c == '.' || c == '"' || c >= 0x80)) break;
      ++i;
    }
    if (i == start) return false;
    if (i < n && s[i] == '(') {
      ++i;
      while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == ',' || s[i] == ' ')) ++i;
      if (i >= n || s[i] != ')') return false;
      ++i;
    }
    if (s.substr(i, 2) == "[]") i += 2;
  }
  return true;
}

namespace {

// The steps of PgCatalog::DescribeMany.

// A table's oid -> its index in the plans.
using PlanByOid = std::unordered_map<uint32_t, size_t>;

// Sets the oid, relkind and relfilenode of each plan whose table exists.
Result<PlanByOid> FindTables(PgConn& conn, std::vector<PgTablePlan>* plans) {
  nlohmann::json wanted = nlohmann::json::array();
  for (size_t i = 0; i < plans->size(); ++i) {
    const TableRef& ref = (*plans)[i].ref;
    wanted.push_back({{"i", i}, {"s", ref.schema}, {"t", ref.name}});
  }
  LD_ASSIGN_OR_RETURN(
      PgResult r,
      conn.Query("SELECT r.i, c.oid, c.relkind, c.relfilenode "
                 "FROM json_to_recordset($1::json) AS r(i int8, s text, t text) "
                 "JOIN pg_catalog.pg_namespace n ON n.nspname = r.s "
                 "JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = r.t "
                 "AND c.relkind IN ('r', 'p', 'm')",
                 {wanted.dump()}));
  PlanByOid by_oid;
  for (int row = 0; row < PQntuples(r.get()); ++row) {
    const size_t i = static_cast<size_t>(ToInt(PgValue(r.get(), row, 0)));
    PgTablePlan& plan = (*plans)[i];
    plan.oid = static_cast<uint32_t>(ToInt(PgValue(r.get(), row, 1)));
    plan.relkind = PgValue(r.get(), row, 2)[0];
    plan.relfilenode = std::string(PgValue(r.get(), row, 3));
    by_oid[plan.oid] = i;
  }
  return by_oid;
}

// The columns of the tables `oids` (a PostgreSQL array literal), in order.
Result<PgResult> QueryColumns(PgConn& conn, const std::string& oids) {
  const bool has_generated = conn.server_version() >= 120000;
  return conn.Query(
      fmt::format("SELECT a.attrelid, a.attname, a.atttypid, a.atttypmod, a.attnotnull, "
                  "pg_catalog.format_type(a.atttypid, a.atttypmod), "
                  "pg_catalog.pg_get_expr(d.adbin, d.adrelid), a.attidentity, {}, "
                  // A serial column: its default draws from a sequence the column owns.
                  "d.adbin IS NOT NULL AND pg_catalog.pg_get_serial_sequence("
                  "a.attrelid::regclass::text, a.attname) IS NOT NULL "
                  "FROM pg_catalog.pg_attribute a LEFT JOIN pg_catalog.pg_attrdef d "
                  "ON d.adrelid = a.attrelid AND d.adnum = a.attnum "
                  "WHERE a.attrelid = ANY($1::oid[]) AND a.attnum > 0 AND NOT a.attisdropped "
                  "ORDER BY a.attrelid, a.attnum",
                  has_generated ? "a.attgenerated" : "''"),
      {oids});
}

// The CREATE TABLE line of a column. `serial`: its default draws from a sequence it owns.
std::string ColumnDdlLine(const PgColumnInfo& info, const std::string& default_expr,
                          std::string_view identity, bool serial) {
  std::string line = "  " + QuoteIdent(info.name) + " " + info.format_type;
  serial = serial && (info.format_type == "integer" || info.format_type == "bigint" ||
                      info.format_type == "smallint");
  if (identity == "a" || identity == "d" || serial) {
    // Identity columns, and serial ones (restored as identity: the target's own sequence
    // is set past the loaded maximum, so new rows get fresh keys; docs/type-mapping.md).
    line += " GENERATED BY DEFAULT AS IDENTITY";
  } else if (!info.generated && !default_expr.empty() && IsSimpleDefault(default_expr)) {
    line += " DEFAULT " + default_expr;
  }
  if (info.not_null) line += " NOT NULL";
  return line;
}

// Keys, and the validated CHECK constraints (named: a load's error names them), as lines
// of the tables' CREATE TABLE. Foreign keys are left out: they span tables
// (docs/type-mapping.md).
Status AddConstraintLines(PgConn& conn, const std::string& oids, const PlanByOid& by_oid,
                          std::vector<std::vector<std::string>>* ddl_lines) {
  LD_ASSIGN_OR_RETURN(
      PgResult r,
      conn.Query("SELECT conrelid, pg_catalog.pg_get_constraintdef(oid), contype, conname "
                 "FROM pg_catalog.pg_constraint WHERE conrelid = ANY($1::oid[]) "
                 "AND (contype IN ('p', 'u') OR (contype = 'c' AND convalidated)) "
                 "ORDER BY conrelid, contype = 'c', contype, conname",
                 {oids}));
  for (int row = 0; row < PQntuples(r.get()); ++row) {
    const size_t t = by_oid.at(static_cast<uint32_t>(ToInt(PgValue(r.get(), row, 0))));
    std::string line = "  ";
    if (PgValue(r.get(), row, 2) == "c") {
      line += "CONSTRAINT " + QuoteIdent(std::string(PgValue(r.get(), row, 3))) + " ";
    }
    (*ddl_lines)[t].push_back(line + std::string(PgValue(r.get(), row, 1)));
  }
  return Status::OK();
}

// Key columns, structured (the loader rebuilds keys from these, not from the DDL), in the
// order of the key clauses of the DDL (contype, conname).
Status AddKeyColumns(PgConn& conn, const std::string& oids, const PlanByOid& by_oid,
                     std::vector<PgTablePlan>* plans) {
  LD_ASSIGN_OR_RETURN(
      PgResult r,
      conn.Query("SELECT k.conrelid, a.attname, k.contype, k.oid FROM pg_catalog.pg_constraint k "
                 "CROSS JOIN LATERAL unnest(k.conkey) WITH ORDINALITY AS u(attnum, ord) "
                 "JOIN pg_catalog.pg_attribute a ON a.attrelid = k.conrelid "
                 "AND a.attnum = u.attnum "
                 "WHERE k.conrelid = ANY($1::oid[]) AND k.contype IN ('p', 'u') "
                 "ORDER BY k.conrelid, k.contype, k.conname, k.oid, u.ord",
                 {oids}));
  std::string_view last_unique;
  for (int row = 0; row < PQntuples(r.get()); ++row) {
    const size_t t = by_oid.at(static_cast<uint32_t>(ToInt(PgValue(r.get(), row, 0))));
    TableDefinition& def = (*plans)[t].definition;
    if (PgValue(r.get(), row, 2) == "p") {
      def.primary_key.emplace_back(PgValue(r.get(), row, 1));
      continue;
    }
    const std::string_view key_oid = PgValue(r.get(), row, 3);
    if (def.unique_keys.empty() || key_oid != last_unique) def.unique_keys.emplace_back();
    last_unique = key_oid;
    def.unique_keys.back().emplace_back(PgValue(r.get(), row, 1));
  }
  return Status::OK();
}

}  // namespace


Result<std::vector<TableInfo>> PgCatalog::ListTables(PgConn& conn, bool materialized_views) {
  LD_ASSIGN_OR_RETURN(PgResult r,
                      conn.Query(kListTablesSql, {materialized_views ? "true" : "false"}));
  std::vector<TableInfo> tables;
  tables.reserve(PQntuples(r.get()));
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    TableInfo t;
    t.ref.schema = std::string(PgValue(r.get(), i, 0));
    t.ref.name = std::string(PgValue(r.get(), i, 1));
    const int64_t pages = ToInt(PgValue(r.get(), i, 3));
    double tuples = 0;
    std::string_view tv = PgValue(r.get(), i, 4);
    std::from_chars(tv.data(), tv.data() + tv.size(), tuples);
    t.estimated_bytes = static_cast<uint64_t>(std::max<int64_t>(pages, 0)) *
                        static_cast<uint64_t>(ToInt(PgValue(r.get(), i, 5)));
    t.estimated_rows = tuples > 0 ? static_cast<uint64_t>(tuples) : 0;
    tables.push_back(std::move(t));
  }
  return tables;
}

Status PgCatalog::LoadTypes(PgConn& conn) {
  LD_ASSIGN_OR_RETURN(PgResult r,
                      conn.Query("SELECT oid, typname, typtype, typcategory, typbasetype, "
                                 "typtypmod, typelem FROM pg_catalog.pg_type"));
  types_.clear();
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    TypeRow row;
    row.name = std::string(PgValue(r.get(), i, 1));
    row.typtype = PgValue(r.get(), i, 2).empty() ? 'b' : PgValue(r.get(), i, 2)[0];
    row.category = PgValue(r.get(), i, 3).empty() ? 'U' : PgValue(r.get(), i, 3)[0];
    row.basetype = static_cast<uint32_t>(ToInt(PgValue(r.get(), i, 4)));
    row.typmod = static_cast<int32_t>(ToInt(PgValue(r.get(), i, 5)));
    row.elem = static_cast<uint32_t>(ToInt(PgValue(r.get(), i, 6)));
    types_[static_cast<uint32_t>(ToInt(PgValue(r.get(), i, 0)))] = std::move(row);
  }
  return Status::OK();
}

Status PgCatalog::ResolveType(PgConn& conn, uint32_t type_oid, int32_t typmod,
                              std::string_view what, PgColumnInfo* info) {
  if (!types_.contains(type_oid)) LD_RETURN_IF_ERROR(LoadTypes(conn));
  // Domains read as their base type (the binary format is the base type's).
  for (int depth = 0; depth < 100; ++depth) {
    auto it = types_.find(type_oid);
    if (it == types_.end()) {
      return Status::NotFound(fmt::format("{}: type OID {} not in pg_type", what, type_oid));
    }
    if (it->second.typtype != 'd') {
      info->base_name = it->second.name;
      info->base_typtype = it->second.typtype;
      info->base_category = it->second.category;
      break;
    }
    if (typmod < 0) typmod = it->second.typmod;
    type_oid = it->second.basetype;
  }
  info->base_oid = type_oid;
  info->base_typmod = typmod;
  if (info->base_category == 'A') {
    // The element type, domains resolved too (an array's binary form carries the base type's
    // values); the column's typmod is the elements'.
    uint32_t elem = types_.at(type_oid).elem;
    for (int depth = 0; depth < 100 && elem != 0; ++depth) {
      auto it = types_.find(elem);
      if (it == types_.end()) break;
      if (it->second.typtype != 'd') {
        info->element_oid = elem;
        info->element_name = it->second.name;
        info->element_typtype = it->second.typtype;
        info->element_category = it->second.category;
        break;
      }
      elem = it->second.basetype;
    }
  }
  return Status::OK();
}

Status PgCatalog::CheckArrayShapes(PgConn& conn, const PgTablePlan& plan,
                                   const PgTypeOptions& options,
                                   std::vector<PgColumnInfo>* infos) {
  if (plan.relkind != 'q') {
    auto known = options.known_array_text.find(plan.ref.QualifiedName());
    if (known != options.known_array_text.end()) {
      for (PgColumnInfo& c : *infos) {
        c.array_as_text = c.base_category == 'A' &&
                          std::find(known->second.begin(), known->second.end(), c.name) !=
                              known->second.end();
      }
      return Status::OK();
    }
  }
  std::string select;
  std::vector<size_t> arrays;
  for (size_t i = 0; i < infos->size(); ++i) {
    const PgColumnInfo& c = (*infos)[i];
    if (c.base_category != 'A' || c.element_oid == 0) continue;
    const std::string q = QuoteIdent(c.name);
    select += fmt::format("{}pg_catalog.bool_or(pg_catalog.array_ndims({}) <> 1 OR "
                          "pg_catalog.array_lower({}, 1) <> 1)",
                          select.empty() ? "" : ", ", q, q);
    arrays.push_back(i);
  }
  if (arrays.empty()) return Status::OK();
  const std::string from = plan.relkind == 'q'
                               ? fmt::format("({}) AS q", plan.query)
                               : QuoteQualified(plan.ref.schema, plan.ref.name);
  LD_ASSIGN_OR_RETURN(PgResult r,
                      conn.Query(fmt::format("SELECT {} FROM {}", select, from)));
  for (size_t k = 0; k < arrays.size(); ++k) {
    (*infos)[arrays[k]].array_as_text = PgValue(r.get(), 0, static_cast<int>(k)) == "t";
  }
  return Status::OK();
}

Result<PgTablePlan> PgCatalog::DescribeQuery(PgConn& conn, const TableRef& ref,
                                             std::string_view sql,
                                             const PgTypeOptions& options) {
  const std::string name = ref.QualifiedName();
  std::string query(sql);
  while (!query.empty() && (query.back() == ';' || std::isspace(
                                static_cast<unsigned char>(query.back())))) {
    query.pop_back();
  }
  if (query.empty()) return Status::InvalidArgument(fmt::format("--query {}: empty SQL", ref.name));
  PgTablePlan plan;
  plan.ref = ref;
  plan.relkind = 'q';
  plan.query = query;
  // Describing a statement that does not parse aborts the transaction; the
  // savepoint keeps the snapshot's transaction alive.
  LD_RETURN_IF_ERROR(conn.Exec("SAVEPOINT lakedump_describe"));
  PgResult prepared(PQprepare(conn.raw(), "", query.c_str(), 0, nullptr));
  PgResult described;
  if (PQresultStatus(prepared.get()) == PGRES_COMMAND_OK) {
    described.reset(PQdescribePrepared(conn.raw(), ""));
  }
  const PGresult* failed = PQresultStatus(prepared.get()) != PGRES_COMMAND_OK ? prepared.get()
                           : PQresultStatus(described.get()) != PGRES_COMMAND_OK
                               ? described.get()
                               : nullptr;
  if (failed != nullptr) {
    Status s = conn.ErrorStatus(failed);
    if (!conn.broken()) {
      conn.Exec("ROLLBACK TO SAVEPOINT lakedump_describe; RELEASE SAVEPOINT lakedump_describe")
          .IgnoreError();
      s = Status::InvalidArgument(s.message());
    }
    return s.WithContext(fmt::format("--query {}", ref.name));
  }
  LD_RETURN_IF_ERROR(conn.Exec("RELEASE SAVEPOINT lakedump_describe"));
  const PGresult* d = described.get();
  if (PQnfields(d) == 0) {
    return Status::InvalidArgument(
        fmt::format("--query {}: the statement returns no columns (is it a SELECT?)", ref.name));
  }
  std::set<std::string> names;
  std::vector<std::string> ddl_lines;
  std::vector<PgColumnInfo> infos;
  for (int i = 0; i < PQnfields(d); ++i) {
    PgColumnInfo info;
    info.name = PQfname(d, i);
    if (!names.insert(info.name).second) {
      return Status::InvalidArgument(fmt::format(
          "--query {}: two result columns are named \"{}\"; give them distinct aliases "
          "(SELECT a.x AS a_x, b.x AS b_x ...)",
          ref.name, info.name));
    }
    const uint32_t type_oid = PQftype(d, i);
    const int32_t typmod = PQfmod(d, i);
    LD_ASSIGN_OR_RETURN(PgResult ft,
                        conn.Query("SELECT pg_catalog.format_type($1::oid, $2::int4)",
                                   {std::to_string(type_oid), std::to_string(typmod)}));
    info.format_type = std::string(PgValue(ft.get(), 0, 0));
    LD_RETURN_IF_ERROR(ResolveType(
        conn, type_oid, typmod, fmt::format("query {}, column \"{}\"", name, info.name), &info));
    ddl_lines.push_back("  " + QuoteIdent(info.name) + " " + info.format_type);
    infos.push_back(std::move(info));
  }
  LD_RETURN_IF_ERROR(CheckArrayShapes(conn, plan, options, &infos).WithContext(
      fmt::format("--query {}: checking its arrays' dimensions", ref.name)));
  for (const PgColumnInfo& info : infos) AddMappedColumn(info, options, &plan);
  plan.definition.ddl = CreateTableDdl(ref, ddl_lines);
  return plan;
}

Result<PgTablePlan> PgCatalog::Describe(PgConn& conn, const TableRef& ref,
                                        const PgTypeOptions& options) {
  LD_ASSIGN_OR_RETURN(std::vector<PgTablePlan> plans, DescribeMany(conn, {ref}, options));
  return std::move(plans.front());
}

Result<std::vector<PgTablePlan>> PgCatalog::DescribeMany(PgConn& conn,
                                                         const std::vector<TableRef>& refs,
                                                         const PgTypeOptions& options) {
  std::vector<PgTablePlan> plans(refs.size());
  if (refs.empty()) return plans;
  // Four catalog queries for all the tables, not four per table: with a
  // thousand tables the round trips are what a dump's planning costs.
  for (size_t i = 0; i < refs.size(); ++i) plans[i].ref = refs[i];
  LD_ASSIGN_OR_RETURN(const PlanByOid by_oid, FindTables(conn, &plans));
  std::string oids = "{";
  for (const PgTablePlan& plan : plans) {
    if (plan.oid == 0) {
      return Status::NotFound(fmt::format("table {} not found in the PostgreSQL database",
                                          plan.ref.QualifiedName()));
    }
    oids += (oids.size() > 1 ? "," : "") + std::to_string(plan.oid);
  }
  oids += "}";
  LD_ASSIGN_OR_RETURN(PgResult cols, QueryColumns(conn, oids));
  std::vector<std::vector<std::string>> ddl_lines(plans.size());
  std::vector<std::vector<PgColumnInfo>> infos(plans.size());
  for (int row = 0; row < PQntuples(cols.get()); ++row) {
    const size_t t = by_oid.at(static_cast<uint32_t>(ToInt(PgValue(cols.get(), row, 0))));
    PgTablePlan& plan = plans[t];
    auto cell = [&](int col) { return PgValue(cols.get(), row, col + 1); };
    PgColumnInfo info;
    info.name = std::string(cell(0));
    const uint32_t type_oid = static_cast<uint32_t>(ToInt(cell(1)));
    const int32_t typmod = static_cast<int32_t>(ToInt(cell(2)));
    info.not_null = cell(3) == "t";
    info.format_type = std::string(cell(4));
    LD_RETURN_IF_ERROR(ResolveType(
        conn, type_oid, typmod,
        fmt::format("table {}, column \"{}\"", plan.ref.QualifiedName(), info.name), &info));
    info.generated = !cell(7).empty();
    ddl_lines[t].push_back(ColumnDdlLine(info, /*default_expr=*/std::string(cell(5)),
                                         /*identity=*/cell(6), /*serial=*/cell(8) == "t"));
    infos[t].push_back(std::move(info));
  }
  for (size_t t = 0; t < plans.size(); ++t) {
    // Arrays are lists unless a value has several dimensions or bounds other than [1:n]
    // (one scan of the table, in the snapshot, when it has array columns).
    LD_RETURN_IF_ERROR(CheckArrayShapes(conn, plans[t], options, &infos[t]).WithContext(
        fmt::format("table {}: checking its arrays' dimensions", plans[t].ref.QualifiedName())));
    for (const PgColumnInfo& info : infos[t]) AddMappedColumn(info, options, &plans[t]);
  }
  LD_RETURN_IF_ERROR(AddConstraintLines(conn, oids, by_oid, &ddl_lines));
  LD_RETURN_IF_ERROR(AddKeyColumns(conn, oids, by_oid, &plans));
  for (size_t t = 0; t < plans.size(); ++t) {
    plans[t].definition.ddl = CreateTableDdl(plans[t].ref, ddl_lines[t]);
  }
  return plans;
}

}  // namespace lakedump
