#include "dump/dump_committer.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include "base/checksum.h"
#include "base/redact_credentials.h"
#include "base/sha256.h"
#include "dump/destination_check.h"
#include "dump/iceberg/iceberg_commit.h"
#include "dump/table_reuse.h"
#include "lake/large_objects.h"
#include "lake/metadata_io.h"
#include "lake/object_checksum.h"
#include "lake/object_keys.h"
#include "lake/signature.h"
#include "lake/signature_commit.h"

namespace lakedump {

using WallClock = std::chrono::system_clock;  // not lakedump::Clock (base/clock.h)

namespace {

// A sharded dump's coordinator does nothing but metadata I/O (its -j runs no table task): its
// table commits (and any read-back before the manifest, see CheckBeforeCommit) go as wide as
// metadata I/O goes. Measured (bench/scaleout.sh, 4 workers, 1001 tables, loaded machine): at 8
// in flight the commits took 2.4 s.
size_t CommitIoWidth(bool coordinator, int table_parallelism) {
  return coordinator ? kMaxMetadataIoWidth : MetadataIoWidth(table_parallelism);
}

// A table's _table.json of this or an earlier run (_table.json or _table-<run>.json).
bool IsTableManifestName(std::string_view name) {
  return name == kTableFileName || (name.starts_with("_table-") && name.ends_with(".json"));
}

// An Iceberg table's metadata: a version hint or a <v>.metadata.json under metadata/.
bool IsIcebergMetadataKey(const std::string& key, std::string_view name) {
  return IsIcebergVersionHint(key) ||
         (name.ends_with(".metadata.json") && key.find("/metadata/") != std::string::npos);
}

// The recorded columns themselves (the fingerprint only hashes them).
bool SameColumns(const Schema& recorded, const Schema& now) {
  if (recorded.num_columns() != now.num_columns()) return false;
  for (size_t i = 0; i < now.num_columns(); ++i) {
    if (recorded.column(i).name != now.column(i).name ||
        recorded.column(i).type != now.column(i).type) {
      return false;
    }
  }
  return true;
}

// The "snapshots" entries of a manifest: one per run whose tables it names.
std::vector<nlohmann::json> SnapshotsOf(const std::vector<CommittedTable>& tables) {
  std::map<std::string, nlohmann::json> runs;  // run id -> its entry
  for (const CommittedTable& c : tables) {
    const TableManifest& t = *c.manifest;
    nlohmann::json& run = runs[t.run_id];
    if (run.is_null()) {
      run = {{"run_id", t.run_id}, {"tables", 0}, {"snapshot", t.source_snapshot}};
    }
    run["tables"] = run["tables"].get<int>() + 1;
  }
  std::vector<nlohmann::json> snapshots;
  for (auto& [id, run] : runs) snapshots.push_back(std::move(run));
  return snapshots;
}

}  // namespace

struct DumpCommitter::TableState {
  const PlannedTable* plan = nullptr;
  std::mutex mu;
  int units_left = 0;                // GUARDED_BY(mu)
  std::vector<DataFile> files;       // GUARDED_BY(mu)
  Schema schema;                     // GUARDED_BY(mu): from the first unit in
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

DumpCommitter::DumpCommitter(Database* db, ObjectStore* store, const DumpOptions& options,
                             std::string run_id, bool coordinator, DumpProgress* progress,
                             TraceRecorder* trace)
    : db_(db),
      store_(store),
      options_(options),
      run_id_(std::move(run_id)),
      coordinator_(coordinator),
      progress_(progress),
      trace_(trace) {}

DumpCommitter::~DumpCommitter() = default;

Status DumpCommitter::PrepareDestination() {
  LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> objects, store_->List(""));
  std::erase_if(objects, [](const ObjectInfo& o) { return o.key == kLeaseKey; });
  // Whose each object is (run journals, the committed manifest): nothing foreign is deleted.
  LD_ASSIGN_OR_RETURN(DestinationOwnership owners, DestinationOwnership::Read(*store_, objects));
  LD_RETURN_IF_ERROR(CheckDestinationObjects(owners, options_, store_->Describe()));
  ownership_.emplace(std::move(owners));
  const auto found = std::find_if(objects.begin(), objects.end(),
                                  [](const ObjectInfo& o) { return o.key == kManifestKey; });
  const bool has_manifest = found != objects.end();
  if (options_.if_exists != IfExists::kFail) {
    // The commit's precondition: the manifest found now, or none (lake/fenced_commit.h).
    if (has_manifest) {
      LD_ASSIGN_OR_RETURN(commit_precondition_, CommitPrecondition(*store_, &*found));
    }
    // Nothing is deleted when the destination holds someone else's Iceberg table.
    LD_RETURN_IF_ERROR(CheckNoForeignIcebergTables(*store_, objects));
    // A committed dump stays committed (and whole) until the new manifest
    // replaces it: its _manifest.json and _table.json files are not touched.
    old_dump_committed_ = ownership_->has_manifest() || has_manifest;
    if (options_.if_exists == IfExists::kOverwrite && !old_dump_committed_) {
      LD_RETURN_IF_ERROR(RemoveUncommittedTables(&objects));
    }
  }
  listing_ = std::move(objects);
  return Status::OK();
}

Status DumpCommitter::RemoveUncommittedTables(std::vector<ObjectInfo>* objects) {
  // Nothing committed to keep: no table of an interrupted dump may be re-used by a later
  // resume of this one. Nor any Iceberg metadata of it: the tables start new histories at
  // v1, and a reader must not find an older v2 past a new version-hint.text.
  std::vector<std::string> stale;
  for (const ObjectInfo& o : *objects) {
    const size_t slash = o.key.rfind('/');
    const std::string_view name =
        std::string_view(o.key).substr(slash == std::string::npos ? 0 : slash + 1);
    if (IsTableManifestName(name) || IsIcebergMetadataKey(o.key, name)) stale.push_back(o.key);
  }
  LD_RETURN_IF_ERROR(store_->Delete(stale));
  std::erase_if(*objects, [&](const ObjectInfo& o) {
    return std::find(stale.begin(), stale.end(), o.key) != stale.end();
  });
  return Status::OK();
}

std::string DumpCommitter::CommitKey(const TableRef& table) const {
  return old_dump_committed_ ? RunTableManifestKey(table, run_id_) : TableManifestKey(table);
}

void DumpCommitter::SetTables(const std::vector<PlannedTable>& tables, nlohmann::json snapshot) {
  snapshot_ = std::move(snapshot);
  for (const PlannedTable& t : tables) {
    auto s = std::make_unique<TableState>();
    s->plan = &t;
    s->units_left = static_cast<int>(t.units.size());
    progress_->estimated_rows += t.info.estimated_rows;
    states_.push_back(std::move(s));
  }
  progress_->tables_total = states_.size();
}

const PlannedTable& DumpCommitter::table(size_t i) const { return *states_[i]->plan; }

bool DumpCommitter::committed(size_t i) const { return states_[i]->manifest.has_value(); }

IcebergTableSlot* DumpCommitter::iceberg_slot(size_t i) { return &states_[i]->iceberg; }

Result<uint64_t> DumpCommitter::ReuseTables(ThreadPool* pool, std::stop_token stop) {
  TaskGroup checks(pool, static_cast<size_t>(options_.table_parallelism), stop);
  for (auto& s : states_) {
    TableState* state = s.get();
    checks.Spawn([this, state](std::stop_token) -> Status {
      LD_RETURN_IF_ERROR(TryReuse(state));
      if (state->manifest) {
        progress_->tables_done += 1;
        progress_->tables_reused += 1;
        progress_->rows += state->manifest->rows;
      }
      return Status::OK();
    });
  }
  LD_RETURN_IF_ERROR(checks.Wait());
  uint64_t reused = 0;
  for (const auto& s : states_) reused += s->manifest ? 1 : 0;
  return reused;
}

Status DumpCommitter::TryReuse(TableState* state) {
  const TableInfo& info = state->plan->info;
  const std::vector<std::string> keys = TableManifestCandidates(listing_, info.ref);
  if (keys.empty()) return Status::OK();
  // What the source gives now; a table is reused only when it was read from
  // the same source (database, relation, type options) with the same columns.
  LD_ASSIGN_OR_RETURN(TableDefinition def, db_->DescribeTable(info));
  LD_ASSIGN_OR_RETURN(nlohmann::json fingerprint, TableFingerprint(*db_, info, def));
  return ReuseFirstMatch(state, keys, def, fingerprint);
}

Status DumpCommitter::ReuseFirstMatch(TableState* state, const std::vector<std::string>& keys,
                                      const TableDefinition& def,
                                      const nlohmann::json& fingerprint) {
  const TableInfo& info = state->plan->info;
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
    m.json_xxh64 = Xxh64Hex(*text);
    if (m.table != info.ref || m.query != info.query ||
        m.codec != CodecName(options_.parquet.codec) || m.partition_by != options_.partition_by ||
        m.source_fingerprint != fingerprint || m.run_id.empty() ||
        !SameColumns(m.schema, def.schema)) {
      continue;
    }
    LD_ASSIGN_OR_RETURN(const bool files_ok, FilesStillVerify(m));
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

Result<bool> DumpCommitter::FilesStillVerify(const TableManifest& m) {
  const bool signing = !options_.sign_key.empty();
  for (const DataFile& f : m.files) {
    if (!f.key.starts_with(TablePrefix(m.table)) || f.key.find(m.run_id) == std::string::npos) {
      return false;
    }
    auto reader = store_->NewReader(f.key);
    if (!reader.ok()) {
      if (reader.status().code() == Code::kNotFound) return false;
      return reader.status();
    }
    if ((*reader)->size() != f.bytes) return false;
    // A signed dump vouches for what it reuses: only files with a SHA-256 that still
    // matches (XXH64 alone is no defence against a planted file).
    if (signing && f.sha256.empty()) return false;
    LD_ASSIGN_OR_RETURN(ObjectDigests digest, HashObjectDigests(**reader, f.bytes, signing));
    if (digest.xxh64 != f.xxh64 || (signing && digest.sha256 != f.sha256)) return false;
  }
  return true;
}

IcebergTableCommitter* DumpCommitter::StartIceberg(std::stop_token stop) {
  if (options_.table_format != TableFormat::kIceberg) return nullptr;
  iceberg_.emplace(store_, options_.table_parallelism, old_dump_committed_,
                   options_.iceberg_key_index, stop);
  return &*iceberg_;
}

Status DumpCommitter::WaitIceberg() { return iceberg_ ? iceberg_->Wait() : Status::OK(); }

void DumpCommitter::TableStarted(size_t i) {
  TableState& state = *states_[i];
  std::lock_guard<std::mutex> lock(state.mu);
  if (!state.started_set) {
    state.started = WallClock::now();
    state.started_set = true;
  }
}

Status DumpCommitter::AddUnit(size_t i, UnitOutput output) {
  TableState* state = states_[i].get();
  bool last = false;
  {
    std::lock_guard<std::mutex> lock(state->mu);
    if (!state->have_schema) {
      state->schema = std::move(output.schema);
      state->have_schema = true;
    }
    for (DataFile& f : output.files) state->files.push_back(std::move(f));
    last = --state->units_left == 0;
  }
  if (!last) return Status::OK();
  // Rows read while the snapshot's locks had lapsed may be wrong (TRUNCATE is
  // not MVCC-safe): such a table must not be committed. Checked after the
  // table's last read, while the other tables may still be reading.
  LD_RETURN_IF_ERROR(db_->CheckSnapshotHeld());
  return CommitTable(state);
}

void DumpCommitter::AllTablesStarted(TimePoint started) {
  for (auto& s : states_) {
    std::lock_guard<std::mutex> lock(s->mu);
    s->started = started;
    s->started_set = true;
  }
}

Status DumpCommitter::AddRemoteUnits(UnitOutputGatherer* gatherer,
                                     std::vector<UnitOutput> outputs, std::stop_token stop) {
  LD_ASSIGN_OR_RETURN(std::vector<size_t> complete, gatherer->Add(std::move(outputs)));
  if (complete.empty()) return Status::OK();
  TraceSpan span(trace_, fmt::format("commit {} tables", complete.size()), "shard");
  for (size_t i : complete) {
    GatheredTable gathered = gatherer->Take(i);
    TableState& state = *states_[i];
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
        TableState* state = states_[complete[k]].get();
        return CommitTable(state).WithContext(
            fmt::format("table {}", state->plan->info.ref.QualifiedName()));
      },
      stop);
}

Status DumpCommitter::CommitTable(TableState* state) {
  LD_ASSIGN_OR_RETURN(TableManifest m, MakeTableManifest(state));
  if (iceberg_) {
    // The table's Iceberg metadata, beside its _table.json and the next tables. Over a
    // committed dump its fixed-name objects wait for the new manifest (Commit).
    LD_RETURN_IF_ERROR(iceberg_->Schedule(&state->iceberg, m));
  }
  const std::string key = CommitKey(m.table);
  LD_ASSIGN_OR_RETURN(std::string text, SerializeMetadata(ToJson(m), key));
  if (!options_.sign_key.empty()) m.json_sha256 = Sha256Hex(text);
  m.json_xxh64 = Xxh64Hex(text);
  LD_RETURN_IF_ERROR(store_->PutObject(key, text).WithContext(key));
  state->manifest_key = key;
  state->written_bytes = text.size();
  state->written_etag = Md5Etag(text);
  state->manifest = std::move(m);
  progress_->tables_done += 1;
  return Status::OK();
}

Result<TableManifest> DumpCommitter::MakeTableManifest(TableState* state) {
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
  return m;
}

std::vector<CommittedTable> DumpCommitter::CommittedTables() const {
  std::vector<CommittedTable> tables;
  for (const auto& s : states_) {
    // Its Iceberg metadata written so far too (not what is only written after the manifest).
    tables.push_back(CommittedTable{s->manifest_key, &*s->manifest, s->iceberg.written,
                                    s->written_bytes, s->written_etag});
  }
  std::sort(tables.begin(), tables.end(), [](const CommittedTable& a, const CommittedTable& b) {
    return a.manifest->table.QualifiedName() < b.manifest->table.QualifiedName();
  });
  return tables;
}

DumpManifest DumpCommitter::BuildManifest(nlohmann::json schema, TimePoint started) {
  DumpManifest d;
  d.dump_id = run_id_;
  d.created_by = CreatedBy();
  d.source = RedactCredentials(db_->Describe());
  d.options = DumpOptionsToJson(options_);
  d.started_at = FormatUtc(started);
  d.schema = std::move(schema);
  const std::vector<CommittedTable> tables = CommittedTables();
  for (const CommittedTable& c : tables) {
    const TableManifest& t = *c.manifest;
    d.tables.push_back(TableSummary{t.table, c.key, t.rows, t.files.size(), t.bytes, t.codec,
                                    t.seconds, t.run_id, t.json_sha256, t.json_xxh64});
    d.total_rows += t.rows;
    d.total_files += t.files.size();
    d.total_bytes += t.bytes;
  }
  d.snapshots = SnapshotsOf(tables);
  const auto finished = WallClock::now();
  d.finished_at = FormatUtc(finished);
  d.seconds = std::chrono::duration<double>(finished - started).count();
  d.sha256 = !options_.sign_key.empty();
  if (d.sha256) d.written_to = SignedWrittenTo(*store_);
  return d;
}

Status DumpCommitter::CheckCommitPoint(DumpLease& lease, std::stop_token stop) {
  // Before the commit point: the snapshot's locks still held, the lease still ours, and the
  // destination still holding exactly what the manifest names; every data file and
  // _table.json durable.
  LD_RETURN_IF_ERROR(db_->CheckSnapshotHeld());
  LD_RETURN_IF_ERROR(lease.CheckHeld());
  committer_record_ = CommitRecord{run_id_, lease.token(), lease.host()};
  LD_RETURN_IF_ERROR(CheckBeforeCommit(
      *store_, CommittedTables(), CommitIoWidth(coordinator_, options_.table_parallelism), stop));
  return store_->SyncWritten().WithContext("making the dump's last files durable");
}

Status DumpCommitter::Commit(const DumpManifest& manifest, std::vector<std::string>* warnings) {
  LD_RETURN_IF_ERROR(WriteManifest(manifest));
  if (!iceberg_) return Status::OK();
  for (std::string& w : iceberg_->TakeWarnings()) warnings->push_back(std::move(w));
  // Over a committed dump: the Iceberg tables switch to this run's files only now.
  return iceberg_->WriteDeferred();
}

Status DumpCommitter::WriteManifest(const DumpManifest& d) {
  nlohmann::json manifest = ToJson(d);
  manifest["commit"] = ToJson(committer_record_);  // who committed: a loser names the winner
  LD_ASSIGN_OR_RETURN(std::string body, SerializeMetadata(manifest, kManifestKey));
  if (d.sha256) {
    // The signature of these exact bytes goes first: _manifest.json stays the commit point.
    // It keeps the committed manifest's entry, so the old dump stays verifiable until the
    // new manifest lands, and it is written only over the object this run read.
    LD_RETURN_IF_ERROR(
        PutSignatureAhead(*store_, kSignatureKey, kManifestKey, options_.sign_key, body));
  }
  // From here a failure may leave the manifest stored (now or, after a lost reply, later),
  // or another run may have committed (reusing this run's objects): this run's objects are
  // kept unless the store refused the write outright and still holds the old manifest.
  manifest_may_be_stored_ = true;
  // A conditional write, read back: committed only when the store holds these bytes.
  ManifestCommit commit = CommitManifest(*store_, body, commit_precondition_, committer_record_);
  if (!commit.status.ok()) {
    manifest_may_be_stored_ = !commit.may_delete_own;
    return commit.status;
  }
  if (d.sha256) {
    // Committed: the other entries are no longer needed. Should this fail, or another run
    // have written the object since, the signature still checks (it holds this entry).
    TrimSignatureAfterCommit(*store_, kSignatureKey, kManifestKey, options_.sign_key, body);
  }
  Status sync = store_->SyncWritten();
  if (!sync.ok()) {
    return sync.WithContext(fmt::format(
        "{} of this run was written but could not be made durable (the dump is committed "
        "unless the machine loses power before the data reaches the disk; lakedump verify "
        "checks it)",
        kManifestKey));
  }
  committed_manifest_ = std::move(body);
  return Status::OK();
}

Status DumpCommitter::SweepStrays(const DumpManifest& manifest, uint64_t* deleted) {
  std::set<std::string> keep = {std::string(kManifestKey), std::string(kLeaseKey)};
  if (manifest.schema.contains("archive")) {
    keep.insert(manifest.schema["archive"].value("key", ""));
  }
  for (std::string& k : LargeObjectKeys(manifest.schema)) keep.insert(std::move(k));
  // An unsigned dump over a signed one: the old signature goes with the old dump.
  if (!options_.sign_key.empty()) keep.insert(std::string(kSignatureKey));
  for (const auto& s : states_) {
    keep.insert(s->manifest_key);
    for (const DataFile& f : s->manifest->files) keep.insert(f.key);
  }
  LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> objects, store_->List(""));
  std::vector<std::string> stray;
  for (const ObjectInfo& o : objects) {
    if (keep.count(o.key)) continue;
    // Only lakedump's own objects (a run journal or the old manifest names them).
    if (!MayDeleteObject(ownership_ ? &*ownership_ : nullptr, options_, run_id_, o.key)) continue;
    // The Iceberg tables' earlier snapshots stay until gc --expire-snapshots.
    if (std::any_of(states_.begin(), states_.end(), [&o](const auto& s) {
          return s->iceberg.keep && s->iceberg.keep->KeepsObject(o.key);
        })) {
      continue;
    }
    stray.push_back(o.key);
  }
  *deleted = stray.size();
  if (stray.empty()) return Status::OK();
  return store_->Delete(stray);
}

}  // namespace lakedump
