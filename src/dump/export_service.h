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
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "dump/dump_lease.h"
#include "dump/dump_options.h"
#include "dump/commit_check.h"
#include "dump/file_encoder.h"
#include "dump/manifest.h"
#include "dump/planner.h"
#include "dump/progress.h"
#include "dump/trace.h"
#include "source/table_source.h"
#include "store/object_store.h"

namespace lakedump {

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
  Status CommitTable(TableState* state);
  Status WriteManifest(const DumpManifest& manifest);
  // Best effort: deletes every object whose key carries this run's id.
  void DeleteOwnObjects(ObjectStore& store);
  // Deletes what the new manifest does not name (keeps its schema archive).
  Status SweepStrays(const std::vector<CommittedTable>& tables, const nlohmann::json& schema,
                     uint64_t* deleted);
  // Database::CaptureSchema for the planned tables; stores the archive (if any) and
  // returns the manifest's "schema" object with the archive's key, size and checksum.
  Result<nlohmann::json> CaptureSchema(const DumpPlan& plan);
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
  std::function<Status(DumpManifest*)> manifest_hook_;
  // --table-format iceberg over a committed dump: (key, bytes) of each table's
  // v1.metadata.json then version-hint.text, written after the new manifest.
  std::mutex deferred_mu_;
  std::vector<std::pair<std::string, std::string>> deferred_iceberg_;
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

// Removes the password from URLs ("scheme://user:secret@host" -> "scheme://user@host")
// and drops keys named like secrets, recursively. For what goes into the manifest.
nlohmann::json RedactCredentials(const nlohmann::json& value);

}  // namespace lakedump
