#include "load/load_service.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
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

namespace {

// Below this many files per stream, files are split into row groups so that the streams end
// together (a whole-file tail would leave one stream loading alone).
constexpr size_t kSplitBelowFilesPerStream = 4;
constexpr size_t kWholeFile = SIZE_MAX;


// Whether the dump recorded a checksum per row group of `f` (format 1.1): then a stream that
// reads one row group checks it; else the file is hashed whole after its streams.
bool HasRangeChecksums(const DataFile& f) { return f.footer.has_value() && !f.xxh64.empty(); }

// The footer (checked against its own checksum) must place each row group's column chunks
// inside that row group's recorded range: a stream reading the row group then hashes every
// byte it takes.
Status CheckRowGroupsInRanges(const parquet::FileMetaData& meta, const DataFile& file) {
  if (meta.row_groups.size() != file.row_groups.size()) {
    return Status::Corruption(fmt::format(
        "data file {} has {} row groups but _table.json records checksums for {}", file.key,
        meta.row_groups.size(), file.row_groups.size()));
  }
  for (size_t g = 0; g < meta.row_groups.size(); ++g) {
    const ByteRangeChecksum& range = file.row_groups[g];
    for (const parquet::ColumnChunk& cc : meta.row_groups[g].columns) {
      if (!cc.meta_data) continue;  // the reader refuses it when it gets there
      const int64_t start = parquet::ColumnChunkStart(*cc.meta_data);
      const int64_t len = cc.meta_data->total_compressed_size;
      if (start < 0 || len < 0 || static_cast<uint64_t>(start) < range.offset ||
          static_cast<uint64_t>(start) - range.offset > range.bytes ||
          static_cast<uint64_t>(len) > range.offset + range.bytes - static_cast<uint64_t>(start)) {
        return Status::Corruption(fmt::format(
            "data file {}: row group {} has a column chunk at bytes {}+{}, outside the range "
            "_table.json records for it ({} bytes at offset {})",
            file.key, g, start, len, range.bytes, range.offset));
      }
    }
  }
  return Status::OK();
}

}  // namespace

// One table's loading state shared by its streams.
struct LoadService::TableLoad {
  TableTask* task = nullptr;
  struct Unit {
    size_t file;
    size_t row_group;  // kWholeFile: every row group of the file
  };
  std::vector<Unit> units;
  std::atomic<size_t> next_unit{0};
  std::unique_ptr<std::atomic<uint64_t>[]> file_rows;  // rows streamed per file
  std::atomic<uint64_t> rows{0};
  std::atomic<uint64_t> bytes{0};
};

// A data file opened for reading: the store object and the Parquet reader on it.
struct LoadService::OpenFile {
  size_t index = SIZE_MAX;
  std::unique_ptr<ObjectReader> object;
  std::unique_ptr<HashingReader> hashing;  // on object, when the file is read whole
  std::unique_ptr<ParquetReader> parquet;  // on hashing or object

  void Close() {  // the readers before what they read from
    parquet.reset();
    hashing.reset();
    object.reset();
    index = SIZE_MAX;
  }
};

Status LoadService::LoadFiles(TableTask& task, std::stop_token stop) {
  const std::vector<DataFile>& files = task.manifest.files;
  const size_t streams = static_cast<size_t>(
      std::max(1, std::min(options_.file_parallelism, target_->max_sinks_per_table())));
  TableLoad load;
  load.task = &task;
  load.file_rows = std::make_unique<std::atomic<uint64_t>[]>(files.size());
  const bool split = streams > 1 && files.size() < kSplitBelowFilesPerStream * streams;
  if (split) {
    // Few files: their row groups are the units (the footers are read twice; few files).
    for (size_t f = 0; f < files.size(); ++f) {
      OpenFile file;
      LD_RETURN_IF_ERROR(CheckSectionChecksums(files[f]).WithContext(task.manifest.table.QualifiedName()));
      LD_RETURN_IF_ERROR(Open(
          load, f, HasRangeChecksums(files[f]) ? FileCheck::kSections : FileCheck::kNone, &file));
      const size_t groups = file.parquet->num_row_groups();
      for (size_t g = 0; g < groups; ++g) load.units.push_back({f, g});
      if (groups == 0) ++progress_.files;
    }
  } else {
    for (size_t f = 0; f < files.size(); ++f) load.units.push_back({f, kWholeFile});
  }
  const size_t workers = std::min(streams, load.units.size());
  // One stream loads the whole table: the target may load it in one transaction.
  task.plan.single_sink = workers == 1;
  {
    TaskGroup group(file_pool_, std::max<size_t>(workers, 1), stop);
    for (size_t w = 0; w < workers; ++w) {
      if (!group.Spawn([this, &load](std::stop_token s) { return Stream(load, s); })) break;
    }
    LD_RETURN_IF_ERROR(group.Wait());
  }
  for (size_t f = 0; f < files.size(); ++f) {
    const uint64_t got = load.file_rows[f].load();
    if (got != files[f].rows) {
      return Status::Corruption(
          fmt::format("data file {}: read {} rows but its footer and _table.json say {}",
                      files[f].key, got, files[f].rows));
    }
  }
  // Files of older dumps (no row-group checksums) split into row groups were read in parts
  // by several streams: hashed now, in one more sequential read (still before the target
  // commits the table). Newer files were checked range by range as they were read.
  if (split) {
    for (const DataFile& f : files) {
      if (f.xxh64.empty() || HasRangeChecksums(f)) continue;
      if (stop.stop_requested()) return Status::Cancelled(f.key);
      auto object = store_->NewReader(f.key);
      if (!object.ok()) return object.status().WithContext(f.key);
      HashingReader hashing(object->get());
      LD_RETURN_IF_ERROR(hashing.Verify(f.xxh64, f.key));
    }
  }
  task.loaded.rows = load.rows.load();
  task.loaded.bytes = load.bytes.load();
  task.loaded.files = files.size();
  return Status::OK();
}

Status LoadService::Stream(TableLoad& load, std::stop_token stop) {
  const TableTask& task = *load.task;
  const std::vector<DataFile>& files = task.manifest.files;
  std::unique_ptr<TableSink> sink;
  OpenFile file;
  RowBatch batch;
  uint64_t sent = 0;
  while (true) {
    const size_t u = load.next_unit.fetch_add(1);
    if (u >= load.units.size()) break;
    if (stop.stop_requested()) return Status::Cancelled(task.plan.source.QualifiedName());
    const TableLoad::Unit unit = load.units[u];
    const DataFile& df = files[unit.file];
    const FileCheck check = unit.row_group == kWholeFile ? FileCheck::kWholeFile
                            : HasRangeChecksums(df)      ? FileCheck::kSections
                                                         : FileCheck::kNone;
    if (file.index != unit.file) {
      file.Close();
      LD_RETURN_IF_ERROR(Open(load, unit.file, check, &file));
    }
    if (!sink) {
      LD_ASSIGN_OR_RETURN(sink, target_->OpenSink(task.plan));
    }
    // Rows to stream: the row group's, or the whole file's (until the reader's end).
    uint64_t want = df.rows;
    if (unit.row_group != kWholeFile) {
      if (check == FileCheck::kSections) {
        const ByteRangeChecksum& range = df.row_groups[unit.row_group];
        file.hashing->StartSection(range.offset, range.bytes);
      }
      file.parquet->SeekRowGroup(unit.row_group);
      want = static_cast<uint64_t>(file.parquet->metadata().row_groups[unit.row_group].num_rows);
    }
    uint64_t streamed = 0;
    while (true) {
      if (stop.stop_requested()) return Status::Cancelled(df.key);
      const size_t ask =
          unit.row_group == kWholeFile
              ? options_.batch_rows
              : static_cast<size_t>(std::min<uint64_t>(options_.batch_rows, want - streamed));
      if (ask == 0) break;
      LD_RETURN_IF_ERROR(file.parquet->Next(ask, &batch));
      if (batch.num_rows() == 0) break;
      streamed += batch.num_rows();
      if (streamed > want) break;
      LD_RETURN_IF_ERROR(sink->Append(batch).WithContext(df.key));
      progress_.rows += batch.num_rows();
    }
    if (streamed != want) {
      if (unit.row_group != kWholeFile) {
        return Status::Corruption(
            fmt::format("data file {}: row group {} gave {} rows but its footer says {}", df.key,
                        unit.row_group, streamed, want));
      }
      return Status::Corruption(
          fmt::format("data file {}: read {} rows but its footer and _table.json say {}", df.key,
                      streamed, df.rows));
    }
    if (unit.row_group == kWholeFile && !df.xxh64.empty()) {
      LD_RETURN_IF_ERROR(file.hashing->Verify(df.xxh64, df.key));
    } else if (unit.row_group != kWholeFile && check == FileCheck::kSections) {
      const ByteRangeChecksum& range = df.row_groups[unit.row_group];
      LD_RETURN_IF_ERROR(file.hashing->Verify(
          range.xxh64, fmt::format("{} (row group {}, {} bytes at offset {})", df.key,
                                   unit.row_group, range.bytes, range.offset)));
    }
    sent += streamed;
    const uint64_t file_total = load.file_rows[unit.file].fetch_add(streamed) + streamed;
    if (file_total == df.rows) ++progress_.files;
  }
  if (!sink) return Status::OK();
  LD_ASSIGN_OR_RETURN(uint64_t written, sink->Finish());
  if (written != sent) {
    return Status::Corruption(fmt::format("table {}: the target took {} rows of {}",
                                          task.plan.target.QualifiedName(), written, sent));
  }
  load.rows += sent;
  return Status::OK();
}

Status LoadService::Open(TableLoad& load, size_t index, FileCheck check, OpenFile* out) {
  const TableManifest& table = load.task->manifest;
  const DataFile& file = table.files[index];
  auto object = store_->NewReader(file.key);
  if (!object.ok()) {
    if (object.status().code() == Code::kNotFound) {
      return Status::Corruption(fmt::format(
          "data file {} is missing from the dump (its _table.json lists it)", file.key));
    }
    return object.status().WithContext(file.key);
  }
  // A file read whole by one stream is hashed on the way (every byte the Parquet reader
  // takes): a file changed after the dump fails its table before the target commits it.
  std::unique_ptr<HashingReader> hashing;
  ObjectReader* reader = object->get();
  if (check != FileCheck::kNone) {
    hashing = std::make_unique<HashingReader>(reader);
    reader = hashing.get();
  }
  if (file.bytes != 0 && reader->size() != file.bytes) {
    return Status::Corruption(fmt::format("data file {} has {} bytes but _table.json says {}",
                                          file.key, reader->size(), file.bytes));
  }
  if (check == FileCheck::kSections) hashing->StartSection(file.footer->offset, file.footer->bytes);
  ParquetReaderOptions ro;
  ro.name = file.key;
  auto parquet = ParquetReader::Open(
      reader->size(),
      [this, reader, &load](uint64_t offset, uint64_t len, std::string* out) {
        LD_RETURN_IF_ERROR(reader->ReadAt(offset, len, out));
        load.bytes += len;
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
  if (check == FileCheck::kSections) {
    LD_RETURN_IF_ERROR(hashing->Verify(file.footer->xxh64, file.key + " (footer)"));
    LD_RETURN_IF_ERROR(CheckRowGroupsInRanges((*parquet)->metadata(), file));
  }
  out->index = index;
  out->object = std::move(object).value();
  out->hashing = std::move(hashing);
  out->parquet = std::move(parquet).value();
  return Status::OK();
}

}  // namespace lakedump
