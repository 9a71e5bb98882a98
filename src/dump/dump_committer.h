// DumpCommitter: the commit half of a dump (docs/dump-format.md, the commit protocol). It
// checks the destination (--if-exists) and keeps what it found; reuses the tables of an
// earlier run that still verify (--if-exists resume); gathers each table's units as they
// finish (from this machine's table tasks, or from a sharded dump's workers) and commits a
// table with its _table.json, and its Iceberg metadata, once its last unit is in; then
// builds the manifest, runs the checks before the commit point (snapshot, lease, what the
// destination holds), writes the signature and _manifest.json last, and sweeps what the new
// manifest does not name. It never reads a table's rows: UnitExporter does.
//
// Ownership: borrows the database, the store, the progress counters and the trace (which
// must outlive it); owns one state per planned table (borrowing the plan's tables, which
// must outlive the last call that reads them, SweepStrays) and, with --table-format
// iceberg, the Iceberg metadata writers.
// Thread-safety: TableStarted() and AddUnit() are called from table tasks, several at once;
// everything else from the one thread that runs the dump, in the order declared.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/progress.h"
#include "base/thread_pool.h"
#include "base/trace.h"
#include "dump/dump_options.h"
#include "dump/iceberg/iceberg_table_committer.h"
#include "dump/planner.h"
#include "dump/remote_units.h"
#include "lake/commit_check.h"
#include "lake/dump_lease.h"
#include "lake/fenced_commit.h"
#include "lake/manifest.h"
#include "lake/run_journal.h"
#include "source/table_source.h"
#include "store/object_store.h"

namespace lakedump {

class DumpCommitter {
 public:
  using TimePoint = std::chrono::system_clock::time_point;

  // `coordinator`: a sharded dump's coordinator, which runs no table task (its commits go
  // as wide as metadata I/O goes).
  DumpCommitter(Database* db, ObjectStore* store, const DumpOptions& options, std::string run_id,
                bool coordinator, DumpProgress* progress, TraceRecorder* trace);
  ~DumpCommitter();
  DumpCommitter(const DumpCommitter&) = delete;
  DumpCommitter& operator=(const DumpCommitter&) = delete;

  // --if-exists: refuses a destination that is not empty (fail), or removes what a later
  // resume must not reuse (overwrite of an uncommitted dump). Keeps the listing for the
  // reuse checks. REQUIRES: the lease held; called once, before anything is written.
  Status PrepareDestination();
  // Whether the destination holds a committed dump (set by PrepareDestination): its
  // objects stay whole until the new manifest replaces it.
  bool old_dump_committed() const { return old_dump_committed_; }

  // One state per planned table (borrowed), counted in the progress. `snapshot`: the run's
  // snapshot as each _table.json records it. REQUIRES: PrepareDestination().
  void SetTables(const std::vector<PlannedTable>& tables, nlohmann::json snapshot);
  size_t num_tables() const { return states_.size(); }
  const PlannedTable& table(size_t i) const;
  // Committed (reused, or every unit in) already.
  bool committed(size_t i) const;

  // --if-exists resume: reuses every table whose earlier commit still verifies, on `pool`.
  // Returns how many were reused.
  Result<uint64_t> ReuseTables(ThreadPool* pool, std::stop_token stop);
  // --table-format iceberg: starts the metadata writers (null otherwise). Call once.
  IcebergTableCommitter* StartIceberg(std::stop_token stop);
  IcebergTableSlot* iceberg_slot(size_t i);

  // A table task: table `i`'s first unit starts now (the table's start time).
  void TableStarted(size_t i);
  // A table task: `output` is one finished unit of table `i`. The table's last unit checks
  // the snapshot's holder and commits the table (_table.json).
  Status AddUnit(size_t i, UnitOutput output);
  // A sharded dump's coordinator: every table starts at `started`; then each shard's
  // outputs are checked against the plan (`gatherer`) and the tables they complete committed.
  void AllTablesStarted(TimePoint started);
  Status AddRemoteUnits(UnitOutputGatherer* gatherer, std::vector<UnitOutput> outputs,
                        std::stop_token stop);

  // The Iceberg writers' first error (before the table tasks' own: a table task refused by
  // a failed writer group only says Cancelled). OK without Iceberg.
  Status WaitIceberg();

  // The manifest of every committed table, with `schema` and the run's times.
  // REQUIRES: every table committed.
  DumpManifest BuildManifest(nlohmann::json schema, TimePoint started);
  // Just before the commit point, once the manifest is final: the snapshot's locks still
  // held, `lease` still ours, the destination holding exactly what the manifest names
  // (CheckBeforeCommit), everything durable.
  Status CheckCommitPoint(DumpLease& lease, std::stop_token stop);
  // The commit point: the signature and _manifest.json; then (Iceberg) the objects that wait
  // for it. Warnings after the commit point go to *warnings. REQUIRES: CheckCommitPoint().
  Status Commit(const DumpManifest& manifest, std::vector<std::string>* warnings);
  // After the commit: deletes what the new manifest does not name (keeps its schema archive
  // and each Iceberg table's history). Sets *deleted to how many objects went.
  Status SweepStrays(const DumpManifest& manifest, uint64_t* deleted);

  // After a failure: whether a manifest of this run may be stored (its objects must stay).
  bool manifest_may_be_stored() const { return manifest_may_be_stored_; }
  // The exact bytes of the _manifest.json this run committed (read back); "" before.
  const std::string& committed_manifest() const { return committed_manifest_; }

 private:
  struct TableState;
  // Where this run commits a table: _table.json, or _table-<run>.json while the
  // destination holds a committed dump (whose _table.json must stay).
  std::string CommitKey(const TableRef& table) const;
  // Removes the _table.json files and Iceberg metadata of an uncommitted dump.
  Status RemoveUncommittedTables(std::vector<ObjectInfo>* objects);
  Status TryReuse(TableState* state);
  // Reuses the first earlier commit among `keys` that table `state` can reuse, if any.
  Status ReuseFirstMatch(TableState* state, const std::vector<std::string>& keys,
                         const TableDefinition& def, const nlohmann::json& fingerprint);
  // Every data file of `m` still there, of its run, with its size and checksums.
  Result<bool> FilesStillVerify(const TableManifest& m);
  // Writes the table's _table.json. REQUIRES: every unit of the table read, and the
  // snapshot's holder checked since (CheckSnapshotHeld).
  Status CommitTable(TableState* state);
  // The table's _table.json contents, but for the checksum of its serialized form.
  Result<TableManifest> MakeTableManifest(TableState* state);
  // Every committed table, sorted by name, as the commit checks know it.
  std::vector<CommittedTable> CommittedTables() const;
  Status WriteManifest(const DumpManifest& manifest);

  Database* db_;
  ObjectStore* store_;
  DumpOptions options_;
  std::string run_id_;
  bool coordinator_;
  DumpProgress* progress_;
  TraceRecorder* trace_;
  std::vector<std::unique_ptr<TableState>> states_;
  nlohmann::json snapshot_;  // this run's snapshot, as recorded in _table.json
  // Set by PrepareDestination(): the destination's objects (without the lease)
  // and whether they include a committed dump.
  std::vector<ObjectInfo> listing_;
  bool old_dump_committed_ = false;
  // The commit's precondition (If-None-Match: *, or If-Match: the manifest found) and who
  // commits (the run, its lease's fencing token and host): lake/fenced_commit.h.
  WriteOptions commit_precondition_{.create_only = true};
  CommitRecord committer_record_;
  // Set by PrepareDestination(): whose the destination's objects are (lake/run_journal.h).
  std::optional<DestinationOwnership> ownership_;
  // The manifest write was started and not refused outright: a failure from here
  // must not delete this run's objects (a manifest naming them may be stored).
  bool manifest_may_be_stored_ = false;
  std::string committed_manifest_;
  // --table-format iceberg: writes each table's Iceberg metadata beside the table tasks
  // (declared last, destroyed first: its writers write into the states' slots).
  // Waited for before the commit; every key is also checked there (CheckBeforeCommit).
  std::optional<IcebergTableCommitter> iceberg_;
};

}  // namespace lakedump
