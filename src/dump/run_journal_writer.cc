#include "dump/run_journal_writer.h"

#include <algorithm>

#include "lake/object_keys.h"

namespace lakedump {
namespace {

// Objects a run writes that are not journaled (see JournalingStore).
bool IsUnjournaled(std::string_view key) {
  return key == kLeaseKey || key == kManifestKey || key == "_manifest.sig" ||
         key.starts_with(kRunsPrefix);
}

// "<s>/<t>/" of a key ("" for fewer than three segments).
std::string FolderOf(std::string_view key) {
  const size_t first = key.find('/');
  if (first == std::string_view::npos) return {};
  const size_t second = key.find('/', first + 1);
  if (second == std::string_view::npos) return {};
  return std::string(key.substr(0, second + 1));
}

}  // namespace

RunJournalWriter::RunJournalWriter(ObjectStore* store, std::string run_id)
    : store_(store), run_id_(std::move(run_id)) {
  pending_.run_id = run_id_;
}

bool RunJournalWriter::CoveredByFolderLocked(std::string_view key, uint64_t* seq) const {
  const std::string folder = FolderOf(key);
  auto it = folders_.find(folder);
  if (folder.empty() || it == folders_.end() || !IsDataFileOfRun(key, folder, run_id_)) {
    return false;
  }
  *seq = it->second;
  return true;
}

Status RunJournalWriter::Record(const std::vector<std::string>& keys,
                                const std::vector<std::string>& table_folders) {
  std::unique_lock<std::mutex> lock(mu_);
  uint64_t need = 0;
  for (const std::string& f : table_folders) {
    auto [it, added] = folders_.emplace(f, next_seq_);
    if (added) pending_.table_folders.push_back(f);
    need = std::max(need, it->second);
  }
  for (const std::string& k : keys) {
    if (!ClaimableByRun(k, run_id_)) continue;  // would not count: not recorded
    uint64_t seq = 0;
    if (CoveredByFolderLocked(k, &seq)) {
      need = std::max(need, seq);
      continue;
    }
    auto [it, added] = keys_.emplace(k, next_seq_);
    if (added) pending_.keys.push_back(k);
    need = std::max(need, it->second);
  }
  return WaitStoredLocked(lock, need);
}

Status RunJournalWriter::WaitStoredLocked(std::unique_lock<std::mutex>& lock, uint64_t need) {
  while (stored_seq_ < need) {
    if (!failed_.ok()) return failed_;
    if (writing_) {
      cv_.wait(lock);
      continue;
    }
    // This caller writes the batch gathered so far; later callers gather the next.
    JournalBatch batch = std::move(pending_);
    batch.seq = next_seq_++;
    pending_ = JournalBatch{};
    pending_.run_id = run_id_;
    pending_uploads_ = false;
    writing_ = true;
    lock.unlock();
    Status put = store_->PutObject(JournalKey(run_id_, batch.seq), SerializeJournalBatch(batch));
    lock.lock();
    writing_ = false;
    if (put.ok()) {
      stored_seq_ = batch.seq;
    } else {
      failed_ = put.WithContext("writing the run journal " + JournalKey(run_id_, batch.seq));
    }
    cv_.notify_all();
  }
  return failed_;
}

void RunJournalWriter::RecordUpload(std::string key, std::string upload_id) {
  std::lock_guard<std::mutex> lock(mu_);
  uploads_.emplace_back(key, upload_id);
  pending_.uploads.emplace_back(std::move(key), std::move(upload_id));
  pending_uploads_ = true;
}

Status RunJournalWriter::Flush() {
  std::unique_lock<std::mutex> lock(mu_);
  const bool anything = pending_uploads_ || !pending_.keys.empty() ||
                        !pending_.table_folders.empty();
  return WaitStoredLocked(lock, anything ? next_seq_ : stored_seq_);
}

RunClaims RunJournalWriter::claims() const {
  std::lock_guard<std::mutex> lock(mu_);
  RunClaims c;
  c.run_id = run_id_;
  for (const auto& [k, seq] : keys_) c.keys.insert(k);
  for (const auto& [f, seq] : folders_) c.table_folders.insert(f);
  for (const auto& [k, id] : uploads_) c.uploads[id] = k;
  for (uint64_t s = 1; s < next_seq_; ++s) c.journal_keys.push_back(JournalKey(run_id_, s));
  return c;
}

Status RunJournalWriter::DeleteJournal() {
  const std::vector<std::string> keys = claims().journal_keys;
  if (keys.empty()) return Status::OK();
  return store_->Delete(keys);
}

Result<std::unique_ptr<ObjectWriter>> JournalingStore::NewWriter(std::string_view key,
                                                                 WriteOptions options) {
  if (!IsUnjournaled(key)) {
    LD_RETURN_IF_ERROR(journal_->Record({std::string(key)}));
  }
  return ForwardingStore::NewWriter(key, options);
}

Status RecordPlan(RunJournalWriter& journal, const DumpPlan& plan, bool over_committed_dump) {
  const std::string& run = journal.run_id();
  std::vector<std::string> keys, folders;
  for (const PlannedTable& t : plan.tables) {
    const std::string folder = TablePrefix(t.info.ref);
    folders.push_back(folder);
    keys.push_back(over_committed_dump ? folder + "_table-" + run + ".json"
                                       : folder + std::string(kTableFileName));
  }
  keys.push_back(over_committed_dump ? "_schema/postgres-" + run + ".dump"
                                     : "_schema/postgres.dump");
  return journal.Record(keys, folders);
}

Status DeleteClaimedObjects(ObjectStore& store, const RunClaims& claims, uint64_t* deleted) {
  *deleted = 0;
  LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> listed, store.List(""));
  std::vector<std::string> own;
  for (const ObjectInfo& o : listed) {
    // Only what carries the run's id: a committed dump's fixed-name objects are never this
    // run's to delete.
    if (o.key.find(claims.run_id) != std::string::npos && claims.Claims(o.key)) {
      own.push_back(o.key);
    }
  }
  *deleted = own.size();
  for (const std::string& j : claims.journal_keys) own.push_back(j);
  if (own.empty()) return Status::OK();
  return store.Delete(own);
}

}  // namespace lakedump
