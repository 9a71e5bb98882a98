// A worker of a sharded dump (docs/scale-out.md): waits for DEST/_plan.json, checks that it
// belongs to a dump this worker can join (shard count, options, source), imports the
// coordinator's snapshot (or, in a --no-snapshot plan, takes one of its own), runs its shard's
// units with the usual parallelism, and writes its report under a name of its own attempt
// (_shards/<I>/report-<attempt>.json.zst), or a failure report (failed-<attempt>.json.zst)
// when the run fails after it started (not when it is interrupted: a scheduler may run the
// index again). A retry resumes: the units earlier attempts of the shard finished (their
// progress objects, checked) are taken over, not run again, and the report names their files;
// meanwhile this attempt keeps a progress object of its own (shard_progress.h).
//
// Runs on the caller's thread; borrows the store and the database (both thread-safe).
#pragma once

#include <chrono>
#include <functional>
#include <stop_token>
#include <string>

#include <nlohmann/json.hpp>

#include "dump/dump_options.h"
#include "base/clock.h"
#include "base/trace.h"
#include "source/table_source.h"
#include "store/object_store.h"

namespace lakedump {

struct WorkerOptions {
  int shard = 0;
  int shards = 1;
  // How long to wait for _plan.json to appear (--plan-timeout).
  std::chrono::milliseconds plan_timeout{std::chrono::minutes(10)};
  // How often the plan is looked for: every fast_poll_interval for the first
  // fast_poll_window (workers usually start with their coordinator, whose plan comes
  // within seconds), then every poll_interval.
  std::chrono::milliseconds poll_interval{500};
  std::chrono::milliseconds fast_poll_interval{50};
  std::chrono::milliseconds fast_poll_window{10'000};
  nlohmann::json matching;  // ShardMatchingOptions() of this worker
  std::function<void(const std::string&)> log;  // progress lines; may be empty
  // Warnings (shown even without progress lines): an earlier attempt's progress object or
  // unit not trusted, this attempt's progress object not written. May be empty.
  std::function<void(const std::string&)> warn;
  // The worker's phases and its table and file spans (--trace); may be null. Borrowed.
  TraceRecorder* trace = nullptr;
  // Where the attempt's progress object goes (shard_progress.h), every progress_interval
  // and once more when the attempt stops short: a handle that `stop` does not cancel (the
  // CLI's), so that it is still written on SIGTERM. Null: the dump's store. Borrowed.
  ObjectStore* progress_store = nullptr;
  // The coordinator commits the tables a progress object completes while the shards still
  // run, and a retry takes its units over: often enough that little is left for the end.
  std::chrono::milliseconds progress_interval{2'000};
  // The plan's wait, the polls, the progress object's interval and the lease's age read this
  // clock (borrowed).
  Clock* clock = &SystemClock();
};

enum class WorkerOutcome {
  kDone,              // this attempt ran the shard and wrote its report
  kAlreadyReported,   // another attempt of this index had already reported
  kAlreadyCommitted,  // the plan's dump is committed already
};

struct WorkerResult {
  WorkerOutcome outcome = WorkerOutcome::kDone;
  std::string dump_id;
  std::string attempt;  // kDone: this attempt; kAlreadyReported: the one that reported
  uint64_t units = 0, files = 0, rows = 0, bytes = 0;  // kDone: all the shard's units
  uint64_t taken_over_units = 0;  // kDone: of `units`, those an earlier attempt had finished
};

// Where a failed worker stopped, for its exit code.
struct WorkerFailure {
  bool coordinator_gone = false;  // its snapshot or lease is gone (exit 3)
  bool started = false;           // it had started dumping its units (errors: exit 1)
};

// Errors: InvalidArgument for a plan this worker cannot join (another shard count, other
// options, another source) and for a shard index out of range; NotFound when no plan appears
// within plan_timeout; with failure->coordinator_gone set, Unavailable when the coordinator's
// snapshot or lease is gone; Cancelled on `stop`; with failure->started set, any error of the
// run (after a failure report).
Result<WorkerResult> RunShardWorker(Database& db, ObjectStore& store, const DumpOptions& options,
                                    const WorkerOptions& worker, WorkerFailure* failure,
                                    std::stop_token stop);

}  // namespace lakedump
