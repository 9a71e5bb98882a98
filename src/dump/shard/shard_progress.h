// A retried shard resumes what its earlier attempts finished (docs/scale-out.md, "A retried
// shard"). While an attempt runs, ShardProgressWriter keeps its progress object
// (_shards/<I>/progress-<attempt>.json.zst: the units it has finished, with their files and
// sizes) up to date, and writes it once more when the attempt stops short. A new attempt of
// the same shard calls TakeOverEarlierAttempts to keep the units whose files are still there
// as recorded, and runs only the others.
//
// Progress objects are hostile input (anyone who can write DEST can plant one): a unit is
// taken over only when its object parses, names this dump, this shard and its own attempt,
// the unit is one of the shard's planned units, and every file is that attempt's, of that
// unit, under its table's folder, and listed with the recorded size.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "dump/shard/shard_plan.h"
#include "store/object_store.h"

namespace lakedump {

using LogFn = std::function<void(const std::string&)>;

struct ProgressWriterOptions {
  // Where the attempt's data files were written: made durable (SyncWritten) before each write
  // of the progress object that names them. Borrowed.
  ObjectStore* data_store = nullptr;
  // Where the progress object is written (the worker passes a handle that an interrupt does
  // not cancel, so that the last write still goes out on SIGTERM). Borrowed.
  ObjectStore* store = nullptr;
  std::string dump_id;
  int shard = 0;
  std::string attempt;
  std::string token;     // the plan's attempt token for this shard (ShardPlan::attempt_tokens)
  std::string sign_key;  // a signed dump's key: the object carries its MAC ("" unsigned)
  std::chrono::milliseconds interval{10'000};
  LogFn log;  // may be empty
  // The interval and the document's finished_at read this clock (borrowed).
  Clock* clock = &SystemClock();
};

// Records the units one attempt finishes and writes them to its progress object: every
// `interval` (one more interval per 256 KiB of the last write, as stored) while some were
// added since the last write (on a thread of its own), and on Stop(true). Thread-safe: Add()
// is called by the table tasks. The stores must outlive it.
class ShardProgressWriter {
 public:
  explicit ShardProgressWriter(ProgressWriterOptions options);
  ~ShardProgressWriter();  // Stop(false)
  ShardProgressWriter(const ShardProgressWriter&) = delete;
  ShardProgressWriter& operator=(const ShardProgressWriter&) = delete;

  void Add(const UnitOutput& unit);
  // Ends the periodic writes; with `final_write`, writes what was added since the last write
  // (nothing to write: OK). Idempotent.
  Status Stop(bool final_write);
  // Progress objects written so far (successfully).
  uint64_t writes() const;

 private:
  // Writes the units recorded so far when some are not written yet; the bytes written (0:
  // nothing new).
  Result<size_t> WriteIfChanged();
  static constexpr size_t kProgressBytesPerInterval = 256 * 1024;

  const ProgressWriterOptions options_;
  const std::string key_;
  mutable std::mutex mu_;
  std::vector<UnitOutput> units_;  // GUARDED_BY(mu_)
  size_t written_units_ = 0;       // GUARDED_BY(mu_)
  uint64_t writes_ = 0;            // GUARDED_BY(mu_)
  bool failure_logged_ = false;    // GUARDED_BY(mu_)
  std::mutex write_mu_;            // one write at a time (the thread's, then Stop's)
  std::jthread thread_;
};

// "" when every file `unit` names (as attempt `attempt` of dump `dump_id` recorded it) is that
// attempt's, of that unit, under its table's folder; else why not. Checked before any request
// names those files. A function of its arguments.
std::string WhyNotItsFileNames(const UnitOutput& unit, const std::string& attempt,
                               const std::string& dump_id);

// "" when `unit`, as attempt `attempt` of dump `dump_id` recorded it in its progress object,
// can be trusted: its file names pass WhyNotItsFileNames, and every file is in `listed`
// (key -> size) with the recorded size; else why not. A function of its arguments.
std::string WhyNotTakenOver(const UnitOutput& unit, const std::string& attempt,
                            const std::string& dump_id,
                            const std::map<std::string, uint64_t>& listed);

// What TakeOverEarlierAttempts kept.
struct TakenOverUnits {
  std::vector<UnitOutput> units;           // as the earlier attempts recorded them
  std::map<std::string, size_t> attempts;  // units kept per earlier attempt
};

// Who may hand units over: attempts of shard `shard` of dump `dump_id` that carry `token`
// (the plan's attempt token for the shard) and, in a signed dump (`sign_key`), the key's MAC.
struct EarlierAttempts {
  std::string dump_id;
  int shard = 0;
  std::string token;
  std::string sign_key;
};

// The units of `planned` that earlier attempts (`earlier`) of the shard finished, by their
// progress objects, kept when they pass the checks above (one listing of DEST confirms the
// files). Whatever does not pass is left out, to run again, with
// one line to `log` (may be empty) per progress object or unit left out. A unit two earlier
// attempts finished is taken from the first of them by key. Errors: the store's listings.
Result<TakenOverUnits> TakeOverEarlierAttempts(ObjectStore& store, const EarlierAttempts& earlier,
                                               const std::vector<PlannedUnit>& planned,
                                               const LogFn& log);

}  // namespace lakedump
