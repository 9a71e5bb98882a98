#include "source/sqlite/sqlite_table_source.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>
#include <utility>

#include "base/ascii.h"
#include "source/sqlite/sqlite_types.h"
#include "source/sqlite/sqlite_values.h"

namespace lakedump {
namespace {

std::string ColumnString(sqlite3_stmt* st, int col) {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st, col));
  return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(st, col))) : std::string();
}

// The schema of a prepared query. `has_row`: the statement is on its first row,
// whose storage classes type the columns without a declared type.
Schema QuerySchema(sqlite3_stmt* st, bool has_row, bool lax_types) {
  Schema schema;
  std::unordered_set<std::string> used;
  const int n = sqlite3_column_count(st);
  for (int i = 0; i < n; ++i) {
    const char* name = sqlite3_column_name(st, i);
    std::string base = name && *name ? name : fmt::format("column{}", i + 1);
    std::string unique = base;
    for (int k = 2; !used.insert(AsciiLower(unique)).second; ++k) {
      unique = fmt::format("{}_{}", base, k);
    }
    Column c;
    c.name = std::move(unique);
    c.nullable = true;
    if (const char* decl = sqlite3_column_decltype(st, i)) {
      const SqliteTypeMapping m = MapSqliteDeclaredType(decl);
      c.type = lax_types && !m.exact ? LogicalType::Of(TypeId::kString) : m.type;
      c.source_type = decl;
    } else {
      c.type = TypeForStorageClass(has_row ? sqlite3_column_type(st, i) : SQLITE_NULL);
      c.source_type = "";
    }
    schema.AddColumn(std::move(c));
  }
  return schema;
}

}  // namespace

Result<SqliteTablePlan> PlanSqliteTable(sqlite3* db, const TableRef& ref, bool lax_types,
                                        const std::string* known_ddl) {
  const std::string ctx = ref.QualifiedName();
  SqliteTablePlan plan;
  if (known_ddl != nullptr) {
    plan.definition.ddl = *known_ddl;
  } else {
    LD_ASSIGN_OR_RETURN(
        SqliteStmt st,
        Prepare(db, "SELECT sql FROM main.sqlite_schema WHERE type = 'table' AND name = ?1", ctx));
    sqlite3_bind_text(st.get(), 1, ref.name.data(), static_cast<int>(ref.name.size()),
                      SQLITE_TRANSIENT);
    const int rc = sqlite3_step(st.get());
    if (rc == SQLITE_DONE) {
      return Status::NotFound(fmt::format("no table {} in the SQLite database", ctx));
    }
    if (rc != SQLITE_ROW) return SqliteStatus(db, rc, ctx);
    plan.definition.ddl = ColumnString(st.get(), 0);
  }
  std::vector<std::pair<int, std::string>> pk;
  std::unordered_set<std::string> names;
  std::string select_list;
  {
    LD_ASSIGN_OR_RETURN(SqliteStmt st,
                        Prepare(db,
                                "SELECT name, type, \"notnull\", pk, hidden "
                                "FROM pragma_table_xinfo(?1, 'main')",
                                ctx));
    sqlite3_bind_text(st.get(), 1, ref.name.data(), static_cast<int>(ref.name.size()),
                      SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
      if (sqlite3_column_int(st.get(), 4) == 1) continue;  // hidden column of a virtual table
      Column c;
      c.name = ColumnString(st.get(), 0);
      c.source_type = ColumnString(st.get(), 1);
      c.nullable = sqlite3_column_int(st.get(), 2) == 0;
      const SqliteTypeMapping m = MapSqliteDeclaredType(c.source_type);
      c.type = lax_types && !m.exact ? LogicalType::Of(TypeId::kString) : m.type;
      if (const int k = sqlite3_column_int(st.get(), 3); k > 0) pk.emplace_back(k, c.name);
      names.insert(AsciiLower(c.name));
      if (!select_list.empty()) select_list += ", ";
      select_list += QuoteIdentifier(c.name);
      plan.definition.schema.AddColumn(std::move(c));
    }
    if (rc != SQLITE_DONE) return SqliteStatus(db, rc, ctx);
  }
  std::sort(pk.begin(), pk.end());
  for (auto& [k, name] : pk) plan.definition.primary_key.push_back(std::move(name));

  const std::string from = " FROM main." + QuoteIdentifier(ref.name);
  // The rowid, under whichever of its three names no column has taken; a
  // WITHOUT ROWID table fails to prepare with every name.
  for (const char* alias : {"_rowid_", "rowid", "oid"}) {
    if (names.count(alias)) continue;
    sqlite3_stmt* probe = nullptr;
    const std::string sql = fmt::format("SELECT {}{}", alias, from);
    const int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &probe, nullptr);
    sqlite3_finalize(probe);
    if (rc == SQLITE_OK) plan.rowid_name = alias;
    break;
  }
  plan.select_sql = "SELECT " + select_list;
  if (!plan.rowid_name.empty()) plan.select_sql += ", " + plan.rowid_name;
  plan.select_sql += from;
  return plan;
}

Result<std::vector<bool>> FindMismatchedColumns(sqlite3* db, const SqliteTablePlan& plan) {
  const Schema& schema = plan.definition.schema;
  const size_t n = schema.num_columns();
  std::vector<bool> mismatched(n, false);
  std::vector<ColumnVector> scratch;
  size_t to_check = 0;
  for (const Column& c : schema.columns()) {
    scratch.emplace_back(c.type, true);
    if (c.type.id != TypeId::kString) ++to_check;
  }
  LD_ASSIGN_OR_RETURN(SqliteStmt st, Prepare(db, plan.select_sql, "type scan"));
  std::string why;
  int rc = SQLITE_DONE;
  uint64_t rows = 0;
  while (to_check > 0 && (rc = sqlite3_step(st.get())) == SQLITE_ROW) {
    for (size_t i = 0; i < n; ++i) {
      if (mismatched[i] || schema.column(i).type.id == TypeId::kString) continue;
      if (!DecodeSqliteValue(st.get(), static_cast<int>(i), true, &scratch[i], &why)) {
        mismatched[i] = true;
        --to_check;
      }
    }
    if (++rows % 4096 == 0) {
      for (auto& c : scratch) c.Clear();
    }
  }
  if (to_check > 0 && rc != SQLITE_DONE) return SqliteStatus(db, rc, "type scan");
  return mismatched;
}

Result<std::vector<uint8_t>> PlanExactValues(sqlite3* db, const SqliteTablePlan& plan,
                                             const Schema& schema, bool lax_types) {
  const size_t n = schema.num_columns();
  std::vector<uint8_t> may_drift(n, 0);
  std::vector<ColumnVector> scratch;
  bool any = false;
  for (size_t i = 0; i < n; ++i) {
    const Column& c = schema.column(i);
    may_drift[i] = SqliteColumnMayDrift(c.source_type, c.type, lax_types) ? 1 : 0;
    any = any || may_drift[i] != 0;
    scratch.emplace_back(c.type, true);
  }
  if (!any) return std::vector<uint8_t>();
  LD_ASSIGN_OR_RETURN(SqliteStmt st,
                      Prepare(db, fmt::format("{} LIMIT {}", plan.select_sql, kExactValuesScanRows + 1),
                              "exact values scan"));
  std::string why;
  int rc;
  uint64_t rows = 0;
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
    if (++rows > kExactValuesScanRows) return may_drift;  // too many rows to look at all
    for (size_t i = 0; i < n; ++i) {
      if (may_drift[i] == 0) continue;
      sqlite3_value* v = sqlite3_column_value(st.get(), static_cast<int>(i));
      // A value the typed column refuses fails the read itself, as without exact values.
      if (DecodeSqliteValue(v, true, &scratch[i], &why) && !SqliteValueRoundTrips(v, scratch[i])) {
        return may_drift;
      }
    }
    if (rows % 4096 == 0) {
      for (auto& c : scratch) c.Clear();
    }
  }
  if (rc != SQLITE_DONE) return SqliteStatus(db, rc, "exact values scan");
  return std::vector<uint8_t>();
}

Result<TableDefinition> DescribeSqliteQuery(sqlite3* db, const TableInfo& query, bool lax_types) {
  const std::string ctx = "query " + query.ref.name;
  LD_ASSIGN_OR_RETURN(SqliteStmt st, Prepare(db, query.query, ctx));
  const int rc = sqlite3_step(st.get());
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return SqliteStatus(db, rc, ctx);
  TableDefinition def;
  def.schema = QuerySchema(st.get(), rc == SQLITE_ROW, lax_types);
  return def;
}

Result<std::unique_ptr<SqliteTableSource>> SqliteTableSource::Open(
    std::shared_ptr<SqliteConnection> conn, const WorkUnit& unit, bool lax_types,
    const std::vector<bool>& as_string, const std::vector<uint8_t>& exact,
    const SqliteTablePlan* known_plan) {
  const bool is_query = !unit.table.query.empty();
  std::string label = is_query ? "query " + unit.table.ref.name : unit.table.ref.QualifiedName();
  Schema schema;
  SqliteStmt stmt;
  bool has_rowid = false, pending = false, done = false;
  {
    std::lock_guard<std::mutex> lock(conn->mu);
    if (is_query) {
      LD_ASSIGN_OR_RETURN(stmt, Prepare(conn->db, unit.table.query, label));
      const int rc = sqlite3_step(stmt.get());
      if (rc != SQLITE_ROW && rc != SQLITE_DONE) return SqliteStatus(conn->db, rc, label);
      pending = rc == SQLITE_ROW;
      done = rc == SQLITE_DONE;
      schema = QuerySchema(stmt.get(), pending, lax_types);
    } else {
      SqliteTablePlan plan;
      if (known_plan != nullptr) {
        plan = *known_plan;
      } else {
        LD_ASSIGN_OR_RETURN(plan, PlanSqliteTable(conn->db, unit.table.ref, lax_types));
      }
      std::string sql = plan.select_sql;
      if (!unit.range_predicate.empty()) sql += " WHERE " + unit.range_predicate;
      LD_ASSIGN_OR_RETURN(stmt, Prepare(conn->db, sql, label));
      std::vector<Column> columns = plan.definition.schema.columns();
      for (size_t i = 0; i < as_string.size() && i < columns.size(); ++i) {
        if (as_string[i]) columns[i].type = LogicalType::Of(TypeId::kString);
      }
      schema = Schema(std::move(columns));
      if (!exact.empty()) LD_RETURN_IF_ERROR(AddSqliteValuesColumn(&schema).WithContext(label));
      has_rowid = !plan.rowid_name.empty();
    }
    if (done) stmt.reset();  // finalize while the lock is held
  }
  std::unique_ptr<SqliteTableSource> source(new SqliteTableSource(std::move(conn), label));
  source->schema_ = std::move(schema);
  source->stmt_ = std::move(stmt);
  source->has_rowid_ = has_rowid;
  source->lax_ = lax_types;
  source->drifts_ = is_query ? std::vector<uint8_t>() : exact;
  source->columns_ = source->schema_.num_columns() - (source->drifts_.empty() ? 0 : 1);
  source->pending_row_ = pending;
  source->done_ = done;
  return source;
}

SqliteTableSource::~SqliteTableSource() {
  if (stmt_) {
    std::lock_guard<std::mutex> lock(conn_->mu);
    stmt_.reset();
  }
}

Status SqliteTableSource::Next(size_t max_rows, RowBatch* batch) {
  if (batch->num_columns() == schema_.num_columns() && batch->Validate(schema_).ok()) {
    batch->Clear();
  } else {
    batch->Reset(schema_);
  }
  if (done_ || max_rows == 0) return Status::OK();
  // Room for a full batch up front, so appends do not grow vectors row by row
  // (capacity survives Clear(), so this allocates once per source).
  const size_t expect = std::min<size_t>(max_rows, 1 << 16);
  for (size_t i = 0; i < batch->num_columns(); ++i) batch->column(i).Reserve(expect);
  std::lock_guard<std::mutex> lock(conn_->mu);
  sqlite3_stmt* st = stmt_.get();
  for (size_t n = 0; n < max_rows; ++n) {
    if (pending_row_) {
      pending_row_ = false;
    } else {
      const int rc = sqlite3_step(st);
      if (rc == SQLITE_DONE) {
        done_ = true;
        stmt_.reset();  // releases the statement's resources early, under the lock
        break;
      }
      if (rc != SQLITE_ROW) return SqliteStatus(conn_->db, rc, label_);
    }
    ++rows_read_;
    LD_RETURN_IF_ERROR(DecodeRow(batch, rows_read_));
  }
  return Status::OK();
}

Status SqliteTableSource::DecodeRow(RowBatch* batch, uint64_t ordinal) {
  sqlite3_stmt* st = stmt_.get();
  const int n = static_cast<int>(columns_);
  const bool keep_exact = !drifts_.empty();
  cell_.clear();
  for (int i = 0; i < n; ++i) {
    const size_t col = static_cast<size_t>(i);
    sqlite3_value* v = sqlite3_column_value(st, i);
    // A column whose values are kept exactly takes BLOBs as text too: \x-hex, the exact
    // value in the values column.
    const bool drifts = keep_exact && drifts_[col] != 0;
    ColumnVector& out = batch->column(col);
    if (DecodeSqliteValue(v, lax_ || drifts, &out, &why_)) {
      if (drifts && !SqliteValueRoundTrips(v, out)) AppendSqliteValue(col, v, &cell_);
      continue;
    }
    const Column& c = schema_.column(col);
    const std::string where = has_rowid_ ? fmt::format("rowid {}", sqlite3_column_int64(st, n))
                                         : fmt::format("row {}", ordinal);
    return Status::InvalidArgument(fmt::format("{}: column \"{}\" ({}) at {}: {}", label_, c.name,
                                               c.type.ToString(), where, why_));
  }
  if (keep_exact) {
    ColumnVector& values = batch->column(columns_);
    if (cell_.empty()) {
      values.AppendNull();
    } else {
      values.AppendBytes(cell_);
    }
  }
  return Status::OK();
}

}  // namespace lakedump
