// LoadService: `lakedump load`. Reads a dump's _manifest.json and each selected
// table's _table.json from a store, and streams every data file through a
// ParquetReader (ranged reads, one row group at a time) into a TargetDatabase.
//
// Scheduling: up to table_parallelism table tasks at once (TaskGroup: the first
// error cancels the rest); within a table up to S = min(file_parallelism,
// target.max_sinks_per_table()) streams at once, each with its own sink, taking
// units of work from the table's queue until it is empty: whole files, or --
// when the table has fewer than 4 files per stream -- single row groups, so
// that the streams finish together. When one stream loads the whole table,
// TablePlan::single_sink tells the target (PostgreSQL then loads with COPY
// FREEZE). Each table follows the target protocol of load/target_database.h:
// PrepareTable, one sink per stream, CommitTable -- or AbortTable on any
// failure (including a failed PrepareTable, whose leftovers it removes; a
// target's AbortTable never touches a table it did not create).
//
// Checks, each an error naming the table and file: a file whose Parquet schema
// (column names, types) differs from its _table.json, a file whose footer row
// count or streamed rows differ from the manifest, a file whose size differs
// from the manifest.
//
// Re-running after a failure: a table is either fully loaded (committed) or
// absent -- a failed or cancelled table is aborted, never left half-loaded.
// Tables committed before the failure stay. A re-run with --if-exists fail
// stops at the first of them with "table ... already exists"; re-run with
// --if-exists replace (reloads everything), or restrict the run with --tables /
// --exclude to the tables that are missing. There is deliberately no "skip".
//
// Thread-safety: Run() once, from one thread; progress() may be read from any.
#pragma once

#include <atomic>
#include <cstdint>
#include <stop_token>
#include <string>
#include <vector>

#include "base/memory_budget.h"
#include "base/status.h"
#include "base/thread_pool.h"
#include "lake/manifest.h"
#include "base/progress.h"
#include "load/large_object_load.h"
#include "load/load_options.h"
#include "load/target_database.h"
#include "store/object_store.h"

namespace lakedump {

struct LoadedTable {
  TableRef source;
  TableRef target;
  uint64_t rows = 0;
  uint64_t files = 0;
  uint64_t bytes = 0;  // Parquet bytes read
  double seconds = 0;
};

struct LoadResult {
  std::string dump_id;
  SchemaRestoreOutcome schema;  // what the schema restore did (method "none" without one)
  std::vector<LoadedTable> tables;  // in manifest order
  uint64_t rows = 0;
  uint64_t files = 0;
  uint64_t bytes = 0;
  uint64_t large_objects = 0;  // restored (large_object_load.h)
  double seconds = 0;
  std::vector<std::string> warnings;  // one line each (Warnings())
};

class LoadService {
 public:
  // Borrows store and target; both must outlive the service.
  LoadService(ObjectStore* store, TargetDatabase* target, LoadOptions options);
  LoadService(const LoadService&) = delete;
  LoadService& operator=(const LoadService&) = delete;

  // Loads the selected tables. Errors: NotFound "no dump at DEST (no
  // _manifest.json)"; Corruption / Unimplemented for bad or newer metadata;
  // InvalidArgument for bad options (a --tables name matching nothing...);
  // the first table's failure otherwise, prefixed with the table's name.
  Result<LoadResult> Run(std::stop_token stop = {});

  // Counters for a ProgressReporter (bytes = Parquet bytes read).
  const DumpProgress& progress() const { return progress_; }
  // What the target left out or changed so far and what the dump's `schema` (the manifest's)
  // says an older dump does not hold (large objects), one line each, ending with the summary of
  // schema items not applied to an untrusted load (also in LoadResult).
  std::vector<std::string> Warnings(const nlohmann::json& schema) const;
  // True once a table was handed to the target (exit code 1 rather than 2).
  bool started_loading() const { return started_loading_; }

 private:
  struct TableTask;
  Result<std::vector<TableTask>> Plan(const DumpManifest& manifest);
  Result<SchemaRestorePlan> PlanSchema(const DumpManifest& manifest,
                                       const std::vector<TableTask>& tasks);
  Status LoadTable(TableTask& task, std::stop_token stop);
  // After the table tasks (`tables`: their outcome): with --data-only the target's
  // CommitTogether, or its AbortTogether after a failure (whose error is the one returned).
  Status CommitTogether(const Status& tables, const SchemaRestorePlan& plan);
  static std::vector<TableTask> TasksAfterSchema(std::vector<TableTask> tasks,
                                                 const SchemaRestoreOutcome& schema,
                                                 bool schema_only);
  // The dump's large objects this load restores, checked before anything is created.
  Result<LargeObjectLoadPlan> PlanLargeObjectsOf(const DumpManifest& manifest,
                                                 const SchemaRestorePlan& schema);
  Result<uint64_t> LoadLargeObjects(const LargeObjectLoadPlan& plan, std::stop_token stop);
  void AddLargeObjects(uint64_t restored, LargeObjectLoadPlan plan, LoadResult* result) const;
  struct TableLoad;
  struct OpenFile;
  Status LoadFiles(TableTask& task, std::stop_token stop);
  // One stream of a table: takes units (files or row groups) until none are left, through
  // one sink.
  Status Stream(TableLoad& load, std::stop_token stop);
  // PermissionDenied for the first file whose SHA-256 is not its recorded one (re-reads them).
  Status CheckSha256(const std::vector<DataFile>& files, std::stop_token stop);
  // --require-signature: every object's SHA-256 is checked as it is read.
  bool signed_dump() const { return !options_.signing_key.empty(); }
  // Whether a stream reading one row group of `f` checks that row group's recorded range
  // (format 1.1 row_groups). Never for a signed dump: its SHA-256 covers the whole file, which
  // is then hashed whole after its streams (every byte once, like an older dump's file).
  bool UseSections(const DataFile& f) const;
  // How the bytes of a data file are checked while a stream reads them.
  enum class FileCheck {
    kNone,       // not while reading (a file split across streams without UseSections: hashed after)
    kWholeFile,  // the file's XXH64 (and SHA-256 when signed), hashed as it is read whole
    kSections,   // its footer's range at open, then each row group's range as it is read
  };
  // Opens data file `index` of the table and checks its size, schema and row count, and
  // with kSections its footer's checksum and that each row group lies in its range.
  Status Open(TableLoad& load, size_t index, FileCheck check, OpenFile* out);
  // Hands one batch to `sink` (without a SQLite dump's exact values for targets not taking them).
  Status AppendBatch(const TablePlan& plan, RowBatch& batch, TableSink* sink);
  // After a stream read `streamed` rows of a unit (row group `row_group`, or kWholeFile) of
  // `df` that should have `want`: the row count, then the unit's checksums as `check` says.
  Status CheckUnitRead(OpenFile& file, const DataFile& df, size_t row_group, FileCheck check,
                       uint64_t streamed, uint64_t want);

  ObjectStore* store_;
  TargetDatabase* target_;
  LoadOptions options_;
  MemoryBudget decompression_;  // options_.decompression_memory, for every file's reader
  DumpProgress progress_;
  ThreadPool* file_pool_ = nullptr;  // during Run()
  std::atomic<bool> started_loading_{false};
};

// Applies --schema-map to a dump table's name.
TableRef MapTargetTable(const TableRef& source,
                        const std::vector<std::pair<std::string, std::string>>& schema_map);

}  // namespace lakedump
