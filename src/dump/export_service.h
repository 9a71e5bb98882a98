// ExportService: runs one dump. Plans the tables, prepares the destination
// (--if-exists), runs work units on a bounded pool of table tasks (largest
// first), commits each table with its _table.json after its data files, and
// the dump with _manifest.json last. The first failure cancels the other tasks
// and leaves no manifest. See docs/dump-format.md for the commit protocol.
//
// Ownership: borrows the database and the store (both thread-safe), and the
// optional trace recorder. Run() is called once, from a thread that is not one
// of the service's own pool threads.
#pragma once

#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "base/thread_pool.h"
#include "lake/dump_lease.h"
#include "dump/dump_options.h"
#include "lake/commit_check.h"
#include "dump/iceberg/iceberg_commit.h"
#include "dump/iceberg/iceberg_table_committer.h"
#include "dump/file_encoder.h"
#include "lake/manifest.h"
#include "dump/planner.h"
#include "base/progress.h"
#include "dump/remote_units.h"
#include "dump/shard/shard_plan.h"
#include "base/trace.h"
#include "source/table_source.h"
#include "store/object_store.h"

namespace lakedump {

class ThreadPool;

struct DumpResult {
  DumpManifest manifest;
  uint64_t reused_tables = 0;   // --if-exists resume: tables kept from an earlier run
  uint64_t deleted_objects = 0; // objects of an earlier run removed after the commit
  uint64_t removed_unfinished = 0;  // temp files / uploads of dead runs removed
  // Problems after the commit point that leave the dump committed and
  // complete (e.g. objects of the earlier dump that could not be deleted).
  std::vector<std::string> warnings;
};

class ExportService {
 public:
  ExportService(Database* db, ObjectStore* store, DumpOptions options);
  ~ExportService();

  // Default: Parquet with options.parquet.
  void set_encoder_factory(FileEncoderFactory factory) { encoder_ = std::move(factory); }
  void set_trace(TraceRecorder* trace) { trace_ = trace; }
  // The store the lease is written through (default: the dump's store). The
  // CLI passes one that SIGINT does not cancel, so an interrupted run still
  // deletes its lease. Borrowed; must outlive Run().
  void set_lease_store(ObjectStore* store) { lease_store_ = store; }
  // --if-exists resume/overwrite: called once the lease is held, before
  // anything is written, to remove what dead runs left unfinished (temp files,
  // multipart uploads). Returns what it removed (counted in the result).
  void set_unfinished_write_cleaner(std::function<Status(std::vector<std::string>*)> cleaner) {
    cleaner_ = std::move(cleaner);
  }
  // Sharded dumps (docs/scale-out.md). Coordinator: instead of running the units itself, the
  // service hands its plan to `runner`, which writes _plan.json, waits for the workers'
  // reports and passes each checked report's units to `sink` as it arrives (on the runner's
  // thread). The sink commits every table whose last unit came in, exactly as a
  // single-machine dump commits it, while the other shards still run; an error from it is
  // the runner's to return. Once the runner returns OK every planned unit must have come in;
  // then the manifest is committed.
  using RemoteUnitSink = std::function<Status(std::vector<UnitOutput>)>;
  using RemoteUnitRunner =
      std::function<Status(const DumpPlan&, const RemoteUnitSink& sink, std::stop_token)>;
  void set_remote_units(RemoteUnitRunner runner) { remote_ = std::move(runner); }
  // Worker: the attempt's id (names its data files) instead of a new run id.
  void set_run_id(std::string id) { run_id_ = std::move(id); }
  // Worker: runs `units` with the usual parallelism on the database's current snapshot and
  // returns what each wrote. No lease, no table commit, no manifest. REQUIRES: not Run().
  Result<std::vector<UnitOutput>> ExportUnits(const std::vector<WorkUnit>& units,
                                              std::stop_token stop);
  // Worker: called with each unit's output as soon as the unit is finished (its files
  // closed), from the table task that ran it: several at once. Set before ExportUnits.
  void set_unit_done(std::function<void(const UnitOutput&)> done) { unit_done_ = std::move(done); }
  // Called with the finished manifest just before the commit checks and its write (e.g.
  // to add the "incremental" block); an error fails the dump, nothing committed.
  void set_manifest_hook(std::function<Status(DumpManifest*)> hook) {
    manifest_hook_ = std::move(hook);
  }
  // This run's id: data file names, run_id in _table.json, dump_id.
  const std::string& run_id() const { return run_id_; }
  // Counters for a progress display; valid for the service's lifetime.
  const DumpProgress& progress() const { return progress_; }

  Result<DumpResult> Run(std::stop_token stop = {});
  // True once planning and the destination checks passed (an error after this
  // point is a failed dump, not bad usage).
  bool started_writing() const { return started_writing_; }

 private:
  struct TableState;
  Result<DumpResult> RunLeased(std::stop_token stop, std::chrono::system_clock::time_point started);
  Status PrepareDestination();
  Status TryReuse(TableState* state);
  Status ExportUnit(TableState* state, const WorkUnit& unit, std::stop_token stop);
  // Writes the table's _table.json. REQUIRES: every unit of the table read, and the
  // snapshot's holder checked since (CheckSnapshotHeld).
  Status CommitTable(TableState* state);
  // One state per planned table (borrowing it), counted in the progress.
  std::vector<std::unique_ptr<TableState>> MakeStates(const std::vector<PlannedTable>& tables);
  // Runs every unit of the states not reused, table_parallelism at a time; the first error.
  Status RunUnitTasks(const std::vector<std::unique_ptr<TableState>>& states, ThreadPool* pool,
                      std::stop_token stop);
  // RunUnitTasks for a shard's worker (ExportUnits): one large unit at a time while small
  // ones remain (export_service.cc, WorkerUnitQueue says why).
  Status RunWorkerUnitTasks(const std::vector<std::unique_ptr<TableState>>& states,
                            ThreadPool* pool, std::stop_token stop);
  // Coordinator: one shard's outputs checked against the plan (`gatherer`,
  // dump/remote_units.h); every table they complete goes into its state and is committed.
  Status CommitRemoteUnits(const std::vector<std::unique_ptr<TableState>>& states,
                           UnitOutputGatherer* gatherer, std::vector<UnitOutput> outputs,
                           std::stop_token stop);
  Status WriteManifest(const DumpManifest& manifest);
  // Best effort: deletes every object whose key carries this run's id.
  void DeleteOwnObjects(ObjectStore& store);
  // Deletes what the new manifest does not name (keeps its schema archive, and
  // each Iceberg table's history: `iceberg`).
  Status SweepStrays(const std::vector<CommittedTable>& tables, const nlohmann::json& schema,
                     const std::vector<IcebergTableKeep>& iceberg, uint64_t* deleted);
  // Database::CaptureSchema for `selected`, then, once `destination_ready` says the
  // destination is prepared (false: the dump failed before), stores the archive (if any)
  // and returns the manifest's "schema" object with the archive's key, size and checksum.
  // Runs on a thread of its own, beside planning and the data.
  Result<nlohmann::json> CaptureSchema(const SchemaSelection& selected,
                                       std::future<bool> destination_ready);
  // Where this run commits a table: _table.json, or _table-<run>.json while
  // the destination holds a committed dump (whose _table.json must stay).
  std::string CommitKey(const TableRef& table) const;

  Database* db_;
  ObjectStore* store_;
  DumpOptions options_;
  FileEncoderFactory encoder_;
  TraceRecorder* trace_ = nullptr;
  ObjectStore* lease_store_ = nullptr;
  std::function<Status(std::vector<std::string>*)> cleaner_;
  RemoteUnitRunner remote_;
  // ExportUnits(): units are not committed; their outputs are collected here.
  bool commit_tables_ = true;
  std::mutex outputs_mu_;
  std::vector<UnitOutput> outputs_;  // GUARDED_BY(outputs_mu_)
  std::function<void(const UnitOutput&)> unit_done_;
  std::function<Status(DumpManifest*)> manifest_hook_;
  // --table-format iceberg: writes each table's Iceberg metadata beside the table tasks
  // (set for the duration of RunLeased). Waited for before the commit; every key is
  // also checked there (CheckBeforeCommit).
  IcebergTableCommitter* iceberg_ = nullptr;
  DumpProgress progress_;
  std::string run_id_;
  bool started_writing_ = false;
  std::unique_ptr<DumpLease> lease_;
  // Set by PrepareDestination(): the destination's objects (without the lease)
  // and whether they include a committed dump.
  std::vector<ObjectInfo> listing_;
  bool old_dump_committed_ = false;
  // The manifest write was started and not refused outright: a failure from here
  // must not delete this run's objects (a manifest naming them may be stored).
  bool manifest_may_be_stored_ = false;
  nlohmann::json snapshot_;  // this run's snapshot, as recorded in _table.json
};

}  // namespace lakedump
