#include "dump/export_service.h"

#include <fmt/format.h>

#include <chrono>
#include <future>
#include <optional>
#include <thread>

#include "base/checksum.h"
#include "base/sha256.h"
#include "dump/dump_committer.h"
#include "dump/run_journal_writer.h"
#include "dump/unit_exporter.h"
#include "dump/large_object_dump.h"
#include "lake/object_keys.h"

namespace lakedump {

using WallClock = std::chrono::system_clock;  // not lakedump::Clock (base/clock.h)

namespace {

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

// The schema capture on a thread of its own (pg_dump is another process on its own
// connection to the same snapshot, the facts are read on another session), beside planning
// and the data; it stores nothing before DestinationReady(), and is joined only before the
// commit. Destroyed without DestinationReady(), it tells the thread the dump failed, then
// joins it. One owning thread.
class BackgroundSchemaCapture {
 public:
  using Capture = std::function<Result<nlohmann::json>(std::future<bool> destination_ready)>;
  // REQUIRES: called once.
  void Start(Capture capture) {
    thread_ = std::jthread([this, capture = std::move(capture),
                            ready = destination_ready_.future()]() mutable {
      result_ = capture(std::move(ready));
    });
  }
  void DestinationReady() { destination_ready_.Set(true); }
  // REQUIRES: Start().
  Result<nlohmann::json> Join() {
    thread_.join();
    return std::move(result_);
  }

 private:
  Result<nlohmann::json> result_ = Status::Cancelled("not captured");
  std::jthread thread_;               // joined last (destroyed after the promise below)...
  OneShotPromise destination_ready_;  // ...which says false first if nothing said true
};

// The tables whose schema the archive holds: those the plan reads whole (not --query).
SchemaSelection SchemaOfPlan(const DumpPlan& plan) {
  SchemaSelection selected;
  for (const PlannedTable& t : plan.tables) {
    if (t.info.query.empty()) selected.tables.push_back(t.info.ref);
  }
  return selected;
}

// The run's phases, one after the other, as spans of the trace (category "phase").
class PhaseTrace {
 public:
  explicit PhaseTrace(TraceRecorder* trace) : trace_(trace) {}
  void Enter(const char* name) {
    phase_.reset();
    phase_.emplace(trace_, name, "phase");
  }
  void Leave() { phase_.reset(); }

 private:
  TraceRecorder* trace_;
  std::optional<TraceSpan> phase_;
};

}  // namespace

ExportService::ExportService(Database* db, ObjectStore* store, DumpOptions options)
    : db_(db),
      store_(store),
      options_(std::move(options)),
      run_id_(NewRunId()),
      journal_(std::make_unique<RunJournalWriter>(store, run_id_)),
      journaled_store_(std::make_unique<JournalingStore>(store, journal_.get())) {
  store_ = journaled_store_.get();
}

ExportService::~ExportService() = default;

RunClaims ExportService::journal_claims() const { return journal_->claims(); }

Result<nlohmann::json> ExportService::CaptureSchema(const SchemaSelection& selected,
                                                    std::future<bool> destination_ready,
                                                    const DumpCommitter& committer,
                                                    std::stop_token stop) {
  SchemaCaptureOptions options;
  options.use_source_tool = options_.schema_from_source_tool;
  options.tool_dir = options_.pg_bin_dir;
  // Opened first: the session imports the snapshot, which a --no-snapshot coordinator releases
  // once the schema is captured.
  auto* provider = dynamic_cast<LargeObjectProvider*>(db_);
  Result<std::unique_ptr<LargeObjectSource>> large_objects =
      provider ? provider->OpenLargeObjects() : std::unique_ptr<LargeObjectSource>();
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
    const std::string key = committer.old_dump_committed()
                                ? fmt::format("_schema/postgres-{}.dump", run_id_)
                                : std::string(kPgSchemaArchiveKey);
    LD_RETURN_IF_ERROR(store_->PutObject(key, capture.archive).WithContext(key));
    nlohmann::json& archive = info["archive"];
    archive["key"] = key;
    archive["bytes"] = capture.archive.size();
    archive["xxh64"] = Xxh64Hex(capture.archive);
    if (!options_.sign_key.empty()) archive["sha256"] = Sha256Hex(capture.archive);
  }
  if (!large_objects.ok()) return large_objects.status().WithContext("large objects");
  if (*large_objects && !options_.include.empty()) {
    // As pg_dump -t: a dump of some tables holds those tables only.
    info["large_objects_left_out"] = (*large_objects)->objects().size();
  } else if (*large_objects) {
    TraceSpan span(trace_, "large objects", "schema");
    LD_ASSIGN_OR_RETURN(LargeObjectDumpResult dumped,
                        DumpLargeObjects(**large_objects, *store_, *journal_,
                                         !options_.sign_key.empty(), stop));
    info["large_objects"] = std::move(dumped.entries);
  }
  return info;
}

Result<DumpResult> ExportService::Run(std::stop_token stop) {
  return RunWithLease(nullptr, stop);
}

Result<DumpResult> ExportService::RunSharded(const RemoteUnitRunner& runner,
                                             std::stop_token stop) {
  return RunWithLease(&runner, stop);
}

Result<DumpResult> ExportService::RunWithLease(const RemoteUnitRunner* remote,
                                               std::stop_token stop) {
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
  ObjectStore& lease_store = lease_store_ ? *lease_store_ : *store_;
  std::unique_ptr<DumpLease> lease;
  {
    TraceSpan lease_span(trace_, "lease", "phase");
    LD_ASSIGN_OR_RETURN(lease, DumpLease::Acquire(&lease_store, run_id_, lease_options, stop));
  }
  DumpCommitter committer(db_, store_, options_, run_id_, /*coordinator=*/remote != nullptr,
                          &progress_, trace_);
  Result<DumpResult> result = RunLeased(committer, *lease, remote, stop, started);
  if (!result.ok() && committer.old_dump_committed() && !committer.manifest_may_be_stored() &&
      lease->CheckHeld().ok()) {
    // The committed dump stays exactly as it was: what this run wrote goes
    // (what its journal names and carries its run id), which also gives back the space on
    // a full disk. Not after a lost lease: the run that took it over may have reused this
    // run's objects.
    uint64_t deleted = 0;
    DeleteClaimedObjects(lease_store, journal_->claims(), &deleted).IgnoreError();
  }
  Status released = lease->Release();
  lease.reset();
  if (result.ok() && !released.ok()) {
    result->warnings.push_back(
        fmt::format("could not delete the lease {}: {} (the next run can take it over with "
                    "--if-exists resume once it is stale)",
                    kLeaseKey, released.message()));
  }
  return result;
}

Result<DumpResult> ExportService::RunLeased(DumpCommitter& committer, DumpLease& lease,
                                            const RemoteUnitRunner* remote, std::stop_token stop,
                                            TimePoint started) {
  PhaseTrace phase(trace_);
  phase.Enter("snapshot");
  LD_RETURN_IF_ERROR(db_->BeginSnapshot());
  // With every table selected the schema capture starts now; with --tables/--exclude once
  // the plan names the tables.
  BackgroundSchemaCapture schema;
  const auto start_schema = [&](SchemaSelection selected) {
    schema.Start([this, &committer, stop, selected = std::move(selected)](std::future<bool> ready) {
      return CaptureSchema(selected, std::move(ready), committer, stop);
    });
  };
  const bool every_table = options_.include.empty() && options_.exclude.empty();
  if (every_table) start_schema(SchemaSelection{true, {}});
  phase.Enter("plan");
  LD_ASSIGN_OR_RETURN(DumpPlan plan, PlanDump(*db_, options_));
  if (!every_table) start_schema(SchemaOfPlan(plan));
  phase.Enter("prepare destination");
  LD_RETURN_IF_ERROR(committer.PrepareDestination());
  started_writing_ = true;
  DumpResult result;
  RemoveUnfinishedWrites(&result);
  // Before the first object: the plan's keys in the run journal (one batch).
  LD_RETURN_IF_ERROR(RecordPlan(*journal_, plan, committer.old_dump_committed()));
  schema.DestinationReady();
  committer.SetTables(plan.tables, SnapshotRecord(started));

  ThreadPool pool(static_cast<size_t>(options_.table_parallelism));
  uint64_t reused = 0;
  if (options_.if_exists == IfExists::kResume) {
    phase.Enter("reuse checks");
    LD_ASSIGN_OR_RETURN(reused, committer.ReuseTables(&pool, stop));
  }
  UnitExporter exporter(db_, store_, options_, run_id_, &progress_, trace_);
  // Iceberg metadata writers, beside the table tasks.
  exporter.set_iceberg(committer.StartIceberg(stop));
  Status ran;
  result.reused_tables = reused;
  if (remote != nullptr) {
    // Each shard's tables are committed as its report comes in; after the last, every
    // planned unit must be in.
    phase.Enter("workers");
    ran = RunRemoteUnits(committer, plan, *remote, started, stop);
  } else {
    phase.Enter("tables");
    ran = RunLocalUnits(committer, exporter, &pool, stop);
  }
  // Its error first: a table task refused by a failed writer group only says Cancelled.
  LD_RETURN_IF_ERROR(committer.WaitIceberg());
  LD_RETURN_IF_ERROR(ran);
  if (stop.stop_requested()) return Status::Cancelled("interrupted");
  // The tables' files are made durable while the schema capture may still be running: this
  // wait is mostly I/O, which leaves the CPU to pg_dump. What is written after it (the
  // archive, a hook's objects) is synced by the second call, just before the manifest.
  phase.Enter("sync");
  LD_RETURN_IF_ERROR(store_->SyncWritten().WithContext("making the dump's files durable"));
  phase.Enter("schema");
  Result<nlohmann::json> captured = schema.Join();
  if (!captured.ok()) return captured.status().WithContext("schema");
  if (captured->contains("large_objects_left_out")) {
    result.warnings.push_back(fmt::format(
        "the source holds {} large object(s), which a dump with --tables leaves out (as pg_dump "
        "-t); dump without --tables to hold them",
        (*captured)["large_objects_left_out"].dump()));
  }
  result.manifest = committer.BuildManifest(std::move(captured).value(), started);
  phase.Enter("checks before commit");
  if (manifest_hook_) LD_RETURN_IF_ERROR(manifest_hook_(&result.manifest));
  LD_RETURN_IF_ERROR(committer.CheckCommitPoint(lease, stop));
  phase.Leave();
  LD_RETURN_IF_ERROR(CommitDump(committer, &result));
  return result;
}

Status ExportService::CommitDump(DumpCommitter& committer, DumpResult* result) {
  {
    TraceSpan phase(trace_, "manifest", "phase");
    LD_RETURN_IF_ERROR(committer.Commit(result->manifest, &result->warnings));
    result->manifest_text = committer.committed_manifest();
  }
  // After it: what the new manifest does not name belongs to the earlier dump
  // or to dead runs (data file names are unique per run).
  if (options_.if_exists == IfExists::kFail) {
    // The manifest names what stays: the journal has served (the sweep deletes it otherwise).
    journal_->DeleteJournal().IgnoreError();
    return Status::OK();
  }
  TraceSpan phase(trace_, "sweep", "phase");
  Status swept = committer.SweepStrays(result->manifest, &result->deleted_objects);
  if (!swept.ok()) {
    result->warnings.push_back(fmt::format(
        "the dump is committed, but objects of the earlier dump could not all be deleted "
        "({}): lakedump verify lists them; a later --if-exists resume deletes them",
        swept.message()));
  }
  return Status::OK();
}

void ExportService::RemoveUnfinishedWrites(DumpResult* result) {
  if (!cleaner_ || options_.if_exists == IfExists::kFail) return;
  // Under the lease no other run writes here: every unfinished write is a dead run's.
  std::vector<std::string> removed;
  Status cleaned = cleaner_(&removed);
  result->removed_unfinished = removed.size();
  if (!cleaned.ok()) {
    result->warnings.push_back(fmt::format(
        "could not remove every unfinished write of earlier runs ({}): lakedump gc does",
        cleaned.message()));
  }
}

nlohmann::json ExportService::SnapshotRecord(TimePoint started) const {
  const nlohmann::json described = db_->Describe();
  nlohmann::json snapshot = {{"run_id", run_id_}, {"started_at", FormatUtc(started)}};
  for (const char* k : {"snapshot_id", "snapshot_time", "wal_lsn", "snapshot"}) {
    if (described.contains(k)) snapshot[k] = described[k];
  }
  return snapshot;
}

Status ExportService::RunLocalUnits(DumpCommitter& committer, const UnitExporter& exporter,
                                    ThreadPool* pool, std::stop_token stop) {
  struct Pending {
    size_t table;
    const WorkUnit* unit;
  };
  std::vector<Pending> pending;
  for (size_t t = 0; t < committer.num_tables(); ++t) {
    if (committer.committed(t)) continue;  // reused (--if-exists resume)
    for (const WorkUnit& unit : committer.table(t).units) pending.push_back({t, &unit});
  }
  return RunEveryUnit(
      pool, pending.size(),
      [&](size_t i, std::stop_token task_stop) -> Status {
        const Pending& p = pending[i];
        committer.TableStarted(p.table);
        LD_ASSIGN_OR_RETURN(UnitOutput output,
                            exporter.Export(*p.unit, committer.iceberg_slot(p.table), task_stop));
        return committer.AddUnit(p.table, std::move(output));
      },
      [&](size_t i) -> const TableRef& { return committer.table(pending[i].table).info.ref; },
      stop);
}

Status ExportService::RunRemoteUnits(DumpCommitter& committer, const DumpPlan& plan,
                                     const RemoteUnitRunner& runner, TimePoint started,
                                     std::stop_token stop) {
  committer.AllTablesStarted(started);
  std::vector<const PlannedTable*> planned;
  for (const PlannedTable& t : plan.tables) planned.push_back(&t);
  UnitOutputGatherer gatherer(std::move(planned));
  // --if-exists resume: the tables reused from an earlier run (a dead coordinator's, whose
  // workers' units it had committed) are not planned for the workers again.
  DumpPlan remaining;
  for (size_t t = 0; t < plan.tables.size(); ++t) {
    if (committer.committed(t)) {
      gatherer.MarkCommitted(t);
    } else {
      remaining.tables.push_back(plan.tables[t]);
    }
  }
  LD_RETURN_IF_ERROR(runner(
      remaining,
      [&](std::vector<UnitOutput> outputs) {
        return committer.AddRemoteUnits(&gatherer, std::move(outputs), stop);
      },
      stop));
  return gatherer.CheckAllReported();
}

}  // namespace lakedump
