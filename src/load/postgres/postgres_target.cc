#include "load/postgres/postgres_target.h"

#include <fmt/format.h>

#include <xxhash.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <thread>

#include "base/units.h"
#include "load/postgres/pg_append_together.h"
#include "load/postgres/pg_copy_encoder.h"
#include "load/postgres/pg_large_object_restore.h"
#include "load/postgres/pg_table_layout.h"
#include "load/postgres/pg_schema_restore.h"
#include "load/postgres/postgres_table_sink.h"
#include "source/postgres/pg_connection_pool.h"

namespace lakedump {
namespace {

struct TargetColumn {
  std::string name;
  std::string format_type;
  PgTargetType type;
  bool generated = false;  // GENERATED ALWAYS AS (...) STORED: COPY FROM refuses it
};

// Columns of an existing relation with their types, domains resolved to the base type.
Result<std::vector<TargetColumn>> DescribeColumns(PgConn& conn, const std::string& qualified) {
  // attgenerated exists from PostgreSQL 12 on.
  const char* generated = conn.server_version() >= 120000 ? "attgenerated::text" : "''";
  LD_ASSIGN_OR_RETURN(PgResult r, conn.Query(fmt::format(R"SQL(
WITH RECURSIVE a AS (
  SELECT attnum, attname, pg_catalog.format_type(atttypid, atttypmod) AS ft, atttypid,
         {} AS gen
  FROM pg_catalog.pg_attribute
  WHERE attrelid = $1::pg_catalog.regclass AND attnum > 0 AND NOT attisdropped
), d(attnum, typ, depth) AS (
  SELECT attnum, atttypid, 0 FROM a
  UNION ALL
  SELECT d.attnum, t.typbasetype, d.depth + 1 FROM d JOIN pg_catalog.pg_type t ON t.oid = d.typ
  WHERE t.typtype = 'd' AND d.depth < 100
)
SELECT a.attname, a.ft, t.oid, t.typtype, t.typcategory, coalesce(a.gen, '') <> '',
       coalesce(e.oid, 0), e.typtype, e.typcategory
FROM a JOIN d ON d.attnum = a.attnum JOIN pg_catalog.pg_type t ON t.oid = d.typ
LEFT JOIN pg_catalog.pg_type e ON e.oid = t.typelem AND e.typarray = t.oid
WHERE t.typtype <> 'd' ORDER BY a.attnum)SQL", generated),
                                             {qualified}));
  std::vector<TargetColumn> columns;
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    TargetColumn c;
    c.name = std::string(PgValue(r.get(), i, 0));
    c.format_type = std::string(PgValue(r.get(), i, 1));
    c.type.base_oid = static_cast<uint32_t>(std::strtoul(PQgetvalue(r.get(), i, 2), nullptr, 10));
    c.type.typtype = PgValue(r.get(), i, 3).empty() ? 'b' : PgValue(r.get(), i, 3)[0];
    c.type.category = PgValue(r.get(), i, 4).empty() ? 'U' : PgValue(r.get(), i, 4)[0];
    c.generated = PgValue(r.get(), i, 5) == "t";
    // An array type's element, for array_recv (PgTargetType::element_oid).
    c.type.element_oid =
        static_cast<uint32_t>(std::strtoul(PQgetvalue(r.get(), i, 6), nullptr, 10));
    c.type.element_typtype = PgValue(r.get(), i, 7).empty() ? 'b' : PgValue(r.get(), i, 7)[0];
    c.type.element_category = PgValue(r.get(), i, 8).empty() ? 'U' : PgValue(r.get(), i, 8)[0];
    columns.push_back(std::move(c));
  }
  return columns;
}

// The existing table's column for each dump column (by name), or the clear error for a dump
// column the table lacks.
Result<std::vector<const TargetColumn*>> MatchDumpColumns(const std::vector<TargetColumn>& existing,
                                                          const Schema& schema,
                                                          const std::string& name) {
  std::vector<const TargetColumn*> matched;
  for (size_t i = 0; i < schema.num_columns(); ++i) {
    const std::string& col = schema.column(i).name;
    auto it = std::find_if(existing.begin(), existing.end(),
                           [&](const TargetColumn& t) { return t.name == col; });
    if (it == existing.end()) {
      return Status::InvalidArgument(fmt::format(
          "table {}: column \"{}\" of the dump is not in the existing table (append needs "
          "every dumped column; use --if-exists replace to recreate the table)",
          name, col));
    }
    matched.push_back(&*it);
  }
  return matched;
}

// COPY table (columns) FROM STDIN (FORMAT binary|text). `columns` are quoted.
std::string CopySql(const std::string& table, const std::vector<std::string>& columns,
                    PgCopyFormat format = PgCopyFormat::kBinary) {
  std::string sql = "COPY " + table;
  for (size_t i = 0; i < columns.size(); ++i) sql += (i ? ", " : " (") + columns[i];
  if (!columns.empty()) sql += ")";  // "()" is a syntax error
  return sql + (format == PgCopyFormat::kText ? " FROM STDIN (FORMAT text)"
                                              : " FROM STDIN (FORMAT binary)");
}

// One table between PrepareTable and Commit/AbortTable.
struct StagedTable {
  // Loaded straight into the table the schema restore just created (TablePlan::restored_empty):
  // no staging table, CommitTable only analyzes, AbortTable empties the table with
  // `truncate_sql`. In text format when a column has no binary encoding (kAsText).
  bool direct = false;
  PgCopyFormat format = PgCopyFormat::kBinary;
  std::string target;                // "schema"."table" (quoted)
  std::string truncate_sql;          // direct: TRUNCATE ONLY t, or TRUNCATE t when partitioned
  bool freezable = false;            // direct: a plain table (COPY FREEZE after TRUNCATE ONLY)
  std::string staging;               // "schema"."_lakedump_load_..." (quoted); empty if direct
  std::string staging_name;          // unquoted relation name
  std::string copy_sql;
  std::vector<PgEncodeField> fields;  // per column sent (every dump column but those below)
  std::vector<std::string> columns;   // quoted names of the columns sent, dump order
  // Per field, its dump column; empty = every dump column in order. Loads into an existing
  // table (direct, or appended through the staging table) leave out the dump columns the
  // target computes itself (GENERATED ALWAYS AS ... STORED): their values are in the dump
  // (they were read), the target recomputes them.
  std::vector<size_t> batch_columns;
  // Text-staged columns: quoted name -> the real type (format_type).
  std::vector<std::pair<std::string, std::string>> casts;
  std::vector<PgKey> keys;            // PRIMARY KEY / UNIQUE (not append)
  std::vector<std::string> identity_columns;  // made identity columns in the swap
  bool append = false;
  bool matview = false;  // appending into a materialized view: --data-only refreshes it
};

std::string AppendInsertSql(const TablePlan& plan, const StagedTable& staged);

class PostgresTarget final : public TargetDatabase, public LargeObjectTarget {
 public:
  PostgresTarget(std::string conninfo, PostgresTargetOptions options)
      : options_(options),
        pool_(conninfo, options.max_connections, options.connect_timeout_s),
        restorer_([conninfo = std::move(conninfo), timeout = options.connect_timeout_s] {
          return PgConn::Connect(conninfo, timeout);  // post-data's own, beside the pool's
        }) {}

  std::string Describe() const override { return "postgres"; }
  int max_sinks_per_table() const override { return std::max(1, options_.max_sinks_per_table); }
  size_t max_identifier_bytes() const override { return kPgMaxIdentifierBytes; }

  Status Connect() {
    LD_ASSIGN_OR_RETURN(auto conn, AcquireQuiet());
    pool_.Release(std::move(conn));
    return Status::OK();
  }

  Status PrepareTable(const TablePlan& plan) override {
    const std::string name = plan.target.QualifiedName();
    LD_ASSIGN_OR_RETURN(auto conn, AcquireQuiet());
    Result<StagedTable> staged = Prepare(*conn, plan);
    pool_.Release(std::move(conn));
    if (!staged.ok()) return staged.status();
    std::lock_guard lock(mu_);
    tables_[name] = std::move(staged).value();
    return Status::OK();
  }

  Result<std::unique_ptr<TableSink>> OpenSink(const TablePlan& plan) override {
    const std::string name = plan.target.QualifiedName();
    std::string copy_sql, truncate;
    bool freezable = false;
    PgCopyFormat format = PgCopyFormat::kBinary;
    std::vector<PgEncodeField> fields;
    std::vector<size_t> batch_columns;
    {
      std::lock_guard lock(mu_);
      auto it = tables_.find(name);
      if (it == tables_.end()) {
        return Status::Internal(fmt::format("table {}: OpenSink before PrepareTable", name));
      }
      const StagedTable& t = it->second;
      copy_sql = t.copy_sql;
      truncate = t.direct ? t.truncate_sql : "TRUNCATE " + t.staging;
      freezable = !t.direct || t.freezable;
      format = t.format;
      fields = t.fields;
      batch_columns = t.batch_columns;
    }
    // The only sink of the table: it empties the table it loads (the staging table, or the
    // restored table, empty already) in its own transaction, which allows COPY FREEZE (rows
    // written frozen: the key build, ANALYZE and later readers skip the visibility checks and
    // hint-bit writes), and makes the table's load one transaction. A failed sink rolls back.
    std::vector<std::string> begin = {"BEGIN"};
    if (plan.single_sink && options_.copy_freeze && freezable) {
      begin.push_back(truncate);
      copy_sql.insert(copy_sql.size() - 1, ", FREEZE");  // "(FORMAT x)" -> "(FORMAT x, FREEZE)"
    }
    LD_ASSIGN_OR_RETURN(auto conn, pool_.Acquire());
    PgCopyEncoder encoder(name, std::move(fields), format, std::move(batch_columns),
                          plan.definition.schema.num_columns());
    LD_ASSIGN_OR_RETURN(auto sink, PostgresTableSink::Start(&pool_, std::move(conn), begin,
                                                            copy_sql, std::move(encoder),
                                                            options_.copy_buffer_bytes,
                                                            plan.definition.schema));
    return std::unique_ptr<TableSink>(std::move(sink));
  }

  Status CommitTable(const TablePlan& plan) override {
    const std::string name = plan.target.QualifiedName();
    StagedTable staged;
    {
      std::lock_guard lock(mu_);
      auto it = tables_.find(name);
      if (it == tables_.end()) {
        return Status::Internal(fmt::format("table {}: CommitTable before PrepareTable", name));
      }
      staged = it->second;
      if (plan.commit_together && staged.append && !staged.direct) {
        // Moved in by CommitTogether, with the other tables, in foreign-key order.
        together_.push_back({{name, QuoteQualified(plan.target.schema, plan.target.name),
                              staged.staging,
                              staged.matview ? "" : AppendInsertSql(plan, staged)},
                             plan});
        tables_.erase(it);
        return Status::OK();
      }
    }
    LD_ASSIGN_OR_RETURN(auto conn, AcquireQuiet());
    Status s = Commit(*conn, plan, staged);
    if (!s.ok() && PQtransactionStatus(conn->raw()) != PQTRANS_IDLE) {
      conn->Exec("ROLLBACK").IgnoreError();
    }
    pool_.Release(std::move(conn));
    if (s.ok()) {
      std::lock_guard lock(mu_);
      tables_.erase(name);
    }
    if (s.ok() && staged.direct) restorer_.TableLoaded(plan.source);
    return s;
  }

  Status RestoreSchemaBefore(const SchemaRestorePlan& plan, SchemaRestoreOutcome* out) override {
    LD_ASSIGN_OR_RETURN(auto conn, AcquireQuiet());
    // The other table streams' connections open while pre-data restores (one core is free
    // then), so that every stream starts its first table as soon as pre-data is over.
    const size_t streams = std::min({static_cast<size_t>(pool_.max_connections()),
                                     static_cast<size_t>(std::max(1, plan.jobs)),
                                     plan.tables.size()});
    std::thread warm;
    if (plan.with_data && streams > 1) warm = std::thread([this, streams] { Warm(streams - 1); });
    Status s = restorer_.Before(*conn, plan, out);
    if (warm.joinable()) warm.join();
    pool_.Release(std::move(conn));
    return s;
  }

  Status RestoreSchemaAfter(const SchemaRestorePlan& plan, SchemaRestoreOutcome* out) override {
    LD_ASSIGN_OR_RETURN(auto conn, AcquireQuiet());
    // Up to --restore-jobs - 1 connections the table streams left idle refresh materialized
    // views beside it (none is opened for that).
    std::vector<std::unique_ptr<PgConn>> helpers;
    while (static_cast<int>(helpers.size()) + 1 < plan.jobs) {
      std::unique_ptr<PgConn> idle = pool_.TryAcquireIdle();
      if (!idle) break;
      helpers.push_back(std::move(idle));
    }
    std::vector<PgConn*> more;
    for (const auto& h : helpers) more.push_back(h.get());
    Status s = restorer_.After(*conn, plan, out, more);
    for (auto& h : helpers) pool_.Release(std::move(h));
    pool_.Release(std::move(conn));
    return s;
  }

  Status CommitTogether(const SchemaRestorePlan& schema) override {
    std::vector<PgStagedAppend> tables;
    std::vector<TablePlan> plans;
    {
      std::lock_guard lock(mu_);
      for (auto& [table, plan] : together_) {
        tables.push_back(std::move(table));
        plans.push_back(std::move(plan));
      }
      together_.clear();
    }
    LD_ASSIGN_OR_RETURN(auto conn, AcquireQuiet());
    auto matviews = PgMatviewsToRefresh(*conn, schema.schema, schema.schema_map);
    Status s = matviews.status();
    if (s.ok()) {
      s = PgCommitAppendsTogether(*conn, tables, *matviews, options_.disable_triggers,
                                  options_.lock_timeout_ms);
    }
    if (!s.ok()) {
      Status dropped = PgDropStaged(*conn, tables);
      pool_.Release(std::move(conn));
      if (dropped.ok()) return s;
      return Status(s.code(), fmt::format("{} (and the cleanup failed too: {}; finish it by hand)",
                                          s.message(), dropped.message()));
    }
    for (const TablePlan& plan : plans) LD_RETURN_IF_ERROR(Analyze(*conn, plan));
    pool_.Release(std::move(conn));
    return Status::OK();
  }

  Status CheckLargeObjects(const std::vector<LargeObjectMeta>& objects,
                           const RestoreRoles& roles) override {
    LD_ASSIGN_OR_RETURN(auto conn, AcquireQuiet());
    Status s = PgCheckLargeObjects(*conn, objects, roles);
    pool_.Release(std::move(conn));
    return s;
  }

  Result<std::unique_ptr<LargeObjectSink>> OpenLargeObject(const LargeObjectMeta& object,
                                                           const RestoreRoles& roles) override {
    return PgOpenLargeObject(&pool_, object, roles);
  }

  Status AbortTogether() override {
    std::vector<PgStagedAppend> tables;
    {
      std::lock_guard lock(mu_);
      for (auto& [table, plan] : together_) tables.push_back(std::move(table));
      together_.clear();
    }
    if (tables.empty()) return Status::OK();
    LD_ASSIGN_OR_RETURN(auto conn, AcquireQuiet());
    Status s = PgDropStaged(*conn, tables);
    pool_.Release(std::move(conn));
    return s;
  }

  Status AbortTable(const TablePlan& plan) override {
    restorer_.TableFailed();
    const std::string name = plan.target.QualifiedName();
    // Loaded straight into the restored table: emptied (sinks that committed left rows in it),
    // so that no part of it is presented as loaded. Otherwise the staging table is dropped.
    const std::string staging = PgStagingTableName(plan.target.name);
    std::string cleanup = "DROP TABLE IF EXISTS " + QuoteQualified(plan.target.schema, staging);
    std::string step = "dropping the staging table";
    {
      std::lock_guard lock(mu_);
      auto it = tables_.find(name);
      if (it != tables_.end() && it->second.direct) {
        cleanup = it->second.truncate_sql;
        step = "emptying the partly loaded table";
      }
      if (it != tables_.end()) tables_.erase(it);
    }
    LD_ASSIGN_OR_RETURN(auto conn, AcquireQuiet());
    // Bounded like the swap: a staging table is ours, but a session may still wait on it.
    Status s = conn->ExecOne("BEGIN");
    if (s.ok()) s = SetLockTimeout(*conn);
    if (s.ok()) s = conn->ExecOne(cleanup);
    if (s.ok()) s = conn->ExecOne("COMMIT");
    if (!s.ok() && !conn->broken() && PQtransactionStatus(conn->raw()) != PQTRANS_IDLE) {
      conn->Exec("ROLLBACK").IgnoreError();
    }
    pool_.Release(std::move(conn));
    return s.WithContext(fmt::format("table {}: {}", name, step));
  }

 private:
  // Opens up to `n` more of the pool's connections and leaves them idle in it (a failure is
  // left for the table that needs the connection to report).
  void Warm(size_t n) {
    std::vector<std::unique_ptr<PgConn>> opened;
    while (opened.size() < n) {
      auto conn = AcquireQuiet();
      if (!conn.ok()) break;
      opened.push_back(std::move(conn).value());
    }
    for (auto& conn : opened) pool_.Release(std::move(conn));
  }

  // A pooled connection that does not print NOTICEs ("... does not exist, skipping").
  Result<std::unique_ptr<PgConn>> AcquireQuiet() {
    LD_ASSIGN_OR_RETURN(auto conn, pool_.Acquire());
    Status s = conn->Exec("SET client_min_messages = warning");
    if (!s.ok()) {
      pool_.Release(std::move(conn));
      return s;
    }
    return conn;
  }

  Result<StagedTable> Prepare(PgConn& conn, const TablePlan& plan);
  // The direct load of a restored table (`relkind` its pg_class.relkind), or nullopt when it
  // is neither a plain nor a partitioned table (it then takes the staging path).
  Result<std::optional<StagedTable>> PrepareDirect(PgConn& conn, const TablePlan& plan,
                                                   char relkind);
  // The layout of the staging table: the existing table's column types to append to it
  // (*computed marks its generated columns), else the dump's (its keys and identity columns
  // into *staged).
  Result<PgTableLayout> StagingLayout(PgConn& conn, const TablePlan& plan, StagedTable* staged,
                                      std::vector<bool>* computed);
  Status Commit(PgConn& conn, const TablePlan& plan, const StagedTable& staged);
  // Commit of --if-exists append: the staged rows inserted into the existing table.
  Status CommitAppend(PgConn& conn, const TablePlan& plan, const StagedTable& staged);
  // Builds the keys on the staging table under temporary names; returns (temporary, final).
  Result<std::vector<std::pair<std::string, std::string>>> BuildStagedKeys(
      PgConn& conn, const TablePlan& plan, const StagedTable& staged);
  // SET LOCAL lock_timeout = --lock-timeout. REQUIRES: in a transaction.
  Status SetLockTimeout(PgConn& conn);
  // `s`, or the clear line for a lock timeout on the existing table.
  Status LockTimeoutError(const Status& s, const std::string& name) const;
  // ANALYZE after the commit; a failure is a warning (the table is loaded).
  Status Analyze(PgConn& conn, const TablePlan& plan);

  const PostgresTargetOptions options_;
  PgConnectionPool pool_;
  std::mutex schema_mu_;  // serializes CREATE SCHEMA
  std::mutex mu_;
  std::map<std::string, StagedTable> tables_;  // guarded by mu_; by target "schema.table"
  // Appends CommitTable left for CommitTogether, with their plans (for ANALYZE); guarded by mu_.
  std::vector<std::pair<PgStagedAppend, TablePlan>> together_;
  PgSchemaRestorer restorer_;  // used by the load's own thread, before and after the tables
};

// The steps of PostgresTarget::Prepare that need nothing of the target.

// Creates the staging table of `schema`'s columns but the `computed` ones, filling
// staged->columns and staged->batch_columns.
Status CreateStagingTable(PgConn& conn, const Schema& schema, const PgTableLayout& layout,
                          const std::vector<bool>& computed, StagedTable* staged) {
  std::string create = "CREATE TABLE " + staged->staging + " (";
  for (size_t i = 0; i < schema.num_columns(); ++i) {
    if (computed[i]) continue;
    const Column& c = schema.column(i);
    create += (staged->columns.empty() ? "" : ", ") + QuoteIdent(c.name) + " " +
              layout.types[i] + layout.defaults[i];
    staged->columns.push_back(QuoteIdent(c.name));
    staged->batch_columns.push_back(i);
    if (!c.nullable && !staged->append) create += " NOT NULL";
  }
  for (const std::string& check : layout.checks) create += ", " + check;  // checked row by row
  create += ")";
  return conn.ExecOne(create).WithContext("creating the staging table");
}

// Binary encodings by the staging table's real types; the rest is staged as text (its
// columns altered to text, cast back at the commit). Fills staged->fields and ->casts.
Status ChooseStagingEncodings(PgConn& conn, const Schema& schema, const std::string& name,
                              StagedTable* staged) {
  LD_ASSIGN_OR_RETURN(auto created, DescribeColumns(conn, staged->staging));
  if (created.size() != staged->columns.size()) {
    return Status::Internal(fmt::format("table {}: staging table has {} columns, expected {}",
                                        name, created.size(), staged->columns.size()));
  }
  std::string to_text;
  for (size_t k = 0; k < created.size(); ++k) {
    const Column& c = schema.column(staged->batch_columns[k]);
    PgEncodeField f =
        PgEncodeField::Choose(c.name, created[k].format_type, c.type, created[k].type);
    if (IsTextStaged(f.encoding)) {
      staged->casts.emplace_back(staged->columns[k], created[k].format_type);
      to_text += (to_text.empty() ? "" : ", ") + std::string("ALTER COLUMN ") +
                 staged->columns[k] + " TYPE pg_catalog.text";
    }
    staged->fields.push_back(std::move(f));
  }
  if (to_text.empty()) return Status::OK();
  return conn.ExecOne("ALTER TABLE " + staged->staging + " " + to_text)
      .WithContext("table " + name);
}

Result<PgTableLayout> PostgresTarget::StagingLayout(PgConn& conn, const TablePlan& plan,
                                                    StagedTable* staged,
                                                    std::vector<bool>* computed) {
  const std::string name = plan.target.QualifiedName();
  const Schema& schema = plan.definition.schema;
  PgTableLayout layout;
  if (!staged->append) {
    LD_ASSIGN_OR_RETURN(layout, PlanPgTableLayout(conn, plan, notes()));
    staged->keys = std::move(layout.keys);
    staged->identity_columns = std::move(layout.identity_columns);
    return layout;
  }
  const std::string final_table = QuoteQualified(plan.target.schema, plan.target.name);
  LD_ASSIGN_OR_RETURN(auto existing, DescribeColumns(conn, final_table));
  LD_ASSIGN_OR_RETURN(auto matched, MatchDumpColumns(existing, schema, name));
  for (size_t i = 0; i < matched.size(); ++i) {
    (*computed)[i] = matched[i]->generated;
    layout.types.push_back(matched[i]->format_type);
    layout.defaults.emplace_back();
  }
  if (std::all_of(computed->begin(), computed->end(), [](bool c) { return c; })) {
    return Status::InvalidArgument(fmt::format(
        "table {}: every dumped column is generated in the existing table, nothing to append",
        name));
  }
  return layout;
}

Result<StagedTable> PostgresTarget::Prepare(PgConn& conn, const TablePlan& plan) {
  const std::string name = plan.target.QualifiedName();
  const Schema& schema = plan.definition.schema;
  StagedTable staged;
  staged.staging_name = PgStagingTableName(plan.target.name);
  staged.staging = QuoteQualified(plan.target.schema, staged.staging_name);
  auto context = [&](const Status& s) { return s.WithContext("table " + name); };

  LD_ASSIGN_OR_RETURN(
      PgResult found,
      conn.Query("SELECT (SELECT count(*) FROM pg_catalog.pg_namespace WHERE nspname = $1), "
                 "(SELECT c.relkind::text FROM pg_catalog.pg_class c "
                 "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
                 "WHERE n.nspname = $1 AND c.relname = $2)",
                 {plan.target.schema, plan.target.name}));
  const bool schema_exists = PgValue(found.get(), 0, 0) != "0";
  const bool table_exists = !PQgetisnull(found.get(), 0, 1);
  if (table_exists && plan.if_exists == LoadIfExists::kFail) {
    return Status::AlreadyExists(fmt::format(
        "table {} already exists in the target (use --if-exists replace|append)", name));
  }
  staged.append = table_exists && plan.if_exists == LoadIfExists::kAppend;
  staged.matview = staged.append && PgValue(found.get(), 0, 1) == "m";
  if (staged.append && plan.restored_empty) {
    const std::string_view relkind = PgValue(found.get(), 0, 1);
    LD_ASSIGN_OR_RETURN(std::optional<StagedTable> direct,
                        PrepareDirect(conn, plan, relkind.empty() ? '?' : relkind[0]));
    if (direct) return std::move(*direct);
  }
  if (!schema_exists) {
    // Tables of one new schema are prepared at once: concurrent CREATE SCHEMA IF NOT
    // EXISTS can still fail on the catalog's unique index, so one at a time.
    std::lock_guard lock(schema_mu_);
    LD_RETURN_IF_ERROR(
        context(conn.ExecOne("CREATE SCHEMA IF NOT EXISTS " + QuoteIdent(plan.target.schema))));
  }
  // Per dump column: left out of the staging table, its COPY and the INSERT, because the
  // existing table computes it (GENERATED ALWAYS AS ... STORED refuses a value), as a direct
  // load leaves it out.
  std::vector<bool> computed(schema.num_columns(), false);
  LD_ASSIGN_OR_RETURN(const PgTableLayout layout,
                      StagingLayout(conn, plan, &staged, &computed));
  LD_RETURN_IF_ERROR(context(conn.ExecOne("DROP TABLE IF EXISTS " + staged.staging)));
  LD_RETURN_IF_ERROR(context(CreateStagingTable(conn, schema, layout, computed, &staged)));
  LD_RETURN_IF_ERROR(ChooseStagingEncodings(conn, schema, name, &staged));
  staged.copy_sql = CopySql(staged.staging, staged.columns);
  return staged;
}

Result<std::optional<StagedTable>> PostgresTarget::PrepareDirect(PgConn& conn,
                                                                 const TablePlan& plan,
                                                                 char relkind) {
  if (relkind != 'r' && relkind != 'p') return std::optional<StagedTable>();  // foreign, ...
  const std::string name = plan.target.QualifiedName();
  const Schema& schema = plan.definition.schema;
  StagedTable staged;
  staged.direct = true;
  staged.append = true;
  staged.target = QuoteQualified(plan.target.schema, plan.target.name);
  // A partitioned table cannot be truncated ONLY nor loaded with FREEZE; ONLY keeps the
  // children of an inheritance parent (loaded as tables of their own) out of it.
  staged.freezable = relkind == 'r';
  staged.truncate_sql = (relkind == 'p' ? "TRUNCATE " : "TRUNCATE ONLY ") + staged.target;
  LD_ASSIGN_OR_RETURN(auto existing, DescribeColumns(conn, staged.target));
  LD_ASSIGN_OR_RETURN(auto matched, MatchDumpColumns(existing, schema, name));
  for (size_t i = 0; i < schema.num_columns(); ++i) {
    if (matched[i]->generated) continue;  // the target computes it
    PgEncodeField f = PgEncodeField::Choose(schema.column(i).name, matched[i]->format_type,
                                            schema.column(i).type, matched[i]->type);
    // No binary form: the whole COPY goes as text, each value into its column's input function
    // (what the staging path's CAST(text AS type) runs), straight into the real type.
    if (IsTextStaged(f.encoding)) staged.format = PgCopyFormat::kText;
    staged.columns.push_back(QuoteIdent(f.name));
    staged.fields.push_back(std::move(f));
    staged.batch_columns.push_back(i);
  }
  staged.copy_sql = CopySql(staged.target, staged.columns, staged.format);
  return std::optional<StagedTable>(std::move(staged));
}

Status PostgresTarget::SetLockTimeout(PgConn& conn) {
  // For this transaction only (set_config(..., true) = SET LOCAL).
  return conn.ExecOne("SELECT pg_catalog.set_config('lock_timeout', $1, true)",
                      {std::to_string(options_.lock_timeout_ms) + "ms"});
}

Status PostgresTarget::LockTimeoutError(const Status& s, const std::string& name) const {
  if (s.message().find("lock timeout") == std::string::npos) return s;
  return Status::Unavailable(fmt::format(
      "table {}: gave up after {} waiting for the lock on the existing table (another session "
      "holds it); the existing table is unchanged; retry, or raise --lock-timeout (0 waits "
      "forever)",
      name, FormatSeconds(options_.lock_timeout_ms / 1000.0)));
}

Status PostgresTarget::Analyze(PgConn& conn, const TablePlan& plan) {
  // The table is committed: a failed ANALYZE loses only statistics.
  const std::string name = plan.target.QualifiedName();
  Status s = conn.ExecOne("ANALYZE " + QuoteQualified(plan.target.schema, plan.target.name));
  if (!s.ok()) {
    notes().Warn(fmt::format("table {}: loaded, but ANALYZE failed ({}); run ANALYZE on it",
                             name, s.message()));
  }
  return Status::OK();
}

// The swap that moves a staged table into place: one transaction, one statement per call
// (SQL, parameters). `key_names`: the keys' temporary and final names.
std::vector<std::pair<std::string, std::vector<std::string>>> SwapStatements(
    const TablePlan& plan, const StagedTable& staged,
    const std::vector<std::pair<std::string, std::string>>& key_names) {
  const std::string final_table = QuoteQualified(plan.target.schema, plan.target.name);
  std::vector<std::pair<std::string, std::vector<std::string>>> swap;
  if (plan.if_exists == LoadIfExists::kReplace) {
    swap.push_back({"DROP TABLE IF EXISTS " + final_table, {}});
  }
  swap.push_back({"ALTER TABLE " + staged.staging + " RENAME TO " + QuoteIdent(plan.target.name),
                  {}});
  for (const auto& [temp, final_name] : key_names) {
    swap.push_back({"ALTER TABLE " + final_table + " RENAME CONSTRAINT " + QuoteIdent(temp) +
                        " TO " + QuoteIdent(final_name),
                    {}});
  }
  // Identity columns get their sequence now (named after the final table), continuing
  // after the largest loaded value.
  for (const std::string& column : staged.identity_columns) {
    const std::string col = QuoteIdent(column);
    swap.push_back({"ALTER TABLE " + final_table + " ALTER COLUMN " + col +
                        " ADD GENERATED BY DEFAULT AS IDENTITY",
                    {}});
    // pg_get_serial_sequence: the table name is parsed as SQL, the column name taken as is.
    swap.push_back({"SELECT pg_catalog.setval(pg_catalog.pg_get_serial_sequence($1, $2), "
                    "greatest(coalesce(max(" + col + "), 0), 0) + 1, false) FROM " + final_table,
                    {final_table, column}});
  }
  return swap;
}

// INSERT INTO the existing table SELECT the staged rows (text-staged columns cast).
std::string AppendInsertSql(const TablePlan& plan, const StagedTable& staged) {
  const std::string final_table = QuoteQualified(plan.target.schema, plan.target.name);
  std::string cols, select;
  for (size_t i = 0; i < staged.columns.size(); ++i) {
    cols += (i ? ", " : "") + staged.columns[i];
    std::string expr = staged.columns[i];
    for (const auto& [col, type] : staged.casts) {
      if (col == staged.columns[i]) expr = "CAST(" + col + " AS " + type + ")";
    }
    select += (i ? ", " : "") + expr;
  }
  return "INSERT INTO " + final_table + " (" + cols + ") OVERRIDING SYSTEM VALUE SELECT " +
         select + " FROM " + staged.staging;
}

Status PostgresTarget::CommitAppend(PgConn& conn, const TablePlan& plan,
                                    const StagedTable& staged) {
  const std::string name = plan.target.QualifiedName();
  Status s = conn.ExecOne("BEGIN");
  if (s.ok()) s = SetLockTimeout(conn);
  if (s.ok()) s = conn.ExecOne(AppendInsertSql(plan, staged));
  if (s.ok()) s = conn.ExecOne("DROP TABLE " + staged.staging);
  if (s.ok()) s = conn.ExecOne("COMMIT");
  LD_RETURN_IF_ERROR(LockTimeoutError(s, name).WithContext(
      fmt::format("table {}: appending the staged rows", name)));
  return Analyze(conn, plan);
}

Result<std::vector<std::pair<std::string, std::string>>> PostgresTarget::BuildStagedKeys(
    PgConn& conn, const TablePlan& plan, const StagedTable& staged) {
  const std::string name = plan.target.QualifiedName();
  auto context = [&](const Status& s, std::string_view step) {
    return s.WithContext(fmt::format("table {}: {}", name, step));
  };
  const bool set_mem = !staged.keys.empty() && !options_.maintenance_work_mem.empty();
  if (set_mem) {
    LD_RETURN_IF_ERROR(
        context(conn.ExecOne("SELECT pg_catalog.set_config('maintenance_work_mem', $1, false)",
                             {options_.maintenance_work_mem}),
                "setting maintenance_work_mem"));
  }
  std::vector<std::pair<std::string, std::string>> key_names;  // temporary, final
  for (size_t i = 0; i < staged.keys.size(); ++i) {
    const PgKey& key = staged.keys[i];
    const std::string temp = PgIdentifierWithSuffix(staged.staging_name, fmt::format("_k{}", i));
    const std::string sql = PgKeySql(key);
    LD_RETURN_IF_ERROR(context(
        conn.ExecOne("ALTER TABLE " + staged.staging + " ADD CONSTRAINT " + QuoteIdent(temp) +
                     " " + sql),
        "building " + sql));
    key_names.emplace_back(temp, PgDefaultKeyName(plan.target.name, key));
  }
  if (set_mem) LD_RETURN_IF_ERROR(context(conn.ExecOne("RESET maintenance_work_mem"), "RESET"));
  return key_names;
}

Status PostgresTarget::Commit(PgConn& conn, const TablePlan& plan, const StagedTable& staged) {
  const std::string name = plan.target.QualifiedName();
  const std::string final_table = QuoteQualified(plan.target.schema, plan.target.name);
  auto context = [&](const Status& s, std::string_view step) {
    return s.WithContext(fmt::format("table {}: {}", name, step));
  };
  // Every sink committed into the table. No ANALYZE, as pg_restore runs none: in the
  // schema-heavy restore it was a third of the tables' time (docs/performance.md), and
  // autovacuum analyzes the new tables soon after (or vacuumdb --analyze-in-stages).
  if (staged.direct) return Status::OK();
  if (staged.append) return CommitAppend(conn, plan, staged);
  if (!staged.casts.empty()) {
    std::string alter;
    for (const auto& [col, type] : staged.casts) {
      alter += (alter.empty() ? "" : ", ") + std::string("ALTER COLUMN ") + col + " TYPE " + type +
               " USING CAST(" + col + " AS " + type + ")";
    }
    LD_RETURN_IF_ERROR(context(conn.ExecOne("ALTER TABLE " + staged.staging + " " + alter),
                               "converting text-staged columns"));
  }
  // Keys are built on the staging table (outside the swap transaction, so the old
  // table stays readable meanwhile) under temporary names, renamed in the swap.
  LD_ASSIGN_OR_RETURN(auto key_names, BuildStagedKeys(conn, plan, staged));
  Status s = conn.ExecOne("BEGIN");
  if (s.ok()) s = SetLockTimeout(conn);
  for (const auto& [sql, params] : SwapStatements(plan, staged, key_names)) {
    if (s.ok()) s = conn.ExecOne(sql, params);
  }
  if (s.ok()) s = conn.ExecOne("COMMIT");
  if (!s.ok()) {
    if (s.message().find("already exists") != std::string::npos &&
        plan.if_exists != LoadIfExists::kReplace) {
      return Status::AlreadyExists(fmt::format(
          "table {} already exists in the target (created during the load; use --if-exists "
          "replace|append)",
          name));
    }
    return context(LockTimeoutError(s, name), "moving the loaded table into place");
  }
  return Analyze(conn, plan);
}

}  // namespace

std::string PgTypeForLogical(const LogicalType& type) {
  switch (type.id) {
    case TypeId::kBool: return "boolean";
    case TypeId::kInt8:
    case TypeId::kInt16: return "smallint";
    case TypeId::kInt32: return "integer";
    case TypeId::kInt64: return "bigint";
    case TypeId::kFloat: return "real";
    case TypeId::kDouble: return "double precision";
    case TypeId::kDecimal: return fmt::format("numeric({},{})", type.precision, type.scale);
    case TypeId::kString: return "text";
    case TypeId::kBinary: return "bytea";
    case TypeId::kDate: return "date";
    case TypeId::kTime: return "time without time zone";
    case TypeId::kTimestamp: return "timestamp without time zone";
    case TypeId::kTimestampTz: return "timestamp with time zone";
    case TypeId::kUuid: return "uuid";
    case TypeId::kJson: return "json";
    case TypeId::kList: return PgTypeForLogical(type.ElementType()) + "[]";
  }
  return "text";
}

std::string PgStagingTableName(std::string_view table) {
  constexpr std::string_view kPrefix = "_lakedump_load_";
  if (kPrefix.size() + table.size() <= kPgMaxIdentifierBytes) {
    return std::string(kPrefix) + std::string(table);
  }
  // Cut names would collide: keep a hash of the whole name.
  const std::string hash = fmt::format("_{:016x}", XXH64(table.data(), table.size(), 0));
  return PgIdentifierWithSuffix(std::string(kPrefix) + std::string(table), hash);
}

Result<std::unique_ptr<TargetDatabase>> OpenPostgresTarget(std::string conninfo,
                                                           PostgresTargetOptions options) {
  auto target = std::make_unique<PostgresTarget>(std::move(conninfo), options);
  LD_RETURN_IF_ERROR(target->Connect());
  return std::unique_ptr<TargetDatabase>(std::move(target));
}

}  // namespace lakedump
