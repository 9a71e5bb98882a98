#include "cli/unfinished_writes.h"

#include "lake/object_keys.h"
#include "store/local/local_store.h"
#include "store/s3/s3_store.h"

namespace lakedump::cli {

Result<std::vector<std::string>> ListUnfinishedWrites(const std::string& dest, ObjectStore& store,
                                                      const StoreOptions& options) {
  if (dest.starts_with("s3://")) return ListIncompleteUploads(dest, options);
  if (auto* local = dynamic_cast<LocalStore*>(&store)) return local->ListTempFiles();
  return std::vector<std::string>{};
}

Status RemoveUnfinishedWrites(const std::string& dest, ObjectStore& store,
                              const StoreOptions& options, std::vector<std::string>* removed) {
  if (dest.starts_with("s3://")) {
    return AbortStaleUploads(dest, std::chrono::seconds(0), options, removed);
  }
  if (auto* local = dynamic_cast<LocalStore*>(&store)) {
    // Another run trying to create the lease writes it as a temp file first: that one is
    // alive (it fails on the lease, naming the holder), not a dead run's.
    const std::string lease_temp = "." + std::string(kLeaseKey) + ".tmp-";
    return local->SweepStaleTempFiles(std::chrono::seconds(0), removed,
                                      [&](const std::string& name) {
                                        return name.starts_with(lease_temp);
                                      });
  }
  return Status::OK();
}

}  // namespace lakedump::cli
