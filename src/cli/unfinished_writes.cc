#include "cli/unfinished_writes.h"

#include <fmt/format.h>

#include <filesystem>

#include "store/local/local_store.h"
#include "store/s3/s3_store.h"

namespace lakedump::cli {
namespace {

namespace fs = std::filesystem;

// A local temp file ".<name>.tmp-<random>" under `root`: the key of the object it would be.
std::string TempFileKey(const std::string& root, const std::string& path) {
  std::string rel = path.size() > root.size() && path.starts_with(root)
                        ? path.substr(root.size())
                        : path;
  while (rel.starts_with('/')) rel.erase(0, 1);
  const size_t slash = rel.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : rel.substr(0, slash + 1);
  std::string name = slash == std::string::npos ? rel : rel.substr(slash + 1);
  const size_t tmp = name.rfind(".tmp-");
  if (name.starts_with('.') && tmp != std::string::npos && tmp > 1) name = name.substr(1, tmp - 1);
  return dir + name;
}

Result<std::vector<UnfinishedWrite>> ListLocalTempFiles(LocalStore& local) {
  LD_ASSIGN_OR_RETURN(std::vector<std::string> paths, local.ListTempFiles());
  const std::string root = local.Describe();
  std::vector<UnfinishedWrite> out;
  const auto now = fs::file_time_type::clock::now();
  for (std::string& p : paths) {
    std::error_code ec;
    const auto mtime = fs::last_write_time(p, ec);
    UnfinishedWrite w;
    w.key = TempFileKey(root, p);
    w.age = ec ? std::chrono::seconds(0)
               : std::chrono::duration_cast<std::chrono::seconds>(now - mtime);
    w.path = std::move(p);
    out.push_back(std::move(w));
  }
  return out;
}

Result<std::vector<UnfinishedWrite>> ListS3Uploads(const std::string& dest,
                                                   const StoreOptions& options) {
  LD_ASSIGN_OR_RETURN(std::vector<IncompleteUpload> uploads, ListUploadsUnder(dest, options));
  std::vector<UnfinishedWrite> out;
  const auto now = std::chrono::system_clock::now();
  for (IncompleteUpload& u : uploads) {
    UnfinishedWrite w;
    w.key = std::move(u.key);
    w.upload_id = std::move(u.upload_id);
    w.age = std::chrono::duration_cast<std::chrono::seconds>(now - u.initiated);
    out.push_back(std::move(w));
  }
  return out;
}

Status RemoveWrites(const std::string& dest, const StoreOptions& options,
                    const std::vector<UnfinishedWrite>& writes) {
  std::vector<IncompleteUpload> uploads;
  for (const UnfinishedWrite& w : writes) {
    if (!w.upload_id.empty()) {
      uploads.push_back({w.key, w.upload_id, {}});
      continue;
    }
    std::error_code ec;
    if (!fs::remove(w.path, ec) && ec) {
      return Status::IOError(fmt::format("removing the temp file {}: {}", w.path, ec.message()));
    }
  }
  return AbortUploadsUnder(dest, options, uploads);
}

// Which of `writes` may go, by the journals, manifest and lease at DEST (read now, after
// the writes were listed: a live run journals a key before it starts writing it).
Result<GcOutcome> Select(ObjectStore& store, std::vector<UnfinishedWrite> writes,
                         std::chrono::seconds older_than, Clock& clock) {
  GcOutcome out;
  LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> listing, store.List(""));
  LD_ASSIGN_OR_RETURN(DestinationOwnership owners, DestinationOwnership::Read(store, listing));
  if (owners.holds_no_dump()) {
    out.no_dump = true;
    out.kept = writes.size();
    return out;
  }
  LD_ASSIGN_OR_RETURN(std::string live, LiveLeaseHolder(store, clock.WallNow()));
  for (UnfinishedWrite& w : writes) {
    if (MayRemoveUnfinishedWrite(owners, live, w.key, w.upload_id, w.age >= older_than)) {
      out.removed.push_back(std::move(w));
    } else {
      ++out.kept;
    }
  }
  return out;
}

}  // namespace

std::string UnfinishedWrite::Describe() const {
  if (upload_id.empty()) return path;
  return fmt::format("{} (upload started {}s ago)", key, age.count());
}

Result<std::vector<UnfinishedWrite>> ListUnfinished(const std::string& dest, ObjectStore& store,
                                                    const StoreOptions& options) {
  if (dest.starts_with("s3://")) return ListS3Uploads(dest, options);
  if (auto* local = dynamic_cast<LocalStore*>(&store)) return ListLocalTempFiles(*local);
  return std::vector<UnfinishedWrite>{};
}

Result<std::vector<std::string>> ListUnfinishedWrites(const std::string& dest, ObjectStore& store,
                                                      const StoreOptions& options) {
  LD_ASSIGN_OR_RETURN(std::vector<UnfinishedWrite> writes, ListUnfinished(dest, store, options));
  std::vector<std::string> out;
  for (const UnfinishedWrite& w : writes) out.push_back(w.Describe());
  return out;
}

Result<GcOutcome> CollectUnfinishedWrites(const std::string& dest, ObjectStore& store,
                                          const StoreOptions& options,
                                          std::chrono::seconds older_than, bool dry_run,
                                          Clock& clock) {
  LD_ASSIGN_OR_RETURN(std::vector<UnfinishedWrite> writes, ListUnfinished(dest, store, options));
  LD_ASSIGN_OR_RETURN(GcOutcome out, Select(store, std::move(writes), older_than, clock));
  if (!dry_run) LD_RETURN_IF_ERROR(RemoveWrites(dest, options, out.removed));
  return out;
}

Status RemoveUnfinishedWrites(const std::string& dest, ObjectStore& store,
                              const StoreOptions& options, std::vector<std::string>* removed) {
  // Under this run's lease no other run is live, and this one has written nothing yet.
  LD_ASSIGN_OR_RETURN(std::vector<UnfinishedWrite> writes, ListUnfinished(dest, store, options));
  std::vector<UnfinishedWrite> dead;
  if (!writes.empty()) {
    LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> listing, store.List(""));
    LD_ASSIGN_OR_RETURN(DestinationOwnership owners, DestinationOwnership::Read(store, listing));
    for (UnfinishedWrite& w : writes) {
      if (MayRemoveUnfinishedWrite(owners, "", w.key, w.upload_id, /*old_enough=*/true)) {
        dead.push_back(std::move(w));
      }
    }
  }
  LD_RETURN_IF_ERROR(RemoveWrites(dest, options, dead));
  for (const UnfinishedWrite& w : dead) removed->push_back(w.Describe());
  return Status::OK();
}

Status AbortRunUploads(const std::string& dest, const StoreOptions& options,
                       const RunClaims& claims, size_t* aborted) {
  *aborted = 0;
  if (!dest.starts_with("s3://")) return Status::OK();
  LD_ASSIGN_OR_RETURN(std::vector<IncompleteUpload> uploads, ListUploadsUnder(dest, options));
  std::erase_if(uploads, [&](const IncompleteUpload& u) {
    // The lease is gone by now: only what is this run's by its id or its journal's upload ids.
    if (claims.uploads.count(u.upload_id) > 0) return false;
    return u.key.find(claims.run_id) == std::string::npos || !claims.Claims(u.key);
  });
  *aborted = uploads.size();
  return AbortUploadsUnder(dest, options, uploads);
}

}  // namespace lakedump::cli
