#include "source/sqlite/sqlite_database.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <regex>

#include "source/sqlite/sqlite_connection.h"
#include "source/sqlite/sqlite_schema_capture.h"
#include "source/sqlite/sqlite_table_source.h"
#include "source/sqlite/sqlite_values.h"

namespace lakedump {
namespace {

constexpr int kMaxSplits = 1024;
// Extra rollback-mode connections wait this long for a writer's PENDING lock;
// the coordinator already holds the state, so giving up only costs parallelism.
constexpr int kExtraConnectionBusyMs = 200;

// Starts a read transaction and takes the read lock (rollback mode: SHARED;
// WAL: a read mark, i.e. the snapshot).
// REQUIRES: conn->mu held.
Status BeginRead(sqlite3* db) {
  LD_RETURN_IF_ERROR(ExecSql(db, "BEGIN", "begin read transaction"));
  Result<SqliteStmt> st = Prepare(db, "SELECT count(*) FROM main.sqlite_schema", "snapshot");
  int rc = st.ok() ? sqlite3_step(st->get()) : SQLITE_ERROR;
  if (!st.ok() || rc != SQLITE_ROW) {
    Status s = st.ok() ? SqliteStatus(db, rc, "snapshot") : st.status();
    if (st.ok()) st->reset();
    ExecSql(db, "ROLLBACK", "rollback").IgnoreError();
    return s;
  }
  return Status::OK();
}

// An id of the database's content in rollback-journal mode, from its header as SQLite's own
// file handle reads it (a second descriptor of ours would drop the process's POSIX locks when
// closed): the file change counter (bumped by every commit), the page count and the schema
// cookie. Equal ids read under a SHARED lock mean the same content.
// REQUIRES: the connection's mutex held, inside a read transaction (rollback mode).
Result<std::string> ContentId(sqlite3* db, const std::string& path) {
  sqlite3_file* file = nullptr;
  if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK ||
      file == nullptr || file->pMethods == nullptr) {
    return Status::IOError(fmt::format("{}: cannot read the database header", path));
  }
  unsigned char header[100] = {};
  const int rc = file->pMethods->xRead(file, header, sizeof(header), 0);
  // A short read (an empty file: a database with nothing in it yet) fills the rest with zeros.
  if (rc != SQLITE_OK && rc != SQLITE_IOERR_SHORT_READ) {
    return Status::IOError(fmt::format("{}: cannot read the database header (SQLite error {})",
                                       path, rc));
  }
  auto be32 = [&](int at) {
    return (uint32_t{header[at]} << 24) | (uint32_t{header[at + 1]} << 16) |
           (uint32_t{header[at + 2]} << 8) | uint32_t{header[at + 3]};
  };
  return fmt::format("sqlite-{:08x}-{:08x}-{:08x}", be32(24), be32(28), be32(40));
}

// {"kind", "dev", "ino", "size", "mtime_ns", "wal": {"size", "mtime_ns"} or null}.
nlohmann::json FileIdentity(const std::string& path) {
  nlohmann::json j = {{"kind", "sqlite"}};
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    j["dev"] = static_cast<uint64_t>(st.st_dev);
    j["ino"] = static_cast<uint64_t>(st.st_ino);
    j["size"] = static_cast<int64_t>(st.st_size);
    j["mtime_ns"] = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  }
  j["wal"] = nullptr;
  const std::string wal = path + "-wal";
  if (::stat(wal.c_str(), &st) == 0) {
    j["wal"] = {{"size", static_cast<int64_t>(st.st_size)},
                {"mtime_ns",
                 static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec}};
  }
  return j;
}

class SqliteDatabase final : public Database {
 public:
  SqliteDatabase(std::string path, SqliteOptions options,
                 std::shared_ptr<SqliteConnection> coordinator)
      : path_(std::move(path)), options_(options) {
    pool_.push_back(std::move(coordinator));
  }

  Status BeginSnapshot() override {
    std::lock_guard<std::mutex> lock(mu_);
    return BeginSnapshotLocked();
  }

  Result<std::vector<TableInfo>> ListTables() override {
    LD_ASSIGN_OR_RETURN(auto coord, Coordinator());
    std::lock_guard<std::mutex> lock(coord->mu);
    sqlite3* db = coord->db;
    std::vector<TableInfo> tables;
    // pragma_table_list (SQLite 3.37+) tells virtual tables, which are dumped
    // through their module, from their shadow tables, which are not.
    Result<SqliteStmt> st = Prepare(db,
                                    "SELECT name FROM pragma_table_list WHERE schema = 'main' "
                                    "AND type IN ('table', 'virtual') AND name NOT LIKE "
                                    "'sqlite\\_%' ESCAPE '\\' ORDER BY name",
                                    "list tables");
    if (!st.ok()) {
      st = Prepare(db,
                   "SELECT name FROM main.sqlite_schema WHERE type = 'table' "
                   "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
                   "list tables");
    }
    if (!st.ok()) return st.status();
    int rc;
    while ((rc = sqlite3_step(st->get())) == SQLITE_ROW) {
      TableInfo t;
      t.ref.schema = "main";
      t.ref.name = reinterpret_cast<const char*>(sqlite3_column_text(st->get(), 0));
      tables.push_back(std::move(t));
    }
    if (rc != SQLITE_DONE) return SqliteStatus(db, rc, "list tables");
    st->reset();
    LD_RETURN_IF_ERROR(RememberDdl(db));
    LD_RETURN_IF_ERROR(EstimateSizes(db, &tables));
    return tables;
  }

  Result<TableDefinition> DescribeTable(const TableInfo& table) override {
    LD_ASSIGN_OR_RETURN(auto coord, Coordinator());
    std::lock_guard<std::mutex> lock(coord->mu);
    if (!table.query.empty()) return DescribeSqliteQuery(coord->db, table, options_.lax_types);
    LD_ASSIGN_OR_RETURN(SqliteTablePlan plan, PlanLocked(coord->db, table.ref));
    if (options_.lax_types) {
      LD_ASSIGN_OR_RETURN(std::vector<bool> as_string, AsStringLocked(coord->db, plan, table));
      std::vector<Column> columns = plan.definition.schema.columns();
      for (size_t i = 0; i < columns.size(); ++i) {
        if (as_string[i]) columns[i].type = LogicalType::Of(TypeId::kString);
      }
      plan.definition.schema = Schema(std::move(columns));
    }
    LD_ASSIGN_OR_RETURN(std::vector<uint8_t> exact,
                        ExactLocked(coord->db, plan, plan.definition.schema, table.ref));
    if (!exact.empty()) {
      LD_RETURN_IF_ERROR(
          AddSqliteValuesColumn(&plan.definition.schema).WithContext(table.ref.QualifiedName()));
    }
    return std::move(plan.definition);
  }

  Result<std::vector<WorkUnit>> Split(const TableInfo& table, uint64_t target_bytes) override {
    std::vector<WorkUnit> units{WorkUnit{table, 0, 1, ""}};
    if (!table.query.empty() || target_bytes == 0 || table.estimated_bytes <= target_bytes) {
      return units;
    }
    LD_ASSIGN_OR_RETURN(auto coord, Coordinator());
    std::lock_guard<std::mutex> lock(coord->mu);
    LD_ASSIGN_OR_RETURN(SqliteTablePlan plan, PlanLocked(coord->db, table.ref));
    if (plan.rowid_name.empty()) return units;
    const std::string& r = plan.rowid_name;
    LD_ASSIGN_OR_RETURN(
        SqliteStmt st,
        Prepare(coord->db,
                fmt::format("SELECT min({0}), max({0}) FROM main.{1}", r,
                            QuoteIdentifier(table.ref.name)),
                table.ref.QualifiedName()));
    const int rc = sqlite3_step(st.get());
    if (rc != SQLITE_ROW) return SqliteStatus(coord->db, rc, table.ref.QualifiedName());
    if (sqlite3_column_type(st.get(), 0) == SQLITE_NULL) return units;  // empty table
    const int128_t lo = sqlite3_column_int64(st.get(), 0);
    const int128_t hi = sqlite3_column_int64(st.get(), 1);
    const int128_t span = hi - lo + 1;
    int128_t n = static_cast<int128_t>((table.estimated_bytes + target_bytes - 1) / target_bytes);
    n = std::min<int128_t>({n, kMaxSplits, span});
    if (n <= 1) return units;
    units.clear();
    for (int i = 0; i < static_cast<int>(n); ++i) {
      const int64_t from = static_cast<int64_t>(lo + span * i / n);
      const int64_t to = static_cast<int64_t>(lo + span * (i + 1) / n);
      std::string pred;
      if (i == 0) {
        pred = fmt::format("{} < {}", r, to);
      } else if (i + 1 == n) {
        pred = fmt::format("{} >= {}", r, from);
      } else {
        pred = fmt::format("{0} >= {1} AND {0} < {2}", r, from, to);
      }
      units.push_back(WorkUnit{table, i, static_cast<int>(n), std::move(pred)});
    }
    return units;
  }

  Result<std::unique_ptr<TableSource>> Open(const WorkUnit& unit) override {
    std::shared_ptr<SqliteConnection> conn;
    std::vector<bool> as_string;
    {
      std::lock_guard<std::mutex> lock(mu_);
      LD_RETURN_IF_ERROR(BeginSnapshotLocked());
      conn = pool_[next_++ % pool_.size()];
    }
    if (options_.lax_types && unit.table.query.empty()) {
      std::lock_guard<std::mutex> lock(cache_mu_);
      auto it = as_string_.find(unit.table.ref.name);
      if (it != as_string_.end()) as_string = it->second;
    }
    if (options_.lax_types && unit.table.query.empty() && as_string.empty()) {
      LD_ASSIGN_OR_RETURN(auto coord, Coordinator());
      std::lock_guard<std::mutex> lock(coord->mu);
      LD_ASSIGN_OR_RETURN(SqliteTablePlan plan, PlanLocked(coord->db, unit.table.ref));
      LD_ASSIGN_OR_RETURN(as_string, AsStringLocked(coord->db, plan, unit.table));
    }
    std::vector<uint8_t> exact;
    if (unit.table.query.empty()) {
      LD_ASSIGN_OR_RETURN(exact, ExactFor(unit.table.ref, as_string));
    }
    // Planned on the source's own connection (the coordinator stays free for
    // other tasks) and kept for DescribeTable() at the table's commit.
    std::optional<SqliteTablePlan> plan;
    if (unit.table.query.empty()) {
      std::lock_guard<std::mutex> lock(conn->mu);
      LD_ASSIGN_OR_RETURN(plan, PlanLocked(conn->db, unit.table.ref));
    }
    LD_ASSIGN_OR_RETURN(auto source,
                        SqliteTableSource::Open(std::move(conn), unit, options_.lax_types,
                                                as_string, exact, plan ? &*plan : nullptr));
    return std::unique_ptr<TableSource>(std::move(source));
  }

  // The file as it was when the snapshot began (and its WAL, whose frames are
  // part of the data): any write since changes its size or mtime.
  Result<nlohmann::json> Fingerprint(const TableInfo& table) override {
    std::lock_guard<std::mutex> lock(mu_);
    LD_RETURN_IF_ERROR(BeginSnapshotLocked());
    nlohmann::json j = file_identity_;
    j["lax_types"] = options_.lax_types;
    if (!table.query.empty()) j["query"] = table.query;
    return j;
  }

  Result<SchemaCapture> CaptureSchema(const SchemaSelection& selected,
                                      const SchemaCaptureOptions& /*options*/) override {
    std::vector<TableRef> tables = selected.tables;
    if (selected.every_table) {
      LD_ASSIGN_OR_RETURN(std::vector<TableInfo> listed, ListTables());
      tables.clear();
      for (TableInfo& t : listed) tables.push_back(std::move(t.ref));
    }
    LD_ASSIGN_OR_RETURN(auto coord, Coordinator());
    std::lock_guard<std::mutex> lock(coord->mu);
    return CaptureSqliteSchema(coord->db, tables);
  }

  // A sharded dump's worker (docs/scale-out.md): the coordinator holds a read transaction in
  // rollback-journal mode, whose SHARED lock keeps every writer from committing, so this
  // process's own read transactions see the very content the coordinator planned from, which
  // the content id in the plan confirms.
  Status ImportSnapshot(const std::string& snapshot_id) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (started_) return Status::InvalidArgument("ImportSnapshot() inside a snapshot");
    Status begun = BeginSnapshotLocked();
    if (begun.code() == Code::kUnavailable) {
      // Not the coordinator's fault: a writer that waits for the coordinator's lock to go
      // holds SQLite's PENDING lock, which refuses new readers meanwhile.
      return Status::IOError(fmt::format(
          "{} is locked by a writer waiting to commit (SQLite's PENDING lock refuses new "
          "readers until the coordinator's read lock goes): stop the writer or let it roll "
          "back, then run this shard again ({})",
          path_, begun.message()));
    }
    LD_RETURN_IF_ERROR(begun);
    if (snapshot_id_ != snapshot_id) {
      return Status::Unavailable(fmt::format(
          "{} is not what the coordinator planned from (content {} in the plan, {} here, "
          "journal mode {}): the coordinator's read lock is gone (it died or gave up) and "
          "the file was written since, or this is another copy of it (the workers need the "
          "coordinator's file on a shared filesystem); start the dump again",
          path_, snapshot_id, snapshot_id_.empty() ? "unknown" : snapshot_id_, journal_mode_));
    }
    return Status::OK();
  }

  // Exactly the predicates Split() makes, rowid ranges and nothing else: a sharded dump's
  // plan comes from another process and is not trusted to carry SQL.
  Status CheckUnit(const WorkUnit& unit) const override {
    static const std::regex kRange(
        R"(^(rowid|_rowid_|oid) (< -?\d{1,19}|>= -?\d{1,19}( AND \1 < -?\d{1,19})?)$)");
    if (unit.range_predicate.empty() ||
        (unit.table.query.empty() && std::regex_match(unit.range_predicate, kRange))) {
      return Status::OK();
    }
    return Status::InvalidArgument(
        fmt::format("the plan gives table {} a range that is not one lakedump makes",
                    unit.table.ref.QualifiedName()));
  }

  nlohmann::json Describe() const override {
    std::lock_guard<std::mutex> lock(mu_);
    nlohmann::json j = {{"kind", "sqlite"},
                        {"path", path_},
                        {"sqlite_version", sqlite3_libversion()}};
    if (started_) {
      j["journal_mode"] = journal_mode_;
      j["read_connections"] = pool_.size();
      j["snapshot"] = journal_mode_ == "wal"
                          ? "one read transaction on one connection (WAL)"
                          : "read transactions begun under a held SHARED lock (rollback journal)";
      // What another process checks it reads the same content by (rollback journal only).
      if (!snapshot_id_.empty()) j["snapshot_id"] = snapshot_id_;
    }
    return j;
  }

 private:
  Result<std::shared_ptr<SqliteConnection>> Coordinator() {
    std::lock_guard<std::mutex> lock(mu_);
    LD_RETURN_IF_ERROR(BeginSnapshotLocked());
    return pool_[0];
  }

  // REQUIRES: mu_ held.
  Status BeginSnapshotLocked() {
    if (started_) return Status::OK();
    file_identity_ = FileIdentity(path_);
    const std::shared_ptr<SqliteConnection>& coord = pool_[0];
    {
      std::lock_guard<std::mutex> lock(coord->mu);
      LD_RETURN_IF_ERROR(BeginRead(coord->db).WithContext(path_));
      // Asked inside the transaction: no writer can switch modes under our lock.
      LD_ASSIGN_OR_RETURN(SqliteStmt st, Prepare(coord->db, "PRAGMA main.journal_mode", path_));
      const int rc = sqlite3_step(st.get());
      if (rc != SQLITE_ROW) return SqliteStatus(coord->db, rc, path_);
      journal_mode_ = reinterpret_cast<const char*>(sqlite3_column_text(st.get(), 0));
      std::transform(journal_mode_.begin(), journal_mode_.end(), journal_mode_.begin(),
                     [](char c) { return static_cast<char>(std::tolower(c)); });
      if (journal_mode_ != "wal") {
        LD_ASSIGN_OR_RETURN(snapshot_id_, ContentId(coord->db, path_));
      }
    }
    if (journal_mode_ != "wal") {
      // The coordinator's SHARED lock keeps every writer from committing, so
      // these transactions start from the very same state.
      for (int i = 1; i < options_.connections; ++i) {
        auto conn = OpenSqliteConnection(path_, kExtraConnectionBusyMs);
        if (!conn.ok()) break;
        std::lock_guard<std::mutex> lock((*conn)->mu);
        if (!BeginRead((*conn)->db).ok()) break;  // a writer's PENDING lock: fewer readers
        sqlite3_busy_timeout((*conn)->db, options_.busy_timeout_ms);
        pool_.push_back(*conn);
      }
    }
    started_ = true;
    return Status::OK();
  }

  // Table sizes for largest-first scheduling and splitting, cheap for any
  // size: rows = max(rowid) (SQLite answers it from the b-tree's right edge;
  // count(*) for WITHOUT ROWID tables), bytes = rows x the average record size
  // of the first kSampleRows rows, capped at the file size. (The dbstat
  // virtual table gives exact numbers but reads every page: 1.7 s of CPU for a
  // 2M-row, 180 MB table.)
  // REQUIRES: the coordinator's mutex held.
  Status EstimateSizes(sqlite3* db, std::vector<TableInfo>* tables) {
    constexpr int kSampleRows = 200;
    int64_t file_bytes = 0;
    {
      LD_ASSIGN_OR_RETURN(SqliteStmt st,
                          Prepare(db,
                                  "SELECT page_count * page_size FROM pragma_page_count(), "
                                  "pragma_page_size()",
                                  "page count"));
      if (sqlite3_step(st.get()) == SQLITE_ROW) file_bytes = sqlite3_column_int64(st.get(), 0);
    }
    for (TableInfo& t : *tables) {
      const std::string from = " FROM main." + QuoteIdentifier(t.ref.name);
      int64_t rows = -1;
      for (const char* count : {"max(_rowid_)", "max(rowid)", "max(oid)", "count(*)"}) {
        sqlite3_stmt* st = nullptr;
        const std::string sql = fmt::format("SELECT {}{}", count, from);
        if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW) {
          const int type = sqlite3_column_type(st, 0);
          if (type == SQLITE_INTEGER) rows = sqlite3_column_int64(st, 0);
          if (type == SQLITE_NULL) rows = 0;  // empty table
        }
        sqlite3_finalize(st);
        if (rows >= 0) break;
      }
      if (rows <= 0) continue;
      LD_ASSIGN_OR_RETURN(
          SqliteStmt sample,
          Prepare(db, fmt::format("SELECT *{} LIMIT {}", from, kSampleRows), t.ref.QualifiedName()));
      uint64_t sampled = 0, bytes = 0;
      const int columns = sqlite3_column_count(sample.get());
      while (sqlite3_step(sample.get()) == SQLITE_ROW) {
        ++sampled;
        bytes += 4;  // record header and cell overhead, roughly
        for (int c = 0; c < columns; ++c) {
          const int type = sqlite3_column_type(sample.get(), c);
          bytes += type == SQLITE_TEXT || type == SQLITE_BLOB
                       ? static_cast<uint64_t>(sqlite3_column_bytes(sample.get(), c)) + 1
                       : (type == SQLITE_NULL ? 1 : 8);
        }
      }
      t.estimated_rows = static_cast<uint64_t>(rows);
      const uint64_t avg = sampled ? bytes / sampled : 0;
      t.estimated_bytes =
          std::min<uint64_t>(t.estimated_rows * avg, static_cast<uint64_t>(file_bytes));
    }
    return Status::OK();
  }

  // Every table's CREATE statement in one scan of sqlite_schema, for
  // PlanSqliteTable (whose own lookup would scan sqlite_schema once per table).
  // REQUIRES: the coordinator's mutex held.
  Status RememberDdl(sqlite3* db) {
    LD_ASSIGN_OR_RETURN(SqliteStmt st, Prepare(db,
                                               "SELECT name, sql FROM main.sqlite_schema "
                                               "WHERE type = 'table'",
                                               "list tables"));
    std::map<std::string, std::string> ddl;
    int rc;
    while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
      const auto* name = reinterpret_cast<const char*>(sqlite3_column_text(st.get(), 0));
      const auto* sql = reinterpret_cast<const char*>(sqlite3_column_text(st.get(), 1));
      if (name != nullptr) ddl[name] = sql != nullptr ? sql : "";
    }
    if (rc != SQLITE_DONE) return SqliteStatus(db, rc, "list tables");
    std::lock_guard<std::mutex> lock(cache_mu_);
    ddl_ = std::move(ddl);
    return Status::OK();
  }

  // The table's plan (with options_.lax_types), computed once on `db` and
  // cached: the source's Open(), Split() and the commit's DescribeTable() all
  // need it, and every connection reads the same snapshot.
  // REQUIRES: the mutex of the connection owning `db` held (not cache_mu_).
  Result<SqliteTablePlan> PlanLocked(sqlite3* db, const TableRef& ref) {
    std::optional<std::string> ddl;
    {
      std::lock_guard<std::mutex> lock(cache_mu_);
      auto it = plans_.find(ref.name);
      if (it != plans_.end()) return it->second;
      auto d = ddl_.find(ref.name);
      if (d != ddl_.end()) ddl = d->second;
    }
    LD_ASSIGN_OR_RETURN(SqliteTablePlan plan,
                        PlanSqliteTable(db, ref, options_.lax_types, ddl ? &*ddl : nullptr));
    std::lock_guard<std::mutex> lock(cache_mu_);
    plans_.emplace(ref.name, plan);
    return plan;
  }

  // Lax types: the columns of a table to read as string, scanned once and cached.
  // REQUIRES: the coordinator's mutex held (not mu_).
  Result<std::vector<bool>> AsStringLocked(sqlite3* db, const SqliteTablePlan& plan,
                                           const TableInfo& table) {
    {
      std::lock_guard<std::mutex> lock(cache_mu_);
      auto it = as_string_.find(table.ref.name);
      if (it != as_string_.end()) return it->second;
    }
    LD_ASSIGN_OR_RETURN(std::vector<bool> as_string, FindMismatchedColumns(db, plan));
    std::lock_guard<std::mutex> lock(cache_mu_);
    as_string_[table.ref.name] = as_string;
    return as_string;
  }

  // Which columns of a table keep their exact values (PlanExactValues; empty: none, and always
  // without options_.exact_values), decided once on `db` from `schema` (the plan's, lax types'
  // string columns applied) and cached: every unit and the commit's DescribeTable() agree.
  // REQUIRES: the mutex of the connection owning `db` held (not cache_mu_).
  Result<std::vector<uint8_t>> ExactLocked(sqlite3* db, const SqliteTablePlan& plan,
                                           const Schema& schema, const TableRef& ref) {
    if (!options_.exact_values) return std::vector<uint8_t>();
    {
      std::lock_guard<std::mutex> lock(cache_mu_);
      auto it = exact_.find(ref.name);
      if (it != exact_.end()) return it->second;
    }
    LD_ASSIGN_OR_RETURN(std::vector<uint8_t> exact,
                        PlanExactValues(db, plan, schema, options_.lax_types));
    std::lock_guard<std::mutex> lock(cache_mu_);
    exact_[ref.name] = exact;
    return exact;
  }

  // ExactLocked for a table about to be read, on the coordinator.
  Result<std::vector<uint8_t>> ExactFor(const TableRef& ref, const std::vector<bool>& as_string) {
    if (!options_.exact_values) return std::vector<uint8_t>();
    {
      std::lock_guard<std::mutex> lock(cache_mu_);
      auto it = exact_.find(ref.name);
      if (it != exact_.end()) return it->second;
    }
    LD_ASSIGN_OR_RETURN(auto coord, Coordinator());
    std::lock_guard<std::mutex> lock(coord->mu);
    LD_ASSIGN_OR_RETURN(SqliteTablePlan plan, PlanLocked(coord->db, ref));
    std::vector<Column> columns = plan.definition.schema.columns();
    for (size_t i = 0; i < as_string.size() && i < columns.size(); ++i) {
      if (as_string[i]) columns[i].type = LogicalType::Of(TypeId::kString);
    }
    return ExactLocked(coord->db, plan, Schema(std::move(columns)), ref);
  }

  const std::string path_;
  const SqliteOptions options_;

  // Lock order: mu_ before a connection's mutex before cache_mu_.
  mutable std::mutex mu_;
  bool started_ = false;                                  // guarded by mu_
  std::string journal_mode_;                              // guarded by mu_
  std::string snapshot_id_;  // guarded by mu_: ContentId() in rollback mode, else empty
  nlohmann::json file_identity_;                          // guarded by mu_
  std::vector<std::shared_ptr<SqliteConnection>> pool_;   // guarded by mu_; [0] = coordinator
  size_t next_ = 0;                                       // guarded by mu_
  std::mutex cache_mu_;
  std::map<std::string, std::vector<bool>> as_string_;    // guarded by cache_mu_
  std::map<std::string, std::string> ddl_;                // guarded by cache_mu_
  std::map<std::string, SqliteTablePlan> plans_;          // guarded by cache_mu_
  std::map<std::string, std::vector<uint8_t>> exact_;     // guarded by cache_mu_
};

}  // namespace

Status CheckSqliteSnapshotShareable(std::string_view path_or_url) {
  const std::string path = SqlitePathFromUrl(path_or_url);
  LD_ASSIGN_OR_RETURN(auto conn, OpenSqliteConnection(path, SqliteOptions{}.busy_timeout_ms));
  std::lock_guard<std::mutex> lock(conn->mu);
  LD_ASSIGN_OR_RETURN(SqliteStmt st, Prepare(conn->db, "PRAGMA main.journal_mode", path));
  const int rc = sqlite3_step(st.get());
  if (rc != SQLITE_ROW) return SqliteStatus(conn->db, rc, path);
  std::string mode = reinterpret_cast<const char*>(sqlite3_column_text(st.get(), 0));
  std::transform(mode.begin(), mode.end(), mode.begin(),
                 [](char c) { return static_cast<char>(std::tolower(c)); });
  if (mode != "wal") return Status::OK();
  return Status::InvalidArgument(fmt::format(
      "--shards: {} is in WAL mode, where SQLite cannot share one snapshot between processes: "
      "add --no-snapshot (each worker then reads the file as it is when it starts), or switch "
      "it to a rollback journal (PRAGMA journal_mode=DELETE) so that the coordinator's read "
      "lock holds one state for every worker, or dump it on one machine",
      path));
}

std::string SqlitePathFromUrl(std::string_view s) {
  if (s.starts_with("sqlite://")) return std::string(s.substr(9));  // sqlite:///abs -> /abs
  if (s.starts_with("sqlite:")) return std::string(s.substr(7));
  return std::string(s);
}

Result<std::unique_ptr<Database>> OpenSqliteDatabase(std::string_view path_or_url,
                                                     const SqliteOptions& options) {
  const std::string path = SqlitePathFromUrl(path_or_url);
  if (path.empty()) return Status::InvalidArgument("empty SQLite database path");
  LD_ASSIGN_OR_RETURN(auto conn, OpenSqliteConnection(path, options.busy_timeout_ms));
  {
    // The first read of the file is where SQLite notices it is not a database.
    std::lock_guard<std::mutex> lock(conn->mu);
    Result<SqliteStmt> st = Prepare(conn->db, "SELECT count(*) FROM main.sqlite_schema", path);
    int rc = st.ok() ? sqlite3_step(st->get()) : sqlite3_errcode(conn->db);
    if ((rc & 0xff) == SQLITE_NOTADB) {
      return Status::InvalidArgument(fmt::format("{} is not a SQLite database", path));
    }
    if (!st.ok()) return st.status();
    if (rc != SQLITE_ROW) return SqliteStatus(conn->db, rc, path);
  }
  SqliteOptions opts = options;
  opts.connections = std::max(1, opts.connections);
  return std::unique_ptr<Database>(new SqliteDatabase(path, opts, std::move(conn)));
}

}  // namespace lakedump
