#include "lake/commit_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "lake/metadata_io.h"

namespace lakedump {

std::string TableEntryMismatch(const TableSummary& entry, const TableManifest& table) {
  std::vector<std::string> diffs;
  if (!entry.run_id.empty() && entry.run_id != table.run_id) {
    diffs.push_back(fmt::format("run id {} (the manifest says {})", table.run_id, entry.run_id));
  }
  if (entry.bytes != table.bytes) {
    diffs.push_back(fmt::format("{} bytes (the manifest says {})", table.bytes, entry.bytes));
  }
  if (entry.files != table.files.size()) {
    diffs.push_back(
        fmt::format("{} files (the manifest says {})", table.files.size(), entry.files));
  }
  std::string out;
  for (const std::string& d : diffs) out += (out.empty() ? "" : ", ") + d;
  return out;
}

namespace {

using ListingByKey = std::map<std::string, const ObjectInfo*>;

// The changes found, from concurrent read-backs. Thread-safe.
class Changes {
 public:
  void Report(std::string p) {
    std::lock_guard lock(mu_);
    problems_.push_back(std::move(p));
  }
  std::vector<std::string> Take() {
    std::lock_guard lock(mu_);
    return std::move(problems_);
  }

 private:
  std::mutex mu_;
  std::vector<std::string> problems_;  // guarded by mu_
};

// Which _table.json must be read back (indices into `tables`). One this run wrote needs no
// read when the listing shows it with the size written and an ETag equal to the MD5 of the
// bytes written: the store computed that tag from the bytes it holds (an object written in
// one PUT, without SSE-KMS or SSE-C), so the object is byte for byte what this run wrote.
// That is more than the read-back proves (it compares run id, rows, bytes and files:
// another writer's copy with the same fields passes it), so it suffices. Another size means
// other bytes: replaced, without a read. No ETag (local folders), a multipart or encrypted
// object's tag, or a table this run reused (no bytes of this run to compare): read back as
// before.
std::vector<size_t> TablesToReadBack(const std::vector<CommittedTable>& tables,
                                     const ListingByKey& by_key, Changes* changes) {
  std::vector<size_t> read_back;
  for (size_t at = 0; at < tables.size(); ++at) {
    const CommittedTable& t = tables[at];
    auto it = by_key.find(t.key);
    if (it == by_key.end()) {
      changes->Report(fmt::format("{} is gone", t.key));
      continue;
    }
    const ObjectInfo& o = *it->second;
    if (!t.written_etag.empty()) {
      if (o.size != t.written_bytes) {
        changes->Report(fmt::format("{} was replaced (it now has {} bytes; this run wrote {})",
                                    t.key, o.size, t.written_bytes));
        continue;
      }
      if (o.etag == t.written_etag) continue;
    }
    read_back.push_back(at);
  }
  return read_back;
}

// Reads the table's _table.json back and compares it with what this run recorded.
Status ReadBackTable(ObjectStore& store, const CommittedTable& t, Changes* changes) {
  auto stored = ReadTableManifest(store, t.key);
  if (!stored.ok()) {
    if (stored.status().code() == Code::kNotFound) {
      changes->Report(fmt::format("{} is gone", t.key));
      return Status::OK();
    }
    if (stored.status().code() == Code::kCorruption) {
      changes->Report(fmt::format("{} no longer parses ({})", t.key, stored.status().message()));
      return Status::OK();
    }
    return stored.status().WithContext(t.key);
  }
  const TableManifest& m = *t.manifest;
  bool same = stored->run_id == m.run_id && stored->bytes == m.bytes && stored->rows == m.rows &&
              stored->files.size() == m.files.size();
  for (size_t f = 0; same && f < m.files.size(); ++f) {
    same = stored->files[f].key == m.files[f].key &&
           stored->files[f].bytes == m.files[f].bytes &&
           stored->files[f].xxh64 == m.files[f].xxh64;
  }
  if (!same) {
    changes->Report(fmt::format("{} was replaced (it now holds run {}, {} bytes in {} files; "
                                "this run recorded run {}, {} bytes in {} files)",
                                t.key, stored->run_id, stored->bytes, stored->files.size(),
                                m.run_id, m.bytes, m.files.size()));
  }
  return Status::OK();
}

// Data files, whoever wrote them (this process or a sharded dump's workers), are checked by
// size in the same listing; their content is vouched for by the XXH64 their writer
// recorded, which verify and load check.
void CheckDataFiles(const std::vector<CommittedTable>& tables, const ListingByKey& by_key,
                    Changes* changes) {
  for (const CommittedTable& t : tables) {
    for (const DataFile& f : t.manifest->files) {
      auto it = by_key.find(f.key);
      if (it == by_key.end()) {
        changes->Report(fmt::format("data file {} is gone", f.key));
      } else if (it->second->size != f.bytes) {
        changes->Report(fmt::format("data file {} has {} bytes, {} were written", f.key,
                                    it->second->size, f.bytes));
      }
    }
    for (const std::string& key : t.also_present) {
      if (!by_key.count(key)) changes->Report(fmt::format("{} is gone", key));
    }
  }
}

}  // namespace

Status CheckBeforeCommit(ObjectStore& store, const std::vector<CommittedTable>& tables,
                         size_t parallelism, std::stop_token stop) {
  Changes changes;
  // One listing, taken after the last write of this run (its data files, its _table.json
  // commits, a sharded dump's workers' files): the manifest will name what it shows. The
  // window between it and the manifest's write is the one the read-back left too.
  LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> listed, store.List(""));
  ListingByKey by_key;
  for (const ObjectInfo& o : listed) by_key.emplace(o.key, &o);
  const std::vector<size_t> read_back = TablesToReadBack(tables, by_key, &changes);
  LD_RETURN_IF_ERROR(ForEachMetadataIo(
      read_back.size(), parallelism,
      [&](size_t i) { return ReadBackTable(store, tables[read_back[i]], &changes); }, stop));
  CheckDataFiles(tables, by_key, &changes);
  std::vector<std::string> problems = changes.Take();
  if (problems.empty()) return Status::OK();
  std::sort(problems.begin(), problems.end());
  return Status::Corruption(fmt::format(
      "the destination {} changed under this run (another writer?): {}{}; nothing was committed",
      store.Describe(), problems.front(),
      problems.size() > 1 ? fmt::format(" (and {} more)", problems.size() - 1) : ""));
}

}  // namespace lakedump
