// The coordinator of a sharded dump (docs/scale-out.md): writes DEST/_plan.json create-only
// (its snapshot, source identity, options and the units of each shard), then waits for every
// shard's report, takes the first complete one per shard, checks that the files it names (its
// own, or an earlier attempt's of the same shard that it took over) exist with their sizes,
// and hands its units to ExportService, which commits the tables they complete while the other
// shards still run. Before a shard reports, the units its attempts' progress objects record
// as finished (checked as a retry checks them, shard_progress.h) are handed over too, so that
// most tables are committed while the workers still run; each unit is handed over once, from
// the first attempt seen to finish it. Progress objects are not reports: the manifest waits
// for every shard's report.
// Also the sweep, after the commit, of what the plan, the reports and losing attempts left.
//
// Runs on the caller's thread; borrows the store and the database (both thread-safe).
#pragma once

#include <chrono>
#include <functional>
#include <set>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "dump/planner.h"
#include "dump/shard/shard_plan.h"
#include "base/clock.h"
#include "base/trace.h"
#include "source/table_source.h"
#include "store/object_store.h"

namespace lakedump {

struct CoordinatorOptions {
  int shards = 1;
  // How long to wait for all reports, from the plan's write (--shard-timeout).
  std::chrono::milliseconds shard_timeout{std::chrono::hours(24)};
  // How often the reports are listed: every poll_interval, and every fast_poll_interval
  // once a shard has reported (the plan balances the shards, so the others are due) or a
  // worker's progress object was read (the workers run), and for the first fast_poll_window
  // (a short dump's reports come soon).
  std::chrono::milliseconds poll_interval{1000};
  std::chrono::milliseconds fast_poll_interval{200};
  std::chrono::milliseconds fast_poll_window{10'000};
  // How often the workers' progress objects are read for units to commit before their
  // reports (at least 3 times as long as the last such read took: a listing of DEST).
  std::chrono::milliseconds progress_interval{2000};
  nlohmann::json matching;  // ShardMatchingOptions()
  // A signed dump's key (--sign-key-file's bytes; "" unsigned): the plan carries its MAC, and
  // only reports and progress objects with the key's MAC are accepted.
  std::string sign_key;
  // How many of the workers' files are read back at once (each file whole: its checksums,
  // then its footer's row count) before their units are committed.
  size_t read_back_width = 8;
  // Progress lines ("shard 2 done ..."); may be empty.
  std::function<void(const std::string&)> log;
  // Spans of the plan's write and of each report's check (--trace); may be null. Borrowed.
  TraceRecorder* trace = nullptr;
  // The timeout, the polls and the plan's created_at read this clock (borrowed).
  Clock* clock = &SystemClock();
};

// Passes each shard's units to `sink` as soon as its report is taken and checked, or before,
// as its progress objects show them finished (on the caller's thread, one call at a time),
// and returns once every shard's report is in and all of its units have been passed (with a
// snapshot only: under --no-snapshot only reports are read). A unit is passed only once each
// of its files was read back and found as reported (size, checksums, rows). Errors: a shard's
// failure report (IOError naming the shard and its error), a malformed report, one without the
// attempt token the plan handed out for its shard, one naming files that do not read back as
// it says (Corruption; a signed dump: one without the key's MAC, PermissionDenied), the timeout
// (Unavailable naming the shards missing), the snapshot's session gone, `stop` (Cancelled),
// and the sink's own. Adds to *taken_files the keys of every file the reports taken name (a
// retry's report may name files of its shard's earlier attempts, which it took over).
Status RunShardCoordinator(ObjectStore& store, Database& db, const std::string& dump_id,
                           const DumpPlan& plan, const CoordinatorOptions& options,
                           const std::function<Status(std::vector<UnitOutput>)>& sink,
                           std::set<std::string>* taken_files, std::stop_token stop);

// After the commit of dump `dump_id`: deletes _plan.json, the shard reports and progress
// objects, and every object of an attempt of this dump (keys carrying "<dump_id>-s<I>-")
// that is not in `kept_files` (the files the committed dump lists: those of the attempts
// taken, including the files they took over from earlier attempts of their shard).
// Sets *deleted to how many objects went.
Status SweepShardLeftovers(ObjectStore& store, const std::string& dump_id,
                           const std::set<std::string>& kept_files, uint64_t* deleted);

// `lakedump gc`: a dead coordinator's lease. When DEST's lease is stale (not renewed for
// kStaleRenewals of its intervals by `clock`, or its holder's pid gone on this host) and DEST
// holds that run's _plan.json (a sharded dump's coordinator, dead before its commit), deletes
// the lease and the plan, so that any dump can start there again. The lease is read again just
// before it goes and left alone when it changed (a run took it over). Sets *removed to the dead
// holder's description, "" when nothing went.
Status RemoveDeadShardLease(ObjectStore& store, Clock& clock, std::string* removed);

}  // namespace lakedump
