#include "dump/unit_exporter.h"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <optional>

#include "dump/batch_pump.h"
#include "dump/table_writer.h"
#include "dump/worker_unit_queue.h"

namespace lakedump {
namespace {

// Units estimated at fewer batches than this are read and encoded in turn.
constexpr uint64_t kMinBatchesToReadAhead = 4;

std::string TableContext(const TableRef& table) {
  return fmt::format("table {}", table.QualifiedName());
}

// --partition-by names a column of the table that can name a partition (not a list).
Status CheckPartitionColumn(const DumpOptions& options, const TableRef& table,
                            const Schema& schema) {
  if (options.partition_by.empty()) return Status::OK();
  const std::optional<size_t> column = schema.FindColumn(options.partition_by);
  if (!column) {
    return Status::InvalidArgument(fmt::format(
        "--partition-by {}: table {} has no column {} (choose its tables with --tables)",
        options.partition_by, table.QualifiedName(), options.partition_by));
  }
  if (schema.column(*column).type.is_list()) {
    return Status::InvalidArgument(fmt::format(
        "--partition-by {}: column {} of table {} is a list (an array), which cannot name a "
        "partition", options.partition_by, options.partition_by, table.QualifiedName()));
  }
  return Status::OK();
}

// Parquet keeps rows only in column data: a file of rows without columns would claim rows
// that no reader (ours included, see verify) can check, so the dump would not restore.
Status CheckRowsHaveColumns(const TableRef& table, const Schema& schema, uint64_t rows) {
  if (schema.num_columns() > 0 || rows == 0) return Status::OK();
  return Status::InvalidArgument(fmt::format(
      "table {} has no columns but {} rows: Parquet cannot hold rows without columns (leave it "
      "out with --exclude {})",
      table.QualifiedName(), rows, table.QualifiedName()));
}

}  // namespace

UnitExporter::UnitExporter(Database* db, ObjectStore* store, DumpOptions options,
                           std::string run_id, DumpProgress* progress, TraceRecorder* trace)
    : db_(db),
      store_(store),
      options_(std::move(options)),
      run_id_(std::move(run_id)),
      progress_(progress),
      trace_(trace),
      encoder_(ParquetEncoderFactory(options_.parquet)) {}

Result<UnitOutput> UnitExporter::Export(const WorkUnit& unit, IcebergTableSlot* iceberg_slot,
                                        std::stop_token stop) const {
  const TableRef& ref = unit.table.ref;
  TraceSpan span(trace_, ref.QualifiedName(), "table");
  if (unit.count > 1) span.args()["unit"] = unit.index;
  LD_ASSIGN_OR_RETURN(std::unique_ptr<TableSource> source, db_->Open(unit));
  LD_ASSIGN_OR_RETURN(Schema schema, FileSchema(ref, source->schema(), iceberg_slot));
  TableFileWriterContext ctx{store_, &encoder_, &options_, run_id_, progress_, trace_};
  TableFileWriter writer(ctx, ref, schema, unit.index);
  LD_ASSIGN_OR_RETURN(const uint64_t rows, CopyRows(*source, unit, writer, stop));
  if (stop.stop_requested()) return Status::Cancelled("cancelled");
  LD_RETURN_IF_ERROR(CheckRowsHaveColumns(ref, schema, rows));
  LD_ASSIGN_OR_RETURN(std::vector<DataFile> files, writer.Finish(unit.index == 0));
  span.args()["rows"] = rows;
  return UnitOutput{ref, unit.index, std::move(schema), std::move(files)};
}

Result<Schema> UnitExporter::FileSchema(const TableRef& table, Schema schema,
                                        IcebergTableSlot* iceberg_slot) const {
  LD_RETURN_IF_ERROR(CheckPartitionColumn(options_, table, schema));
  if (iceberg_ == nullptr && options_.iceberg_ids_from != nullptr) {
    return ContinuingFieldIds(*options_.iceberg_ids_from, table, std::move(schema));
  }
  if (iceberg_ == nullptr) return schema;
  // The Iceberg field ids the data files carry (over a committed dump, the table's
  // history's: a changed table keeps the ids of its unchanged columns).
  return iceberg_->PrepareSchema(iceberg_slot, table, schema);
}

Result<uint64_t> UnitExporter::CopyRows(TableSource& source, const WorkUnit& unit,
                                        TableFileWriter& writer, std::stop_token stop) const {
  uint64_t rows = 0;
  // A unit of many batches reads on a second thread while this one encodes
  // (the two overlap on two cores); a small one is not worth a thread.
  const uint64_t unit_rows =
      unit.table.estimated_rows / static_cast<uint64_t>(std::max(1, unit.count));
  if (options_.read_ahead_batches >= 2 &&
      unit_rows >= kMinBatchesToReadAhead * options_.batch_rows) {
    LD_RETURN_IF_ERROR(PumpBatches(source, options_.batch_rows, options_.read_ahead_batches, stop,
                                   [&](const RowBatch& batch) {
                                     rows += batch.num_rows();
                                     return writer.Write(batch);
                                   }));
    return rows;
  }
  RowBatch batch;
  for (;;) {
    if (stop.stop_requested()) return Status::Cancelled("cancelled");
    LD_RETURN_IF_ERROR(source.Next(options_.batch_rows, &batch));
    if (batch.empty()) return rows;
    rows += batch.num_rows();
    LD_RETURN_IF_ERROR(writer.Write(batch));
  }
}

Status RunEveryUnit(ThreadPool* pool, size_t count,
                    const std::function<Status(size_t, std::stop_token)>& export_unit,
                    const std::function<const TableRef&(size_t)>& table_of,
                    std::stop_token stop) {
  // Every unit is queued at once, so a finishing task picks up the next one by itself,
  // without a round trip through this thread (a wakeup per table).
  TaskGroup tasks(pool, std::max<size_t>(count, 1), stop);
  for (size_t i = 0; i < count; ++i) {
    const bool spawned = tasks.Spawn([&, i](std::stop_token task_stop) {
      return export_unit(i, task_stop).WithContext(TableContext(table_of(i)));
    });
    if (!spawned) return tasks.Wait();
  }
  return tasks.Wait();
}

Result<std::vector<UnitOutput>> ExportWorkerUnits(
    const UnitExporter& exporter, const std::vector<WorkUnit>& units,
    const std::function<void(const UnitOutput&)>& done, std::stop_token stop) {
  const int parallelism = exporter.options().table_parallelism;
  if (parallelism < 1) return Status::InvalidArgument("--table-parallelism must be at least 1");
  // One task per pool thread, each taking units from the queue until it is empty.
  WorkerUnitQueue<const WorkUnit> queue;
  for (const WorkUnit& unit : units) queue.Add(&unit, unit);
  std::mutex mu;
  std::vector<UnitOutput> outputs;  // GUARDED_BY(mu)
  // One unit: its output recorded, or its error with the table's name.
  const auto export_one = [&](const WorkUnit& unit, std::stop_token task_stop) -> Status {
    LD_ASSIGN_OR_RETURN(UnitOutput output, exporter.Export(unit, nullptr, task_stop));
    if (done) done(output);
    std::lock_guard<std::mutex> lock(mu);
    outputs.push_back(std::move(output));
    return Status::OK();
  };
  const auto run_queue = [&](std::stop_token task_stop) -> Status {
    while (!task_stop.stop_requested()) {
      std::optional<WorkerUnitQueue<const WorkUnit>::Item> item = queue.Next();
      if (!item) return Status::OK();
      Status s = export_one(*item->unit, task_stop).WithContext(TableContext(item->unit->table.ref));
      queue.Done(*item);
      LD_RETURN_IF_ERROR(s);
    }
    return Status::Cancelled("interrupted");
  };
  ThreadPool pool(static_cast<size_t>(parallelism));
  const size_t runners = std::max<size_t>(1, std::min(pool.size(), queue.size()));
  TaskGroup tasks(&pool, runners, stop);
  for (size_t r = 0; r < runners; ++r) {
    if (!tasks.Spawn(run_queue)) break;
  }
  LD_RETURN_IF_ERROR(tasks.Wait());
  if (stop.stop_requested()) return Status::Cancelled("interrupted");
  return outputs;
}

}  // namespace lakedump
