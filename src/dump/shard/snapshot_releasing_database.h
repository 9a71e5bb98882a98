// SnapshotReleasingDatabase: the source of a sharded dump's coordinator run with --no-snapshot
// (docs/scale-out.md, "--no-snapshot"). It plans through the Database it wraps, which holds
// its snapshot while planning like any dump's (PostgreSQL: the transaction and the tables'
// ACCESS SHARE locks; SQLite: the read transactions' SHARED lock). Release(), called once the
// plan is made and before _plan.json is written, destroys that Database (a Database holds its
// snapshot until it is destroyed), so that the coordinator holds nothing on the source while
// the workers read it each on their own.
//
// It never names a snapshot: Describe() leaves out the snapshot's id, time and WAL position and
// says "snapshot": "none (--no-snapshot) ...", which is what the tables' _table.json and the
// manifest record. Fingerprint() is null (a table of a dump that is not one snapshot is never
// reused by a later resume). After Release(): Describe() and Identity() answer what they
// answered then, DescribeTable() what it answered for the same table before (planning
// describes every table, and the coordinator's table commits need it again),
// CheckSnapshotHeld() OK (nothing is held), and everything else an Internal error.
//
// Thread-safe: the schema capture runs beside planning on another thread. Release() waits for
// the first CaptureSchema() call to return (the dump captures the schema once, from a thread it
// starts before the workers' part: the schema is read inside the planning snapshot) and for
// every call in flight. REQUIRES: no TableSource opened through it still open at Release().
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <stop_token>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "dump/shard/shard_plan.h"
#include "source/large_object_source.h"
#include "source/table_source.h"

namespace lakedump {

class SnapshotReleasingDatabase final : public Database, public LargeObjectProvider {
 public:
  explicit SnapshotReleasingDatabase(std::unique_ptr<Database> inner);
  ~SnapshotReleasingDatabase() override;

  // Ends the snapshot: waits for the schema capture (Cancelled if `stop` is requested first),
  // then destroys the wrapped Database. Idempotent.
  Status Release(std::stop_token stop);
  bool released() const;

  // OK when the workers' outputs read each table (not --query results) with the columns
  // (names and types) that planning described; otherwise (DDL between planning and a worker's
  // read, which nothing held off) Unavailable naming the table: the definition the commit
  // records would not match the files.
  Status CheckColumnsAsPlanned(const std::vector<UnitOutput>& outputs) const;

  Status BeginSnapshot() override;
  Result<std::vector<TableInfo>> ListTables() override;
  Status LockTables(const std::vector<TableInfo>& tables) override;
  Result<TableDefinition> DescribeTable(const TableInfo& table) override;
  Result<std::vector<WorkUnit>> Split(const TableInfo& table, uint64_t target_bytes) override;
  Result<std::unique_ptr<TableSource>> Open(const WorkUnit& unit) override;
  Result<SchemaCapture> CaptureSchema(const SchemaSelection& selected,
                                      const SchemaCaptureOptions& options) override;
  nlohmann::json Describe() const override;
  Status CheckSnapshotHeld() override;
  Status ImportSnapshot(const std::string& snapshot_id) override;
  nlohmann::json Identity() const override;
  Status CheckUnit(const WorkUnit& unit) const override;
  Result<nlohmann::json> Fingerprint(const TableInfo& table) override;
  // The wrapped Database's (none when it has no large objects). The dump opens them before
  // its CaptureSchema() call, which Release() waits for.
  Result<std::unique_ptr<LargeObjectSource>> OpenLargeObjects() override;

 private:
  using TableKey = std::tuple<std::string, std::string, std::string>;  // schema, name, query
  static TableKey KeyOf(const TableInfo& table);

  mutable std::shared_mutex mu_;
  std::condition_variable_any schema_captured_cv_;
  std::unique_ptr<Database> inner_;  // guarded by mu_; null once released
  bool schema_captured_ = false;     // guarded by mu_ (exclusive to write)
  nlohmann::json described_;         // guarded by mu_: Describe() at Release()
  nlohmann::json identity_;          // guarded by mu_: Identity() at Release()
  mutable std::mutex definitions_mu_;
  std::map<TableKey, TableDefinition> definitions_;  // guarded by definitions_mu_
};

}  // namespace lakedump
