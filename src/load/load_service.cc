#include "load/load_service.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>

#include "base/thread_pool.h"
#include "dump/object_checksum.h"
#include "dump/object_keys.h"
#include "dump/planner.h"
#include "format/parquet/parquet_reader.h"

namespace lakedump {

struct LoadService::TableTask {
  TablePlan plan;
  TableManifest manifest;
  LoadedTable loaded;
};

namespace {

bool IsGlob(std::string_view p) { return p.find_first_of("*?[") != std::string_view::npos; }

bool MatchesAny(const std::vector<std::string>& patterns, const TableRef& t) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& p) { return TablePatternMatches(p, t); });
}

// The file's columns must be the table's: same names in the same order, same
// types.
Status CheckFileSchema(const Schema& file, const Schema& table, std::string_view key) {
  if (file.num_columns() != table.num_columns()) {
    return Status::Corruption(
        fmt::format("data file {} has {} columns but its _table.json lists {}", key,
                    file.num_columns(), table.num_columns()));
  }
  for (size_t i = 0; i < file.num_columns(); ++i) {
    const Column& f = file.column(i);
    const Column& t = table.column(i);
    if (f.name != t.name) {
      return Status::Corruption(
          fmt::format("data file {}: column {} is \"{}\" but _table.json says \"{}\"", key, i + 1,
                      f.name, t.name));
    }
    if (!(f.type == t.type)) {
      return Status::Corruption(
          fmt::format("data file {}: column \"{}\" is {} but _table.json says {}", key, f.name,
                      f.type.ToString(), t.type.ToString()));
    }
  }
  return Status::OK();
}

}  // namespace

TableRef MapTargetTable(const TableRef& source,
                        const std::vector<std::pair<std::string, std::string>>& schema_map) {
  TableRef out = source;
  for (const auto& [from, to] : schema_map) {
    if (source.schema == from) {
      out.schema = to;
      break;
    }
  }
  return out;
}

LoadService::LoadService(ObjectStore* store, TargetDatabase* target, LoadOptions options)
    : store_(store), target_(target), options_(std::move(options)) {}

Result<std::vector<LoadService::TableTask>> LoadService::Plan(const DumpManifest& manifest) {
  if (options_.table_parallelism < 1) {
    return Status::InvalidArgument("--table-parallelism must be at least 1");
  }
  if (options_.file_parallelism < 1) {
    return Status::InvalidArgument("--file-parallelism must be at least 1");
  }
  if (options_.batch_rows < 1) return Status::InvalidArgument("batch rows must be at least 1");
  for (const std::string& p : options_.include) {
    const bool any =
        std::any_of(manifest.tables.begin(), manifest.tables.end(),
                    [&](const TableSummary& t) { return TablePatternMatches(p, t.table); });
    if (!any) {
      return Status::InvalidArgument(
          IsGlob(p) ? fmt::format("--tables pattern \"{}\" matches no table of the dump", p)
                    : fmt::format("unknown table {} (in --tables; `lakedump ls DUMP` "
                                  "lists the "
                                  "dump's tables)",
                                  p));
    }
  }
  std::string kind;
  if (manifest.source.is_object() && manifest.source.contains("kind") &&
      manifest.source["kind"].is_string()) {
    kind = manifest.source["kind"].get<std::string>();
  }
  std::vector<TableTask> tasks;
  std::map<std::string, std::string> targets;  // target name -> source name
  for (const TableSummary& summary : manifest.tables) {
    if (!options_.include.empty() && !MatchesAny(options_.include, summary.table)) continue;
    if (MatchesAny(options_.exclude, summary.table)) continue;
    TableTask task;
    auto tm = ReadTableManifest(*store_, summary.key);
    if (!tm.ok()) {
      if (tm.status().code() == Code::kNotFound) {
        return Status::Corruption(
            fmt::format("table {}: its {} is missing from the dump (the manifest lists it)",
                        summary.table.QualifiedName(), summary.key));
      }
      return tm.status().WithContext(summary.table.QualifiedName());
    }
    task.manifest = std::move(*tm);
    if (!(task.manifest.table == summary.table)) {
      return Status::Corruption(fmt::format("{} describes table {} but the manifest says {}",
                                            summary.key, task.manifest.table.QualifiedName(),
                                            summary.table.QualifiedName()));
    }
    if (task.manifest.rows != summary.rows) {
      return Status::Corruption(fmt::format("table {}: _manifest.json says {} rows but {} says {}",
                                            summary.table.QualifiedName(), summary.rows,
                                            summary.key, task.manifest.rows));
    }
    TablePlan& plan = task.plan;
    plan.source = summary.table;
    plan.target = MapTargetTable(summary.table, options_.schema_map);
    plan.definition.schema = task.manifest.schema;
    plan.definition.ddl = task.manifest.ddl;
    plan.definition.primary_key = task.manifest.primary_key;
    plan.source_kind = kind;
    plan.if_exists = options_.if_exists;
    plan.rows = task.manifest.rows;
    plan.file_count = task.manifest.files.size();
    auto [it, inserted] = targets.emplace(plan.target.QualifiedName(), plan.source.QualifiedName());
    if (!inserted) {
      return Status::InvalidArgument(
          fmt::format("tables {} and {} would both load into {}; change "
                      "--schema-map or --tables",
                      it->second, plan.source.QualifiedName(), plan.target.QualifiedName()));
    }
    task.loaded.source = plan.source;
    task.loaded.target = plan.target;
    tasks.push_back(std::move(task));
  }
  return tasks;
}

Result<LoadResult> LoadService::Run(std::stop_token stop) {
  const auto start = std::chrono::steady_clock::now();
  LD_ASSIGN_OR_RETURN(DumpManifest manifest, ReadDumpManifest(*store_));
  LD_ASSIGN_OR_RETURN(std::vector<TableTask> tasks, Plan(manifest));
  progress_.tables_total = tasks.size();
  for (const TableTask& t : tasks) progress_.estimated_rows += t.plan.rows;

  // Table tasks on one pool, their files on another: a table task waits on its
  // files' group, and must never wait on a group of its own pool.
  const size_t tables = std::min<size_t>(std::max<size_t>(tasks.size(), 1),
                                         static_cast<size_t>(options_.table_parallelism));
  const size_t files_per_table = static_cast<size_t>(
      std::max(1, std::min(options_.file_parallelism, target_->max_sinks_per_table())));
  Status status;
  {
    ThreadPool table_pool(tables);
    ThreadPool file_pool(tables * files_per_table);
    file_pool_ = &file_pool;
    TaskGroup group(&table_pool, tables, stop);
    for (TableTask& task : tasks) {
      if (!group.Spawn([this, &task](std::stop_token s) { return LoadTable(task, s); })) break;
    }
    status = group.Wait();
    file_pool_ = nullptr;
  }
  if (!status.ok()) return status;

  LoadResult result;
  result.dump_id = manifest.dump_id;
  for (TableTask& t : tasks) {
    result.rows += t.loaded.rows;
    result.files += t.loaded.files;
    result.bytes += t.loaded.bytes;
    result.tables.push_back(t.loaded);
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

Status LoadService::LoadTable(TableTask& task, std::stop_token stop) {
  const auto start = std::chrono::steady_clock::now();
  const std::string name = task.plan.source.QualifiedName();
  if (stop.stop_requested()) return Status::Cancelled(name);
  started_loading_ = true;
  Status s = target_->PrepareTable(task.plan);
  if (s.ok()) s = LoadFiles(task, stop);
  if (s.ok() && stop.stop_requested()) s = Status::Cancelled("cancelled");
  if (s.ok()) s = target_->CommitTable(task.plan);
  if (!s.ok()) {
    Status abort = target_->AbortTable(task.plan);
    (void)abort;  // the load's own error is the one to report
    return s.WithContext(name);
  }
  task.loaded.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ++progress_.tables_done;
  return Status::OK();
}

Status LoadService::LoadFiles(TableTask& task, std::stop_token stop) {
  const size_t in_flight = static_cast<size_t>(
      std::max(1, std::min(options_.file_parallelism, target_->max_sinks_per_table())));
  std::mutex mu;
  uint64_t rows = 0, bytes = 0;
  TaskGroup files(file_pool_, in_flight, stop);
  for (const DataFile& file : task.manifest.files) {
    const DataFile* f = &file;
    const bool spawned = files.Spawn([&, f, this](std::stop_token s) -> Status {
      uint64_t read = 0;
      Status st = LoadFile(task.plan, task.manifest, *f, s, &read);
      if (st.ok()) {
        std::lock_guard<std::mutex> lock(mu);
        rows += f->rows;
        bytes += read;
      }
      return st;
    });
    if (!spawned) break;
  }
  LD_RETURN_IF_ERROR(files.Wait());
  task.loaded.rows = rows;
  task.loaded.bytes = bytes;
  task.loaded.files = task.manifest.files.size();
  return Status::OK();
}

Status LoadService::LoadFile(const TablePlan& plan, const TableManifest& table,
                             const DataFile& file, std::stop_token stop, uint64_t* bytes_read) {
  auto object = store_->NewReader(file.key);
  if (!object.ok()) {
    if (object.status().code() == Code::kNotFound) {
      return Status::Corruption(fmt::format(
          "data file {} is missing from the dump (its _table.json lists it)", file.key));
    }
    return object.status().WithContext(file.key);
  }
  // Every byte the Parquet reader takes is hashed on the way: a file changed after
  // the dump fails its table before the target commits it.
  HashingReader hashing(object->get());
  ObjectReader* reader = &hashing;
  if (file.bytes != 0 && reader->size() != file.bytes) {
    return Status::Corruption(fmt::format("data file {} has {} bytes but _table.json says {}",
                                          file.key, reader->size(), file.bytes));
  }
  ParquetReaderOptions ro;
  ro.name = file.key;
  auto parquet = ParquetReader::Open(
      reader->size(),
      [this, reader, bytes_read](uint64_t offset, uint64_t len, std::string* out) {
        LD_RETURN_IF_ERROR(reader->ReadAt(offset, len, out));
        *bytes_read += len;
        progress_.bytes += len;
        return Status::OK();
      },
      ro);
  if (!parquet.ok()) return parquet.status().WithContext(file.key);
  LD_RETURN_IF_ERROR(CheckFileSchema((*parquet)->schema(), table.schema, file.key));
  if ((*parquet)->num_rows() != file.rows) {
    return Status::Corruption(fmt::format("data file {} holds {} rows but _table.json says {}",
                                          file.key, (*parquet)->num_rows(), file.rows));
  }
  LD_ASSIGN_OR_RETURN(std::unique_ptr<TableSink> sink, target_->OpenSink(plan));
  RowBatch batch;
  uint64_t streamed = 0;
  while (true) {
    if (stop.stop_requested()) return Status::Cancelled(file.key);
    LD_RETURN_IF_ERROR((*parquet)->Next(options_.batch_rows, &batch));
    if (batch.num_rows() == 0) break;
    streamed += batch.num_rows();
    if (streamed > file.rows) break;
    LD_RETURN_IF_ERROR(sink->Append(batch).WithContext(file.key));
    progress_.rows += batch.num_rows();
  }
  if (streamed != file.rows) {
    return Status::Corruption(
        fmt::format("data file {}: read {} rows but its footer and _table.json say {}", file.key,
                    streamed, file.rows));
  }
  if (!file.xxh64.empty()) LD_RETURN_IF_ERROR(hashing.Verify(file.xxh64, file.key));
  LD_ASSIGN_OR_RETURN(uint64_t written, sink->Finish());
  if (written != file.rows) {
    return Status::Corruption(
        fmt::format("data file {}: the target took {} rows of {}", file.key, written, file.rows));
  }
  ++progress_.files;
  return Status::OK();
}

}  // namespace lakedump
