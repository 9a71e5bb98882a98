// The writing side of the run journal (lake/run_journal.h): RunJournalWriter records, before a
// run writes an object, its key in a new journal batch `_runs/<run>/journal-<seq>.json`;
// JournalingStore is the dump's store with that rule built in (every writer it opens is
// journaled first). Callers that record at once (the plan's tables) save the per-object waits:
// a data file of a table folder already recorded needs no new batch.
//
// Batches are group-committed: concurrent Record() calls that find a batch in flight wait for
// it and the next one carries all of their keys, so a run writes few journal objects.
//
// Thread-safe. Borrows the store, which must outlive the writer.
#pragma once

#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "dump/planner.h"
#include "lake/run_journal.h"
#include "store/forwarding_store.h"

namespace lakedump {

class RunJournalWriter {
 public:
  RunJournalWriter(ObjectStore* store, std::string run_id);
  RunJournalWriter(const RunJournalWriter&) = delete;
  RunJournalWriter& operator=(const RunJournalWriter&) = delete;

  const std::string& run_id() const { return run_id_; }
  // Returns once every key and folder is in a stored batch (at once when they all are).
  // Keys of shapes this run does not write are not recorded (they would not count).
  // A failed batch write fails this and every later call.
  Status Record(const std::vector<std::string>& keys,
                const std::vector<std::string>& table_folders = {});
  // A multipart upload started: recorded with the next batch (or Flush()), not waited for.
  void RecordUpload(std::string key, std::string upload_id);
  // Writes what is pending (uploads) in a batch of its own, if anything.
  Status Flush();
  // Everything recorded so far (stored or not).
  RunClaims claims() const;
  // Deletes this run's journal batches (after its commit: the manifest names what stays).
  Status DeleteJournal();

 private:
  // REQUIRES: mu_ held via `lock`. Waits until batch `need` is stored, writing it if no other
  // caller is.
  Status WaitStoredLocked(std::unique_lock<std::mutex>& lock, uint64_t need);
  // Whether `key` is covered by a folder recorded in batch *seq (set).
  bool CoveredByFolderLocked(std::string_view key, uint64_t* seq) const;

  ObjectStore* const store_;
  const std::string run_id_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, uint64_t> keys_;     // GUARDED_BY(mu_): key -> its batch
  std::map<std::string, uint64_t> folders_;  // GUARDED_BY(mu_): folder -> its batch
  std::vector<std::pair<std::string, std::string>> uploads_;  // GUARDED_BY(mu_): recorded
  JournalBatch pending_;       // GUARDED_BY(mu_): the batch being gathered (seq next_seq_)
  bool pending_uploads_ = false;  // GUARDED_BY(mu_)
  uint64_t next_seq_ = 1;      // GUARDED_BY(mu_)
  uint64_t stored_seq_ = 0;    // GUARDED_BY(mu_): batches 1..stored_seq_ are stored
  bool writing_ = false;       // GUARDED_BY(mu_)
  Status failed_;              // GUARDED_BY(mu_): sticky
};

// The dump's store, journaling every object before its writer opens. The lease, the journal
// itself and the commit objects (_manifest.json, _manifest.sig) are not journaled: the
// lease and the journal are bookkeeping, and a manifest is never deleted by a cleanup.
// Thread-safe; borrows the target and the writer.
class JournalingStore : public ForwardingStore {
 public:
  JournalingStore(ObjectStore* target, RunJournalWriter* journal)
      : ForwardingStore(target), journal_(journal) {}
  Result<std::unique_ptr<ObjectWriter>> NewWriter(std::string_view key,
                                                  WriteOptions options = {}) override;

 private:
  RunJournalWriter* const journal_;
};

// Records the plan in one batch, before the run writes anything: each table's commit key and
// folder (its data files of this run), and the schema archive's key. `over_committed_dump`:
// the run commits to _table-<run>.json and _schema/postgres-<run>.dump.
Status RecordPlan(RunJournalWriter& journal, const DumpPlan& plan, bool over_committed_dump);

// After a failed run over a committed dump: deletes every listed object that `claims` names
// and the run's journal batches. Best effort; what went is counted in *deleted.
Status DeleteClaimedObjects(ObjectStore& store, const RunClaims& claims, uint64_t* deleted);

}  // namespace lakedump
