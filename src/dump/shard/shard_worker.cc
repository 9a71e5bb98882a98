#include "dump/shard/shard_worker.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "lake/dump_lease.h"
#include "lake/manifest.h"
#include "lake/no_snapshot.h"
#include "dump/shard/shard_checks.h"
#include "dump/shard/shard_plan.h"
#include "dump/shard/shard_progress.h"
#include "dump/unit_exporter.h"

namespace lakedump {
namespace {

// The plan as this worker reads it: a plan that does not parse, or (signed dump) is not
// its key holder's, is refused (InvalidArgument: nothing is written).
Result<ShardPlan> ReadPlan(std::string_view text, const DumpOptions& options) {
  auto plan = ParseShardPlan(text, kShardPlanKey, options.sign_key);
  if (!plan.ok()) {
    return Status::InvalidArgument(fmt::format("refused: {}", plan.status().message()));
  }
  return plan;
}

// Whether DEST holds, with no plan, the committed dump this worker's shard belonged to: a
// sharded dump of as many shards, with this worker's data options, and no live run holding
// the lease (a coordinator that is starting holds it before its plan). Its dump id, or "".
std::string CommittedWithoutPlan(ObjectStore& store, const WorkerOptions& worker) {
  auto text = store.GetObject(kManifestKey, kMaxMetadataBytes);
  if (!text.ok()) return "";
  auto m = ParseDumpManifest(*text, kManifestKey);
  if (!m.ok() || !m->options.is_object()) return "";
  auto shards = m->options.find("shards");
  if (shards == m->options.end() || !shards->is_number_integer() ||
      shards->get<int64_t>() != worker.shards) {
    return "";
  }
  for (const char* k : {"tables", "exclude", "queries", "compression", "compression_level",
                        "row_group_rows", "row_group_bytes", "file_size", "partition_by",
                        "table_format"}) {
    auto mine = worker.matching.find(k);
    auto theirs = m->options.find(k);
    if (mine != worker.matching.end() && theirs != m->options.end() && *mine != *theirs) {
      return "";
    }
  }
  auto holder = ReadLease(store);
  if (holder.ok() && !holder->IsStale(worker.clock->WallNow())) return "";
  return m->dump_id;
}

// The plan, once it appears; or, when DEST holds the committed dump this worker was late for
// (CommittedWithoutPlan), nullopt with its id in *committed.
Result<std::optional<ShardPlan>> WaitForPlan(ObjectStore& store, const DumpOptions& options,
                                             const WorkerOptions& worker, std::string* committed,
                                             std::stop_token stop) {
  const auto started = worker.clock->Now();
  const auto deadline = started + worker.plan_timeout;
  for (bool first = true;;) {
    auto text = store.GetObject(kShardPlanKey, kMaxShardDocumentBytes);
    if (text.ok()) {
      LD_ASSIGN_OR_RETURN(ShardPlan plan, ReadPlan(*text, options));
      return std::optional<ShardPlan>(std::move(plan));
    }
    if (text.status().code() != Code::kNotFound) {
      return text.status().WithContext(std::string(kShardPlanKey));
    }
    // Late (the first look) or waiting long: has the dump been committed? (Not on every fast
    // poll: the manifest may be large.)
    const bool early = worker.clock->Now() - started < worker.fast_poll_window;
    if (first || !early) {
      if (*committed = CommittedWithoutPlan(store, worker); !committed->empty()) {
        return std::optional<ShardPlan>();
      }
    }
    first = false;
    if (worker.clock->Now() >= deadline) {
      return Status::NotFound(fmt::format(
          "no {} in {} within --plan-timeout: start the coordinator (lakedump dump SRC DEST "
          "--shards N --coordinate) first, with the same DEST",
          kShardPlanKey, store.Describe()));
    }
    if (!worker.clock->SleepFor(early ? worker.fast_poll_interval : worker.poll_interval, stop)) {
      return Status::Cancelled("interrupted");
    }
  }
}

// Whether DEST holds the committed manifest of dump `dump_id`.
bool CommittedAlready(ObjectStore& store, const std::string& dump_id) {
  auto text = store.GetObject(kManifestKey, kMaxMetadataBytes);
  if (!text.ok()) return false;
  auto m = ParseDumpManifest(*text, kManifestKey);
  return m.ok() && m->dump_id == dump_id;
}

// The coordinator is alive while it renews its lease: a worker whose coordinator is gone
// would dump for nothing.
Status CheckCoordinatorAlive(ObjectStore& store, const std::string& dump_id, Clock& clock,
                             bool* coordinator_gone) {
  auto holder = ReadLease(store);
  if (!holder.ok() && holder.status().code() != Code::kNotFound) return holder.status();
  const auto now = clock.WallNow();
  if (!holder.ok() || holder->run_id != dump_id || holder->IsStale(now)) {
    *coordinator_gone = true;
    return Status::Unavailable(fmt::format(
        "the coordinator of dump {} is gone ({}): nothing this worker writes can be committed; "
        "start the dump again",
        dump_id,
        !holder.ok()              ? "no lease at the destination"
        : holder->run_id != dump_id ? "the lease is another run's"
                                    : "its lease is stale: " + holder->Describe(now)));
  }
  return Status::OK();
}

// Joining: a live run holds DEST and the plan is not its (a plan its coordinator did not
// write): refused. No lease or a stale one is CheckCoordinatorAlive's (exit 3).
Status CheckPlanIsLeaseHolders(ObjectStore& store, const std::string& dump_id, Clock& clock) {
  auto holder = ReadLease(store);
  if (!holder.ok() && holder.status().code() != Code::kNotFound) return holder.status();
  const auto now = clock.WallNow();
  if (holder.ok() && holder->run_id != dump_id && !holder->IsStale(now)) {
    return Status::InvalidArgument(fmt::format(
        "{} refused: it is of dump {}, but the run holding {} is {}", kShardPlanKey, dump_id,
        kLeaseKey, holder->Describe(now)));
  }
  return Status::OK();
}

// The plan's units of this shard, as work units this worker's database can read.
Result<std::vector<WorkUnit>> ResolveUnits(Database& db, const DumpOptions& options,
                                           const std::vector<PlannedUnit>& planned) {
  std::vector<WorkUnit> units;
  std::vector<TableInfo> tables;
  for (const PlannedUnit& p : planned) {
    TableInfo info{p.table, p.estimated_rows, p.estimated_bytes, ""};
    if (p.is_query) {
      // The SQL is this worker's own (--query), never the plan's.
      auto q = std::find_if(options.queries.begin(), options.queries.end(),
                            [&](const NamedQuery& n) { return n.name == p.table.name; });
      if (p.table.schema != "query" || q == options.queries.end()) {
        return Status::InvalidArgument(fmt::format(
            "the plan names query {} that this worker was not given", p.table.QualifiedName()));
      }
      info.query = q->sql;
    } else if (std::none_of(tables.begin(), tables.end(),
                            [&](const TableInfo& t) { return t.ref == p.table; })) {
      tables.push_back(info);
    }
    WorkUnit unit{info, p.index, p.count, p.range_predicate};
    Status ok = db.CheckUnit(unit);
    if (!ok.ok()) return Status::Corruption(fmt::format("{}: {}", kShardPlanKey, ok.message()));
    units.push_back(std::move(unit));
  }
  // Describes the tables in batches and locks them (ACCESS SHARE, as the coordinator holds).
  LD_RETURN_IF_ERROR(db.LockTables(tables));
  return units;
}

// The units that remain to run: `units` less those taken over.
std::vector<WorkUnit> RemainingUnits(std::vector<WorkUnit> units,
                                     const std::vector<UnitOutput>& taken_over) {
  std::set<std::tuple<std::string, std::string, int>> taken;
  for (const UnitOutput& t : taken_over) taken.emplace(t.table.schema, t.table.name, t.unit);
  std::erase_if(units, [&](const WorkUnit& u) {
    return taken.contains({u.table.ref.schema, u.table.ref.name, u.index});
  });
  return units;
}

// Runs `units`, recording each finished one in this attempt's progress object; when the run
// stops short (interrupted or failed), the progress object is written once more.
Result<std::vector<UnitOutput>> RunUnitsWithProgress(Database& db, ObjectStore& store,
                                                     const DumpOptions& options,
                                                     const WorkerOptions& worker,
                                                     const std::string& dump_id,
                                                     const std::string& attempt,
                                                     const std::string& token,
                                                     const std::vector<WorkUnit>& units,
                                                     std::stop_token stop) {
  if (units.empty()) return std::vector<UnitOutput>();
  ShardProgressWriter progress(ProgressWriterOptions{
      .data_store = &store,
      .store = worker.progress_store != nullptr ? worker.progress_store : &store,
      .dump_id = dump_id,
      .shard = worker.shard,
      .attempt = attempt,
      .token = token,
      .sign_key = options.sign_key,
      .interval = worker.progress_interval,
      .log = worker.warn,
      .clock = worker.clock});
  // The attempt's id names its data files.
  const UnitExporter exporter(&db, &store, options, attempt, /*progress=*/nullptr, worker.trace);
  auto outputs = ExportWorkerUnits(
      exporter, units, [&progress](const UnitOutput& u) { progress.Add(u); }, stop);
  // Stopped short: what finished is on record for the next attempt (best effort; a failed
  // write was logged).
  progress.Stop(/*final_write=*/!outputs.ok()).IgnoreError();
  return outputs;
}

Result<WorkerResult> RunPlanned(Database& db, ObjectStore& store, const DumpOptions& options,
                                const WorkerOptions& worker, const ShardPlan& plan,
                                const std::string& attempt, bool* coordinator_gone,
                                std::stop_token stop) {
  std::optional<TraceSpan> phase(std::in_place, worker.trace, "resolve units", "phase");
  const std::vector<PlannedUnit>& planned = plan.shards[worker.shard];
  const std::string& token = plan.attempt_tokens[worker.shard];
  LD_ASSIGN_OR_RETURN(std::vector<WorkUnit> units, ResolveUnits(db, options, planned));
  // A retry: what earlier attempts of this shard finished is kept, not dumped again.
  LD_ASSIGN_OR_RETURN(
      TakenOverUnits taken,
      TakeOverEarlierAttempts(store,
                              EarlierAttempts{plan.dump_id, worker.shard, token, options.sign_key},
                              planned, worker.warn));
  if (!taken.units.empty() && worker.log) {
    std::string from;
    for (const auto& [earlier, n] : taken.attempts) {
      from += fmt::format("{}{}: {}", from.empty() ? "" : ", ", earlier, n);
    }
    worker.log(fmt::format("shard {}: {} of {} units taken over from earlier attempts ({}); "
                           "{} to dump",
                           worker.shard, taken.units.size(), planned.size(), from,
                           planned.size() - taken.units.size()));
  }
  units = RemainingUnits(std::move(units), taken.units);
  phase.emplace(worker.trace, "units", "phase");
  LD_ASSIGN_OR_RETURN(std::vector<UnitOutput> outputs,
                      RunUnitsWithProgress(db, store, options, worker, plan.dump_id, attempt,
                                           token, units, stop));
  const uint64_t taken_over = taken.units.size();
  for (UnitOutput& u : taken.units) outputs.push_back(std::move(u));
  phase.emplace(worker.trace, "report", "phase");
  // Rows read after the worker's own session lost its locks may be wrong; a dead
  // coordinator commits nothing.
  {
    TraceSpan span(worker.trace, "check snapshot and coordinator", "shard");
    LD_RETURN_IF_ERROR(db.CheckSnapshotHeld());
    LD_RETURN_IF_ERROR(CheckCoordinatorAlive(store, plan.dump_id, *worker.clock, coordinator_gone));
  }
  ShardReport report;
  report.dump_id = plan.dump_id;
  report.shard = worker.shard;
  report.attempt = attempt;
  report.token = token;
  report.finished_at = FormatUtc(worker.clock->WallNow());
  WorkerResult result;
  result.dump_id = plan.dump_id;
  result.attempt = attempt;
  result.units = outputs.size();
  result.taken_over_units = taken_over;
  for (const UnitOutput& u : outputs) {
    for (const DataFile& f : u.files) {
      ++result.files;
      result.rows += f.rows;
      result.bytes += f.bytes;
    }
  }
  report.units = std::move(outputs);
  LD_ASSIGN_OR_RETURN(std::string text, SerializeShardReport(report, options.sign_key));
  const std::string key = ShardReportKey(worker.shard, attempt, /*failed=*/false);
  LD_RETURN_IF_ERROR(store.SyncWritten().WithContext("making the shard's files durable"));
  TraceSpan span(worker.trace, fmt::format("write report ({} bytes)", text.size()), "shard");
  LD_RETURN_IF_ERROR(store.PutObject(key, text).WithContext(key));
  LD_RETURN_IF_ERROR(store.SyncWritten().WithContext(key));
  return result;
}

// The plan can be joined by this worker: its shard count and options.
Status CheckPlanJoinable(const ShardPlan& plan, const WorkerOptions& worker,
                         const ObjectStore& store) {
  if (static_cast<int>(plan.shards.size()) != worker.shards) {
    return Status::InvalidArgument(fmt::format(
        "--shards {} disagrees with the plan of dump {} in {}, which has {} shards",
        worker.shards, plan.dump_id, store.Describe(), plan.shards.size()));
  }
  if (const std::string diff = OptionsMismatch(plan.options, worker.matching); !diff.empty()) {
    return Status::InvalidArgument(fmt::format(
        "the plan in {} is of dump {}, made with other options than this worker's: {}",
        store.Describe(), plan.dump_id, diff));
  }
  return Status::OK();
}

// Nothing left to do (the dump committed, or another attempt of this index reported): the
// outcome; nullopt when this attempt is to run the shard.
Result<std::optional<WorkerResult>> NothingToDo(ObjectStore& store, const ShardPlan& plan,
                                                 int shard) {
  WorkerResult result;
  result.dump_id = plan.dump_id;
  // Committed already (a late duplicate attempt): nothing to do.
  if (CommittedAlready(store, plan.dump_id)) {
    result.outcome = WorkerOutcome::kAlreadyCommitted;
    return std::optional<WorkerResult>(std::move(result));
  }
  // Another attempt of this index reported already: nothing to add.
  const std::string mine =
      fmt::format("{}{}/report-{}-s{}-", kShardReportsPrefix, shard, plan.dump_id, shard);
  LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> reported, store.List(mine));
  if (reported.empty()) return std::optional<WorkerResult>();
  result.outcome = WorkerOutcome::kAlreadyReported;
  const std::string prefix = fmt::format("{}{}/report-", kShardReportsPrefix, shard);
  result.attempt = reported.front().key.substr(prefix.size());
  if (result.attempt.ends_with(kShardDocumentSuffix)) {
    result.attempt.resize(result.attempt.size() - kShardDocumentSuffix.size());
  }
  return std::optional<WorkerResult>(std::move(result));
}

// The snapshot this worker reads: the coordinator's, or (--no-snapshot) one of its own; and
// the source must be the plan's.
Status TakeSnapshot(Database& db, const ObjectStore& store, const ShardPlan& plan,
                    bool* coordinator_gone) {
  if (OptionsSayNoSnapshot(plan.options)) {
    // --no-snapshot: a snapshot of this worker's own (its units agree with each other, not
    // with the other workers').
    LD_RETURN_IF_ERROR(db.BeginSnapshot());
  } else {
    Status imported = db.ImportSnapshot(plan.snapshot_id);
    if (!imported.ok()) {
      *coordinator_gone = imported.code() == Code::kUnavailable;
      return imported;
    }
  }
  if (db.Identity() != plan.source) {
    return Status::InvalidArgument(fmt::format(
        "the plan in {} is of dump {} of another database ({}; this worker reads {})",
        store.Describe(), plan.dump_id, plan.source.dump(), db.Identity().dump()));
  }
  return Status::OK();
}

// Tells the coordinator that attempt `attempt` failed with `error`, so that it fails now
// rather than at its timeout (best effort: the store may be what failed).
void WriteFailureReport(ObjectStore& store, const ShardPlan& plan, int shard,
                        const std::string& attempt, const Status& error, Clock& clock,
                        std::string_view sign_key) {
  ShardReport failed;
  failed.dump_id = plan.dump_id;
  failed.shard = shard;
  failed.attempt = attempt;
  failed.token = plan.attempt_tokens[shard];
  failed.finished_at = FormatUtc(clock.WallNow());
  failed.failed = true;
  failed.error = error.ToString();
  if (auto text = SerializeShardReport(failed, sign_key); text.ok()) {
    store.PutObject(ShardReportKey(shard, attempt, /*failed=*/true), *text).IgnoreError();
  }
}

// Runs the shard as attempt `attempt` (RunPlanned), and sorts out how a failure ends.
Result<WorkerResult> RunAttempt(Database& db, ObjectStore& store, const DumpOptions& options,
                                const WorkerOptions& worker, const ShardPlan& plan,
                                const std::string& attempt, bool* coordinator_gone,
                                std::stop_token stop) {
  auto ran = RunPlanned(db, store, options, worker, plan, attempt, coordinator_gone, stop);
  if (!ran.ok() && *coordinator_gone && CommittedAlready(store, plan.dump_id)) {
    // The coordinator took another attempt of this shard, committed and left while this one
    // still ran (two attempts of one index at once): this one's files are a loser's, which
    // gc removes; the dump is done.
    if (worker.log) {
      worker.log(fmt::format("shard {}: dump {} was committed with another attempt of this "
                             "shard; this attempt's files ({}) are left for lakedump gc",
                             worker.shard, plan.dump_id, attempt));
    }
    WorkerResult result;
    result.dump_id = plan.dump_id;
    result.outcome = WorkerOutcome::kAlreadyCommitted;
    result.attempt = attempt;
    return result;
  }
  if (!ran.ok() && !stop.stop_requested() && !*coordinator_gone &&
      ran.status().code() != Code::kCancelled) {
    WriteFailureReport(store, plan, worker.shard, attempt, ran.status(), *worker.clock,
                       options.sign_key);
  }
  return ran;
}

}  // namespace

Result<WorkerResult> RunShardWorker(Database& db, ObjectStore& store, const DumpOptions& options,
                                    const WorkerOptions& worker, WorkerFailure* failure,
                                    std::stop_token stop) {
  *failure = WorkerFailure{};
  bool* coordinator_gone = &failure->coordinator_gone;
  if (worker.shards < 1 || worker.shards > kMaxShards || worker.shard < 0 ||
      worker.shard >= worker.shards) {
    return Status::InvalidArgument(fmt::format(
        "--shard {} is out of range for --shards {} (0 to {})", worker.shard, worker.shards,
        worker.shards - 1));
  }
  std::optional<TraceSpan> phase(std::in_place, worker.trace, "wait for plan", "phase");
  std::string committed;
  LD_ASSIGN_OR_RETURN(std::optional<ShardPlan> waited,
                      WaitForPlan(store, options, worker, &committed, stop));
  if (!waited) {
    // Late: the dump was committed (and its plan removed) before this attempt started.
    WorkerResult result;
    result.dump_id = committed;
    result.outcome = WorkerOutcome::kAlreadyCommitted;
    return result;
  }
  const ShardPlan& plan = *waited;
  phase.emplace(worker.trace, "join", "phase");
  LD_RETURN_IF_ERROR(CheckPlanJoinable(plan, worker, store));
  LD_ASSIGN_OR_RETURN(std::optional<WorkerResult> done, NothingToDo(store, plan, worker.shard));
  if (done) return std::move(*done);
  LD_RETURN_IF_ERROR(CheckPlanIsLeaseHolders(store, plan.dump_id, *worker.clock));
  LD_RETURN_IF_ERROR(CheckCoordinatorAlive(store, plan.dump_id, *worker.clock, coordinator_gone));
  LD_RETURN_IF_ERROR(TakeSnapshot(db, store, plan, coordinator_gone));
  // Nothing is written for a plan that names anything this worker's selection does not.
  LD_RETURN_IF_ERROR(CheckPlanWithinSelection(db, options, plan));
  const std::string attempt = NewAttemptId(plan.dump_id, worker.shard);
  if (worker.log) {
    worker.log(fmt::format("shard {} of {}: {} units of dump {} (attempt {})", worker.shard,
                           worker.shards, plan.shards[worker.shard].size(), plan.dump_id,
                           attempt));
  }
  failure->started = true;
  phase.reset();
  return RunAttempt(db, store, options, worker, plan, attempt, coordinator_gone, stop);
}

}  // namespace lakedump
