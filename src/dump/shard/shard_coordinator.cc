#include "dump/shard/shard_coordinator.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "dump/dump_lease.h"
#include "dump/manifest.h"
#include "dump/no_snapshot.h"

namespace lakedump {
namespace {

using SteadyClock = std::chrono::steady_clock;

// "_shards/<I>/report-<attempt>.json" -> I, attempt, failed; nullopt for anything else.
struct ReportKey {
  int shard = 0;
  std::string attempt;
  bool failed = false;
};
std::optional<ReportKey> ParseReportKey(std::string_view key) {
  if (!key.starts_with(kShardReportsPrefix) || !key.ends_with(".json")) return std::nullopt;
  key.remove_prefix(kShardReportsPrefix.size());
  key.remove_suffix(5);
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

// Every file the report names exists with its recorded size (one listing of the dump root).
Status CheckReportFiles(const ShardReport& r, const std::map<std::string, uint64_t>& listed,
                        std::string_view key) {
  for (const UnitOutput& u : r.units) {
    for (const DataFile& f : u.files) {
      auto it = listed.find(f.key);
      if (it == listed.end()) {
        return Status::Corruption(fmt::format("{}: file {} is missing", key, f.key));
      }
      if (it->second != f.bytes) {
        return Status::Corruption(fmt::format("{}: file {} has {} bytes, the report says {}",
                                              key, f.key, it->second, f.bytes));
      }
    }
  }
  return Status::OK();
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

}  // namespace

Status RunShardCoordinator(ObjectStore& store, Database& db, const std::string& dump_id,
                           const DumpPlan& plan, const CoordinatorOptions& options,
                           const std::function<Status(std::vector<UnitOutput>)>& sink,
                           std::set<std::string>* taken_files, std::stop_token stop) {
  std::optional<TraceSpan> plan_span(std::in_place, options.trace, "write plan", "shard");
  const nlohmann::json described = db.Describe();
  ShardPlan sp;
  sp.dump_id = dump_id;
  sp.created_at = FormatUtc(std::chrono::system_clock::now());
  // --no-snapshot: the plan names none (the workers each take their own).
  const bool no_snapshot = OptionsSayNoSnapshot(options.matching);
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
  LD_ASSIGN_OR_RETURN(std::string text, SerializeMetadata(ToJson(sp), kShardPlanKey));
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
  plan_span.reset();

  const auto plan_written = SteadyClock::now();
  const auto deadline = plan_written + options.shard_timeout;
  std::vector<bool> taken(static_cast<size_t>(options.shards), false);
  std::set<std::string> seen;
  size_t done = 0;
  for (;;) {
    if (stop.stop_requested()) return Status::Cancelled("interrupted");
    LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> reports, store.List(kShardReportsPrefix));
    std::sort(reports.begin(), reports.end(),
              [](const ObjectInfo& a, const ObjectInfo& b) { return a.key < b.key; });
    std::optional<std::map<std::string, uint64_t>> listed;  // read once per round, when needed
    for (const ObjectInfo& o : reports) {
      if (!seen.insert(o.key).second) continue;
      const std::optional<ReportKey> rk = ParseReportKey(o.key);
      // Another dump's reports (an earlier one here) and other names are not ours.
      if (!rk || AttemptOfKey(rk->attempt, dump_id) != rk->attempt) continue;
      if (rk->shard >= options.shards || taken[rk->shard]) continue;
      TraceSpan check_span(options.trace, fmt::format("check report of shard {}", rk->shard),
                           "shard");
      LD_ASSIGN_OR_RETURN(std::string body, store.GetObject(o.key, kMaxShardDocumentBytes));
      LD_ASSIGN_OR_RETURN(ShardReport r, ParseShardReport(body, o.key));
      if (r.dump_id != dump_id || r.shard != rk->shard || r.attempt != rk->attempt ||
          r.failed != rk->failed) {
        return Status::Corruption(fmt::format("{}: its content does not match its name", o.key));
      }
      if (r.failed) {
        return Status::IOError(fmt::format("shard {} failed (attempt {}): {}", r.shard,
                                           r.attempt, r.error));
      }
      LD_RETURN_IF_ERROR(CheckReportUnits(r, sp.shards[r.shard], o.key));
      if (!listed) {
        LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> all, store.List(""));
        listed.emplace();
        for (const ObjectInfo& a : all) (*listed)[a.key] = a.size;
      }
      LD_RETURN_IF_ERROR(CheckReportFiles(r, *listed, o.key));
      ++done;
      if (options.log) {
        options.log(fmt::format("shard {} reported (attempt {}{}); {} of {} shards done",
                                r.shard, r.attempt, TakenOverNote(r), done, options.shards));
      }
      taken[r.shard] = true;
      // A retry's report may name files of the shard's earlier attempts: the manifest will
      // list them, so the sweep keeps them (and only them) whatever attempt wrote them.
      for (const UnitOutput& u : r.units) {
        for (const DataFile& f : u.files) taken_files->insert(f.key);
      }
      LD_RETURN_IF_ERROR(sink(std::move(r.units)));
    }
    if (done == taken.size()) break;
    // The snapshot's session must live for the workers to import it (--no-snapshot: released
    // already, so OK).
    LD_RETURN_IF_ERROR(db.CheckSnapshotHeld());
    if (SteadyClock::now() >= deadline) {
      std::string missing;
      for (size_t i = 0; i < taken.size(); ++i) {
        if (!taken[i]) missing += fmt::format("{}{}", missing.empty() ? "" : ", ", i);
      }
      return Status::Unavailable(fmt::format(
          "--shard-timeout passed with shards {} not reported (are their workers running "
          "against the same DEST?)",
          missing));
    }
    const bool due = done > 0 || SteadyClock::now() - plan_written < options.fast_poll_window;
    if (!SleepFor(due ? options.fast_poll_interval : options.poll_interval, stop)) {
      return Status::Cancelled("interrupted");
    }
  }
  return Status::OK();
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

}  // namespace lakedump
