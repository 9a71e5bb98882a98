#include "dump/shard/shard_coordinator.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "lake/dump_lease.h"
#include "lake/manifest.h"
#include "lake/metadata_io.h"
#include "lake/no_snapshot.h"
#include "dump/shard/shard_checks.h"
#include "dump/shard/shard_progress.h"

namespace lakedump {
namespace {

using SteadyClock = std::chrono::steady_clock;
using Listing = std::map<std::string, uint64_t>;  // key -> size, from one listing of DEST
// One listing of DEST per round, taken on the first call (see RunShardCoordinator's list_all).
using ListOnce = std::function<Result<const Listing*>()>;

// A progress object's version as listed: it is rewritten as its attempt finishes units.
std::string ListedVersion(const ObjectInfo& o) { return fmt::format("{}/{}", o.size, o.etag); }

// "_shards/<I>/report-<attempt>.json.zst" (or failed-, progress-) -> I, attempt, kind;
// nullopt for anything else.
struct ReportKey {
  int shard = 0;
  std::string attempt;
  bool failed = false;
  bool progress = false;
};
std::optional<ReportKey> ParseReportKey(std::string_view key) {
  if (!key.starts_with(kShardReportsPrefix) || !key.ends_with(kShardDocumentSuffix)) {
    return std::nullopt;
  }
  key.remove_prefix(kShardReportsPrefix.size());
  key.remove_suffix(kShardDocumentSuffix.size());
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash > 5) return std::nullopt;
  ReportKey r;
  for (char c : key.substr(0, slash)) {
    if (c < '0' || c > '9') return std::nullopt;
    r.shard = r.shard * 10 + (c - '0');
  }
  std::string_view name = key.substr(slash + 1);
  if (name.starts_with("report-")) {
    name.remove_prefix(7);
  } else if (name.starts_with("failed-")) {
    name.remove_prefix(7);
    r.failed = true;
  } else if (name.starts_with("progress-")) {
    name.remove_prefix(9);
    r.progress = true;
  } else {
    return std::nullopt;
  }
  r.attempt = std::string(name);
  return r;
}

// The report's units must be exactly the shard's planned units.
Status CheckReportUnits(const ShardReport& r, const std::vector<PlannedUnit>& planned,
                        std::string_view key) {
  std::set<std::string> want, got;
  for (const PlannedUnit& u : planned) want.insert(UnitName(u.table, u.index));
  for (const UnitOutput& u : r.units) {
    if (!got.insert(UnitName(u.table, u.unit)).second) {
      return Status::Corruption(fmt::format("{}: names unit {} twice", key,
                                            UnitName(u.table, u.unit)));
    }
  }
  if (want != got) {
    return Status::Corruption(fmt::format(
        "{}: reports {} units, not the {} units the plan gives shard {}", key, got.size(),
        want.size(), r.shard));
  }
  return Status::OK();
}

// The sizes of `files` at the destination (key -> size; a file not there is not in it): one
// HEAD each, a few at a time, when they are few (the units finished since a shard's last
// progress object), else from `listed()` (one listing of the dump root, whose cost grows with
// the dump, not with the files asked).
Result<Listing> SizesOf(ObjectStore& store, const std::vector<const DataFile*>& files,
                        const ListOnce& listed,
                        std::stop_token stop) {
  constexpr size_t kMaxHeads = 256;
  Listing sizes;
  if (files.size() > kMaxHeads) {
    LD_ASSIGN_OR_RETURN(const Listing* all, listed());
    for (const DataFile* f : files) {
      if (auto it = all->find(f->key); it != all->end()) sizes.insert(*it);
    }
    return sizes;
  }
  std::vector<std::optional<uint64_t>> found(files.size());
  LD_RETURN_IF_ERROR(ForEachMetadataIo(
      files.size(), MetadataIoWidth(1),
      [&](size_t i) -> Status {
        Result<ObjectInfo> head = store.Head(files[i]->key);
        if (!head.ok() && head.status().code() != Code::kNotFound) return head.status();
        if (head.ok()) found[i] = head->size;
        return Status::OK();
      },
      stop));
  for (size_t i = 0; i < files.size(); ++i) {
    if (found[i]) sizes[files[i]->key] = *found[i];
  }
  return sizes;
}

std::vector<const DataFile*> FilesOf(const std::vector<const UnitOutput*>& units) {
  std::vector<const DataFile*> files;
  for (const UnitOutput* u : units) {
    for (const DataFile& f : u->files) files.push_back(&f);
  }
  return files;
}

// Every file of `units` (of report `key`) reads back as recorded: size, checksums, rows.
Status CheckReportFiles(ObjectStore& store, const std::vector<const UnitOutput*>& units,
                        const CoordinatorOptions& options, std::string_view key,
                        std::stop_token stop) {
  return CheckFilesReadBack(store, FilesOf(units), !options.sign_key.empty(),
                            options.read_back_width, key, stop);
}

// ", 3 units taken over from earlier attempts" for a retry's report; "" otherwise.
std::string TakenOverNote(const ShardReport& r) {
  size_t units = 0;
  for (const UnitOutput& u : r.units) {
    units += std::any_of(u.files.begin(), u.files.end(), [&](const DataFile& f) {
      return AttemptOfKey(f.key, r.dump_id) != r.attempt;
    });
  }
  return units == 0 ? "" : fmt::format(", {} units taken over from earlier attempts", units);
}

// The units handed to the sink so far (each once), and the files they name.
class PassedUnits {
 public:
  explicit PassedUnits(std::set<std::string>* taken_files) : taken_files_(taken_files) {}
  // The units of `units` not passed before, now marked passed, their files kept.
  std::vector<UnitOutput> Fresh(std::vector<UnitOutput> units) {
    std::vector<UnitOutput> fresh;
    for (UnitOutput& u : units) {
      if (!names_.insert(UnitName(u.table, u.unit)).second) continue;
      // The manifest will list these files, so the sweep keeps them (and only them), whatever
      // attempt of the shard wrote them.
      for (const DataFile& f : u.files) taken_files_->insert(f.key);
      fresh.push_back(std::move(u));
    }
    return fresh;
  }
  bool Contains(const std::string& name) const { return names_.contains(name); }

 private:
  std::set<std::string>* taken_files_;
  std::set<std::string> names_;
};

// The units of progress object `o` (of shard rk.shard's attempt rk.attempt) that can be
// committed now: finished as recorded (WhyNotTakenOver, their files' sizes by SizesOf),
// planned for that shard, not passed yet. A progress object is a hint, never a failure: one
// that does not read, parse or match its name gives nothing (its shard's report still comes),
// and the files of a unit whose names are not its attempt's are never asked for.
std::vector<UnitOutput> UnitsFromProgress(ObjectStore& store, const ObjectInfo& o,
                                          const ReportKey& rk, const ShardPlan& sp,
                                          const std::set<std::string>& planned,
                                          const ListOnce& listed, const PassedUnits& passed,
                                          const CoordinatorOptions& options,
                                          std::stop_token stop) {
  const std::string& dump_id = sp.dump_id;
  std::vector<UnitOutput> out;
  if (o.size > kMaxShardDocumentBytes) return out;
  auto text = store.GetObject(o.key, kMaxShardDocumentBytes);
  if (!text.ok()) return out;
  auto progress = ParseShardProgress(*text, o.key, options.sign_key);
  if (!progress.ok() || progress->dump_id != dump_id || progress->shard != rk.shard ||
      progress->attempt != rk.attempt || progress->failed ||
      progress->token != sp.attempt_tokens[static_cast<size_t>(rk.shard)]) {
    return out;
  }
  std::vector<const UnitOutput*> candidates;
  for (const UnitOutput& u : progress->units) {
    const std::string name = UnitName(u.table, u.unit);
    if (passed.Contains(name) || !planned.contains(name)) continue;
    if (!WhyNotItsFileNames(u, rk.attempt, dump_id).empty()) continue;
    candidates.push_back(&u);
  }
  if (candidates.empty()) return out;
  auto sizes = SizesOf(store, FilesOf(candidates), listed, stop);
  if (!sizes.ok()) return out;
  std::vector<const UnitOutput*> sized;
  for (const UnitOutput* u : candidates) {
    if (WhyNotTakenOver(*u, rk.attempt, dump_id, *sizes).empty()) sized.push_back(u);
  }
  // Committed only once read back (a hint that does not check out waits for the report):
  // read_back_width units at a time, each unit's files one after the other.
  std::vector<char> read_back(sized.size(), 0);
  ForEachMetadataIo(
      sized.size(), options.read_back_width,
      [&](size_t i) {
        read_back[i] = CheckFilesReadBack(store, FilesOf({sized[i]}), !options.sign_key.empty(),
                                          /*width=*/1, o.key, stop)
                           .ok();
        return Status::OK();
      },
      stop)
      .IgnoreError();
  for (size_t i = 0; i < sized.size(); ++i) {
    if (read_back[i]) out.push_back(*sized[i]);
  }
  return out;
}

// Writes DEST/_plan.json (create-only) for `plan`'s units over options.shards shards.
Result<ShardPlan> WriteShardPlan(ObjectStore& store, Database& db, const std::string& dump_id,
                                 const DumpPlan& plan, const CoordinatorOptions& options,
                                 bool no_snapshot) {
  TraceSpan plan_span(options.trace, "write plan", "shard");
  const nlohmann::json described = db.Describe();
  ShardPlan sp;
  sp.dump_id = dump_id;
  sp.created_at = FormatUtc(options.clock->WallNow());
  // --no-snapshot: the plan names none (the workers each take their own).
  if (!no_snapshot) {
    sp.snapshot_id = described.value("snapshot_id", "");
    if (sp.snapshot_id.empty()) {
      return Status::InvalidArgument(
          "--shards: this source has no snapshot that other processes can share (SQLite in WAL "
          "mode): add --no-snapshot (each worker then reads the source on its own), or dump it "
          "on one machine");
    }
  }
  sp.source = db.Identity();
  sp.options = options.matching;
  std::vector<PlannedUnit> units;
  for (const PlannedTable& t : plan.tables) {
    for (const WorkUnit& u : t.units) units.push_back(ToPlannedUnit(u));
  }
  sp.shards = AssignUnits(std::move(units), options.shards);
  // The attempt tokens this plan hands out: only documents carrying their shard's count.
  for (int i = 0; i < options.shards; ++i) sp.attempt_tokens.push_back(NewAttemptToken());
  LD_ASSIGN_OR_RETURN(std::string text, SerializeShardPlan(sp, options.sign_key));
  // Under this run's lease nobody else writes here: a plan still there is a dead
  // coordinator's (--if-exists overwrite), and goes.
  const std::string plan_key(kShardPlanKey);
  LD_RETURN_IF_ERROR(store.Delete(std::span<const std::string>(&plan_key, 1)));
  LD_RETURN_IF_ERROR(store.PutObject(kShardPlanKey, text, WriteOptions{.create_only = true})
                         .WithContext(plan_key));
  if (options.log) {
    options.log(fmt::format("wrote {} for {} shards (dump {}, snapshot {}); waiting for the "
                            "workers' reports",
                            kShardPlanKey, options.shards, dump_id,
                            no_snapshot ? "none: --no-snapshot" : sp.snapshot_id));
  }
  return sp;
}

// The coordinator's wait for the shards' reports, round by round (RunShardCoordinator).
// One thread.
class ReportWaiter {
 public:
  using Sink = std::function<Status(std::vector<UnitOutput>)>;
  ReportWaiter(ObjectStore& store, Database& db, const ShardPlan& sp,
               const CoordinatorOptions& options, bool no_snapshot, const Sink& sink,
               std::set<std::string>* taken_files)
      : store_(store),
        db_(db),
        sp_(sp),
        options_(options),
        no_snapshot_(no_snapshot),
        sink_(sink),
        taken_(static_cast<size_t>(options.shards), false),
        planned_(sp.shards.size()),
        passed_(taken_files) {
    for (size_t i = 0; i < sp.shards.size(); ++i) {
      for (const PlannedUnit& u : sp.shards[i]) planned_[i].insert(UnitName(u.table, u.index));
    }
  }

  // Rounds until every shard's report is in.
  Status Run(std::stop_token stop) {
    const auto plan_written = options_.clock->Now();
    const auto deadline = plan_written + options_.shard_timeout;
    next_progress_round_ = plan_written;
    for (;;) {
      if (stop.stop_requested()) return Status::Cancelled("interrupted");
      LD_ASSIGN_OR_RETURN(const bool read_progress, Round(stop));
      if (done_ == taken_.size()) return Status::OK();
      // The snapshot's session must live for the workers to import it (--no-snapshot:
      // released already, so OK).
      LD_RETURN_IF_ERROR(db_.CheckSnapshotHeld());
      if (options_.clock->Now() >= deadline) return TimedOut();
      // After a round of progress objects (reads, HEADs and commits: tenths of a second), a
      // report may have come in meanwhile: look again at once (the next round is paced).
      if (read_progress) continue;
      // A progress object says its worker is running and finishing units: its report may
      // come any moment (a worker queued for hours writes none, and is polled slowly).
      const bool due = done_ > 0 || !progress_read_.empty() ||
                       options_.clock->Now() - plan_written < options_.fast_poll_window;
      if (!options_.clock->SleepFor(due ? options_.fast_poll_interval : options_.poll_interval,
                                    stop)) {
        return Status::Cancelled("interrupted");
      }
    }
  }

 private:
  using ProgressDue = std::vector<std::pair<ObjectInfo, ReportKey>>;

  // One listing of the reports: takes every new report (their units to the sink together,
  // once their files read back as reported),
  // then, once done, reads the progress objects that changed. Returns whether it read them.
  Result<bool> Round(std::stop_token stop) {
    LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> reports, store_.List(kShardReportsPrefix));
    std::sort(reports.begin(), reports.end(),
              [](const ObjectInfo& a, const ObjectInfo& b) { return a.key < b.key; });
    std::optional<Listing> listed;  // read once per round, when needed
    const ListOnce list_all = [&]() -> Result<const Listing*> {
      if (!listed) {
        LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> all, store_.List(""));
        listed.emplace();
        for (const ObjectInfo& a : all) (*listed)[a.key] = a.size;
      }
      return &*listed;
    };
    ProgressDue progress_due;
    std::vector<UnitOutput> round_units;  // of the reports taken this round
    for (const ObjectInfo& o : reports) {
      const std::optional<ReportKey> rk = ParseReportKey(o.key);
      // Another dump's reports (an earlier one here) and other names are not ours.
      if (!rk || AttemptOfKey(rk->attempt, sp_.dump_id) != rk->attempt) continue;
      if (rk->shard >= options_.shards || taken_[rk->shard]) continue;
      if (rk->progress) {
        // --no-snapshot: each attempt reads the source on its own, so a table's units are
        // taken from one report (whose columns ExportService checks per report).
        if (!no_snapshot_ && progress_read_[o.key] != ListedVersion(o)) {
          progress_due.emplace_back(o, *rk);
        }
        continue;
      }
      if (!seen_.insert(o.key).second) continue;
      LD_RETURN_IF_ERROR(TakeReport(o, *rk, &round_units, stop));
    }
    if (!round_units.empty()) LD_RETURN_IF_ERROR(sink_(std::move(round_units)));
    if (done_ == taken_.size()) return false;
    // Units finished by the shards still running, committed before their reports.
    if (progress_due.empty() || options_.clock->Now() < next_progress_round_) return false;
    LD_RETURN_IF_ERROR(ReadProgress(progress_due, list_all, stop));
    return true;
  }

  // Report `o` read, checked against its name and the plan, its files checked; its units
  // not passed before go to *round_units.
  Status TakeReport(const ObjectInfo& o, const ReportKey& rk,
                    std::vector<UnitOutput>* round_units, std::stop_token stop) {
    TraceSpan check_span(options_.trace, fmt::format("check report of shard {}", rk.shard),
                         "shard");
    std::optional<TraceSpan> step(std::in_place, options_.trace, "read report", "shard");
    LD_ASSIGN_OR_RETURN(std::string body, store_.GetObject(o.key, kMaxShardDocumentBytes));
    LD_ASSIGN_OR_RETURN(ShardReport r, ParseShardReport(body, o.key, options_.sign_key));
    step.emplace(options_.trace, "check report files", "shard");
    if (r.dump_id != sp_.dump_id || r.shard != rk.shard || r.attempt != rk.attempt ||
        r.failed != rk.failed) {
      return Status::Corruption(fmt::format("{}: its content does not match its name", o.key));
    }
    if (r.token != sp_.attempt_tokens[static_cast<size_t>(r.shard)]) {
      return Status::Corruption(fmt::format(
          "{}: refused: attempt {} does not carry the attempt token this coordinator handed out "
          "for shard {}",
          o.key, r.attempt, r.shard));
    }
    if (r.failed) {
      return Status::IOError(fmt::format("shard {} failed (attempt {}): {}", r.shard,
                                         r.attempt, r.error));
    }
    LD_RETURN_IF_ERROR(CheckReportUnits(r, sp_.shards[r.shard], o.key));
    // The units committed already (from progress objects) had their files checked then.
    std::vector<const UnitOutput*> fresh;
    for (const UnitOutput& u : r.units) {
      if (!passed_.Contains(UnitName(u.table, u.unit))) fresh.push_back(&u);
    }
    LD_RETURN_IF_ERROR(CheckReportFiles(store_, fresh, options_, o.key, stop));
    ++done_;
    if (options_.log) {
      options_.log(fmt::format("shard {} reported (attempt {}{}); {} of {} shards done",
                               r.shard, r.attempt, TakenOverNote(r), done_, options_.shards));
    }
    taken_[r.shard] = true;
    // A unit committed already from a progress object stays as committed (its files are
    // whole and of this snapshot); this report's copy of it, if another attempt's, is a
    // leftover for the sweep. The reports of one round are committed together.
    for (UnitOutput& u : passed_.Fresh(std::move(r.units))) round_units->push_back(std::move(u));
    return Status::OK();
  }

  // The units the due progress objects record as finished go to the sink; the next round
  // of them is paced by how long this one read.
  Status ReadProgress(const ProgressDue& progress_due, const ListOnce& list_all,
                      std::stop_token stop) {
    SteadyClock::duration reading{0};  // the listing and the reads, not the commits
    for (const auto& [o, rk] : progress_due) {
      if (taken_[rk.shard]) continue;  // its report came in this round
      TraceSpan span(options_.trace, fmt::format("progress of shard {}", rk.shard), "shard");
      const auto read_started = options_.clock->Now();
      std::vector<UnitOutput> units =
          UnitsFromProgress(store_, o, rk, sp_, planned_[static_cast<size_t>(rk.shard)],
                            list_all, passed_, options_, stop);
      progress_read_[o.key] = ListedVersion(o);
      reading += options_.clock->Now() - read_started;
      if (!units.empty()) LD_RETURN_IF_ERROR(sink_(passed_.Fresh(std::move(units))));
    }
    next_progress_round_ = options_.clock->Now() + std::max<SteadyClock::duration>(
                                                    options_.progress_interval, 3 * reading);
    return Status::OK();
  }

  Status TimedOut() const {
    std::string missing;
    for (size_t i = 0; i < taken_.size(); ++i) {
      if (!taken_[i]) missing += fmt::format("{}{}", missing.empty() ? "" : ", ", i);
    }
    return Status::Unavailable(fmt::format(
        "--shard-timeout passed with shards {} not reported (are their workers running "
        "against the same DEST?)",
        missing));
  }

  ObjectStore& store_;
  Database& db_;
  const ShardPlan& sp_;
  const CoordinatorOptions& options_;
  const bool no_snapshot_;
  const Sink& sink_;
  std::vector<bool> taken_;                     // by shard: its report taken
  std::vector<std::set<std::string>> planned_;  // by shard: its units' names
  std::set<std::string> seen_;                  // the reports read
  // Progress objects read, by key: the size and ETag read (they are rewritten as units finish).
  std::map<std::string, std::string> progress_read_;
  PassedUnits passed_;
  SteadyClock::time_point next_progress_round_;
  size_t done_ = 0;
};

}  // namespace

Status RunShardCoordinator(ObjectStore& store, Database& db, const std::string& dump_id,
                           const DumpPlan& plan, const CoordinatorOptions& options,
                           const std::function<Status(std::vector<UnitOutput>)>& sink,
                           std::set<std::string>* taken_files, std::stop_token stop) {
  const bool no_snapshot = OptionsSayNoSnapshot(options.matching);
  LD_ASSIGN_OR_RETURN(const ShardPlan sp,
                      WriteShardPlan(store, db, dump_id, plan, options, no_snapshot));
  ReportWaiter waiter(store, db, sp, options, no_snapshot, sink, taken_files);
  return waiter.Run(stop);
}

Status SweepShardLeftovers(ObjectStore& store, const std::string& dump_id,
                           const std::set<std::string>& kept_files, uint64_t* deleted) {
  *deleted = 0;
  LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> objects, store.List(""));
  std::vector<std::string> gone;
  for (const ObjectInfo& o : objects) {
    if (o.key == kShardPlanKey || o.key.starts_with(kShardReportsPrefix)) {
      gone.push_back(o.key);
      continue;
    }
    if (!AttemptOfKey(o.key, dump_id).empty() && !kept_files.contains(o.key)) {
      gone.push_back(o.key);
    }
  }
  *deleted = gone.size();
  if (gone.empty()) return Status::OK();
  return store.Delete(gone);
}

Status RemoveDeadShardLease(ObjectStore& store, Clock& clock, std::string* removed) {
  removed->clear();
  auto holder = ReadLease(store);
  if (!holder.ok()) {
    return holder.status().code() == Code::kNotFound ? Status::OK() : holder.status();
  }
  const auto now = clock.WallNow();
  if (!holder->IsStale(now)) return Status::OK();
  auto text = store.GetObject(kShardPlanKey, kMaxShardDocumentBytes);
  if (!text.ok()) return text.status().code() == Code::kNotFound ? Status::OK() : text.status();
  auto plan = ParseShardPlan(*text, kShardPlanKey);
  if (!plan.ok() || plan->dump_id != holder->run_id) return Status::OK();
  // Read again: a run that took the lease over meanwhile keeps it.
  auto again = ReadLease(store);
  if (!again.ok() || again->run_id != holder->run_id ||
      again->renewed_unix_ms != holder->renewed_unix_ms) {
    return Status::OK();
  }
  const std::string keys[] = {std::string(kLeaseKey), std::string(kShardPlanKey)};
  LD_RETURN_IF_ERROR(store.Delete(keys));
  *removed = holder->Describe(now);
  return Status::OK();
}

}  // namespace lakedump
