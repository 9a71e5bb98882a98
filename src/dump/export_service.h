// ExportService: runs one dump, as the composition of its two halves: UnitExporter (reads
// each work unit into data files) and DumpCommitter (destination checks, reuse, table
// commits, manifest last, sweep). It holds the lease, takes the snapshot, plans the tables,
// captures the schema beside the data, and runs the phases in order. Two modes: Run() runs
// the units on a bounded pool of table tasks (largest first); RunSharded() is a sharded
// dump's coordinator, whose workers run them (dump/shard/). The first failure cancels the
// other tasks and leaves no manifest. See docs/dump-format.md for the commit protocol.
//
// Ownership: borrows the database and the store (both thread-safe), and the optional trace
// recorder and lease store. Run() or RunSharded() is called once, from a thread that is not
// one of the service's own pool threads; progress() may be read from any thread meanwhile.
#pragma once

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "base/progress.h"
#include "base/thread_pool.h"
#include "base/trace.h"
#include "dump/dump_options.h"
#include "dump/file_encoder.h"
#include "dump/iceberg/iceberg_commit.h"
#include "dump/planner.h"
#include "dump/remote_units.h"
#include "dump/shard/shard_plan.h"
#include "lake/commit_check.h"
#include "lake/dump_lease.h"
#include "lake/manifest.h"
#include "lake/run_journal.h"
#include "source/table_source.h"
#include "store/object_store.h"

namespace lakedump {

struct DumpResult {
  DumpManifest manifest;
  std::string manifest_text;    // the exact bytes of the _manifest.json committed
  uint64_t reused_tables = 0;   // --if-exists resume: tables kept from an earlier run
  uint64_t deleted_objects = 0; // objects of an earlier run removed after the commit
  uint64_t removed_unfinished = 0;  // temp files / uploads of dead runs removed
  // Problems after the commit point that leave the dump committed and
  // complete (e.g. objects of the earlier dump that could not be deleted).
  std::vector<std::string> warnings;
};

class DumpCommitter;
class JournalingStore;
class RunJournalWriter;
class UnitExporter;

class ExportService {
 public:
  ExportService(Database* db, ObjectStore* store, DumpOptions options);
  ~ExportService();
  ExportService(const ExportService&) = delete;
  ExportService& operator=(const ExportService&) = delete;

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
  // Called with the finished manifest just before the commit checks and its write (e.g.
  // to add the "incremental" block); an error fails the dump, nothing committed.
  void set_manifest_hook(std::function<Status(DumpManifest*)> hook) {
    manifest_hook_ = std::move(hook);
  }
  // This run's id: data file names, run_id in _table.json, dump_id.
  const std::string& run_id() const { return run_id_; }
  // Runs with `id` (a NewRunId) instead of a fresh one: an incremental base, whose slot is
  // named after its dump id before the dump starts. Call before Run().
  void set_run_id(std::string id) { run_id_ = std::move(id); }
  // Counters for a progress display; valid for the service's lifetime.
  const DumpProgress& progress() const { return progress_; }

  // A dump on this machine: the units run on table_parallelism table tasks.
  Result<DumpResult> Run(std::stop_token stop = {});

  // A sharded dump's coordinator (docs/scale-out.md): instead of running the units itself,
  // the service hands its plan to `runner`, which writes _plan.json, waits for the workers'
  // reports and passes each checked report's units to `sink` as it arrives (on the runner's
  // thread). The sink commits every table whose last unit came in, exactly as Run() commits
  // it, while the other shards still run; an error from it is the runner's to return. Once
  // the runner returns OK every planned unit must have come in; then the manifest is
  // committed. (A worker runs its units with UnitExporter and ExportWorkerUnits.)
  using RemoteUnitSink = std::function<Status(std::vector<UnitOutput>)>;
  using RemoteUnitRunner =
      std::function<Status(const DumpPlan&, const RemoteUnitSink& sink, std::stop_token)>;
  Result<DumpResult> RunSharded(const RemoteUnitRunner& runner, std::stop_token stop = {});

  // What this run's journal names (lake/run_journal.h): after a failure, the cleanup aborts
  // the multipart uploads of these keys.
  RunClaims journal_claims() const;

  // True once planning and the destination checks passed (an error after this
  // point is a failed dump, not bad usage).
  bool started_writing() const { return started_writing_; }

 private:
  using TimePoint = std::chrono::system_clock::time_point;
  // Run() and RunSharded(): the lease around RunLeased; `remote` null for Run().
  Result<DumpResult> RunWithLease(const RemoteUnitRunner* remote, std::stop_token stop);
  // The run's phases, in order, under the lease.
  Result<DumpResult> RunLeased(DumpCommitter& committer, DumpLease& lease,
                               const RemoteUnitRunner* remote, std::stop_token stop,
                               TimePoint started);
  // --if-exists resume/overwrite: the cleaner's removals (and a warning) into *result.
  void RemoveUnfinishedWrites(DumpResult* result);
  // Every unit of the tables not reused, on `pool`; each table committed after its last.
  Status RunLocalUnits(DumpCommitter& committer, const UnitExporter& exporter, ThreadPool* pool,
                       std::stop_token stop);
  // A coordinator: the workers run the units; each shard's tables committed as they come.
  Status RunRemoteUnits(DumpCommitter& committer, const DumpPlan& plan,
                        const RemoteUnitRunner& runner, TimePoint started, std::stop_token stop);
  // The commit point (the manifest), then the sweep (--if-exists resume/overwrite).
  // REQUIRES: result->manifest final and DumpCommitter::CheckCommitPoint() passed.
  Status CommitDump(DumpCommitter& committer, DumpResult* result);
  // The snapshot each _table.json records: this run's id and start, and the source's.
  nlohmann::json SnapshotRecord(TimePoint started) const;
  // Database::CaptureSchema for `selected`, then, once `destination_ready` says the
  // destination is prepared (false: the dump failed before), stores the archive (if any)
  // and the large objects (large_object_dump.h), and returns the manifest's "schema" object
  // with the archive's key, size and checksum and the large objects' entries. Runs on a thread of its own, beside planning and the data.
  Result<nlohmann::json> CaptureSchema(const SchemaSelection& selected,
                                       std::future<bool> destination_ready,
                                       const DumpCommitter& committer, std::stop_token stop);

  Database* db_;
  ObjectStore* store_;
  DumpOptions options_;
  TraceRecorder* trace_ = nullptr;
  ObjectStore* lease_store_ = nullptr;
  std::function<Status(std::vector<std::string>*)> cleaner_;
  std::function<Status(DumpManifest*)> manifest_hook_;
  DumpProgress progress_;
  std::string run_id_;
  bool started_writing_ = false;
  // The run journal, and the store (wrapping the one given) through which the run writes:
  // every object is journaled before it is written (store_ points at it).
  std::unique_ptr<RunJournalWriter> journal_;
  std::unique_ptr<JournalingStore> journaled_store_;
};

}  // namespace lakedump
