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

#include <memory>
#include <stop_token>

#include "dump/dump_options.h"
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
  uint64_t deleted_objects = 0; // objects of an earlier run removed before the commit
};

class ExportService {
 public:
  ExportService(Database* db, ObjectStore* store, DumpOptions options);
  ~ExportService();

  // Default: Parquet with options.parquet.
  void set_encoder_factory(FileEncoderFactory factory) { encoder_ = std::move(factory); }
  void set_trace(TraceRecorder* trace) { trace_ = trace; }
  // Counters for a progress display; valid for the service's lifetime.
  const DumpProgress& progress() const { return progress_; }

  Result<DumpResult> Run(std::stop_token stop = {});
  // True once planning and the destination checks passed (an error after this
  // point is a failed dump, not bad usage).
  bool started_writing() const { return started_writing_; }

 private:
  struct TableState;
  Status PrepareDestination(std::vector<std::string>* stale_table_keys);
  Result<std::optional<TableManifest>> TryReuse(const PlannedTable& table);
  Status ExportUnit(TableState* state, const WorkUnit& unit, std::stop_token stop);
  Status CommitTable(TableState* state);
  Status SweepStrays(const std::vector<TableManifest>& tables, const nlohmann::json& schema,
                     uint64_t* deleted);
  // Database::CaptureSchema for the planned tables; stores the archive (if any) and
  // returns the manifest's "schema" object with the archive's key, size and checksum.
  Result<nlohmann::json> CaptureSchema(const DumpPlan& plan);

  Database* db_;
  ObjectStore* store_;
  DumpOptions options_;
  FileEncoderFactory encoder_;
  TraceRecorder* trace_ = nullptr;
  DumpProgress progress_;
  std::string run_id_;
  bool started_writing_ = false;
};

// Removes the password from URLs ("scheme://user:secret@host" -> "scheme://user@host")
// and drops keys named like secrets, recursively. For what goes into the manifest.
nlohmann::json RedactCredentials(const nlohmann::json& value);

}  // namespace lakedump
