#include "dump/export_service.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <thread>

#include "base/checksum.h"
#include "base/thread_pool.h"
#include "base/sha256.h"
#include "dump/batch_pump.h"
#include "dump/iceberg/iceberg_commit.h"
#include "lake/metadata_io.h"
#include "lake/object_keys.h"
#include "base/redact_credentials.h"
#include "dump/remote_units.h"
#include "lake/signature.h"
#include "dump/table_reuse.h"
#include "dump/table_writer.h"
#include "dump/worker_unit_queue.h"

namespace lakedump {

using WallClock = std::chrono::system_clock;  // not lakedump::Clock (base/clock.h)

namespace {
// Units estimated at fewer batches than this are read and encoded in turn.
constexpr uint64_t kMinBatchesToReadAhead = 4;

// A std::promise<bool> set at most once; its destructor sets false if nothing was set, so a
// thread waiting on its future is never left waiting.
class OneShotPromise {
 public:
  OneShotPromise() = default;
  OneShotPromise(const OneShotPromise&) = delete;
  OneShotPromise& operator=(const OneShotPromise&) = delete;
  ~OneShotPromise() { Set(false); }
  std::future<bool> future() { return promise_.get_future(); }
  void Set(bool value) {
    if (set_) return;
    set_ = true;
    promise_.set_value(value);
  }

 private:
  std::promise<bool> promise_;
  bool set_ = false;
};

// A sharded dump's coordinator does nothing but metadata I/O (its -j runs no table task): its
// table commits (and any read-back before the manifest, see CheckBeforeCommit) go as wide as
// metadata I/O goes. Measured (bench/scaleout.sh, 4 workers, 1001 tables, loaded machine): at 8
// in flight the commits took 2.4 s.
size_t CommitIoWidth(bool coordinator, int table_parallelism) {
  return coordinator ? kMaxMetadataIoWidth : MetadataIoWidth(table_parallelism);
}

bool IsDefiniteRefusal(const Status& write) {
  // kUnavailable: no answer, or one cut short (retried, then checked with a HEAD on S3):
  // the write may have reached the store and land after this run looked. kCancelled: an
  // interrupted request, the same. Every other error is the store's own refusal (local:
  // the write failed before its rename; S3: an error reply).
  return !write.ok() && !write.retryable() && write.code() != Code::kCancelled;
}
}  // namespace

struct ExportService::TableState {
  const PlannedTable* plan = nullptr;
  std::mutex mu;
  int units_left = 0;                // GUARDED_BY(mu)
  std::vector<DataFile> files;       // GUARDED_BY(mu)
  Schema schema;                     // GUARDED_BY(mu): from the first unit opened
  bool have_schema = false;          // GUARDED_BY(mu)
  WallClock::time_point started;         // GUARDED_BY(mu)
  bool started_set = false;          // GUARDED_BY(mu)
  std::optional<TableManifest> manifest;  // set once committed or reused
  std::string manifest_key;               // where: its _table.json or _table-<run>.json
  // Committed by this run (not reused): what it wrote there, for CheckBeforeCommit.
  uint64_t written_bytes = 0;
  std::string written_etag;  // Md5Etag of the bytes
  // --table-format iceberg, once committed or reused: what the sweep keeps of the
  // table's Iceberg history, and its metadata objects already written.
  IcebergTableSlot iceberg;
};

ExportService::ExportService(Database* db, ObjectStore* store, DumpOptions options)
    : db_(db), store_(store), options_(std::move(options)), run_id_(NewRunId()) {
  encoder_ = ParquetEncoderFactory(options_.parquet);
}

ExportService::~ExportService() = default;

Status ExportService::PrepareDestination() {
  LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> objects, store_->List(""));
  std::erase_if(objects, [](const ObjectInfo& o) { return o.key == kLeaseKey; });
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
      break;
    case IfExists::kOverwrite:
    case IfExists::kResume:
      // Nothing is deleted when the destination holds someone else's Iceberg table.
      LD_RETURN_IF_ERROR(CheckNoForeignIcebergTables(*store_, objects));
      // A committed dump stays committed (and whole) until the new manifest
      // replaces it: its _manifest.json and _table.json files are not touched.
      old_dump_committed_ = has_manifest;
      if (options_.if_exists == IfExists::kOverwrite && !has_manifest) {
        // Nothing committed to keep: no table of an interrupted dump may be
        // re-used by a later resume of this one.
        std::vector<std::string> stale;
        for (const ObjectInfo& o : objects) {
          const size_t slash = o.key.rfind('/');
          const std::string_view name =
              std::string_view(o.key).substr(slash == std::string::npos ? 0 : slash + 1);
          if (name == kTableFileName || (name.starts_with("_table-") && name.ends_with(".json"))) {
            stale.push_back(o.key);
          }
          // Nor any Iceberg metadata of it: the tables start new histories at v1, and a
          // reader must not find an older v2 past a new version-hint.text.
          if (IsIcebergVersionHint(o.key) ||
              (name.ends_with(".metadata.json") && o.key.find("/metadata/") != std::string::npos)) {
            stale.push_back(o.key);
          }
        }
        LD_RETURN_IF_ERROR(store_->Delete(stale));
        std::erase_if(objects, [&](const ObjectInfo& o) {
          return std::find(stale.begin(), stale.end(), o.key) != stale.end();
        });
      }
      break;
  }
  listing_ = std::move(objects);
  return Status::OK();
}

std::string ExportService::CommitKey(const TableRef& table) const {
  return old_dump_committed_ ? RunTableManifestKey(table, run_id_) : TableManifestKey(table);
}

Status ExportService::TryReuse(TableState* state) {
  const TableInfo& info = state->plan->info;
  const std::vector<std::string> keys = TableManifestCandidates(listing_, info.ref);
  if (keys.empty()) return Status::OK();
  // What the source gives now; a table is reused only when it was read from
  // the same source (database, relation, type options) with the same columns.
  LD_ASSIGN_OR_RETURN(TableDefinition def, db_->DescribeTable(info));
  LD_ASSIGN_OR_RETURN(nlohmann::json fingerprint, TableFingerprint(*db_, info, def));
  const bool signing = !options_.sign_key.empty();
  for (const std::string& key : keys) {
    auto text = store_->GetObject(key, kMaxMetadataBytes);
    if (!text.ok()) {
      if (text.status().code() == Code::kNotFound) continue;
      return text.status();
    }
    auto parsed = ParseTableManifest(*text, key);
    if (!parsed.ok()) {
      if (parsed.status().code() == Code::kNotFound || parsed.status().code() == Code::kCorruption) {
        continue;
      }
      return parsed.status();
    }
    TableManifest& m = *parsed;
    if (signing) m.json_sha256 = Sha256Hex(*text);
    if (m.table != info.ref || m.query != info.query ||
        m.codec != CodecName(options_.parquet.codec) || m.partition_by != options_.partition_by ||
        m.source_fingerprint != fingerprint || m.run_id.empty()) {
      continue;
    }
    // The recorded columns themselves (the fingerprint only hashes them).
    bool same_columns = m.schema.num_columns() == def.schema.num_columns();
    for (size_t i = 0; same_columns && i < def.schema.num_columns(); ++i) {
      same_columns = m.schema.column(i).name == def.schema.column(i).name &&
                     m.schema.column(i).type == def.schema.column(i).type;
    }
    if (!same_columns) continue;
    bool files_ok = true;
    for (const DataFile& f : m.files) {
      if (!f.key.starts_with(TablePrefix(info.ref)) || f.key.find(m.run_id) == std::string::npos) {
        files_ok = false;
        break;
      }
      auto reader = store_->NewReader(f.key);
      if (!reader.ok()) {
        if (reader.status().code() == Code::kNotFound) {
          files_ok = false;
          break;
        }
        return reader.status();
      }
      if ((*reader)->size() != f.bytes) {
        files_ok = false;
        break;
      }
      // A signed dump vouches for what it reuses: only files with a SHA-256 that still
      // matches (XXH64 alone is no defence against a planted file).
      if (signing && f.sha256.empty()) {
        files_ok = false;
        break;
      }
      LD_ASSIGN_OR_RETURN(ObjectDigests digest, HashObjectDigests(**reader, f.bytes, signing));
      if (digest.xxh64 != f.xxh64 || (signing && digest.sha256 != f.sha256)) {
        files_ok = false;
        break;
      }
    }
    if (!files_ok) continue;
    if (options_.table_format == TableFormat::kIceberg) {
      LD_ASSIGN_OR_RETURN(bool reused, ReuseIcebergTable(*store_, m, &state->iceberg));
      if (!reused) continue;  // dumped again, with its metadata
    }
    state->manifest_key = key;
    state->manifest = std::move(m);
    return Status::OK();
  }
  return Status::OK();
}

Status ExportService::ExportUnit(TableState* state, const WorkUnit& unit, std::stop_token stop) {
  const TableRef& ref = state->plan->info.ref;
  TraceSpan span(trace_, ref.QualifiedName(), "table");
  if (unit.count > 1) span.args()["unit"] = unit.index;
  {
    std::lock_guard<std::mutex> lock(state->mu);
    if (!state->started_set) {
      state->started = WallClock::now();
      state->started_set = true;
    }
  }
  LD_ASSIGN_OR_RETURN(std::unique_ptr<TableSource> source, db_->Open(unit));
  Schema schema = source->schema();
  if (!options_.partition_by.empty() && !schema.FindColumn(options_.partition_by)) {
    return Status::InvalidArgument(fmt::format(
        "--partition-by {}: table {} has no column {} (choose its tables with --tables)",
        options_.partition_by, ref.QualifiedName(), options_.partition_by));
  }
  if (!options_.partition_by.empty() &&
      schema.column(*schema.FindColumn(options_.partition_by)).type.is_list()) {
    return Status::InvalidArgument(fmt::format(
        "--partition-by {}: column {} of table {} is a list (an array), which cannot name a "
        "partition", options_.partition_by, options_.partition_by, ref.QualifiedName()));
  }
  if (iceberg_ != nullptr) {
    // The Iceberg field ids the data files carry (over a committed dump, the table's
    // history's: a changed table keeps the ids of its unchanged columns).
    LD_ASSIGN_OR_RETURN(schema, iceberg_->PrepareSchema(&state->iceberg, ref, schema));
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
  if (schema.num_columns() == 0 && rows > 0) {
    // Parquet keeps rows only in column data: such a file would claim rows that no
    // reader (ours included, see verify) can check, so the dump would not restore.
    return Status::InvalidArgument(fmt::format(
        "table {} has no columns but {} rows: Parquet cannot hold rows without columns (leave it "
        "out with --exclude {})",
        ref.QualifiedName(), rows, ref.QualifiedName()));
  }
  LD_ASSIGN_OR_RETURN(std::vector<DataFile> files, writer.Finish(unit.index == 0));
  span.args()["rows"] = rows;
  if (!commit_tables_) {
    UnitOutput output{ref, unit.index, schema, std::move(files)};
    if (unit_done_) unit_done_(output);
    std::lock_guard<std::mutex> lock(outputs_mu_);
    outputs_.push_back(std::move(output));
    return Status::OK();
  }
  bool last = false;
  {
    std::lock_guard<std::mutex> lock(state->mu);
    for (DataFile& f : files) state->files.push_back(std::move(f));
    last = --state->units_left == 0;
  }
  if (!last) return Status::OK();
  // Rows read while the snapshot's locks had lapsed may be wrong (TRUNCATE is
  // not MVCC-safe): such a table must not be committed. Checked after the
  // table's last read, while the other tables may still be reading.
  LD_RETURN_IF_ERROR(db_->CheckSnapshotHeld());
  return CommitTable(state);
}

Status ExportService::CommitTable(TableState* state) {
  const TableInfo& info = state->plan->info;
  LD_ASSIGN_OR_RETURN(TableDefinition def, db_->DescribeTable(info));
  LD_ASSIGN_OR_RETURN(nlohmann::json fingerprint, TableFingerprint(*db_, info, def));
  TableManifest m;
  {
    std::lock_guard<std::mutex> lock(state->mu);
    m.schema = state->schema;
    m.files = std::move(state->files);
    m.started_at = FormatUtc(state->started);
    m.seconds = std::chrono::duration<double>(WallClock::now() - state->started).count();
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
  m.unique_keys = def.unique_keys;
  m.has_unique_keys = true;
  m.codec = std::string(CodecName(options_.parquet.codec));
  m.partition_by = options_.partition_by;
  m.run_id = run_id_;
  m.source_fingerprint = std::move(fingerprint);
  m.source_snapshot = snapshot_;
  std::sort(m.files.begin(), m.files.end(),
            [](const DataFile& a, const DataFile& b) { return a.key < b.key; });
  for (const DataFile& f : m.files) {
    m.rows += f.rows;
    m.bytes += f.bytes;
  }
  m.finished_at = FormatUtc(WallClock::now());
  if (iceberg_ != nullptr) {
    // The table's Iceberg metadata, beside its _table.json and the next tables. Over a
    // committed dump its fixed-name objects wait for the new manifest (RunLeased).
    LD_RETURN_IF_ERROR(iceberg_->Schedule(&state->iceberg, m));
  }
  const std::string key = CommitKey(info.ref);
  LD_ASSIGN_OR_RETURN(std::string text, SerializeMetadata(ToJson(m), key));
  if (!options_.sign_key.empty()) m.json_sha256 = Sha256Hex(text);
  LD_RETURN_IF_ERROR(store_->PutObject(key, text).WithContext(key));
  state->manifest_key = key;
  state->written_bytes = text.size();
  state->written_etag = Md5Etag(text);
  state->manifest = std::move(m);
  progress_.tables_done += 1;
  return Status::OK();
}

std::vector<std::unique_ptr<ExportService::TableState>> ExportService::MakeStates(
    const std::vector<PlannedTable>& tables) {
  std::vector<std::unique_ptr<TableState>> states;
  for (const PlannedTable& t : tables) {
    auto s = std::make_unique<TableState>();
    s->plan = &t;
    s->units_left = static_cast<int>(t.units.size());
    progress_.estimated_rows += t.info.estimated_rows;
    states.push_back(std::move(s));
  }
  progress_.tables_total = states.size();
  return states;
}

Status ExportService::RunUnitTasks(const std::vector<std::unique_ptr<TableState>>& states,
                                   ThreadPool* pool, std::stop_token stop) {
  if (!commit_tables_) return RunWorkerUnitTasks(states, pool, stop);
  // The pool's table_parallelism threads bound the work; every unit is queued at once so
  // a finishing task picks up the next one by itself, without a round trip through this
  // thread (a wakeup per table).
  size_t units = 0;
  for (const auto& s : states) units += s->plan->units.size();
  TaskGroup tasks(pool, std::max<size_t>(units, 1), stop);
  for (const auto& s : states) {
    if (s->manifest) continue;  // reused (--if-exists resume)
    TableState* state = s.get();
    for (const WorkUnit& unit : state->plan->units) {
      const bool spawned = tasks.Spawn([this, state, &unit](std::stop_token task_stop) {
        return ExportUnit(state, unit, task_stop)
            .WithContext(fmt::format("table {}", state->plan->info.ref.QualifiedName()));
      });
      if (!spawned) return tasks.Wait();
    }
  }
  return tasks.Wait();
}

Status ExportService::RunWorkerUnitTasks(const std::vector<std::unique_ptr<TableState>>& states,
                                         ThreadPool* pool, std::stop_token stop) {
  // One task per pool thread, each taking units from the queue until it is empty.
  WorkerUnitQueue<TableState> queue;
  for (const auto& s : states) {
    if (s->manifest) continue;  // reused
    for (const WorkUnit& unit : s->plan->units) queue.Add(s.get(), unit);
  }
  const size_t runners = std::max<size_t>(1, std::min(pool->size(), queue.size()));
  TaskGroup tasks(pool, runners, stop);
  for (size_t r = 0; r < runners; ++r) {
    const bool spawned = tasks.Spawn([this, &queue](std::stop_token task_stop) -> Status {
      while (!task_stop.stop_requested()) {
        std::optional<WorkerUnitQueue<TableState>::Item> item = queue.Next();
        if (!item) return Status::OK();
        TableState* state = item->state;
        Status s = ExportUnit(state, *item->unit, task_stop)
                       .WithContext(fmt::format("table {}", state->plan->info.ref.QualifiedName()));
        queue.Done(*item);
        LD_RETURN_IF_ERROR(s);
      }
      return Status::Cancelled("interrupted");
    });
    if (!spawned) return tasks.Wait();
  }
  return tasks.Wait();
}

Status ExportService::CommitRemoteUnits(const std::vector<std::unique_ptr<TableState>>& states,
                                        UnitOutputGatherer* gatherer,
                                        std::vector<UnitOutput> outputs, std::stop_token stop) {
  LD_ASSIGN_OR_RETURN(std::vector<size_t> complete, gatherer->Add(std::move(outputs)));
  if (complete.empty()) return Status::OK();
  TraceSpan span(trace_, fmt::format("commit {} tables", complete.size()), "shard");
  for (size_t i : complete) {
    GatheredTable gathered = gatherer->Take(i);
    TableState& state = *states[i];
    std::lock_guard<std::mutex> lock(state.mu);
    state.schema = std::move(gathered.schema);
    state.have_schema = true;
    state.files = std::move(gathered.files);
    state.units_left = 0;
  }
  // Every read of these tables is finished (each worker checked its own session after its
  // reads, before its report): one check of the snapshot's holder now covers them all, where
  // a check per table would be as many round trips in a row on this one session.
  LD_RETURN_IF_ERROR(db_->CheckSnapshotHeld());
  // Committing is small writes (a _table.json each): latency-bound.
  return ForEachMetadataIo(
      complete.size(), CommitIoWidth(/*coordinator=*/true, options_.table_parallelism),
      [&](size_t k) {
        TableState* state = states[complete[k]].get();
        return CommitTable(state).WithContext(
            fmt::format("table {}", state->plan->info.ref.QualifiedName()));
      },
      stop);
}

Result<std::vector<UnitOutput>> ExportService::ExportUnits(const std::vector<WorkUnit>& units,
                                                           std::stop_token stop) {
  if (options_.table_parallelism < 1) {
    return Status::InvalidArgument("--table-parallelism must be at least 1");
  }
  commit_tables_ = false;
  // One state per table (ExportUnit records the table's schema there); std::deque-like
  // stability: the states are built before any task runs.
  std::vector<PlannedTable> tables;
  std::map<std::pair<std::string, std::string>, size_t> index;
  for (const WorkUnit& u : units) {
    auto [it, added] = index.try_emplace({u.table.ref.schema, u.table.ref.name}, tables.size());
    if (added) tables.push_back(PlannedTable{u.table, {}});
    tables[it->second].units.push_back(u);
  }
  std::vector<std::unique_ptr<TableState>> states = MakeStates(tables);
  started_writing_ = true;
  ThreadPool pool(static_cast<size_t>(options_.table_parallelism));
  LD_RETURN_IF_ERROR(RunUnitTasks(states, &pool, stop));
  if (stop.stop_requested()) return Status::Cancelled("interrupted");
  std::lock_guard<std::mutex> lock(outputs_mu_);
  return std::move(outputs_);
}

Status ExportService::SweepStrays(const std::vector<CommittedTable>& tables,
                                  const nlohmann::json& schema,
                                  const std::vector<IcebergTableKeep>& iceberg, uint64_t* deleted) {
  std::set<std::string> keep = {std::string(kManifestKey), std::string(kLeaseKey)};
  if (schema.contains("archive")) keep.insert(schema["archive"].value("key", ""));
  // An unsigned dump over a signed one: the old signature goes with the old dump.
  if (!options_.sign_key.empty()) keep.insert(std::string(kSignatureKey));
  for (const CommittedTable& t : tables) {
    keep.insert(t.key);
    for (const DataFile& f : t.manifest->files) keep.insert(f.key);
  }
  LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> objects, store_->List(""));
  std::vector<std::string> stray;
  for (const ObjectInfo& o : objects) {
    if (keep.count(o.key)) continue;
    // The Iceberg tables' earlier snapshots stay until gc --expire-snapshots.
    if (std::any_of(iceberg.begin(), iceberg.end(),
                    [&o](const IcebergTableKeep& k) { return k.KeepsObject(o.key); })) {
      continue;
    }
    stray.push_back(o.key);
  }
  *deleted = stray.size();
  if (stray.empty()) return Status::OK();
  return store_->Delete(stray);
}

void ExportService::DeleteOwnObjects(ObjectStore& store) {
  auto listed = store.List("");
  if (!listed.ok()) return;
  std::vector<std::string> own;
  for (const ObjectInfo& o : *listed) {
    if (o.key.find(run_id_) != std::string::npos && o.key != kManifestKey) own.push_back(o.key);
  }
  store.Delete(own).IgnoreError();
}

Status ExportService::WriteManifest(const DumpManifest& d) {
  LD_ASSIGN_OR_RETURN(std::string body, SerializeMetadata(ToJson(d), kManifestKey));
  std::string previous_signature;
  if (d.sha256) {
    // The signature of these exact bytes goes first: _manifest.json stays the commit point.
    // It carries the committed manifest's signature too, so the old dump stays verifiable
    // until the new manifest lands.
    if (auto old = store_->GetObject(kSignatureKey, 64 * 1024); old.ok()) {
      previous_signature = std::move(*old);
    }
    LD_RETURN_IF_ERROR(
        store_->PutObject(kSignatureKey,
                          SignatureObject(options_.sign_key, body, previous_signature))
            .WithContext(std::string(kSignatureKey)));
  }
  // From here a failure may leave the manifest stored (now or, after a lost reply, later):
  // this run's objects are kept unless the store refused the write outright.
  manifest_may_be_stored_ = true;
  Status put = store_->PutObject(kManifestKey, body);
  if (!put.ok()) {
    // A write whose reply was lost may have landed: only a manifest that is
    // not this run's means "not committed".
    auto stored = store_->GetObject(kManifestKey);
    const bool not_ours =
        stored.ok() ? *stored != body : stored.status().code() == Code::kNotFound;
    if (not_ours && IsDefiniteRefusal(put)) {
      // Refused outright (not a lost reply that may still land): this run's
      // manifest is not stored and never will be, so what it wrote may go.
      manifest_may_be_stored_ = false;
    }
    if (!stored.ok() || *stored != body) return put.WithContext(std::string(kManifestKey));
  }
  if (d.sha256 && !previous_signature.empty()) {
    // Committed: the old manifest's entry is no longer needed. Should this fail, the
    // signature still checks (the new entry is the main one).
    store_->PutObject(kSignatureKey, SignatureObject(options_.sign_key, body)).IgnoreError();
  }
  Status sync = store_->SyncWritten();
  if (!sync.ok()) {
    return sync.WithContext(fmt::format(
        "{} of this run was written but could not be made durable (the dump is committed "
        "unless the machine loses power before the data reaches the disk; lakedump verify "
        "checks it)",
        kManifestKey));
  }
  return Status::OK();
}

Result<nlohmann::json> ExportService::CaptureSchema(const SchemaSelection& selected,
                                                    std::future<bool> destination_ready) {
  SchemaCaptureOptions options;
  options.use_source_tool = options_.schema_from_source_tool;
  options.tool_dir = options_.pg_bin_dir;
  Result<SchemaCapture> captured = [&] {
    // On the schema thread's own lane: where it ends against the tables shows whether the
    // commit waits for it.
    TraceSpan span(trace_, "schema capture", "schema");
    return db_->CaptureSchema(selected, options);
  }();
  // Nothing may be written before the destination was checked and cleaned up.
  if (!destination_ready.get()) return Status::Cancelled("the dump stopped before its commit");
  if (!captured.ok()) return captured.status();
  SchemaCapture& capture = *captured;
  nlohmann::json info = std::move(capture.info);
  if (!capture.archive.empty()) {
    // Over a committed dump the archive gets a name of this run's own: the old dump's stays
    // whole until the new manifest is written (then the sweep removes it).
    const std::string key = old_dump_committed_ ? fmt::format("_schema/postgres-{}.dump", run_id_)
                                                : std::string(kPgSchemaArchiveKey);
    LD_RETURN_IF_ERROR(store_->PutObject(key, capture.archive).WithContext(key));
    nlohmann::json& archive = info["archive"];
    archive["key"] = key;
    archive["bytes"] = capture.archive.size();
    archive["xxh64"] = Xxh64Hex(capture.archive);
    if (!options_.sign_key.empty()) archive["sha256"] = Sha256Hex(capture.archive);
  }
  return info;
}

Result<DumpResult> ExportService::Run(std::stop_token stop) {
  const auto started = WallClock::now();
  TraceSpan dump_span(trace_, "dump", "dump");
  if (options_.table_parallelism < 1) {
    return Status::InvalidArgument("--table-parallelism must be at least 1");
  }
  // One writer per destination, from before anything is read or written
  // until the end (success or failure): a waiting run holds no snapshot.
  LeaseOptions lease_options;
  lease_options.renew_interval = options_.lease_renew_interval;
  lease_options.wait = options_.wait_for_lock;
  lease_options.take_over_stale = options_.if_exists == IfExists::kResume;
  lease_options.clock = options_.clock;
  {
    TraceSpan lease_span(trace_, "lease", "phase");
    LD_ASSIGN_OR_RETURN(lease_, DumpLease::Acquire(lease_store_ ? lease_store_ : store_, run_id_,
                                                   lease_options, stop));
  }
  Result<DumpResult> result = RunLeased(stop, started);
  if (!result.ok() && old_dump_committed_ && !manifest_may_be_stored_) {
    // The committed dump stays exactly as it was: what this run wrote goes
    // (its keys carry the run id), which also gives back the space on a full disk.
    DeleteOwnObjects(lease_store_ ? *lease_store_ : *store_);
  }
  Status released = lease_->Release();
  lease_.reset();
  if (result.ok() && !released.ok()) {
    result->warnings.push_back(
        fmt::format("could not delete the lease {}: {} (the next run can take it over with "
                    "--if-exists resume once it is stale)",
                    kLeaseKey, released.message()));
  }
  return result;
}

Result<DumpResult> ExportService::RunLeased(std::stop_token stop, WallClock::time_point started) {
  // The run's phases, one after the other, as spans of the trace (category "phase").
  std::optional<TraceSpan> phase;
  const auto enter = [&](const char* name) {
    phase.reset();
    phase.emplace(trace_, name, "phase");
  };
  enter("snapshot");
  LD_RETURN_IF_ERROR(db_->BeginSnapshot());
  // The schema is captured beside planning and the data (pg_dump is another process on its
  // own connection to the same snapshot, the facts are read on another session), stored
  // once the destination is prepared, and joined only before the commit. With every table
  // selected it starts now; with --tables/--exclude once the plan names the tables.
  Result<nlohmann::json> schema = Status::Cancelled("not captured");
  std::jthread schema_thread;         // joined last (destroyed after the promise below)...
  OneShotPromise destination_ready;   // ...which says false first if nothing said true
  const auto start_schema = [&](SchemaSelection selected) {
    schema_thread = std::jthread([this, &schema, selected = std::move(selected),
                                  ready = destination_ready.future()]() mutable {
      schema = CaptureSchema(selected, std::move(ready));
    });
  };
  const bool every_table = options_.include.empty() && options_.exclude.empty();
  if (every_table) start_schema(SchemaSelection{true, {}});
  enter("plan");
  LD_ASSIGN_OR_RETURN(DumpPlan plan, PlanDump(*db_, options_));
  if (!every_table) {
    SchemaSelection selected;
    for (const PlannedTable& t : plan.tables) {
      if (t.info.query.empty()) selected.tables.push_back(t.info.ref);
    }
    start_schema(std::move(selected));
  }
  enter("prepare destination");
  LD_RETURN_IF_ERROR(PrepareDestination());
  started_writing_ = true;
  DumpResult result;
  if (cleaner_ && options_.if_exists != IfExists::kFail) {
    // Under the lease no other run writes here: every unfinished write is a dead run's.
    std::vector<std::string> removed;
    Status cleaned = cleaner_(&removed);
    result.removed_unfinished = removed.size();
    if (!cleaned.ok()) {
      result.warnings.push_back(fmt::format(
          "could not remove every unfinished write of earlier runs ({}): lakedump gc does",
          cleaned.message()));
    }
  }
  destination_ready.Set(true);
  {
    const nlohmann::json described = db_->Describe();
    snapshot_ = {{"run_id", run_id_}, {"started_at", FormatUtc(started)}};
    for (const char* k : {"snapshot_id", "snapshot_time", "wal_lsn", "snapshot"}) {
      if (described.contains(k)) snapshot_[k] = described[k];
    }
  }

  std::vector<std::unique_ptr<TableState>> states = MakeStates(plan.tables);

  ThreadPool pool(static_cast<size_t>(options_.table_parallelism));
  if (options_.if_exists == IfExists::kResume) {
    enter("reuse checks");
    TaskGroup checks(&pool, static_cast<size_t>(options_.table_parallelism), stop);
    for (auto& s : states) {
      TableState* state = s.get();
      checks.Spawn([this, state](std::stop_token) -> Status {
        LD_RETURN_IF_ERROR(TryReuse(state));
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

  // Iceberg metadata writers, beside the table tasks.
  std::optional<IcebergTableCommitter> iceberg;
  if (options_.table_format == TableFormat::kIceberg) {
    iceberg.emplace(store_, options_.table_parallelism, old_dump_committed_, stop);
    iceberg_ = &*iceberg;
  }
  struct Unset {
    IcebergTableCommitter** p;
    ~Unset() { *p = nullptr; }
  } unset{&iceberg_};
  Status ran;
  if (remote_) {
    // A sharded dump's coordinator: the workers ran the units.
    for (auto& s : states) {
      s->started = started;
      s->started_set = true;
    }
    // Each shard's tables are committed as its report comes in (the "workers" phase);
    // after the last, every planned unit must be in.
    enter("workers");
    std::vector<const PlannedTable*> planned;
    for (const auto& s : states) planned.push_back(s->plan);
    UnitOutputGatherer gatherer(std::move(planned));
    ran = remote_(
        plan,
        [&](std::vector<UnitOutput> outputs) {
          return CommitRemoteUnits(states, &gatherer, std::move(outputs), stop);
        },
        stop);
    if (ran.ok()) ran = gatherer.CheckAllReported();
  } else {
    enter("tables");
    for (auto& s : states) result.reused_tables += s->manifest ? 1 : 0;
    ran = RunUnitTasks(states, &pool, stop);
  }
  // Its error first: a table task refused by a failed writer group only says Cancelled.
  if (iceberg) LD_RETURN_IF_ERROR(iceberg->Wait());
  LD_RETURN_IF_ERROR(ran);
  if (stop.stop_requested()) return Status::Cancelled("interrupted");
  // The tables' files are made durable while the schema capture may still be running: this
  // wait is mostly I/O, which leaves the CPU to pg_dump. What is written after it (the
  // archive, a hook's objects) is synced by the second call, just before the manifest.
  enter("sync");
  LD_RETURN_IF_ERROR(store_->SyncWritten().WithContext("making the dump's files durable"));
  enter("schema");
  schema_thread.join();
  if (!schema.ok()) return schema.status().WithContext("schema");

  std::vector<CommittedTable> tables;
  std::vector<IcebergTableKeep> iceberg_keeps;
  for (auto& s : states) {
    // Its Iceberg metadata written so far too (not what is only written after the manifest).
    CommittedTable c{s->manifest_key, &*s->manifest, s->iceberg.written, s->written_bytes,
                     s->written_etag};
    tables.push_back(std::move(c));
    if (s->iceberg.keep) iceberg_keeps.push_back(std::move(*s->iceberg.keep));
  }
  std::sort(tables.begin(), tables.end(), [](const CommittedTable& a, const CommittedTable& b) {
    return a.manifest->table.QualifiedName() < b.manifest->table.QualifiedName();
  });

  DumpManifest& d = result.manifest;
  d.dump_id = run_id_;
  d.created_by = CreatedBy();
  d.source = RedactCredentials(db_->Describe());
  d.options = DumpOptionsToJson(options_);
  d.started_at = FormatUtc(started);
  d.schema = std::move(schema).value();
  std::map<std::string, nlohmann::json> runs;  // run id -> its entry in "snapshots"
  for (const CommittedTable& c : tables) {
    const TableManifest& t = *c.manifest;
    d.tables.push_back(TableSummary{t.table, c.key, t.rows, t.files.size(), t.bytes, t.codec,
                                    t.seconds, t.run_id, t.json_sha256});
    d.total_rows += t.rows;
    d.total_files += t.files.size();
    d.total_bytes += t.bytes;
    nlohmann::json& run = runs[t.run_id];
    if (run.is_null()) {
      run = {{"run_id", t.run_id}, {"tables", 0}, {"snapshot", t.source_snapshot}};
    }
    run["tables"] = run["tables"].get<int>() + 1;
  }
  for (auto& [id, run] : runs) d.snapshots.push_back(std::move(run));
  const auto finished = WallClock::now();
  d.finished_at = FormatUtc(finished);
  d.seconds = std::chrono::duration<double>(finished - started).count();

  enter("checks before commit");
  if (manifest_hook_) LD_RETURN_IF_ERROR(manifest_hook_(&d));
  // The commit point. Before it: the snapshot's locks still held, the lease
  // still ours, and the destination still holding exactly what the manifest
  // names; every data file and _table.json durable.
  LD_RETURN_IF_ERROR(db_->CheckSnapshotHeld());
  LD_RETURN_IF_ERROR(lease_->CheckHeld());
  LD_RETURN_IF_ERROR(
      CheckBeforeCommit(*store_, tables,
                        CommitIoWidth(remote_ != nullptr, options_.table_parallelism), stop));
  LD_RETURN_IF_ERROR(store_->SyncWritten().WithContext("making the dump's last files durable"));
  d.sha256 = !options_.sign_key.empty();
  enter("manifest");
  LD_RETURN_IF_ERROR(WriteManifest(d));
  if (iceberg) {
    for (std::string& w : iceberg->TakeWarnings()) result.warnings.push_back(std::move(w));
    // Over a committed dump: the Iceberg tables switch to this run's files only now.
    LD_RETURN_IF_ERROR(iceberg->WriteDeferred());
  }

  // After it: what the new manifest does not name belongs to the earlier dump
  // or to dead runs (data file names are unique per run).
  if (options_.if_exists != IfExists::kFail) {
    enter("sweep");
    Status swept = SweepStrays(tables, d.schema, iceberg_keeps, &result.deleted_objects);
    if (!swept.ok()) {
      result.warnings.push_back(fmt::format(
          "the dump is committed, but objects of the earlier dump could not all be deleted "
          "({}): lakedump verify lists them; a later --if-exists resume deletes them",
          swept.message()));
    }
  }
  return result;
}

}  // namespace lakedump
