#include "load/sqlite/sqlite_target.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "base/ascii.h"
#include "load/sqlite/sqlite_guard.h"
#include "load/sqlite/sqlite_load_types.h"
#include "load/sqlite/sqlite_schema_replay.h"
#include "source/sqlite/sqlite_connection.h"
#include "source/sqlite/sqlite_values.h"

namespace lakedump {
namespace {

struct SqliteCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};

class SqliteTarget;

// How a sink binds a batch: per column of the table's schema, its INSERT parameter (0: a column
// the table generates, not inserted) and its affinity in the table; whether the batch carries
// the exact values (TablePlan::sqlite_values) after them.
struct SinkLayout {
  std::vector<int> param;
  std::vector<SqliteAffinity> affinity;
  bool exact_values = false;
  size_t batch_columns() const { return param.size() + (exact_values ? 1 : 0); }
};

class SqliteSink final : public TableSink {
 public:
  SqliteSink(SqliteTarget* target, std::string table, SqliteStmt insert, SinkLayout layout)
      : target_(target),
        table_(std::move(table)),
        insert_(std::move(insert)),
        layout_(std::move(layout)),
        scratch_(layout_.param.size()) {}
  ~SqliteSink() override;
  Status Append(const RowBatch& batch) override;
  Result<uint64_t> Finish() override { return rows_; }

 private:
  SqliteTarget* target_;
  std::string table_;
  SqliteStmt insert_;  // finalized under the target's mutex
  SinkLayout layout_;
  std::vector<std::string> scratch_;
  uint64_t rows_ = 0;
};

class SqliteTarget final : public TargetDatabase {
 public:
  SqliteTarget(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}
  ~SqliteTarget() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!sqlite3_get_autocommit(db_.get())) (void)Exec("ROLLBACK", "close");
    (void)Exec(fmt::format("PRAGMA synchronous = {}", synchronous_), "close");
  }

  Status Init(int busy_timeout_ms) {
    std::lock_guard<std::mutex> lock(mu_);
    sqlite3_busy_timeout(db_.get(), busy_timeout_ms);
    auto st = Prepare(db_.get(), "PRAGMA synchronous", path_);
    if (!st.ok()) {
      return st.status().code() == Code::kInvalidArgument
                 ? Status::InvalidArgument(fmt::format("{} is not a SQLite database", path_))
                 : st.status();
    }
    const int rc = sqlite3_step(st->get());
    if (rc != SQLITE_ROW) {
      Status s = SqliteStatus(db_.get(), rc, path_);
      return s.code() == Code::kInvalidArgument
                 ? Status::InvalidArgument(fmt::format("{} is not a SQLite database", path_))
                 : s;
    }
    synchronous_ = sqlite3_column_int(st->get(), 0);
    st->reset();
    // Reading the schema fails here, not mid-load, for a file that is no
    // database.
    LD_RETURN_IF_ERROR(Exec("SELECT count(*) FROM sqlite_schema", path_));
    LD_RETURN_IF_ERROR(Exec("PRAGMA synchronous = OFF", path_));
    return Exec("PRAGMA cache_size = -65536", path_);
  }

  std::string Describe() const override { return "sqlite:" + path_; }
  int max_sinks_per_table() const override { return 1; }
  bool takes_sqlite_values() const override { return true; }
  bool has_schemas() const override { return false; }

  Status PrepareTable(const TablePlan& plan) override;
  Result<std::unique_ptr<TableSink>> OpenSink(const TablePlan& plan) override;
  Status CommitTable(const TablePlan& plan) override;
  Status AbortTable(const TablePlan& plan) override;
  Status RestoreSchemaBefore(const SchemaRestorePlan& plan, SchemaRestoreOutcome* out) override {
    std::lock_guard<std::mutex> lock(mu_);
    return CreateRecordedSqliteTables(db_.get(), plan, out);
  }
  Status RestoreSchemaAfter(const SchemaRestorePlan& plan, SchemaRestoreOutcome* out) override {
    std::lock_guard<std::mutex> lock(mu_);
    return ReplaySqliteSchema(db_.get(), plan, out);
  }

  // Inserts every row of the batch in one transaction. `first_row` numbers
  // rows in errors.
  Status InsertBatch(sqlite3_stmt* insert, const std::string& table, const RowBatch& batch,
                     uint64_t first_row, const SinkLayout& layout,
                     std::vector<std::string>* scratch);
  void Finalize(SqliteStmt stmt) {
    std::lock_guard<std::mutex> lock(mu_);
    stmt.reset();
  }

 private:
  // REQUIRES: mu_ held (for every *Locked and Exec). One statement only (ExecOneStatement).
  Status Exec(const std::string& sql, std::string_view context) {
    return ExecOneStatement(db_.get(), sql, context);
  }
  Result<bool> ExistsLocked(const std::string& name);
  // Every column (generated ones too; `generated` true: only those), in order.
  Result<std::vector<std::string>> ColumnsLocked(const std::string& name, bool generated = false);
  // Binds row `r` of `batch` to `insert`.
  int BindRow(sqlite3_stmt* insert, const RowBatch& batch, size_t r, const SinkLayout& layout,
              std::vector<std::string>* scratch, std::string* why);
  // Lower-case column name -> declared type.
  Result<std::map<std::string, std::string>> DeclaredTypesLocked(const std::string& name);
  Status CreateStagingLocked(const TablePlan& plan, const std::string& staging);
  bool OwnsLocked(const TablePlan& plan) const {
    auto it = in_progress_.find(AsciiLower(plan.target.name));
    return it != in_progress_.end() && it->second == plan.source.QualifiedName();
  }

  const std::string path_;
  std::unique_ptr<sqlite3, SqliteCloser> db_;
  std::mutex mu_;
  int synchronous_ = 2;                             // the database's own level
  std::map<std::string, std::string> in_progress_;  // GUARDED_BY(mu_): lower name -> source
  std::set<std::string> loaded_;                    // GUARDED_BY(mu_): lower names
  std::vector<SqliteExactValue> exact_;             // GUARDED_BY(mu_): BindRow's scratch
};

SqliteSink::~SqliteSink() { target_->Finalize(std::move(insert_)); }

Status SqliteSink::Append(const RowBatch& batch) {
  if (batch.num_columns() != layout_.batch_columns()) {
    return Status::Internal(fmt::format("table {}: batch of {} columns for {} columns", table_,
                                        batch.num_columns(), layout_.batch_columns()));
  }
  LD_RETURN_IF_ERROR(
      target_->InsertBatch(insert_.get(), table_, batch, rows_, layout_, &scratch_));
  rows_ += batch.num_rows();
  return Status::OK();
}

Result<bool> SqliteTarget::ExistsLocked(const std::string& name) {
  LD_ASSIGN_OR_RETURN(SqliteStmt st,
                      Prepare(db_.get(),
                              "SELECT 1 FROM sqlite_schema WHERE type IN ('table', 'view') AND "
                              "name = ?1 COLLATE NOCASE",
                              name));
  sqlite3_bind_text(st.get(), 1, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
  const int rc = sqlite3_step(st.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteStatus(db_.get(), rc, name);
}

Result<std::vector<std::string>> SqliteTarget::ColumnsLocked(const std::string& name,
                                                              bool generated) {
  // hidden: 1 a virtual table's hidden column, 2 and 3 generated (VIRTUAL, STORED).
  LD_ASSIGN_OR_RETURN(
      SqliteStmt st,
      Prepare(db_.get(),
              generated ? "SELECT name FROM pragma_table_xinfo(?1) WHERE hidden IN (2, 3)"
                        : "SELECT name FROM pragma_table_xinfo(?1) WHERE hidden <> 1",
              name));
  sqlite3_bind_text(st.get(), 1, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
  std::vector<std::string> out;
  int rc;
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st.get(), 0));
    out.emplace_back(p ? p : "");
  }
  if (rc != SQLITE_DONE) return SqliteStatus(db_.get(), rc, name);
  return out;
}

Result<std::map<std::string, std::string>> SqliteTarget::DeclaredTypesLocked(
    const std::string& name) {
  LD_ASSIGN_OR_RETURN(SqliteStmt st,
                      Prepare(db_.get(), "SELECT name, type FROM pragma_table_info(?1)", name));
  sqlite3_bind_text(st.get(), 1, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
  std::map<std::string, std::string> out;
  int rc;
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
    const auto* n = reinterpret_cast<const char*>(sqlite3_column_text(st.get(), 0));
    const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st.get(), 1));
    out[AsciiLower(n ? n : "")] = t ? t : "";
  }
  if (rc != SQLITE_DONE) return SqliteStatus(db_.get(), rc, name);
  return out;
}

Status SqliteTarget::CreateStagingLocked(const TablePlan& plan, const std::string& staging) {
  const Schema& schema = plan.definition.schema;
  const std::string quoted = QuoteIdentifier(staging);
  const bool from_sqlite = plan.source_kind == "sqlite";
  if (from_sqlite && !plan.definition.ddl.empty() && !plan.trust_schema) {
    notes().SkipSchemaItems(1);  // the recorded CREATE TABLE (its defaults, checks...)
  } else if (from_sqlite && !plan.definition.ddl.empty()) {
    // The source's own statement: identical declared types and constraints -- if it is one
    // statement that creates exactly the staging table with the dumped columns (no generated
    // ones, say), and does nothing else: the authorizer denies any other action.
    if (auto ddl = RenameTableInDdl(plan.definition.ddl, staging)) {
      Status created;
      std::string denied;
      {
        SchemaAuthorizer guard(db_.get(), staging);
        created = Exec(*ddl, staging);
        denied = guard.denied();
      }
      if (created.ok()) {
        LD_ASSIGN_OR_RETURN(std::vector<std::string> cols, ColumnsLocked(staging));
        bool same = cols.size() == schema.num_columns();
        for (size_t i = 0; same && i < cols.size(); ++i) same = cols[i] == schema.column(i).name;
        if (same) return Status::OK();
        LD_RETURN_IF_ERROR(Exec("DROP TABLE " + quoted, staging));
      } else {
        notes().Warn(fmt::format(
            "table {}: its recorded CREATE TABLE was not applied ({}{}); created from the "
            "column types instead",
            plan.target.name, created.message(), denied.empty() ? "" : ", denied: " + denied));
      }
    }
  }
  SchemaAuthorizer guard(db_.get(), staging);
  return Exec(SqliteCreateTable(quoted, schema, plan.definition.primary_key, from_sqlite),
              plan.target.name);
}

Status SqliteTarget::PrepareTable(const TablePlan& plan) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string& name = plan.target.name;
  const std::string key = AsciiLower(name);
  if (plan.definition.schema.num_columns() == 0) {
    return Status::InvalidArgument(
        fmt::format("table {}: SQLite tables need at least one column", name));
  }
  if (in_progress_.count(key) || loaded_.count(key)) {
    return Status::InvalidArgument(
        fmt::format("SQLite table \"{}\" is loaded twice in this run (SQLite "
                    "has one schema, so tables "
                    "of the same name in different schemas collide); load them "
                    "with separate --tables "
                    "runs into separate databases",
                    name));
  }
  LD_ASSIGN_OR_RETURN(bool exists, ExistsLocked(name));
  if (exists && plan.if_exists == LoadIfExists::kFail) {
    return Status::AlreadyExists(
        fmt::format("table \"{}\" already exists in {}; use --if-exists "
                    "replace or append, or leave it out "
                    "with --exclude",
                    name, path_));
  }
  if (exists && plan.if_exists == LoadIfExists::kAppend) {
    LD_ASSIGN_OR_RETURN(std::vector<std::string> cols, ColumnsLocked(name));
    std::set<std::string> have;
    for (const std::string& c : cols) have.insert(AsciiLower(c));
    for (const Column& c : plan.definition.schema.columns()) {
      if (!have.count(AsciiLower(c.name))) {
        return Status::InvalidArgument(
            fmt::format("cannot append to table \"{}\": it has no column \"{}\"", name, c.name));
      }
    }
  }
  const std::string staging = SqliteStagingName(name);
  // A staging table left by a killed run is garbage.
  LD_RETURN_IF_ERROR(Exec("DROP TABLE IF EXISTS " + QuoteIdentifier(staging), staging));
  in_progress_[key] = plan.source.QualifiedName();
  return CreateStagingLocked(plan, staging);
}

Result<std::unique_ptr<TableSink>> SqliteTarget::OpenSink(const TablePlan& plan) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!OwnsLocked(plan)) {
    return Status::Internal(
        fmt::format("table {}: OpenSink before PrepareTable", plan.target.name));
  }
  const Schema& schema = plan.definition.schema;
  const std::string staging = SqliteStagingName(plan.target.name);
  // A generated column is computed by the table (its dumped values are not inserted).
  LD_ASSIGN_OR_RETURN(std::vector<std::string> generated_list, ColumnsLocked(staging, true));
  std::set<std::string> generated;
  for (const std::string& g : generated_list) generated.insert(AsciiLower(g));
  LD_ASSIGN_OR_RETURN(auto declared, DeclaredTypesLocked(staging));
  SinkLayout layout;
  layout.exact_values = plan.sqlite_values;
  std::string cols, params;
  int next = 0;
  for (const Column& c : schema.columns()) {
    layout.affinity.push_back(SqliteAffinityOf(declared[AsciiLower(c.name)]));
    if (generated.count(AsciiLower(c.name))) {
      layout.param.push_back(0);
      continue;
    }
    layout.param.push_back(++next);
    cols += (next > 1 ? ", " : "") + QuoteIdentifier(c.name);
    params += fmt::format("{}?{}", next > 1 ? ", " : "", next);
  }
  const std::string sql = next == 0 ? fmt::format("INSERT INTO {} DEFAULT VALUES",
                                                  QuoteIdentifier(staging))
                                    : fmt::format("INSERT INTO {} ({}) VALUES ({})",
                                                  QuoteIdentifier(staging), cols, params);
  LD_ASSIGN_OR_RETURN(SqliteStmt st, Prepare(db_.get(), sql, plan.target.name));
  return std::unique_ptr<TableSink>(
      new SqliteSink(this, plan.target.name, std::move(st), std::move(layout)));
}

int SqliteTarget::BindRow(sqlite3_stmt* insert, const RowBatch& batch, size_t r,
                          const SinkLayout& layout, std::vector<std::string>* scratch,
                          std::string* why) {
  const size_t n = layout.param.size();
  for (size_t col = 0; col < n; ++col) {
    if (layout.param[col] == 0) continue;
    const int rc = BindSqliteValue(insert, layout.param[col], batch.column(col), r,
                                   layout.affinity[col], &(*scratch)[col]);
    if (rc != SQLITE_OK) {
      *why = fmt::format("column {}", col + 1);
      return rc;
    }
  }
  if (!layout.exact_values || batch.column(n).IsNull(r)) return SQLITE_OK;
  const ColumnVector& values = batch.column(n);
  // The exact values: what the typed columns could not give back (sqlite_values.h).
  Status parsed = ParseSqliteValues(values.BytesAt(r), n, &exact_);
  if (!parsed.ok()) {
    *why = parsed.message();
    return SQLITE_MISMATCH;
  }
  for (const SqliteExactValue& v : exact_) {
    if (layout.param[v.column] == 0) continue;
    const int rc = BindSqliteExactValue(insert, layout.param[v.column], v);
    if (rc != SQLITE_OK) {
      *why = fmt::format("column {}", v.column + 1);
      return rc;
    }
  }
  return SQLITE_OK;
}

Status SqliteTarget::InsertBatch(sqlite3_stmt* insert, const std::string& table,
                                 const RowBatch& batch, uint64_t first_row,
                                 const SinkLayout& layout, std::vector<std::string>* scratch) {
  std::lock_guard<std::mutex> lock(mu_);
  sqlite3* db = db_.get();
  LD_RETURN_IF_ERROR(Exec("BEGIN", table));
  const size_t rows = batch.num_rows();
  Status status;
  std::string why;
  for (size_t r = 0; r < rows && status.ok(); ++r) {
    int rc = BindRow(insert, batch, r, layout, scratch, &why);
    if (rc == SQLITE_MISMATCH) {
      // A malformed exact-values cell: hostile or damaged input, nothing of the table stays.
      status = Status::InvalidArgument(
          fmt::format("table {} row {}: {}", table, first_row + r + 1, why));
      break;
    }
    if (rc != SQLITE_OK) {
      status = SqliteStatus(db, rc, fmt::format("table {} row {} {}", table, first_row + r + 1, why));
      break;
    }
    rc = sqlite3_step(insert);
    if (rc != SQLITE_DONE) {
      status = SqliteStatus(db, rc, fmt::format("table {} row {}", table, first_row + r + 1));
    }
    sqlite3_reset(insert);
  }
  sqlite3_clear_bindings(insert);
  if (!status.ok()) {
    (void)Exec("ROLLBACK", table);
    return status;
  }
  Status commit = Exec("COMMIT", table);
  if (!commit.ok()) (void)Exec("ROLLBACK", table);
  return commit;
}

Status SqliteTarget::CommitTable(const TablePlan& plan) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!OwnsLocked(plan)) {
    return Status::Internal(
        fmt::format("table {}: CommitTable before PrepareTable", plan.target.name));
  }
  const std::string& name = plan.target.name;
  const std::string quoted = QuoteIdentifier(name);
  const std::string staging = QuoteIdentifier(SqliteStagingName(name));
  // The commit runs at the database's own durability; loading ran with OFF.
  LD_RETURN_IF_ERROR(Exec(fmt::format("PRAGMA synchronous = {}", synchronous_), name));
  // Keep views and triggers naming the table as they are across the rename.
  LD_RETURN_IF_ERROR(Exec("PRAGMA legacy_alter_table = ON", name));
  Status s = Exec("BEGIN IMMEDIATE", name);
  if (s.ok()) {
    auto exists = ExistsLocked(name);
    if (!exists.ok()) {
      s = exists.status();
    } else if (*exists && plan.if_exists == LoadIfExists::kFail) {
      s = Status::AlreadyExists(
          fmt::format("table \"{}\" was created in {} while it loaded", name, path_));
    } else if (*exists && plan.if_exists == LoadIfExists::kAppend) {
      std::string cols;
      auto generated = ColumnsLocked(name, true);
      std::set<std::string> skip;
      if (generated.ok()) {
        for (const std::string& g : *generated) skip.insert(AsciiLower(g));
      }
      for (const Column& c : plan.definition.schema.columns()) {
        if (skip.count(AsciiLower(c.name))) continue;  // the table computes it
        if (!cols.empty()) cols += ", ";
        cols += QuoteIdentifier(c.name);
      }
      s = Exec(fmt::format("INSERT INTO {} ({}) SELECT {} FROM {}", quoted, cols, cols, staging),
               name);
      if (s.ok()) s = Exec("DROP TABLE " + staging, name);
    } else {
      if (*exists) s = Exec("DROP TABLE " + quoted, name);
      if (s.ok()) s = Exec(fmt::format("ALTER TABLE {} RENAME TO {}", staging, quoted), name);
    }
    if (s.ok()) s = Exec("COMMIT", name);
    if (!s.ok() && !sqlite3_get_autocommit(db_.get())) (void)Exec("ROLLBACK", name);
  }
  (void)Exec("PRAGMA legacy_alter_table = OFF", name);
  (void)Exec("PRAGMA synchronous = OFF", name);
  LD_RETURN_IF_ERROR(s);
  in_progress_.erase(AsciiLower(name));
  loaded_.insert(AsciiLower(name));
  // Statistics for the query planner, best effort: the rows are committed already.
  (void)Exec("ANALYZE " + quoted, name);
  return Status::OK();
}

Status SqliteTarget::AbortTable(const TablePlan& plan) {
  std::lock_guard<std::mutex> lock(mu_);
  Status s;
  if (!sqlite3_get_autocommit(db_.get())) s = Exec("ROLLBACK", plan.target.name);
  if (!OwnsLocked(plan)) return s;  // nothing of ours to remove
  Status drop = Exec("DROP TABLE IF EXISTS " + QuoteIdentifier(SqliteStagingName(plan.target.name)),
                     plan.target.name);
  in_progress_.erase(AsciiLower(plan.target.name));
  return s.ok() ? drop : s;
}

}  // namespace

std::string SqliteStagingName(std::string_view table) {
  return "_lakedump_load_" + std::string(table);
}

Result<std::unique_ptr<TargetDatabase>> OpenSqliteTarget(const std::string& path,
                                                         const SqliteTargetOptions& options) {
  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
    sqlite3_close_v2(raw);
    return Status::IOError(fmt::format("cannot open SQLite database {}: {}", path, msg));
  }
  auto target = std::make_unique<SqliteTarget>(path, raw);
  LD_RETURN_IF_ERROR(target->Init(options.busy_timeout_ms));
  return std::unique_ptr<TargetDatabase>(std::move(target));
}

}  // namespace lakedump
