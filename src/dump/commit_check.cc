#include "dump/commit_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "dump/metadata_io.h"

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

Status CheckBeforeCommit(ObjectStore& store, const std::vector<CommittedTable>& tables,
                         size_t parallelism, std::stop_token stop) {
  std::mutex mu;
  std::vector<std::string> problems;  // guarded by mu
  auto report = [&](std::string p) {
    std::lock_guard lock(mu);
    problems.push_back(std::move(p));
  };
  LD_RETURN_IF_ERROR(ForEachMetadataIo(
      tables.size(), parallelism,
      [&](size_t at) -> Status {
        const CommittedTable& t = tables[at];
        auto stored = ReadTableManifest(store, t.key);
        if (!stored.ok()) {
          if (stored.status().code() == Code::kNotFound) {
            report(fmt::format("{} is gone", t.key));
            return Status::OK();
          }
          if (stored.status().code() == Code::kCorruption) {
            report(fmt::format("{} no longer parses ({})", t.key, stored.status().message()));
            return Status::OK();
          }
          return stored.status().WithContext(t.key);
        }
        const TableManifest& m = *t.manifest;
        bool same = stored->run_id == m.run_id && stored->bytes == m.bytes &&
                    stored->rows == m.rows && stored->files.size() == m.files.size();
        for (size_t i = 0; same && i < m.files.size(); ++i) {
          same = stored->files[i].key == m.files[i].key &&
                 stored->files[i].bytes == m.files[i].bytes &&
                 stored->files[i].xxh64 == m.files[i].xxh64;
        }
        if (!same) {
          report(fmt::format("{} was replaced (it now holds run {}, {} bytes in {} files; this "
                             "run recorded run {}, {} bytes in {} files)",
                             t.key, stored->run_id, stored->bytes, stored->files.size(),
                             m.run_id, m.bytes, m.files.size()));
        }
        return Status::OK();
      },
      stop));
  LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> listed, store.List(""));
  std::map<std::string, uint64_t> sizes;
  for (ObjectInfo& o : listed) sizes.emplace(std::move(o.key), o.size);
  for (const CommittedTable& t : tables) {
    for (const DataFile& f : t.manifest->files) {
      auto it = sizes.find(f.key);
      if (it == sizes.end()) {
        report(fmt::format("data file {} is gone", f.key));
      } else if (it->second != f.bytes) {
        report(fmt::format("data file {} has {} bytes, {} were written", f.key, it->second,
                           f.bytes));
      }
    }
    for (const std::string& key : t.also_present) {
      if (!sizes.count(key)) report(fmt::format("{} is gone", key));
    }
  }
  if (problems.empty()) return Status::OK();
  std::sort(problems.begin(), problems.end());
  return Status::Corruption(fmt::format(
      "the destination {} changed under this run (another writer?): {}{}; nothing was committed",
      store.Describe(), problems.front(),
      problems.size() > 1 ? fmt::format(" (and {} more)", problems.size() - 1) : ""));
}

}  // namespace lakedump
