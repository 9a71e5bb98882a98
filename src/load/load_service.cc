#include "load/load_service.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>

#include "base/thread_pool.h"
#include "lake/commit_check.h"
#include "lake/large_objects.h"
#include "load/large_object_load.h"
#include "lake/object_checksum.h"
#include "lake/object_keys.h"
#include "lake/table_selection.h"
#include "lake/signature.h"
#include "lake/schema_archive.h"
#include "format/parquet/parquet_reader.h"
#include "load/cross_engine_skips.h"
#include "source/sqlite/sqlite_values.h"

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

// Target names the target would cut (PostgreSQL: 63 bytes) are refused before anything
// loads: two tables sharing their first 63 bytes would otherwise become one.
Status CheckIdentifierLengths(const TablePlan& plan, size_t max_bytes) {
  if (max_bytes == 0) return Status::OK();
  auto check = [&](std::string_view what, const std::string& name) -> Status {
    if (name.size() <= max_bytes) return Status::OK();
    return Status::InvalidArgument(fmt::format(
        "table {}: its {} name \"{}\" is {} bytes, longer than the target's limit of {} "
        "(the target would cut it, and two names could become one); map it with "
        "--schema-map, or leave the table out with --exclude",
        plan.source.QualifiedName(), what, name, name.size(), max_bytes));
  };
  LD_RETURN_IF_ERROR(check("schema", plan.target.schema));
  LD_RETURN_IF_ERROR(check("table", plan.target.name));
  for (const Column& c : plan.definition.schema.columns()) {
    LD_RETURN_IF_ERROR(check("column", c.name));
  }
  return Status::OK();
}

// The load's options, and the --tables patterns against the dump's tables.
Status CheckLoadOptions(const LoadOptions& options, const DumpManifest& manifest) {
  if (options.table_parallelism < 1) {
    return Status::InvalidArgument("--table-parallelism must be at least 1");
  }
  if (options.file_parallelism < 1) {
    return Status::InvalidArgument("--file-parallelism must be at least 1");
  }
  if (options.batch_rows < 1) return Status::InvalidArgument("batch rows must be at least 1");
  LD_RETURN_IF_ERROR(CheckRestoreFilter(options.filter, manifest));
  for (const std::string& p : options.include) {
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
  return Status::OK();
}

// A table's _table.json (its signature checked with a signing key), which must be the one
// the manifest committed.
Result<TableManifest> ReadCommittedTable(ObjectStore& store, const LoadOptions& options,
                                         const TableSummary& summary) {
  auto tm = options.signing_key.empty() ? ReadTableManifest(store, summary.key)
                                        : ReadSignedTableManifest(store, summary);
  if (!tm.ok()) {
    if (tm.status().code() == Code::kNotFound) {
      return Status::Corruption(
          fmt::format("table {}: its {} is missing from the dump (the manifest lists it)",
                      summary.table.QualifiedName(), summary.key));
    }
    return tm.status().WithContext(summary.table.QualifiedName());
  }
  const TableManifest& manifest = *tm;
  if (!(manifest.table == summary.table)) {
    return Status::Corruption(fmt::format("{} describes table {} but the manifest says {}",
                                          summary.key, manifest.table.QualifiedName(),
                                          summary.table.QualifiedName()));
  }
  if (manifest.rows != summary.rows) {
    return Status::Corruption(fmt::format("table {}: _manifest.json says {} rows but {} says {}",
                                          summary.table.QualifiedName(), summary.rows,
                                          summary.key, manifest.rows));
  }
  // A _table.json replaced after the commit (another writer) is not the one
  // the manifest committed, even with the same row count.
  if (std::string diff = TableEntryMismatch(summary, manifest); !diff.empty()) {
    return Status::Corruption(fmt::format(
        "table {}: {} is not the one _manifest.json committed: it has {}",
        summary.table.QualifiedName(), summary.key, diff));
  }
  return tm;
}

// The signed manifest read by the load must be the one the command checked (with the chain of
// increments it extends): not one replaced in between by another validly signed one.
Status CheckSameManifest(const std::string& found, const std::string& expected) {
  if (expected.empty() || found == expected) return Status::OK();
  return Status::PermissionDenied(fmt::format(
      "signature check failed: {} changed during the load (SHA-256 {}, {} when the load "
      "started)",
      kManifestKey, found, expected));
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
    : store_(store),
      target_(target),
      options_(std::move(options)),
      decompression_(options_.decompression_memory) {}

Result<std::vector<LoadService::TableTask>> LoadService::Plan(const DumpManifest& manifest) {
  LD_RETURN_IF_ERROR(CheckLoadOptions(options_, manifest));
  std::string kind;
  if (manifest.source.is_object() && manifest.source.contains("kind") &&
      manifest.source["kind"].is_string()) {
    kind = manifest.source["kind"].get<std::string>();
  }
  // SQLite's one schema is "main"; its tables land in "public" unless --schema-map says where.
  if (kind == "sqlite" && target_->has_schemas() &&
      std::none_of(options_.schema_map.begin(), options_.schema_map.end(),
                   [](const auto& m) { return m.first == "main"; })) {
    options_.schema_map.emplace_back("main", "public");
  }
  std::vector<TableTask> tasks;
  std::map<std::string, std::string> targets;  // target name -> source name
  for (const TableSummary& summary : manifest.tables) {
    if (!options_.include.empty() && !MatchesAny(options_.include, summary.table)) continue;
    if (MatchesAny(options_.exclude, summary.table)) continue;
    if (!options_.filter.Keeps(summary.table)) continue;
    TableTask task;
    LD_ASSIGN_OR_RETURN(task.manifest, ReadCommittedTable(*store_, options_, summary));
    TablePlan& plan = task.plan;
    plan.source = summary.table;
    plan.target = MapTargetTable(summary.table, options_.schema_map);
    plan.definition.schema = task.manifest.schema;
    plan.definition.ddl = task.manifest.ddl;
    plan.definition.primary_key = task.manifest.primary_key;
    plan.definition.unique_keys = task.manifest.unique_keys;
    plan.structured_keys = task.manifest.has_unique_keys;
    plan.trust_schema = options_.trust_schema;
    plan.source_kind = kind;
    plan.sqlite_values = kind == "sqlite" && TakeSqliteValuesColumn(&plan.definition.schema);
    LD_RETURN_IF_ERROR(CheckIdentifierLengths(plan, target_->max_identifier_bytes()));
    plan.if_exists = options_.if_exists;
    plan.commit_together = options_.data_only;  // into a schema restored earlier: FK order
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

Result<SchemaRestorePlan> LoadService::PlanSchema(const DumpManifest& manifest,
                                                  const std::vector<TableTask>& tasks) {
  SchemaRestorePlan plan;
  plan.schema = manifest.schema.is_object() ? manifest.schema : nlohmann::json::object();
  if (manifest.source.is_object()) plan.source_kind = manifest.source.value("kind", "");
  plan.trusted = options_.trust_schema;
  plan.exclude_patterns = options_.exclude;
  plan.schema_map = options_.schema_map;
  plan.with_data = !options_.schema_only;
  plan.if_exists = options_.if_exists;
  plan.jobs = options_.restore_jobs > 0 ? options_.restore_jobs : options_.table_parallelism;
  plan.tool_dir = options_.pg_bin_dir;
  plan.filter = options_.filter;
  plan.filter.subset = !options_.include.empty() || !plan.filter.tables.empty() ||
                       !plan.filter.schemas.empty();
  plan.roles = options_.roles;
  std::set<std::string> selected;
  for (const TableTask& t : tasks) {
    plan.tables.push_back(t.plan.source);
    selected.insert(t.plan.source.QualifiedName());
  }
  for (const TableSummary& t : manifest.tables) {
    if (!selected.count(t.table.QualifiedName())) plan.excluded.push_back(t.table);
  }
  LD_ASSIGN_OR_RETURN(SchemaArchiveEntry entry, ParseSchemaArchiveEntry(plan.schema));
  if (plan.trusted && !entry.key.empty()) {
    LD_ASSIGN_OR_RETURN(plan.archive, ReadSchemaArchive(*store_, entry));
  }
  return plan;
}

// Tables the schema restore created are loaded into (append, straight into the empty table
// where the target can); materialized views are refreshed instead of loaded.
std::vector<LoadService::TableTask> LoadService::TasksAfterSchema(
    std::vector<TableTask> tasks, const SchemaRestoreOutcome& schema, bool schema_only) {
  auto contains = [](const std::vector<TableRef>& list, const TableRef& t) {
    return std::find(list.begin(), list.end(), t) != list.end();
  };
  std::vector<TableTask> kept;
  for (TableTask& t : tasks) {
    if (contains(schema.skip_data, t.plan.source)) continue;
    if (contains(schema.created, t.plan.source)) {
      if (schema_only) continue;
      t.plan.if_exists = LoadIfExists::kAppend;
      t.plan.restored_empty = true;
    }
    kept.push_back(std::move(t));
  }
  return kept;
}

Result<LoadResult> LoadService::Run(std::stop_token stop) {
  const auto start = std::chrono::steady_clock::now();
  std::string manifest_sha256;
  LD_ASSIGN_OR_RETURN(DumpManifest manifest,
                      options_.signing_key.empty()
                          ? ReadDumpManifest(*store_)
                          : ReadSignedManifest(*store_, options_.signing_key, &manifest_sha256));
  LD_RETURN_IF_ERROR(CheckSameManifest(manifest_sha256, options_.manifest_sha256));
  if (options_.schema_only && options_.data_only) {
    return Status::InvalidArgument("--schema-only and --data-only exclude each other");
  }
  LD_ASSIGN_OR_RETURN(std::vector<TableTask> tasks, Plan(manifest));
  LD_ASSIGN_OR_RETURN(SchemaRestorePlan schema_plan, PlanSchema(manifest, tasks));
  LD_ASSIGN_OR_RETURN(LargeObjectLoadPlan large_objects, PlanLargeObjectsOf(manifest, schema_plan));
  SchemaRestoreOutcome schema;
  schema.method = "none";
  if (!options_.data_only) {
    Status s = target_->RestoreSchemaBefore(schema_plan, &schema);
    if (!s.ok()) {
      if (s.code() != Code::kInvalidArgument) started_loading_ = true;
      return s;
    }
    tasks = TasksAfterSchema(std::move(tasks), schema, options_.schema_only);
  }
  // Data, as pg_restore's BLOBS: after the schema's pre-data, before the tables.
  LD_ASSIGN_OR_RETURN(const uint64_t restored_large_objects,
                      LoadLargeObjects(large_objects, stop));
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
  LD_RETURN_IF_ERROR(CommitTogether(status, schema_plan));
  if (!options_.data_only) {
    if (stop.stop_requested()) return Status::Cancelled("cancelled");
    LD_RETURN_IF_ERROR(target_->RestoreSchemaAfter(schema_plan, &schema));
  }
  LoadResult result;
  result.dump_id = manifest.dump_id;
  result.warnings = Warnings(manifest.schema);
  result.schema = std::move(schema);
  AddLargeObjects(restored_large_objects, std::move(large_objects), &result);
  std::vector<const TablePlan*> plans;  // what did not cross engines: cross_engine_skips.h
  for (TableTask& t : tasks) {
    plans.push_back(&t.plan);
    result.rows += t.loaded.rows;
    result.files += t.loaded.files;
    result.bytes += t.loaded.bytes;
    result.tables.push_back(t.loaded);
  }
  CrossEngineSkips(schema_plan, plans, *target_, !options_.data_only, &result.schema.skipped);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

Result<LargeObjectLoadPlan> LoadService::PlanLargeObjectsOf(const DumpManifest& manifest,
                                                            const SchemaRestorePlan& schema) {
  LD_ASSIGN_OR_RETURN(LargeObjectLoadPlan plan,
                      PlanLargeObjects(manifest, options_, *target_, schema.filter.subset));
  LD_RETURN_IF_ERROR(CheckLargeObjectsBeforeLoad(*store_, *target_, plan));
  return plan;
}

Result<uint64_t> LoadService::LoadLargeObjects(const LargeObjectLoadPlan& plan,
                                               std::stop_token stop) {
  if (plan.objects.empty()) return uint64_t{0};
  Result<uint64_t> restored = RestoreLargeObjects(*store_, *target_, plan, stop);
  // A refused file (its size or checksum) is refused like the schema before it: exit 2.
  if (!restored.ok() && restored.status().code() != Code::kInvalidArgument) {
    started_loading_ = true;
  }
  return restored;
}

void LoadService::AddLargeObjects(uint64_t restored, LargeObjectLoadPlan plan,
                                  LoadResult* result) const {
  result->large_objects = restored;
  for (std::string& w : plan.skipped) result->schema.warnings.push_back(std::move(w));
  for (std::string& w : plan.warnings) result->warnings.push_back(std::move(w));
}

Status LoadService::CommitTogether(const Status& tables, const SchemaRestorePlan& plan) {
  if (tables.ok()) return options_.data_only ? target_->CommitTogether(plan) : Status::OK();
  Status abort = target_->AbortTogether();
  if (abort.ok()) return tables;
  return Status(tables.code(), fmt::format("{} (and the cleanup failed too: {}; finish it by hand)",
                                           tables.message(), abort.message()));
}

std::vector<std::string> LoadService::Warnings(const nlohmann::json& schema) const {
  std::vector<std::string> out = target_->notes().warnings();
  if (std::string w = UnheldLargeObjectsWarning(schema); !w.empty()) {
    out.push_back(std::move(w));
  }
  const uint64_t skipped = target_->notes().skipped_schema_items();
  if (skipped > 0) {
    out.push_back(fmt::format(
        "{} schema item(s) of the dump (DEFAULT expressions, CHECK constraints, recorded DDL) "
        "were not applied: the dump is not trusted, and a dump's schema is code; to apply "
        "them, load with --trust-dump, or sign the dump (dump --sign-key-file) and load with "
        "--require-signature",
        skipped));
  }
  return out;
}

Status LoadService::LoadTable(TableTask& task, std::stop_token stop) {
  const auto start = std::chrono::steady_clock::now();
  const std::string name = task.plan.source.QualifiedName();
  if (stop.stop_requested()) return Status::Cancelled(name);
  started_loading_ = true;
  Status s = target_->PrepareTable(task.plan);
  if (s.ok() && !options_.schema_only) s = LoadFiles(task, stop);
  if (s.ok() && stop.stop_requested()) s = Status::Cancelled("cancelled");
  if (s.ok()) s = target_->CommitTable(task.plan);
  if (!s.ok()) {
    // The load's own error is the one to report; a cleanup that failed (the target's error
    // says which: dropping a staging table, or emptying a table restored straight into) is
    // named in it too, so that it can be finished by hand.
    Status abort = target_->AbortTable(task.plan);
    if (!abort.ok()) {
      return Status(s.code(), fmt::format("{}: {} (and the cleanup failed too: {}; finish it "
                                          "by hand)",
                                          name, s.message(), abort.message()));
    }
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

bool LoadService::UseSections(const DataFile& f) const {
  return HasRangeChecksums(f) && !signed_dump();
}

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
  // A signed dump's files split into row groups are hashed after their streams: never when
  // the streams load straight into the target table (restored_empty), whose sinks commit as
  // they end. There each file is read whole by one stream and checked before that stream
  // commits: no row of a file becomes visible before the file's SHA-256 is checked.
  const bool split = streams > 1 && files.size() < kSplitBelowFilesPerStream * streams &&
                     !(signed_dump() && task.plan.restored_empty);
  if (split) {
    // Few files: their row groups are the units (the footers are read twice; few files).
    for (size_t f = 0; f < files.size(); ++f) {
      OpenFile file;
      LD_RETURN_IF_ERROR(CheckSectionChecksums(files[f]).WithContext(task.manifest.table.QualifiedName()));
      LD_RETURN_IF_ERROR(
          Open(load, f, UseSections(files[f]) ? FileCheck::kSections : FileCheck::kNone, &file));
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
    Status s = group.Wait();
    // In a signed dump, a file that fails to decode may have been altered: say so if its
    // SHA-256 differs (the cause, rather than the symptom).
    if (!s.ok() && signed_dump() && s.code() != Code::kCancelled) {
      LD_RETURN_IF_ERROR(CheckSha256(files, stop));
    }
    LD_RETURN_IF_ERROR(s);
  }
  for (size_t f = 0; f < files.size(); ++f) {
    const uint64_t got = load.file_rows[f].load();
    if (got != files[f].rows) {
      return Status::Corruption(
          fmt::format("data file {}: read {} rows but its footer and _table.json say {}",
                      files[f].key, got, files[f].rows));
    }
  }
  // Files split into row groups without range checks (older dumps, and every file of a signed
  // dump, whose SHA-256 covers the whole file) were read in parts by several streams: hashed
  // now, in one more sequential read (still before the target commits the table). The other
  // files were checked range by range as they were read.
  if (split) {
    for (const DataFile& f : files) {
      if (UseSections(f)) continue;
      if (stop.stop_requested()) return Status::Cancelled(f.key);
      auto object = store_->NewReader(f.key);
      if (!object.ok()) return object.status().WithContext(f.key);
      HashingReader hashing(object->get(), signed_dump());
      Status xxh64 = hashing.Verify(f.xxh64, f.key);
      if (signed_dump()) LD_RETURN_IF_ERROR(CheckFileSha256(f.key, f.sha256, hashing.sha256_hex()));
      LD_RETURN_IF_ERROR(xxh64);
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
                            : UseSections(df)            ? FileCheck::kSections
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
      LD_RETURN_IF_ERROR(AppendBatch(task.plan, batch, sink.get()).WithContext(df.key));
      progress_.rows += batch.num_rows();
    }
    LD_RETURN_IF_ERROR(CheckUnitRead(file, df, unit.row_group, check, streamed, want));
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

// A SQLite dump's exact-values column goes only to a target that takes it: the others get
// the batch's other columns (moved into a batch of their own and back, no copy).
Status LoadService::AppendBatch(const TablePlan& plan, RowBatch& batch, TableSink* sink) {
  if (!plan.sqlite_values || target_->takes_sqlite_values()) return sink->Append(batch);
  const size_t n = plan.definition.schema.num_columns();
  RowBatch trimmed(plan.definition.schema);
  for (size_t i = 0; i < n; ++i) std::swap(trimmed.column(i), batch.column(i));
  Status s = sink->Append(trimmed);
  for (size_t i = 0; i < n; ++i) std::swap(trimmed.column(i), batch.column(i));
  return s;
}

Status LoadService::CheckUnitRead(OpenFile& file, const DataFile& df, size_t row_group,
                                  FileCheck check, uint64_t streamed, uint64_t want) {
  if (streamed != want) {
    if (row_group != kWholeFile) {
      return Status::Corruption(
          fmt::format("data file {}: row group {} gave {} rows but its footer says {}", df.key,
                      row_group, streamed, want));
    }
    return Status::Corruption(
        fmt::format("data file {}: read {} rows but its footer and _table.json say {}", df.key,
                    streamed, df.rows));
  }
  if (row_group == kWholeFile) {  // ParseTableManifest requires every xxh64
    Status xxh64 = file.hashing->Verify(df.xxh64, df.key);
    if (signed_dump()) {
      LD_RETURN_IF_ERROR(CheckFileSha256(df.key, df.sha256, file.hashing->sha256_hex()));
    }
    LD_RETURN_IF_ERROR(xxh64);
  } else if (check == FileCheck::kSections) {
    const ByteRangeChecksum& range = df.row_groups[row_group];
    LD_RETURN_IF_ERROR(file.hashing->Verify(
        range.xxh64, fmt::format("{} (row group {}, {} bytes at offset {})", df.key,
                                 row_group, range.bytes, range.offset)));
  }
  return Status::OK();
}

Status LoadService::CheckSha256(const std::vector<DataFile>& files, std::stop_token stop) {
  for (const DataFile& f : files) {
    if (stop.stop_requested()) return Status::Cancelled(f.key);
    auto object = store_->NewReader(f.key);
    if (!object.ok()) continue;  // the original error says it
    auto digests = HashObjectDigests(**object, (*object)->size(), /*sha256=*/true);
    if (!digests.ok()) continue;
    LD_RETURN_IF_ERROR(CheckFileSha256(f.key, f.sha256, digests->sha256));
  }
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
    // A signed dump's SHA-256 is of the whole file: only a file read whole computes it here
    // (UseSections is false for signed dumps, so ranges never mix with it).
    hashing = std::make_unique<HashingReader>(
        reader, signed_dump() && check == FileCheck::kWholeFile);
    reader = hashing.get();
  }
  if (reader->size() != file.bytes) {  // bytes > 0 is required by ParseTableManifest
    return Status::Corruption(fmt::format("data file {} has {} bytes but _table.json says {}",
                                          file.key, reader->size(), file.bytes));
  }
  if (check == FileCheck::kSections) hashing->StartSection(file.footer->offset, file.footer->bytes);
  ParquetReaderOptions ro;
  ro.name = file.key;
  ro.budget = &decompression_;
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
