#include "cli/dump_shard_command.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>

#include "base/units.h"
#include "lake/no_snapshot.h"
#include "dump/shard/shard_worker.h"

namespace lakedump::cli {
namespace {

// The worker's index and shard count, from --shard I and --shards N, or (--shard auto) from
// the scheduler's environment. InvalidArgument (exit 2) for anything that does not fit.
Status ResolveShardIndex(const DumpArgs& a, WorkerOptions* worker) {
  if (a.shard == "auto") {
    LD_ASSIGN_OR_RETURN(worker->shard, ShardIndexFromEnv(&std::getenv));
    LD_ASSIGN_OR_RETURN(std::optional<int> count, ShardCountFromEnv(&std::getenv));
    worker->shards = a.shards > 0 ? a.shards : count.value_or(0);
    if (worker->shards == 0) {
      return Status::InvalidArgument(
          "--shard auto: pass --shards N (only Slurm sets SLURM_ARRAY_TASK_COUNT)");
    }
  } else {
    int index = -1;
    const auto [end, ec] = std::from_chars(a.shard.data(), a.shard.data() + a.shard.size(), index);
    if (ec != std::errc() || end != a.shard.data() + a.shard.size() || index < 0) {
      return Status::InvalidArgument(
          fmt::format("--shard \"{}\": expected a shard index (0 to N-1) or auto", a.shard));
    }
    worker->shard = index;
    worker->shards = a.shards;
    if (worker->shards == 0) return Status::InvalidArgument("--shard I needs --shards N");
  }
  if (worker->shard >= worker->shards) {
    return Status::InvalidArgument(
        fmt::format("--shard {} is out of range for --shards {} (0 to {})", worker->shard,
                    worker->shards, worker->shards - 1));
  }
  return Status::OK();
}

// A worker's outcome: one line, or JSON with --json.
void PrintWorkerResult(const DumpArgs& a, const WorkerOptions& worker, const WorkerResult& r) {
  std::string line;
  switch (r.outcome) {
    case WorkerOutcome::kDone:
      line = fmt::format("shard {} of {} of dump {}: {} units, {} rows, {} files, {} (attempt {})",
                         worker.shard, worker.shards, r.dump_id, r.units,
                         FormatCount(static_cast<double>(r.rows)), r.files,
                         FormatBytes(r.bytes), r.attempt);
      if (r.taken_over_units > 0) {
        line += fmt::format("; {} of the units taken over from earlier attempts",
                            r.taken_over_units);
      }
      break;
    case WorkerOutcome::kAlreadyReported:
      line = fmt::format("shard {} of dump {} was already dumped by attempt {}: nothing to do",
                         worker.shard, r.dump_id, r.attempt);
      break;
    case WorkerOutcome::kAlreadyCommitted:
      line = fmt::format("dump {} is committed already: nothing to do", r.dump_id);
      break;
  }
  if (a.json) {
    static constexpr const char* kOutcome[] = {"done", "already_reported", "already_committed"};
    std::printf("%s\n", DisplayJson(nlohmann::json(
                                        {{"status", "ok"},
                                         {"outcome", kOutcome[static_cast<int>(r.outcome)]},
                                         {"dump_id", r.dump_id},
                                         {"shard", worker.shard},
                                         {"attempt", r.attempt},
                                         {"units", r.units},
                                         {"taken_over_units", r.taken_over_units},
                                         {"rows", r.rows},
                                         {"files", r.files},
                                         {"bytes", r.bytes}}))
                            .c_str());
  } else {
    std::printf("%s\n", line.c_str());
  }
}

}  // namespace

int RunShardWorkerCommand(const DumpArgs& a, DumpOptions options) {
  InterruptWatcher interrupt(
      "this attempt reports nothing; a retry of the shard takes over the units it finished");
  WorkerOptions worker;
  if (Status s = ResolveShardIndex(a, &worker); !s.ok()) return PrintError(s, kExitUsage);
  worker.plan_timeout = *ParseDuration(a.plan_timeout);
  worker.matching = MatchingOptions(a, options);
  worker.log = LogLines(options.progress);
  worker.warn = [](const std::string& line) {
    std::fprintf(stderr, "lakedump: warning: %s\n", OneLine(line).c_str());
  };

  SourceOptions source_options = BuildSourceOptions(a, options);
  source_options.stop = interrupt.token();
  auto db = OpenDatabase(a.source, source_options);
  if (!db.ok()) {
    return PrintError(db.status(), db.status().code() == Code::kInvalidArgument ? kExitUsage
                                                                                : kExitFailed);
  }
  options.store.stop = interrupt.token();
  std::unique_ptr<ObjectStore> store;
  if (int rc = OpenCommandStore(a.dest, a.s3, options.store, &store); rc != kExitOk) return rc;
  // The progress object still goes out on SIGTERM (a retry takes over what it lists).
  std::unique_ptr<ObjectStore> progress_store;
  if (int rc = OpenUncancelledStore(a.dest, a.s3, options.store, &progress_store); rc != kExitOk) {
    return rc;
  }
  worker.progress_store = progress_store.get();
  std::unique_ptr<TraceRecorder> trace;
  if (!a.trace.empty()) trace = std::make_unique<TraceRecorder>();
  worker.trace = trace.get();
  WorkerFailure failure;
  auto result = RunShardWorker(**db, *store, options, worker, &failure, interrupt.token());
  if (trace) {
    if (Status ts = trace->WriteFile(a.trace); !ts.ok()) PrintError(ts, kExitFailed);
  }
  if (!result.ok()) {
    const Status& s = result.status();
    const int code = failure.coordinator_gone ? kExitCoordinatorGone
                     : s.code() == Code::kInvalidArgument && !failure.started ? kExitUsage
                                                                              : kExitFailed;
    if (a.json) {
      std::printf("%s\n", DisplayJson(nlohmann::json({{"status", "error"},
                                                       {"shard", worker.shard},
                                                       {"error", OneLine(s.message())}}))
                              .c_str());
    }
    if (interrupt.interrupted()) return PrintError(Status::Cancelled("interrupted"), kExitFailed);
    return PrintError(s, code);
  }
  PrintWorkerResult(a, worker, *result);
  return kExitOk;
}

ShardCoordinatorGlue::ShardCoordinatorGlue(const DumpArgs& a, const DumpOptions& options,
                                           ObjectStore* store, Database* db,
                                           SnapshotReleasingDatabase* no_snapshot_db,
                                           ExportService* service, TraceRecorder* trace)
    : store_(store), db_(db), no_snapshot_db_(no_snapshot_db), service_(service) {
  options_.shards = a.shards;
  options_.trace = trace;
  options_.shard_timeout = *ParseDuration(a.shard_timeout);
  options_.matching = MatchingOptions(a, options);
  options_.sign_key = options.sign_key;
  options_.log = LogLines(options.progress);
  if (no_snapshot_db) {
    // Sharded dumps take no other manifest hook (--incremental is refused with --shards).
    service->set_manifest_hook([](DumpManifest* d) {
      if (!d->options.is_object()) d->options = nlohmann::json::object();
      d->options[kNoSnapshotKey] = true;
      return Status::OK();
    });
  }
}

Result<DumpResult> ShardCoordinatorGlue::Run(std::stop_token stop) {
  return service_->RunSharded(
      [this](const DumpPlan& plan, const ExportService::RemoteUnitSink& sink,
             std::stop_token run_stop) { return RunShards(plan, sink, run_stop); },
      stop);
}

Status ShardCoordinatorGlue::RunShards(const DumpPlan& plan,
                                       const ExportService::RemoteUnitSink& sink,
                                       std::stop_token stop) {
  // --no-snapshot: planned (and the schema captured), the coordinator lets go of the source
  // before any worker starts, and checks each shard's columns against the plan before its
  // tables are committed.
  if (no_snapshot_db_) LD_RETURN_IF_ERROR(no_snapshot_db_->Release(stop));
  return RunShardCoordinator(
      *store_, *db_, service_->run_id(), plan, options_,
      [&](std::vector<UnitOutput> outputs) {
        if (no_snapshot_db_) LD_RETURN_IF_ERROR(no_snapshot_db_->CheckColumnsAsPlanned(outputs));
        return sink(std::move(outputs));
      },
      &taken_files_, stop);
}

void ShardCoordinatorGlue::SweepAfterCommit(ObjectStore& store, const std::string& run_id,
                                            std::vector<std::string>* warnings) const {
  // Committed: the plan, the reports and the losing attempts' files go (a loser still
  // running may add more: lakedump gc removes them).
  uint64_t swept = 0;
  Status s = SweepShardLeftovers(store, run_id, taken_files_, &swept);
  if (!s.ok()) {
    warnings->push_back(fmt::format(
        "the dump is committed, but its plan, shard reports or losing attempts' files "
        "could not all be deleted ({}): lakedump gc deletes them",
        s.message()));
  }
}

}  // namespace lakedump::cli
