// The run journal (docs/dump-format.md, "The run journal"): before a run writes an object
// under DEST it records the object's key in a journal object of its own,
// `_runs/<run id>/journal-<seq>.json`, appended in batches as new small objects (none is
// ever rewritten). What lakedump may delete at DEST is what a journal of a lakedump run
// names, plus the committed dump's own files (DestinationOwnership below); everything
// else is someone else's.
//
// A journal is untrusted input like any object in the bucket: a batch counts only when it
// parses, its run id is a run id and matches its key, and then only its keys of the
// shapes lakedump writes for that run (ClaimableByRun); anything else in it is ignored.
//
// Pure functions and values; thread-compatible.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "lake/manifest.h"
#include "store/object_store.h"

namespace lakedump {

inline constexpr std::string_view kRunsPrefix = "_runs/";
inline constexpr std::string_view kJournalFormat = "lakedump-run-journal";
// A journal batch larger than this is refused from its size (a batch of a 10,000-table
// plan is about 600 KB).
inline constexpr uint64_t kMaxJournalBytes = 8ull << 20;

// One journal object: what run `run_id` recorded in its batch `seq` (from 1).
struct JournalBatch {
  std::string run_id;
  uint64_t seq = 0;
  // Keys the run will write (or wrote).
  std::vector<std::string> keys;
  // Table folders "<schema>/<table>/" whose data files of this run
  // (part-<unit>-<seq>-<run>.parquet, also in a partition folder) the run will write.
  std::vector<std::string> table_folders;
  // Multipart uploads the run started: key and upload id.
  std::vector<std::pair<std::string, std::string>> uploads;
};

// "_runs/<run id>/journal-<seq, 6 digits>.json"
std::string JournalKey(std::string_view run_id, uint64_t seq);
// The run id of a key under _runs/ ("" when the key is not a journal key of a run id).
std::string JournalRunOf(std::string_view key);

std::string SerializeJournalBatch(const JournalBatch& batch);
// Refuses (Corruption, naming `key`) a batch that does not parse, is not a journal, or whose
// run id or seq is not the key's. Keys and folders of shapes the run cannot write are
// dropped (counted in *dropped when not null), not refused.
Result<JournalBatch> ParseJournalBatch(std::string_view text, std::string_view key,
                                       size_t* dropped = nullptr);

// True when `key` is of a shape that run `run_id` writes: a data file of the run
// (<s>/<t>/[<col>=<v>/]part-NNNN-NNNNN-<run>.parquet), a table commit (<s>/<t>/_table.json,
// <s>/<t>/_table-<run>.json), a table's Iceberg metadata (<s>/<t>/metadata/<name>), the
// schema archive (_schema/postgres.dump, _schema/postgres-<run>.dump). Also a valid key.
bool ClaimableByRun(std::string_view key, std::string_view run_id);
// True for a data file of run `run_id` under table folder `folder` ("<s>/<t>/").
bool IsDataFileOfRun(std::string_view key, std::string_view folder, std::string_view run_id);

// Everything the journals of one run claim.
struct RunClaims {
  std::string run_id;
  std::set<std::string> keys;
  std::set<std::string> table_folders;
  std::map<std::string, std::string> uploads;  // upload id -> key
  std::vector<std::string> journal_keys;      // its journal objects
  bool Claims(std::string_view key) const;
};

// What DEST holds and whose it is: read from one listing, the journals under _runs/ and the
// committed manifest. Thread-compatible once built.
class DestinationOwnership {
 public:
  enum class Owner {
    kForeign,   // no journal and no manifest names it: not lakedump's to delete
    kDump,      // the committed dump's own (named by its manifest, or of a table it commits)
    kRun,       // named by a run's journal
    kLakedump,  // lakedump's bookkeeping: the lease, journals, a sharded dump's plan/reports
  };

  // Reads the journals (a journal object that does not parse is ignored, with a warning)
  // and the committed manifest (if any). `listing`: the destination's objects.
  static Result<DestinationOwnership> Read(ObjectStore& store, std::vector<ObjectInfo> listing);

  Owner OwnerOf(std::string_view key) const;
  // The run whose journal claims `key` ("" for none). A key may be claimed by several; the
  // first in run id order.
  std::string RunClaiming(std::string_view key) const;
  // The run that started multipart upload `upload_id` by its journal ("" for none).
  std::string RunOfUpload(std::string_view upload_id) const;
  // Objects of the listing that are kForeign, sorted.
  std::vector<std::string> Foreign() const;
  const std::vector<ObjectInfo>& listing() const { return listing_; }
  const std::map<std::string, RunClaims>& runs() const { return runs_; }
  bool has_manifest() const { return manifest_.has_value(); }
  const std::optional<DumpManifest>& manifest() const { return manifest_; }
  // Nothing of lakedump at DEST: no manifest, no journal, no lease, no plan.
  bool holds_no_dump() const;
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  bool OwnedByDump(std::string_view key) const;

  std::vector<ObjectInfo> listing_;
  std::map<std::string, RunClaims> runs_;  // by run id
  std::optional<DumpManifest> manifest_;
  std::set<std::string> dump_keys_;       // the manifest's own keys
  std::set<std::string> dump_folders_;    // its tables' folders
  bool has_lakedump_objects_ = false;
  std::vector<std::string> warnings_;
};

// The run holding DEST's lease when that lease is live at `now` (not stale: renewed within
// its intervals, its process alive), "" when there is none or it is stale.
Result<std::string> LiveLeaseHolder(ObjectStore& store, std::chrono::system_clock::time_point now);

// gc, and a dump's cleanup under its lease: whether an unfinished write of `key` (a multipart
// upload `upload_id`, "" for a local temp file) may be removed. Never one that the journal of
// `live_run` names or that carries its id; always one that the journal of another run names
// (by key or upload id: that run is dead); else only when it is of the committed dump's
// shapes and `old_enough` (a run of a lakedump that wrote no journal).
bool MayRemoveUnfinishedWrite(const DestinationOwnership& own, std::string_view live_run,
                              std::string_view key, std::string_view upload_id, bool old_enough);

// "N objects that no lakedump run wrote (e.g. a, b, c)": up to 3 keys named.
std::string DescribeForeign(const std::vector<std::string>& foreign);

}  // namespace lakedump
