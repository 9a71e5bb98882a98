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

Status CheckBeforeCommit(ObjectStore& store, const std::vector<CommittedTable>& tables,
                         size_t parallelism, std::stop_token stop) {
  std::mutex mu;
  std::vector<std::string> problems;  // guarded by mu
  auto report = [&](std::string p) {
    std::lock_guard lock(mu);
    problems.push_back(std::move(p));
  };
  // One listing, taken after the last write of this run (its data files, its _table.json
  // commits, a sharded dump's workers' files): the manifest will name what it shows. The
  // window between it and the manifest's write is the one the read-back left too.
  LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> listed, store.List(""));
  std::map<std::string, const ObjectInfo*> by_key;
  for (const ObjectInfo& o : listed) by_key.emplace(o.key, &o);

  // Which _table.json must be read back. One this run wrote needs no read when the listing
  // shows it with the size written and an ETag equal to the MD5 of the bytes written: the
  // store computed that tag from the bytes it holds (an object written in one PUT, without
  // SSE-KMS or SSE-C), so the object is byte for byte what this run wrote. That is more than
  // the read-back proves (it compares run id, rows, bytes and files: another writer's copy
  // with the same fields passes it), so it suffices. Another size means other bytes:
  // replaced, without a read. No ETag (local folders), a multipart or encrypted object's
  // tag, or a table this run reused (no bytes of this run to compare): read back as before.
  // Data files, whoever wrote them (this process or a sharded dump's workers), are checked
  // by size in the same listing, as before; their content is vouched for by the XXH64 their
  // writer recorded, which verify and load check.
  std::vector<size_t> read_back;
  for (size_t at = 0; at < tables.size(); ++at) {
    const CommittedTable& t = tables[at];
    auto it = by_key.find(t.key);
    if (it == by_key.end()) {
      report(fmt::format("{} is gone", t.key));
      continue;
    }
    const ObjectInfo& o = *it->second;
    if (!t.written_etag.empty()) {
      if (o.size != t.written_bytes) {
        report(fmt::format("{} was replaced (it now has {} bytes; this run wrote {})", t.key,
                           o.size, t.written_bytes));
        continue;
      }
      if (o.etag == t.written_etag) continue;
    }
    read_back.push_back(at);
  }
  LD_RETURN_IF_ERROR(ForEachMetadataIo(
      read_back.size(), parallelism,
      [&](size_t i) -> Status {
        const CommittedTable& t = tables[read_back[i]];
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
        for (size_t f = 0; same && f < m.files.size(); ++f) {
          same = stored->files[f].key == m.files[f].key &&
                 stored->files[f].bytes == m.files[f].bytes &&
                 stored->files[f].xxh64 == m.files[f].xxh64;
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
  for (const CommittedTable& t : tables) {
    for (const DataFile& f : t.manifest->files) {
      auto it = by_key.find(f.key);
      if (it == by_key.end()) {
        report(fmt::format("data file {} is gone", f.key));
      } else if (it->second->size != f.bytes) {
        report(fmt::format("data file {} has {} bytes, {} were written", f.key,
                           it->second->size, f.bytes));
      }
    }
    for (const std::string& key : t.also_present) {
      if (!by_key.count(key)) report(fmt::format("{} is gone", key));
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
