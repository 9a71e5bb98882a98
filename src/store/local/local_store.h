// LocalStore: an ObjectStore in a local directory. Key "a/b.parquet" is the file
// <root>/a/b.parquet.
//
// Writers stream into a hidden temp file next to the final one
// (".<name>.tmp-<random>"), buffered (1 MiB) and written with write(2). Close()
// flushes, fsyncs the file, renames it over the final name and fsyncs the
// directory, so an object is either absent or complete, even after a crash. A
// writer destroyed without a successful Close() unlinks its temp file. List()
// never shows temp files.
//
// Deferred sync (Open(..., deferred_sync = true), for dumps of many small
// files): Close() writes and renames without fsync, and SyncWritten() fsyncs
// every file closed since, then their directories, several at once. An object
// is then complete once visible only after SyncWritten(); after a power loss a
// visible but unsynced object may be short. The dump commits its manifest only
// after SyncWritten(), and resume re-checks every file's checksum.
// With many files pending (kSyncfsMinFiles) on one filesystem, SyncWritten()
// makes one syncfs(2) call instead of an fsync per file and directory (see
// SyncWritten() in the .cc for why its error reporting is sound).
//
// Thread-safe: any number of writers and readers at once. Writers and readers
// are not thread-safe (one owner each) and may outlive the store but not the
// LocalFileOps they were given.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "store/local/local_file_ops.h"
#include "store/object_store.h"

namespace lakedump {

class LocalStore final : public ObjectStore {
 public:
  static constexpr size_t kWriteBufferSize = 1 << 20;
  // A writer starts the write-back of each this many bytes as soon as they are written
  // (LocalFileOps::StartWriteback), so that a big file's fsync at Close does not wait for
  // the whole file: a 565 MB file's Close took about a second of the dump's end before.
  static constexpr uint64_t kWritebackBytes = 8 << 20;
  // Deferred sync: from this many pending files on, one syncfs(2) replaces the
  // per-file fsyncs (when the kernel reports writeback errors through it).
  static constexpr size_t kSyncfsMinFiles = 64;

  // `root` need not exist: the first writer creates it. Fails when it exists and
  // is not a directory ("destination is a file: <root>"). `ops` is borrowed and
  // must outlive the store and its writers; null means the real system calls.
  static Result<std::unique_ptr<LocalStore>> Open(std::string root,
                                                  LocalFileOps* ops = nullptr,
                                                  bool deferred_sync = false);

  // create_only: Close() renames without replacing (AlreadyExists when the
  // object exists; the temp file is removed). if_match: Close() compares the file's
  // Md5Etag and renames under an exclusive flock(2) of its directory (AlreadyExists
  // when it differs or the file is missing; the temp file is removed).
  Result<std::unique_ptr<ObjectWriter>> NewWriter(std::string_view key,
                                                  WriteOptions options = {}) override;
  Result<std::unique_ptr<ObjectReader>> NewReader(std::string_view key) override;
  Result<std::vector<ObjectInfo>> List(std::string_view prefix) override;
  Result<ObjectInfo> Head(std::string_view key) override;
  Status Delete(std::span<const std::string> keys) override;
  ~LocalStore() override;
  std::string Describe() const override { return root_.empty() ? "/" : root_; }
  Status SyncWritten() override;


  // True for the names LocalStore gives its temp files.
  static bool IsTempFileName(std::string_view file_name);

  // gc: removes the temp files below the root last modified more than
  // older_than ago: what a killed writer (SIGKILL, power loss) left behind. Their
  // paths go to *removed when it is not null. A root that does not exist has none.
  // `keep(file_name)`, when set, spares the temp files it returns true for.
  Status SweepStaleTempFiles(std::chrono::seconds older_than,
                             std::vector<std::string>* removed = nullptr,
                             const std::function<bool(const std::string&)>& keep = nullptr);
  // The temp files below the root (paths), for verify's warnings.
  Result<std::vector<std::string>> ListTempFiles();

 // Paths closed but not yet synced (deferred sync); shared with the writers,
  // which may outlive the store. Internal.
  struct PendingSyncs {
    std::mutex mu;
    std::vector<std::string> paths;  // GUARDED_BY(mu)
  };

 private:
  LocalStore(std::string root, LocalFileOps* ops, bool deferred_sync)
      : root_(std::move(root)),
        ops_(ops),
        pending_(deferred_sync ? std::make_shared<PendingSyncs>() : nullptr) {}

  std::string PathOf(std::string_view key) const { return root_ + "/" + std::string(key); }
  // mkdir -p of root_/<relative_dir>; relative_dir may be empty.
  Status MakeDirs(std::string_view relative_dir) const;
  // Deferred sync: opens the descriptor syncfs(2) is called on, once, before
  // the first file is written (see SyncWritten()).
  void OpenSyncfsHandle();
  // One syncfs(2) for `files` and `dirs` when it is usable for them; nullopt
  // when the caller must fsync them one by one.
  std::optional<Status> TrySyncfs(const std::set<std::string>& dirs);

  const std::string root_;  // no trailing '/'; "" for the filesystem root
  LocalFileOps* const ops_;
  const std::shared_ptr<PendingSyncs> pending_;  // null without deferred sync

  std::mutex syncfs_mu_;
  int syncfs_fd_ = -1;          // guarded by syncfs_mu_; the root directory
  bool syncfs_opened_ = false;  // guarded by syncfs_mu_
  bool syncfs_failed_ = false;  // guarded by syncfs_mu_: per-file fsyncs from then on
};

}  // namespace lakedump
