#include "source/postgres/postgres_database.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "source/postgres/pg_block_range.h"
#include "source/postgres/pg_catalog.h"
#include "source/postgres/pg_conn.h"
#include "source/postgres/pg_connection_pool.h"
#include "source/postgres/pg_large_objects.h"
#include "source/postgres/pg_schema_capture.h"
#include "source/postgres/postgres_table_source.h"

namespace lakedump {
namespace {

using Key = std::pair<std::string, std::string>;
Key KeyOf(const TableRef& ref) { return {ref.schema, ref.name}; }

class PostgresDatabase final : public Database, public LargeObjectProvider {
 public:
  PostgresDatabase(std::string conninfo, PostgresOptions options,
                   std::unique_ptr<PgConn> coordinator)
      : options_(std::move(options)),
        conninfo_(conninfo),
        coordinator_(std::move(coordinator)),
        pool_(std::move(conninfo), options_.max_connections, options_.connect_timeout_seconds) {}

  Status BeginSnapshot() override;
  Result<std::vector<TableInfo>> ListTables() override;
  Status LockTables(const std::vector<TableInfo>& tables) override;
  Result<TableDefinition> DescribeTable(const TableInfo& table) override;
  Result<std::vector<WorkUnit>> Split(const TableInfo& table, uint64_t target_bytes) override;
  Result<std::unique_ptr<TableSource>> Open(const WorkUnit& unit) override;
  Result<std::unique_ptr<LargeObjectSource>> OpenLargeObjects() override {
    std::string snapshot;
    {
      std::lock_guard lock(mu_);
      if (!in_snapshot_) return Status::InvalidArgument("OpenLargeObjects() before BeginSnapshot()");
      snapshot = snapshot_id_;
    }
    return OpenPgLargeObjects(conninfo_, options_.connect_timeout_seconds, snapshot);
  }
  Result<SchemaCapture> CaptureSchema(const SchemaSelection& selected,
                                      const SchemaCaptureOptions& options) override;
  nlohmann::json Describe() const override;
  Status CheckSnapshotHeld() override;
  Status ImportSnapshot(const std::string& snapshot_id) override;
  nlohmann::json Identity() const override;
  Status CheckUnit(const WorkUnit& unit) const override;
  Result<nlohmann::json> Fingerprint(const TableInfo& table) override;

 private:
  Result<const PgTablePlan*> PlanLocked(const TableInfo& table);
  Status EnsureLockedLocked(const PgTablePlan& plan, bool wait = true);
  // LOCK TABLE `list` IN ACCESS SHARE MODE on the coordinator, inside a savepoint (a failed
  // lock leaves the snapshot's transaction usable), waiting as options_.lock_timeout_ms says
  // (NOWAIT unless `wait`). The error of the last attempt, or Cancelled when stop fired.
  Status LockListLocked(const std::string& list, bool wait);
  Status CoordinatorErrorLocked(Status s, std::string_view what);
  // identity_, what resume and sharded dumps compare: the database OID and the cluster's
  // system identifier (PostgreSQL 9.6+; NULL when the role may not read it; a savepoint
  // keeps a refusal from aborting the snapshot's transaction).
  Status ReadIdentityLocked();
  // QueryPgSchemaFacts on a connection of its own, in a transaction that imports the
  // snapshot: the coordinator (and mu_) stay free for planning and the table workers.
  Result<PgSchemaFacts> ReadSchemaFacts(const std::string& snapshot_id,
                                        const SchemaSelection& selected, bool for_archive);
  // Creates options_.slot_name and returns its exported snapshot's name; sets
  // consistent_point_. REQUIRES: mu_ held, no transaction open on the coordinator.
  Result<std::string> CreateSlotLocked();

  const PostgresOptions options_;
  const std::string conninfo_;
  mutable std::mutex mu_;
  std::unique_ptr<PgConn> coordinator_;        // guarded by mu_
  PgCatalog catalog_;                          // guarded by mu_
  std::map<Key, std::unique_ptr<PgTablePlan>> plans_;  // guarded by mu_; values never move
  // The plans described inside the snapshot's transaction (all of them, unless one was
  // described before BeginSnapshot()): what they read of pg_class holds for the whole
  // transaction. Guarded by mu_.
  std::set<Key> described_in_snapshot_;
  std::set<Key> locked_;                       // guarded by mu_
  bool in_snapshot_ = false;                   // guarded by mu_
  nlohmann::json snapshot_info_ = nlohmann::json::object();  // guarded by mu_
  std::string snapshot_id_;                    // guarded by mu_
  nlohmann::json identity_;                    // guarded by mu_: system id, database OID
  // Incremental dumps: the replication connection that created the slot and holds its
  // exported snapshot (idle: any command on it would end the snapshot). Guarded by mu_.
  std::unique_ptr<PgConn> replication_;
  std::string consistent_point_;               // guarded by mu_
  // Declared last: destroyed first, while the coordinator still holds the snapshot.
  PgConnectionPool pool_;
};

Status PostgresDatabase::CoordinatorErrorLocked(Status s, std::string_view what) {
  return s.WithContext(fmt::format("PostgreSQL coordinator session, {}", what));
}

Status PostgresDatabase::ImportSnapshot(const std::string& snapshot_id) {
  std::lock_guard lock(mu_);
  if (in_snapshot_) return Status::InvalidArgument("ImportSnapshot() inside a snapshot");
  LD_RETURN_IF_ERROR(CoordinatorErrorLocked(
      coordinator_->Exec("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"), "BEGIN"));
  // One statement, the id as a literal (SET takes no parameters).
  Status set = coordinator_->ExecOne("SET TRANSACTION SNAPSHOT " + QuoteLiteral(snapshot_id));
  if (!set.ok()) {
    if (!coordinator_->broken()) coordinator_->Exec("ROLLBACK").IgnoreError();
    if (set.message().find("invalid snapshot identifier") != std::string::npos) {
      return Status::Unavailable(fmt::format(
          "the snapshot {} is gone: the coordinator's session that exported it has ended "
          "(the coordinator died or gave up); start the dump again",
          snapshot_id));
    }
    return CoordinatorErrorLocked(set, "importing the snapshot");
  }
  snapshot_id_ = snapshot_id;
  snapshot_info_ = {{"snapshot_id", snapshot_id_}, {"imported", true}};
  LD_RETURN_IF_ERROR(ReadIdentityLocked());
  in_snapshot_ = true;
  return Status::OK();
}

nlohmann::json PostgresDatabase::Identity() const {
  std::lock_guard lock(mu_);
  return identity_;
}

Status PostgresDatabase::CheckUnit(const WorkUnit& unit) const {
  // Exactly the predicates Split() makes: block ranges over ctid, nothing else.
  if (unit.range_predicate.empty() ||
      (unit.table.query.empty() && IsBlockRangePredicate(unit.range_predicate))) {
    return Status::OK();
  }
  return Status::InvalidArgument(
      fmt::format("the plan gives table {} a range that is not one lakedump makes",
                  unit.table.ref.QualifiedName()));
}

Status PostgresDatabase::ReadIdentityLocked() {
  auto id = coordinator_->Query(
      "SELECT d.oid::text FROM pg_catalog.pg_database d WHERE d.datname = "
      "pg_catalog.current_database()");
  if (!id.ok()) return CoordinatorErrorLocked(id.status(), "reading the database OID");
  identity_ = {{"kind", "postgresql"},
               {"database_oid", std::string(PgValue(id->get(), 0, 0))},
               {"system_identifier", nullptr}};
  if (coordinator_->Exec("SAVEPOINT lakedump_sysid").ok()) {
    auto sys = coordinator_->Query(
        "SELECT system_identifier::text FROM pg_catalog.pg_control_system()");
    if (sys.ok()) {
      identity_["system_identifier"] = std::string(PgValue(sys->get(), 0, 0));
      coordinator_->Exec("RELEASE SAVEPOINT lakedump_sysid").IgnoreError();
    } else if (!coordinator_->broken()) {
      coordinator_->Exec("ROLLBACK TO SAVEPOINT lakedump_sysid; RELEASE SAVEPOINT lakedump_sysid")
          .IgnoreError();
    }
  }
  return Status::OK();
}

Result<std::string> PostgresDatabase::CreateSlotLocked() {
  auto level = coordinator_->Query("SELECT pg_catalog.current_setting('wal_level')");
  if (!level.ok()) return CoordinatorErrorLocked(level.status(), "reading wal_level");
  const std::string wal_level(PgValue(level->get(), 0, 0));
  if (wal_level != "logical") {
    return Status::InvalidArgument(fmt::format(
        "--incremental needs logical decoding, but the server runs with wal_level={}: set "
        "wal_level = logical (and max_replication_slots, max_wal_senders >= 1) in "
        "postgresql.conf or with ALTER SYSTEM, then restart PostgreSQL",
        wal_level));
  }
  LD_ASSIGN_OR_RETURN(replication_, PgConn::Connect(conninfo_, options_.connect_timeout_seconds,
                                                    /*replication=*/true));
  // Replication commands take the simple query protocol only. The name is ours
  // ([a-z0-9_]), checked anyway: it is spliced into the command.
  for (char c : options_.slot_name) {
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_')) {
      return Status::InvalidArgument(fmt::format("bad replication slot name \"{}\"", options_.slot_name));
    }
  }
  const std::string sql =
      coordinator_->server_version() >= 150000
          ? fmt::format("CREATE_REPLICATION_SLOT {}{} LOGICAL pgoutput (SNAPSHOT 'export')",
                        options_.slot_name, options_.slot_temporary ? " TEMPORARY" : "")
          : fmt::format("CREATE_REPLICATION_SLOT {}{} LOGICAL pgoutput EXPORT_SNAPSHOT",
                        options_.slot_name, options_.slot_temporary ? " TEMPORARY" : "");
  PgResult r(PQexec(replication_->raw(), sql.c_str()));
  if (!r || PQresultStatus(r.get()) != PGRES_TUPLES_OK || PQntuples(r.get()) != 1 ||
      PQnfields(r.get()) < 3) {
    return replication_->ErrorStatus(r.get()).WithContext(
        fmt::format("creating replication slot {}", options_.slot_name));
  }
  consistent_point_ = std::string(PgValue(r.get(), 0, 1));
  return std::string(PgValue(r.get(), 0, 2));
}

Status PostgresDatabase::BeginSnapshot() {
  std::lock_guard lock(mu_);
  if (in_snapshot_) return Status::OK();
  std::string slot_snapshot;
  if (!options_.slot_name.empty()) {
    LD_ASSIGN_OR_RETURN(slot_snapshot, CreateSlotLocked());
  }
  LD_RETURN_IF_ERROR(CoordinatorErrorLocked(
      coordinator_->Exec("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"), "BEGIN"));
  if (!slot_snapshot.empty()) {
    // The coordinator reads the slot's snapshot too (its catalog reads, locks and
    // pg_dump's snapshot must be the slot's), and the workers import the same name.
    Status imported = coordinator_->Exec(
        "SET TRANSACTION SNAPSHOT " + QuoteLiteral(slot_snapshot));
    if (!imported.ok()) {
      coordinator_->Exec("ROLLBACK").IgnoreError();
      return CoordinatorErrorLocked(imported, "importing the replication slot's snapshot");
    }
  }
  auto r = coordinator_->Query(
      std::string("SELECT ") +
      (slot_snapshot.empty() ? "pg_catalog.pg_export_snapshot()" : QuoteLiteral(slot_snapshot)) +
      ", pg_catalog.pg_is_in_recovery(), "
      "(CASE WHEN pg_catalog.pg_is_in_recovery() THEN pg_catalog.pg_last_wal_replay_lsn() "
      "ELSE pg_catalog.pg_current_wal_lsn() END)::text, "
      "pg_catalog.to_char(pg_catalog.now() AT TIME ZONE 'UTC', "
      "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), pg_catalog.current_database()");
  if (!r.ok()) {
    coordinator_->Exec("ROLLBACK").IgnoreError();
    return CoordinatorErrorLocked(r.status(), "exporting the snapshot");
  }
  PGresult* res = r->get();
  snapshot_id_ = std::string(PgValue(res, 0, 0));
  snapshot_info_ = {
      {"snapshot_id", snapshot_id_},
      {"in_recovery", PgValue(res, 0, 1) == "t"},
      {"wal_lsn", std::string(PgValue(res, 0, 2))},
      {"snapshot_time", std::string(PgValue(res, 0, 3))},
      {"database", std::string(PgValue(res, 0, 4))},
  };
  if (!slot_snapshot.empty()) {
    // The slot's changes start exactly where the snapshot ends.
    snapshot_info_["wal_lsn"] = consistent_point_;
    snapshot_info_["replication_slot"] = options_.slot_name;
    snapshot_info_["consistent_point"] = consistent_point_;
  }
  LD_RETURN_IF_ERROR(ReadIdentityLocked());
  in_snapshot_ = true;
  return Status::OK();
}

Status PostgresDatabase::CheckSnapshotHeld() {
  std::lock_guard lock(mu_);
  if (!in_snapshot_) return Status::OK();
  // A cheap round trip on the coordinator, serialized with its other uses by mu_.
  auto r = coordinator_->Query("SELECT 1");
  if (replication_ != nullptr &&
      (!PQconsumeInput(replication_->raw()) || replication_->broken())) {
    return Status::Unavailable(
        "the replication connection holding the slot's exported snapshot is gone: rows read "
        "since may not match the slot's start; nothing was committed");
  }
  if (r.ok() && PQtransactionStatus(coordinator_->raw()) == PQTRANS_INTRANS) return Status::OK();
  return Status::Unavailable(fmt::format(
      "the PostgreSQL session holding the dump's snapshot and table locks is gone ({}): the "
      "locks that made the snapshot safe against TRUNCATE and DDL have lapsed, so rows read "
      "since may be wrong; nothing was committed",
      r.ok() ? "its transaction ended" : r.status().message()));
}

Result<nlohmann::json> PostgresDatabase::Fingerprint(const TableInfo& table) {
  std::lock_guard lock(mu_);
  LD_ASSIGN_OR_RETURN(const PgTablePlan* plan, PlanLocked(table));
  nlohmann::json j = identity_;
  j["type_options"] = {{"numeric", static_cast<int>(options_.types.numeric)},
                       {"numeric_scale", options_.types.numeric_scale},
                       {"infinity", static_cast<int>(options_.infinity)},
                       {"numeric_special", static_cast<int>(options_.numeric_special)}};
  if (plan->relkind == 'q') {
    j["query"] = plan->query;
    return j;
  }
  // The relation: its OID, and its file (TRUNCATE, VACUUM FULL, CLUSTER and
  // rewriting ALTERs give it a new one). Described inside this REPEATABLE READ
  // transaction, the plan's pg_class row is what a query would read now (the same
  // snapshot): no round trip per table (a sharded dump's coordinator commits
  // thousands of tables on this one session).
  if (in_snapshot_ && described_in_snapshot_.contains(KeyOf(plan->ref)) &&
      !plan->relfilenode.empty()) {
    j["relation"] = {{"oid", std::to_string(plan->oid)},
                     {"relfilenode", plan->relfilenode},
                     {"relkind", std::string(1, plan->relkind)}};
    return j;
  }
  auto r = coordinator_->Query(
      "SELECT c.oid::text, c.relfilenode::text, c.relkind::text FROM pg_catalog.pg_class c "
      "WHERE c.oid = $1::oid",
      {std::to_string(plan->oid)});
  if (!r.ok()) {
    return CoordinatorErrorLocked(r.status(),
                                  fmt::format("identifying table {}", table.ref.QualifiedName()));
  }
  if (PQntuples(r->get()) != 1) {
    return Status::NotFound(fmt::format("table {} is gone", table.ref.QualifiedName()));
  }
  j["relation"] = {{"oid", std::string(PgValue(r->get(), 0, 0))},
                   {"relfilenode", std::string(PgValue(r->get(), 0, 1))},
                   {"relkind", std::string(PgValue(r->get(), 0, 2))}};
  return j;
}

Result<std::vector<TableInfo>> PostgresDatabase::ListTables() {
  std::lock_guard lock(mu_);
  auto tables = PgCatalog::ListTables(*coordinator_, options_.include_materialized_views);
  if (!tables.ok()) return CoordinatorErrorLocked(tables.status(), "listing tables");
  return tables;
}

Result<const PgTablePlan*> PostgresDatabase::PlanLocked(const TableInfo& table) {
  const TableRef& ref = table.ref;
  auto it = plans_.find(KeyOf(ref));
  if (it != plans_.end()) return it->second.get();
  auto plan = table.query.empty()
                  ? catalog_.Describe(*coordinator_, ref, options_.types)
                  : catalog_.DescribeQuery(*coordinator_, ref, table.query, options_.types);
  if (!plan.ok()) {
    if (plan.status().code() == Code::kNotFound ||
        plan.status().code() == Code::kInvalidArgument) {
      return plan.status();
    }
    return CoordinatorErrorLocked(plan.status(),
                                  fmt::format("describing table {}", ref.QualifiedName()));
  }
  auto owned = std::make_unique<PgTablePlan>(std::move(plan).value());
  const PgTablePlan* out = owned.get();
  plans_.emplace(KeyOf(ref), std::move(owned));
  if (in_snapshot_) described_in_snapshot_.insert(KeyOf(ref));
  return out;
}

Status PostgresDatabase::LockListLocked(const std::string& list, bool wait) {
  const int timeout = wait ? options_.lock_timeout_ms : 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout);
  for (;;) {
    std::string sql = "SAVEPOINT lakedump_lock; ";
    if (timeout == 0) {
      sql += "LOCK TABLE " + list + " IN ACCESS SHARE MODE NOWAIT; ";
    } else {
      // A slice of at most a second, then lock_timeout back to none for the transaction.
      int64_t slice = 1000;
      if (timeout > 0) {
        slice = std::clamp<int64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                        deadline - std::chrono::steady_clock::now())
                                        .count(),
                                    1, 1000);
      }
      sql += fmt::format("SET LOCAL lock_timeout = {}; LOCK TABLE {} IN ACCESS SHARE MODE; "
                         "SET LOCAL lock_timeout = 0; ",
                         slice, list);
    }
    sql += "RELEASE SAVEPOINT lakedump_lock";
    Status s = coordinator_->Exec(sql);
    if (s.ok() || coordinator_->broken()) return s;
    coordinator_->Exec("ROLLBACK TO SAVEPOINT lakedump_lock; RELEASE SAVEPOINT lakedump_lock")
        .IgnoreError();
    const bool lock_wait = s.message().find("lock timeout") != std::string::npos;
    if (!lock_wait || (timeout > 0 && std::chrono::steady_clock::now() >= deadline)) return s;
    if (options_.stop.stop_requested()) {
      return Status::Cancelled("interrupted while waiting for a table lock");
    }
  }
}

namespace {

// The one line for a table whose lock failed after waiting `timeout_ms` (0: NOWAIT).
Status LockedError(const TableRef& ref, const Status& s, int timeout_ms) {
  if (s.code() == Code::kCancelled) return s;
  const std::string how = timeout_ms == 0  ? std::string("NOWAIT")
                          : timeout_ms < 0 ? std::string("--lock-wait-timeout forever")
                                           : fmt::format("waited {} ms, --lock-wait-timeout",
                                                         timeout_ms);
  return Status(s.code(), fmt::format("table {} is locked by another session ({}): {}",
                                      ref.QualifiedName(), how, s.message()));
}

}  // namespace

Status PostgresDatabase::EnsureLockedLocked(const PgTablePlan& plan, bool wait) {
  // Materialized views cannot be locked (LOCK TABLE rejects them), like pg_dump.
  // A query's tables are locked by the query itself (ACCESS SHARE while it runs).
  if (!in_snapshot_ || plan.relkind == 'm' || plan.relkind == 'q' || locked_.contains(KeyOf(plan.ref))) {
    return Status::OK();
  }
  Status s = LockListLocked(QuoteQualified(plan.ref.schema, plan.ref.name), wait);
  if (!s.ok()) return LockedError(plan.ref, s, wait ? options_.lock_timeout_ms : 0);
  locked_.insert(KeyOf(plan.ref));
  return Status::OK();
}

Status PostgresDatabase::LockTables(const std::vector<TableInfo>& tables) {
  std::lock_guard lock(mu_);
  if (!in_snapshot_) return Status::InvalidArgument("LockTables() before BeginSnapshot()");
  // Describe the tables not planned yet in batches (a few round trips, not a
  // few per table)...
  constexpr size_t kBatch = 500;
  std::vector<TableRef> missing;
  for (const TableInfo& t : tables) {
    if (t.query.empty() && !plans_.contains(KeyOf(t.ref))) missing.push_back(t.ref);
  }
  for (size_t at = 0; at < missing.size(); at += kBatch) {
    const std::vector<TableRef> batch(missing.begin() + at,
                                      missing.begin() + std::min(missing.size(), at + kBatch));
    auto described = catalog_.DescribeMany(*coordinator_, batch, options_.types);
    if (!described.ok()) {
      if (described.status().code() == Code::kNotFound) return described.status();
      return CoordinatorErrorLocked(described.status(), "describing tables");
    }
    for (PgTablePlan& plan : *described) {
      const Key key = KeyOf(plan.ref);
      plans_.emplace(key, std::make_unique<PgTablePlan>(std::move(plan)));
      described_in_snapshot_.insert(key);  // LockTables() runs inside the snapshot
    }
  }
  // ...and lock them a hundred per LOCK statement. When a batch fails, lock its
  // tables one by one for an error that names the table.
  std::vector<const PgTablePlan*> to_lock;
  for (const TableInfo& t : tables) {
    if (!t.query.empty()) continue;
    const PgTablePlan* plan = plans_.at(KeyOf(t.ref)).get();
    if (plan->relkind != 'm' && !locked_.contains(KeyOf(t.ref))) to_lock.push_back(plan);
  }
  constexpr size_t kLockBatch = 100;
  for (size_t at = 0; at < to_lock.size(); at += kLockBatch) {
    const size_t end = std::min(to_lock.size(), at + kLockBatch);
    std::string list;
    for (size_t i = at; i < end; ++i) {
      if (!list.empty()) list += ", ";
      list += QuoteQualified(to_lock[i]->ref.schema, to_lock[i]->ref.name);
    }
    Status s = LockListLocked(list, true);
    if (s.ok()) {
      for (size_t i = at; i < end; ++i) locked_.insert(KeyOf(to_lock[i]->ref));
      continue;
    }
    if (coordinator_->broken()) {
      return CoordinatorErrorLocked(Status::Unavailable("connection lost"), "locking tables");
    }
    if (s.code() == Code::kCancelled) return s;
    // The batch waited its time: lock its tables one by one without waiting again, for an
    // error that names the table still locked.
    for (size_t i = at; i < end; ++i) {
      const PgTablePlan& plan = *to_lock[i];
      Status one = LockListLocked(QuoteQualified(plan.ref.schema, plan.ref.name), false);
      if (!one.ok()) return LockedError(plan.ref, one, options_.lock_timeout_ms);
      locked_.insert(KeyOf(plan.ref));
    }
  }
  // Sizes for Split(), in one query now that the tables are locked.
  std::string oids = "{";
  std::map<uint32_t, PgTablePlan*> plain;
  for (const TableInfo& t : tables) {
    if (!t.query.empty()) continue;
    PgTablePlan* plan = plans_.at(KeyOf(t.ref)).get();
    if (plan->relkind != 'r' || plan->relation_bytes >= 0) continue;
    oids += (plain.empty() ? "" : ",") + std::to_string(plan->oid);
    plain[plan->oid] = plan;
  }
  if (!plain.empty()) {
    auto r = coordinator_->Query(
        "SELECT o, pg_catalog.pg_relation_size(o) FROM unnest($1::oid[]) AS o", {oids + "}"});
    if (!r.ok()) return CoordinatorErrorLocked(r.status(), "sizing tables");
    for (int i = 0; i < PQntuples(r->get()); ++i) {
      const uint32_t oid = static_cast<uint32_t>(std::stoul(std::string(PgValue(r->get(), i, 0))));
      plain.at(oid)->relation_bytes = std::stoll(std::string(PgValue(r->get(), i, 1)));
    }
  }
  return Status::OK();
}

Result<TableDefinition> PostgresDatabase::DescribeTable(const TableInfo& table) {
  std::lock_guard lock(mu_);
  LD_ASSIGN_OR_RETURN(const PgTablePlan* plan, PlanLocked(table));
  return plan->definition;
}

Result<std::vector<WorkUnit>> PostgresDatabase::Split(const TableInfo& table,
                                                      uint64_t target_bytes) {
  std::vector<WorkUnit> one{WorkUnit{table, 0, 1, ""}};
  std::lock_guard lock(mu_);
  // Tid Range Scan arrived in PostgreSQL 14; before it each range would scan the whole table.
  if (!table.query.empty() || target_bytes == 0 || coordinator_->server_version() < 140000) {
    return one;
  }
  LD_ASSIGN_OR_RETURN(const PgTablePlan* plan, PlanLocked(table));
  // Sized by LockTables() and small: one unit, no round trip.
  if (plan->relation_bytes >= 0 && static_cast<uint64_t>(plan->relation_bytes) <= target_bytes &&
      locked_.contains(KeyOf(plan->ref))) {
    return one;
  }
  // Hold the lock first: pg_relation_size() opens the relation and must not
  // queue behind another session's lock.
  LD_RETURN_IF_ERROR(EnsureLockedLocked(*plan));
  // Partitioned: ranges over the largest partition's blocks apply to each partition.
  const std::string oid = std::to_string(plan->oid);
  std::string sql =
      plan->relkind == 'p'
          ? "WITH RECURSIVE tree(relid) AS (SELECT $1::oid UNION ALL SELECT i.inhrelid FROM tree "
            "t JOIN pg_catalog.pg_inherits i ON i.inhparent = t.relid) "
            "SELECT coalesce(max(pg_catalog.pg_relation_size(c.oid)), 0)::int8, "
            "coalesce(sum(pg_catalog.pg_relation_size(c.oid)), 0)::int8, "
            "pg_catalog.current_setting('block_size')::int8 "
            "FROM tree t JOIN pg_catalog.pg_class c ON c.oid = t.relid WHERE c.relkind <> 'p'"
          : "SELECT pg_catalog.pg_relation_size($1::oid), pg_catalog.pg_relation_size($1::oid), "
            "pg_catalog.current_setting('block_size')::int8";
  auto r = coordinator_->Query(sql, {oid});
  if (!r.ok()) {
    return CoordinatorErrorLocked(r.status(),
                                  fmt::format("sizing table {}", table.ref.QualifiedName()));
  }
  const uint64_t max_bytes = std::stoull(std::string(PgValue(r->get(), 0, 0)));
  const uint64_t total_bytes = std::stoull(std::string(PgValue(r->get(), 0, 1)));
  const uint64_t block = std::stoull(std::string(PgValue(r->get(), 0, 2)));
  const uint64_t pages = block ? max_bytes / block : 0;
  uint64_t n = (total_bytes + target_bytes - 1) / target_bytes;
  n = std::min<uint64_t>(n, pages);
  n = std::min<uint64_t>(n, 10000);
  if (n <= 1) return one;
  const uint64_t per = (pages + n - 1) / n;
  n = (pages + per - 1) / per;
  std::vector<WorkUnit> units;
  for (uint64_t i = 0; i < n; ++i) {
    WorkUnit u{table, static_cast<int>(i), static_cast<int>(n), ""};
    const uint64_t lo = i * per, hi = (i + 1) * per;
    // No gap, no overlap: [lo, hi) blocks; the first unit is open below, the
    // last open above (the table may have grown since it was sized).
    u.range_predicate = BlockRangePredicate(lo, hi, /*open_below=*/i == 0,
                                            /*open_above=*/i + 1 == n);
    units.push_back(std::move(u));
  }
  return units;
}

Result<std::unique_ptr<TableSource>> PostgresDatabase::Open(const WorkUnit& unit) {
  PgReadSpec spec;
  {
    std::lock_guard lock(mu_);
    LD_ASSIGN_OR_RETURN(const PgTablePlan* plan, PlanLocked(unit.table));
    LD_RETURN_IF_ERROR(EnsureLockedLocked(*plan));
    spec.table_name = unit.table.ref.QualifiedName();
    spec.qualified = plan->relkind == 'q'
                         ? "(" + plan->query + "\n) AS lakedump_query"
                         : QuoteQualified(unit.table.ref.schema, unit.table.ref.name);
    spec.select_list = plan->select_list;
    spec.range_predicate = unit.range_predicate;
    spec.copy_table = plan->relkind == 'r' && plan->plain_select_list &&
                      !plan->select_list.empty() && unit.range_predicate.empty();
    spec.snapshot_id = snapshot_id_;
    spec.lock = plan->relkind != 'm' && plan->relkind != 'q';
    // The coordinator holds the table's lock: a worker's lock conflicts only with an exclusive
    // request queued since, which waits for the coordinator, so the worker does not wait
    // (NOWAIT, as pg_dump's workers). Without a snapshot, the worker's lock is the only one.
    spec.lock_timeout_ms = in_snapshot_ ? 0 : options_.lock_timeout_ms;
    spec.schema = plan->definition.schema;
    spec.fields = plan->fields;
  }
  spec.decode.table = spec.table_name;
  spec.decode.infinity = options_.infinity;
  spec.decode.numeric_special = options_.numeric_special;
  return PostgresTableSource::Start(&pool_, std::move(spec));
}

Result<PgSchemaFacts> PostgresDatabase::ReadSchemaFacts(const std::string& snapshot_id,
                                                        const SchemaSelection& selected,
                                                        bool for_archive) {
  auto conn = PgConn::Connect(conninfo_, options_.connect_timeout_seconds);
  if (!conn.ok()) return conn.status().WithContext("connecting to read the schema");
  // Closing the connection ends the transaction; a failed read aborts only this one,
  // never the snapshot's (whose loss would fail every worker importing it).
  LD_RETURN_IF_ERROR(
      (*conn)
          ->Exec("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY; SET TRANSACTION SNAPSHOT " +
                 QuoteLiteral(snapshot_id))
          .WithContext("importing the dump's snapshot to read the schema"));
  auto facts = QueryPgSchemaFacts(**conn, selected, for_archive);
  if (!facts.ok()) {
    return facts.status().WithContext("reading the schema's sequences and indexes");
  }
  return facts;
}

Result<SchemaCapture> PostgresDatabase::CaptureSchema(const SchemaSelection& selected,
                                                      const SchemaCaptureOptions& options) {
  PgDumpRequest request;
  {
    // Only what the capture needs from the coordinator; the lock is not held beyond this.
    std::lock_guard lock(mu_);
    if (!in_snapshot_) return Status::InvalidArgument("CaptureSchema() before BeginSnapshot()");
    request.snapshot_id = snapshot_id_;
    request.server_major = coordinator_->server_version() / 10000;
    if (options.use_source_tool) {
      LD_ASSIGN_OR_RETURN(request.connection, ChildConnectionOf(coordinator_->raw()));
    }
  }
  request.tool_dir = options.tool_dir;
  request.lock_timeout_ms = options_.lock_timeout_ms;  // pg_dump waits no longer than we do
  SchemaCapture capture;
  // With every table selected pg_dump leaves nothing out, so it starts at once, beside the
  // facts (it is the long part: its server backend answers catalog queries for every
  // relation); otherwise it waits for the facts, which name what to leave out.
  Status dumped = Status::OK();
  std::jthread dumper;
  if (options.use_source_tool && selected.every_table) {
    dumper = std::jthread([&request, &capture, &dumped] {
      dumped = RunPgDumpSchema(request, &capture);
    });
  }
  Result<PgSchemaFacts> facts =
      ReadSchemaFacts(request.snapshot_id, selected, options.use_source_tool);
  if (dumper.joinable()) dumper.join();
  if (!facts.ok()) return facts.status();
  LD_RETURN_IF_ERROR(dumped);
  if (options.use_source_tool && !selected.every_table) {
    request.excluded = std::move(facts->excluded);
    request.schemas = std::move(facts->schemas);
    request.extensions = std::move(facts->extensions);
    LD_RETURN_IF_ERROR(RunPgDumpSchema(request, &capture));
  }
  capture.info["schema_from"] = options.use_source_tool ? "pg_dump" : "lakedump";
  capture.info["indexes"] = std::move(facts->indexes);
  capture.info["partitions"] = std::move(facts->partitions);
  if (options.use_source_tool) {
    // What only the archive's restore uses: not read at all without it.
    capture.info["sequences"] = std::move(facts->sequences);
    capture.info["fks"] = std::move(facts->fks);
    capture.info["dependents"] = std::move(facts->dependents);
    capture.info["mentions"] = std::move(facts->mentions);
    capture.info["unpopulated_matviews"] = std::move(facts->unpopulated_matviews);
  }
  return capture;
}

nlohmann::json PostgresDatabase::Describe() const {
  std::lock_guard lock(mu_);
  PGconn* c = coordinator_->raw();
  const char* version = PQparameterStatus(c, "server_version");
  nlohmann::json j = {
      {"kind", "postgresql"},
      {"server_version", version ? version : ""},
      {"server_version_num", PQserverVersion(c)},
      {"host", PQhost(c) ? PQhost(c) : ""},
      {"port", PQport(c) ? PQport(c) : ""},
      {"user", PQuser(c) ? PQuser(c) : ""},
      {"database", PQdb(c) ? PQdb(c) : ""},
      {"max_connections", pool_.max_connections()},
      {"isolation", "repeatable read, read only, exported snapshot"},
  };
  for (auto& [k, v] : snapshot_info_.items()) j[k] = v;
  return j;
}

}  // namespace

Result<std::unique_ptr<Database>> OpenPostgresDatabase(std::string_view conninfo,
                                                       const PostgresOptions& options) {
  const std::string info(conninfo);
  LD_ASSIGN_OR_RETURN(std::unique_ptr<PgConn> coordinator,
                      PgConn::Connect(info, options.connect_timeout_seconds));
  if (coordinator->server_version() < 100000) {
    return Status::Unimplemented(fmt::format(
        "PostgreSQL {} is not supported: lakedump needs PostgreSQL 10 or later",
        coordinator->server_version()));
  }
  return std::unique_ptr<Database>(
      new PostgresDatabase(info, options, std::move(coordinator)));
}

}  // namespace lakedump
