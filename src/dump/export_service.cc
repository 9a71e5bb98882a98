#include "dump/export_service.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <regex>
#include <set>

#include "base/thread_pool.h"
#include "dump/batch_pump.h"
#include "dump/iceberg_commit.h"
#include "dump/object_keys.h"
#include "dump/table_writer.h"

namespace lakedump {

using Clock = std::chrono::system_clock;

namespace {
// Units estimated at fewer batches than this are read and encoded in turn.
constexpr uint64_t kMinBatchesToReadAhead = 4;
}  // namespace

struct ExportService::TableState {
  const PlannedTable* plan = nullptr;
  std::mutex mu;
  int units_left = 0;                // GUARDED_BY(mu)
  std::vector<DataFile> files;       // GUARDED_BY(mu)
  Schema schema;                     // GUARDED_BY(mu): from the first unit opened
  bool have_schema = false;          // GUARDED_BY(mu)
  Clock::time_point started;         // GUARDED_BY(mu)
  bool started_set = false;          // GUARDED_BY(mu)
  std::optional<TableManifest> manifest;  // set once committed or reused
};

nlohmann::json RedactCredentials(const nlohmann::json& value) {
  static const std::regex kUserInfo(R"(([A-Za-z][A-Za-z0-9+.-]*://[^/:@\s]*):[^@/\s]*@)");
  static const std::regex kKeyword(R"((password|secret|sslpassword)\s*=\s*('[^']*'|\S+))",
                                   std::regex::icase);
  if (value.is_string()) {
    std::string s = std::regex_replace(value.get<std::string>(), kUserInfo, "$1@");
    s = std::regex_replace(s, kKeyword, "$1=***");
    return s;
  }
  if (value.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = value.begin(); it != value.end(); ++it) {
      std::string k = it.key();
      std::transform(k.begin(), k.end(), k.begin(), ::tolower);
      if (k.find("password") != std::string::npos || k.find("secret") != std::string::npos ||
          k == "token" || k == "session_token") {
        continue;
      }
      out[it.key()] = RedactCredentials(it.value());
    }
    return out;
  }
  if (value.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : value) out.push_back(RedactCredentials(v));
    return out;
  }
  return value;
}

ExportService::ExportService(Database* db, ObjectStore* store, DumpOptions options)
    : db_(db), store_(store), options_(std::move(options)), run_id_(NewRunId()) {
  encoder_ = ParquetEncoderFactory(options_.parquet);
}

ExportService::~ExportService() = default;

Status ExportService::PrepareDestination(std::vector<std::string>* stale_table_keys) {
  LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> objects, store_->List(""));
  const bool has_manifest = std::any_of(objects.begin(), objects.end(), [](const ObjectInfo& o) {
    return o.key == kManifestKey;
  });
  const std::string dest = store_->Describe();
  switch (options_.if_exists) {
    case IfExists::kFail:
      if (has_manifest) {
        return Status::AlreadyExists(fmt::format(
            "{} already holds a dump (use --if-exists overwrite or resume)", dest));
      }
      if (!objects.empty()) {
        return Status::AlreadyExists(fmt::format(
            "{} is not empty ({} objects, e.g. {}): it holds another or an interrupted dump "
            "(use --if-exists overwrite or resume)",
            dest, objects.size(), objects.front().key));
      }
      return Status::OK();
    case IfExists::kOverwrite:
    case IfExists::kResume: {
      // Nothing is deleted when the destination holds someone else's Iceberg table.
      LD_RETURN_IF_ERROR(CheckNoForeignIcebergTables(*store_, objects));
      // The old dump stops being committed before anything of it is touched.
      if (has_manifest) {
        const std::string key(kManifestKey);
        LD_RETURN_IF_ERROR(store_->Delete(std::span<const std::string>(&key, 1)));
      }
      if (options_.if_exists == IfExists::kOverwrite) {
        // No table of the old dump may be re-used by a later resume of this one.
        for (const ObjectInfo& o : objects) {
          const std::string suffix = "/" + std::string(kTableFileName);
          if (o.key.size() > suffix.size() &&
              o.key.compare(o.key.size() - suffix.size(), suffix.size(), suffix) == 0) {
            stale_table_keys->push_back(o.key);
          }
        }
        LD_RETURN_IF_ERROR(store_->Delete(*stale_table_keys));
      }
      return Status::OK();
    }
  }
  return Status::OK();
}

Result<std::optional<TableManifest>> ExportService::TryReuse(const PlannedTable& table) {
  const std::string key = TableManifestKey(table.info.ref);
  auto parsed = ReadTableManifest(*store_, key);
  if (!parsed.ok()) {
    if (parsed.status().code() == Code::kNotFound || parsed.status().code() == Code::kCorruption) {
      return std::optional<TableManifest>();
    }
    return parsed.status();
  }
  TableManifest& m = *parsed;
  if (m.table != table.info.ref || m.query != table.info.query ||
      m.codec != CodecName(options_.parquet.codec) || m.partition_by != options_.partition_by) {
    return std::optional<TableManifest>();
  }
  for (const DataFile& f : m.files) {
    auto reader = store_->NewReader(f.key);
    if (!reader.ok()) {
      if (reader.status().code() == Code::kNotFound) return std::optional<TableManifest>();
      return reader.status();
    }
    if ((*reader)->size() != f.bytes) return std::optional<TableManifest>();
    LD_ASSIGN_OR_RETURN(std::string digest, HashObject(**reader, f.bytes));
    if (digest != f.xxh64) return std::optional<TableManifest>();
  }
  if (options_.table_format == TableFormat::kIceberg) {
    LD_ASSIGN_OR_RETURN(bool present, IcebergMetadataPresent(*store_, m));
    if (!present) return std::optional<TableManifest>();  // dumped again, with its metadata
  }
  return std::optional<TableManifest>(std::move(m));
}

Status ExportService::ExportUnit(TableState* state, const WorkUnit& unit, std::stop_token stop) {
  const TableRef& ref = state->plan->info.ref;
  TraceSpan span(trace_, ref.QualifiedName(), "table");
  if (unit.count > 1) span.args()["unit"] = unit.index;
  {
    std::lock_guard<std::mutex> lock(state->mu);
    if (!state->started_set) {
      state->started = Clock::now();
      state->started_set = true;
    }
  }
  LD_ASSIGN_OR_RETURN(std::unique_ptr<TableSource> source, db_->Open(unit));
  const Schema& schema = source->schema();
  if (!options_.partition_by.empty() && !schema.FindColumn(options_.partition_by)) {
    return Status::InvalidArgument(fmt::format(
        "--partition-by {}: table {} has no column {} (choose its tables with --tables)",
        options_.partition_by, ref.QualifiedName(), options_.partition_by));
  }
  {
    std::lock_guard<std::mutex> lock(state->mu);
    if (!state->have_schema) {
      state->schema = schema;
      state->have_schema = true;
    }
  }
  TableFileWriterContext ctx{store_, &encoder_, &options_, run_id_, &progress_, trace_};
  TableFileWriter writer(ctx, ref, schema, unit.index);
  uint64_t rows = 0;
  // A unit of many batches reads on a second thread while this one encodes
  // (the two overlap on two cores); a small one is not worth a thread.
  const uint64_t unit_rows =
      unit.table.estimated_rows / static_cast<uint64_t>(std::max(1, unit.count));
  if (options_.read_ahead_batches >= 2 && unit_rows >= kMinBatchesToReadAhead * options_.batch_rows) {
    LD_RETURN_IF_ERROR(PumpBatches(*source, options_.batch_rows, options_.read_ahead_batches, stop,
                                   [&](const RowBatch& batch) {
                                     rows += batch.num_rows();
                                     return writer.Write(batch);
                                   }));
  } else {
    RowBatch batch;
    for (;;) {
      if (stop.stop_requested()) return Status::Cancelled("cancelled");
      LD_RETURN_IF_ERROR(source->Next(options_.batch_rows, &batch));
      if (batch.empty()) break;
      rows += batch.num_rows();
      LD_RETURN_IF_ERROR(writer.Write(batch));
    }
  }
  if (stop.stop_requested()) return Status::Cancelled("cancelled");
  LD_ASSIGN_OR_RETURN(std::vector<DataFile> files, writer.Finish(unit.index == 0));
  span.args()["rows"] = rows;
  bool last = false;
  {
    std::lock_guard<std::mutex> lock(state->mu);
    for (DataFile& f : files) state->files.push_back(std::move(f));
    last = --state->units_left == 0;
  }
  return last ? CommitTable(state) : Status::OK();
}

Status ExportService::CommitTable(TableState* state) {
  const TableInfo& info = state->plan->info;
  LD_ASSIGN_OR_RETURN(TableDefinition def, db_->DescribeTable(info));
  TableManifest m;
  {
    std::lock_guard<std::mutex> lock(state->mu);
    m.schema = state->schema;
    m.files = std::move(state->files);
    m.started_at = FormatUtc(state->started);
    m.seconds = std::chrono::duration<double>(Clock::now() - state->started).count();
  }
  // Keep the source's declared types where the stream's schema lacks them.
  if (def.schema.num_columns() == m.schema.num_columns()) {
    std::vector<Column> cols = m.schema.columns();
    for (size_t i = 0; i < cols.size(); ++i) {
      if (cols[i].source_type.empty()) cols[i].source_type = def.schema.column(i).source_type;
    }
    m.schema = Schema(std::move(cols));
  }
  m.table = info.ref;
  m.query = info.query;
  m.ddl = def.ddl;
  m.primary_key = def.primary_key;
  m.codec = std::string(CodecName(options_.parquet.codec));
  m.partition_by = options_.partition_by;
  m.run_id = run_id_;
  std::sort(m.files.begin(), m.files.end(),
            [](const DataFile& a, const DataFile& b) { return a.key < b.key; });
  for (const DataFile& f : m.files) {
    m.rows += f.rows;
    m.bytes += f.bytes;
  }
  m.finished_at = FormatUtc(Clock::now());
  if (options_.table_format == TableFormat::kIceberg) {
    // The table's Iceberg metadata, version-hint.text last, before the table commit.
    LD_RETURN_IF_ERROR(WriteIcebergTable(*store_, m).WithContext("Iceberg metadata"));
  }
  LD_RETURN_IF_ERROR(
      store_->PutObject(TableManifestKey(info.ref), ToJson(m).dump(2) + "\n")
          .WithContext(TableManifestKey(info.ref)));
  state->manifest = std::move(m);
  progress_.tables_done += 1;
  return Status::OK();
}

Status ExportService::SweepStrays(const std::vector<TableManifest>& tables, uint64_t* deleted) {
  std::set<std::string> keep;
  for (const TableManifest& t : tables) {
    keep.insert(TableManifestKey(t.table));
    for (const DataFile& f : t.files) keep.insert(f.key);
    if (options_.table_format == TableFormat::kIceberg) {
      for (const std::string& k : IcebergMetadataKeys(t)) keep.insert(k);
    }
  }
  LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> objects, store_->List(""));
  std::vector<std::string> stray;
  for (const ObjectInfo& o : objects) {
    if (!keep.count(o.key)) stray.push_back(o.key);
  }
  *deleted = stray.size();
  if (stray.empty()) return Status::OK();
  return store_->Delete(stray).WithContext("deleting objects of the earlier dump");
}

Result<DumpResult> ExportService::Run(std::stop_token stop) {
  const auto started = Clock::now();
  TraceSpan dump_span(trace_, "dump", "dump");
  if (options_.table_parallelism < 1) {
    return Status::InvalidArgument("--table-parallelism must be at least 1");
  }
  LD_RETURN_IF_ERROR(db_->BeginSnapshot());
  LD_ASSIGN_OR_RETURN(DumpPlan plan, PlanDump(*db_, options_));
  std::vector<std::string> stale;
  LD_RETURN_IF_ERROR(PrepareDestination(&stale));
  started_writing_ = true;

  std::vector<std::unique_ptr<TableState>> states;
  for (const PlannedTable& t : plan.tables) {
    auto s = std::make_unique<TableState>();
    s->plan = &t;
    s->units_left = static_cast<int>(t.units.size());
    progress_.estimated_rows += t.info.estimated_rows;
    states.push_back(std::move(s));
  }
  progress_.tables_total = states.size();

  ThreadPool pool(static_cast<size_t>(options_.table_parallelism));
  DumpResult result;
  if (options_.if_exists == IfExists::kResume) {
    TaskGroup checks(&pool, static_cast<size_t>(options_.table_parallelism), stop);
    for (auto& s : states) {
      TableState* state = s.get();
      checks.Spawn([this, state](std::stop_token) -> Status {
        LD_ASSIGN_OR_RETURN(state->manifest, TryReuse(*state->plan));
        if (state->manifest) {
          progress_.tables_done += 1;
          progress_.tables_reused += 1;
          progress_.rows += state->manifest->rows;
        }
        return Status::OK();
      });
    }
    LD_RETURN_IF_ERROR(checks.Wait());
  }

  {
    // The pool's table_parallelism threads bound the work; every unit is
    // queued at once so a finishing task picks up the next one by itself,
    // without a round trip through this thread (a wakeup per table).
    size_t units = 0;
    for (const auto& s : states) units += s->plan->units.size();
    TaskGroup tasks(&pool, std::max<size_t>(units, 1), stop);
    for (auto& s : states) {
      if (s->manifest) {
        ++result.reused_tables;
        continue;
      }
      TableState* state = s.get();
      for (const WorkUnit& unit : state->plan->units) {
        const bool spawned = tasks.Spawn([this, state, &unit](std::stop_token task_stop) {
          return ExportUnit(state, unit, task_stop)
              .WithContext(fmt::format("table {}", state->plan->info.ref.QualifiedName()));
        });
        if (!spawned) break;
      }
    }
    Status s = tasks.Wait();
    if (!s.ok()) return s;
  }
  if (stop.stop_requested()) return Status::Cancelled("interrupted");

  std::vector<TableManifest> tables;
  for (auto& s : states) tables.push_back(*s->manifest);
  if (options_.if_exists != IfExists::kFail) {
    LD_RETURN_IF_ERROR(SweepStrays(tables, &result.deleted_objects));
  }

  DumpManifest& d = result.manifest;
  d.dump_id = run_id_;
  d.created_by = CreatedBy();
  d.source = RedactCredentials(db_->Describe());
  d.options = DumpOptionsToJson(options_);
  d.started_at = FormatUtc(started);
  std::sort(tables.begin(), tables.end(), [](const TableManifest& a, const TableManifest& b) {
    return a.table.QualifiedName() < b.table.QualifiedName();
  });
  for (const TableManifest& t : tables) {
    d.tables.push_back(TableSummary{t.table, TableManifestKey(t.table), t.rows, t.files.size(),
                                    t.bytes, t.codec, t.seconds});
    d.total_rows += t.rows;
    d.total_files += t.files.size();
    d.total_bytes += t.bytes;
  }
  const auto finished = Clock::now();
  d.finished_at = FormatUtc(finished);
  d.seconds = std::chrono::duration<double>(finished - started).count();
  // Every data file and _table.json durable before the commit point, and the
  // commit point itself before we report success.
  LD_RETURN_IF_ERROR(store_->SyncWritten().WithContext("making the dump's files durable"));
  LD_RETURN_IF_ERROR(store_->PutObject(kManifestKey, ToJson(d).dump(2) + "\n")
                         .WithContext(std::string(kManifestKey)));
  LD_RETURN_IF_ERROR(store_->SyncWritten().WithContext(std::string(kManifestKey)));
  return result;
}

}  // namespace lakedump
