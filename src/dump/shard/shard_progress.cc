#include "dump/shard/shard_progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <utility>

#include "lake/dump_lease.h"
#include "lake/manifest.h"
#include "lake/object_keys.h"

namespace lakedump {
namespace {

void LogLine(const LogFn& log, const std::string& line) {
  if (log) log(line);
}

}  // namespace

std::string WhyNotItsFileNames(const UnitOutput& unit, const std::string& attempt,
                               const std::string& dump_id) {
  const std::string prefix = TablePrefix(unit.table);
  // A unit's files are named part-<unit>-<seq>-<attempt>.parquet (DataFileKey).
  const std::string stem = fmt::format("part-{:04}-", unit.unit);
  // The first unit of a table always writes a file (an empty table's carries its schema).
  if (unit.unit == 0 && unit.files.empty()) return "it records no file";
  for (const DataFile& f : unit.files) {
    const std::string_view name = std::string_view(f.key).substr(f.key.rfind('/') + 1);
    if (!f.key.starts_with(prefix) || !name.starts_with(stem) ||
        AttemptOfKey(f.key, dump_id) != attempt) {
      return fmt::format("file {} is not one of its files", f.key);
    }
  }
  return "";
}

std::string WhyNotTakenOver(const UnitOutput& unit, const std::string& attempt,
                            const std::string& dump_id,
                            const std::map<std::string, uint64_t>& listed) {
  if (std::string why = WhyNotItsFileNames(unit, attempt, dump_id); !why.empty()) return why;
  for (const DataFile& f : unit.files) {
    auto it = listed.find(f.key);
    if (it == listed.end()) return fmt::format("file {} is missing", f.key);
    if (it->second != f.bytes) {
      return fmt::format("file {} has {} bytes, the progress object says {}", f.key, it->second,
                         f.bytes);
    }
  }
  return "";
}

ShardProgressWriter::ShardProgressWriter(ProgressWriterOptions options)
    : options_(std::move(options)), key_(ShardProgressKey(options_.shard, options_.attempt)) {
  thread_ = std::jthread([this](std::stop_token stop) {
    // Each write names every unit finished so far: a large object (many units) spaces the
    // next writes out (one interval per 256 KiB written), so that on the attempt's link they
    // stay a small share of its data.
    std::chrono::milliseconds wait = options_.interval;
    while (options_.clock->SleepFor(wait, stop)) {
      Result<size_t> written = WriteIfChanged();
      const size_t bytes = written.ok() ? *written : 0;
      wait = std::max(options_.interval,
                      options_.interval * static_cast<int64_t>(bytes / kProgressBytesPerInterval));
    }
  });
}

ShardProgressWriter::~ShardProgressWriter() { Stop(false).IgnoreError(); }

void ShardProgressWriter::Add(const UnitOutput& unit) {
  std::lock_guard<std::mutex> lock(mu_);
  units_.push_back(unit);
}

Status ShardProgressWriter::Stop(bool final_write) {
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
  return final_write ? WriteIfChanged().status() : Status::OK();
}

uint64_t ShardProgressWriter::writes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return writes_;
}

Result<size_t> ShardProgressWriter::WriteIfChanged() {
  std::lock_guard<std::mutex> write_lock(write_mu_);
  ShardReport progress;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (units_.size() == written_units_) return size_t{0};
    progress.units = units_;
  }
  progress.dump_id = options_.dump_id;
  progress.shard = options_.shard;
  progress.attempt = options_.attempt;
  progress.token = options_.token;
  progress.finished_at = FormatUtc(options_.clock->WallNow());
  const size_t units = progress.units.size();
  size_t bytes = 0;
  Status written = [&]() -> Status {
    LD_ASSIGN_OR_RETURN(std::string text, SerializeShardProgress(progress, options_.sign_key));
    bytes = text.size();
    // The files it names must be durable before anything names them.
    LD_RETURN_IF_ERROR(options_.data_store->SyncWritten());
    return options_.store->PutObject(key_, text);
  }();
  std::lock_guard<std::mutex> lock(mu_);
  if (written.ok()) {
    written_units_ = units;
    writes_ += 1;
    return bytes;
  }
  if (!failure_logged_) {
    failure_logged_ = true;
    LogLine(options_.log,
            fmt::format("shard {}: could not write {} ({}): a retry of the shard runs the "
                        "units since the last write again",
                        options_.shard, key_, written.message()));
  }
  return written.WithContext(key_);
}

Result<TakenOverUnits> TakeOverEarlierAttempts(ObjectStore& store, const EarlierAttempts& earlier,
                                               const std::vector<PlannedUnit>& planned,
                                               const LogFn& log) {
  const std::string& dump_id = earlier.dump_id;
  const int shard = earlier.shard;
  TakenOverUnits out;
  const std::string folder = fmt::format("{}{}/progress-", kShardReportsPrefix, shard);
  const std::string progress_prefix = folder + ShardAttemptPrefix(dump_id, shard);
  LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> objects, store.List(progress_prefix));
  if (objects.empty()) return out;
  std::sort(objects.begin(), objects.end(),
            [](const ObjectInfo& a, const ObjectInfo& b) { return a.key < b.key; });
  std::set<std::string> wanted;
  for (const PlannedUnit& u : planned) wanted.insert(UnitName(u.table, u.index));
  // One listing of DEST confirms every file taken over (as the coordinator confirms reports).
  LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> all, store.List(""));
  std::map<std::string, uint64_t> listed;
  for (const ObjectInfo& o : all) listed[o.key] = o.size;
  std::set<std::string> taken;
  for (const ObjectInfo& o : objects) {
    std::string attempt = o.key.substr(folder.size());
    if (!attempt.ends_with(kShardDocumentSuffix)) continue;
    attempt.resize(attempt.size() - kShardDocumentSuffix.size());
    auto ignore = [&](const std::string& why) {
      LogLine(log,
              fmt::format("shard {}: {} ignored ({}): its units run again", shard, o.key, why));
    };
    if (o.size > kMaxShardDocumentBytes) {
      ignore(fmt::format("larger than {} bytes", kMaxShardDocumentBytes));
      continue;
    }
    auto text = store.GetObject(o.key, kMaxShardDocumentBytes);
    if (!text.ok()) {
      ignore(text.status().message());
      continue;
    }
    auto progress = ParseShardProgress(*text, o.key, earlier.sign_key);
    if (!progress.ok()) {
      ignore(progress.status().message());
      continue;
    }
    if (progress->dump_id != dump_id || progress->shard != shard || progress->attempt != attempt ||
        progress->failed) {
      ignore("its content does not match its name");
      continue;
    }
    if (progress->token != earlier.token) {
      ignore("it does not carry the attempt token the plan hands out for this shard");
      continue;
    }
    for (UnitOutput& unit : progress->units) {
      const std::string name = UnitName(unit.table, unit.unit);
      if (!wanted.contains(name)) {
        LogLine(log, fmt::format("shard {}: unit {} of {} not taken over: the plan does not give "
                                 "it to this shard",
                                 shard, name, o.key));
        continue;
      }
      if (taken.contains(name)) continue;  // an earlier attempt's copy is taken already
      if (std::string why = WhyNotTakenOver(unit, attempt, dump_id, listed); !why.empty()) {
        LogLine(log, fmt::format("shard {}: unit {} of {} not taken over ({}): it runs again",
                                 shard, name, o.key, why));
        continue;
      }
      taken.insert(name);
      out.attempts[attempt] += 1;
      out.units.push_back(std::move(unit));
    }
  }
  return out;
}

}  // namespace lakedump
