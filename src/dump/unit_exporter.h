// UnitExporter: the data half of a dump. Runs one WorkUnit (a table, or one range of a big
// table): opens its source on the database's current snapshot, checks the --partition-by
// column, gives the columns their Iceberg field ids (--table-format iceberg), and writes the
// rows through a TableFileWriter into data files named with the run's id. A unit of many
// batches reads on a second thread while the calling thread encodes (PumpBatches). What the
// unit wrote comes back as a UnitOutput; nothing is committed here (DumpCommitter does that).
//
// The runners below put units on a pool: every unit queued at once (a dump on one machine),
// or a sharded dump's worker order (WorkerUnitQueue).
//
// Ownership: borrows the database, the store, the progress counters, the trace recorder and
// the Iceberg committer (the last three may be null); they must outlive the exporter. Owns a
// copy of the options and the file encoder factory.
// Thread-safety: Export() is called from several table tasks at once (the database and the
// store are thread-safe, the progress counters atomic).
#pragma once

#include <functional>
#include <stop_token>
#include <string>
#include <vector>

#include "base/progress.h"
#include "base/thread_pool.h"
#include "base/trace.h"
#include "dump/dump_options.h"
#include "dump/file_encoder.h"
#include "dump/iceberg/iceberg_table_committer.h"
#include "dump/shard/shard_plan.h"
#include "source/table_source.h"
#include "store/object_store.h"

namespace lakedump {

class TableFileWriter;

class UnitExporter {
 public:
  // `run_id` names the data files (a sharded dump's worker: its attempt's id).
  UnitExporter(Database* db, ObjectStore* store, DumpOptions options, std::string run_id,
               DumpProgress* progress = nullptr, TraceRecorder* trace = nullptr);
  UnitExporter(const UnitExporter&) = delete;
  UnitExporter& operator=(const UnitExporter&) = delete;

  // --table-format iceberg: the committer that gives the columns their field ids. Set
  // before the first Export(); null (the default) writes the columns as read.
  void set_iceberg(IcebergTableCommitter* iceberg) { iceberg_ = iceberg; }

  // Writes every row of `unit` into data files (closed, so visible) and returns them with
  // the columns read. `iceberg_slot`: the table's Iceberg state in this run (used only with
  // set_iceberg). Errors: the source's and the store's, InvalidArgument for a
  // --partition-by column the table lacks or cannot partition by and for a table with rows
  // but no columns, Cancelled on `stop`. On error, files already written stay (their keys
  // carry the run's id: the caller's cleanup finds them).
  Result<UnitOutput> Export(const WorkUnit& unit, IcebergTableSlot* iceberg_slot,
                            std::stop_token stop) const;

  const DumpOptions& options() const { return options_; }
  const std::string& run_id() const { return run_id_; }

 private:
  // The unit's columns as its data files carry them (checked, with Iceberg field ids).
  Result<Schema> FileSchema(const TableRef& table, Schema schema,
                            IcebergTableSlot* iceberg_slot) const;
  // Reads `source` to its end into `writer`; returns the rows read.
  Result<uint64_t> CopyRows(TableSource& source, const WorkUnit& unit, TableFileWriter& writer,
                            std::stop_token stop) const;

  Database* db_;
  ObjectStore* store_;
  DumpOptions options_;
  std::string run_id_;
  DumpProgress* progress_;
  TraceRecorder* trace_;
  FileEncoderFactory encoder_;
  IcebergTableCommitter* iceberg_ = nullptr;
};

// Runs `export_unit(i)` for i in [0, count) on `pool`, every one queued at once so that a
// finishing task picks up the next by itself (the pool's threads bound the work). Each
// error gets the context "table <table_of(i)>"; returns the first (the others are stopped).
// REQUIRES: called from a thread that is not one of the pool's.
Status RunEveryUnit(ThreadPool* pool, size_t count,
                    const std::function<Status(size_t, std::stop_token)>& export_unit,
                    const std::function<const TableRef&(size_t)>& table_of,
                    std::stop_token stop);

// A sharded dump's worker: exports `units` with `exporter`, options().table_parallelism at
// a time, in WorkerUnitQueue's order (one large unit at a time while small ones remain).
// `done` (may be empty) gets each output as soon as its files are closed, from the task that
// ran it (several at once). Returns every output; no lease, no table commit, no manifest.
// InvalidArgument when table_parallelism < 1; the first unit's error; Cancelled on `stop`.
Result<std::vector<UnitOutput>> ExportWorkerUnits(
    const UnitExporter& exporter, const std::vector<WorkUnit>& units,
    const std::function<void(const UnitOutput&)>& done, std::stop_token stop);

}  // namespace lakedump
