#include "store/local/local_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <mutex>
#include <thread>
#include <set>
#include <vector>

#include "store/local/beneath.h"
#include "store/object_key.h"

namespace lakedump {
namespace {

constexpr mode_t kFileMode = 0644;
constexpr mode_t kDirMode = 0755;
constexpr std::string_view kTempMarker = ".tmp-";

std::string ErrnoText(int err) {
  const char* desc = strerrordesc_np(err);
  return desc != nullptr ? desc : "errno " + std::to_string(err);
}

// The one place errno becomes a Status. `action` says what was being done.
Status ErrnoStatus(int err, std::string_view action, const std::string& path) {
  switch (err) {
    case ENOSPC:
    case EDQUOT:
      return Status::IOError("disk full while writing " + path);
    case EACCES:
    case EPERM:
      return Status::PermissionDenied("permission denied: " + path);
    case EROFS:
      return Status::PermissionDenied("read-only file system: " + path);
    case ENOENT:
      return Status::NotFound(std::string(action) + " " + path + ": no such file or directory");
    default:
      return Status::IOError(std::string(action) + " " + path + ": " + ErrnoText(err));
  }
}

std::string RandomSuffix() {
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937_64 rng(std::random_device{}() ^
                                   (static_cast<uint64_t>(::getpid()) << 32) ^
                                   counter.fetch_add(1));
  static const char kHex[] = "0123456789abcdef";
  uint64_t v = rng();
  std::string s(12, '0');
  for (char& c : s) {
    c = kHex[v & 0xf];
    v >>= 4;
  }
  return s;
}

std::string_view DirName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

// WriteOptions::if_match: renames `temp` over `final_path` only if the file there has that
// ETag-equivalent (Md5Etag of its bytes). The check and the rename run under an exclusive
// flock(2) on the directory, which every conditional writer of this store takes: among them
// the compare-and-replace is atomic (advisory: a plain write does not take the lock).
Status RenameIfMatch(LocalFileOps* ops, const std::string& temp, const std::string& final_path,
                     const std::string& etag) {
  const std::string dir(DirName(final_path).empty() ? "/" : DirName(final_path));
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return ErrnoStatus(errno, "open directory", dir);
  while (::flock(dir_fd, LOCK_EX) != 0) {
    if (errno != EINTR) {
      const int err = errno;
      ::close(dir_fd);
      return ErrnoStatus(err, "lock directory", dir);
    }
  }
  Status s;
  std::string current;
  const int fd = ::open(final_path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd >= 0) {
    char buf[65536];
    for (ssize_t n; (n = ::read(fd, buf, sizeof(buf))) != 0;) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        s = ErrnoStatus(errno, "read", final_path);
        break;
      }
      current.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
  }
  if (s.ok() && (fd < 0 || Md5Etag(current) != etag)) {
    s = Status::AlreadyExists(final_path + " is not the one expected (precondition failed: " +
                              (fd < 0 ? "it does not exist" : "another ETag than " + etag) + ")");
  }
  if (s.ok()) {
    if (int err = ops->Rename(temp, final_path); err != 0) {
      s = ErrnoStatus(err, "rename to", final_path);
    }
  }
  ::close(dir_fd);  // releases the lock
  return s;
}

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

class LocalWriter : public ObjectWriter {
 public:
  // `pending` non-null: deferred sync, Close() only records the path there.
  LocalWriter(LocalFileOps* ops, int fd, std::string temp_path, std::string final_path,
              std::shared_ptr<LocalStore::PendingSyncs> pending, WriteOptions options)
      : ops_(ops),
        options_(std::move(options)),
        fd_(fd),
        temp_path_(std::move(temp_path)),
        final_path_(std::move(final_path)),
        pending_(std::move(pending)) {
    buffer_.reserve(LocalStore::kWriteBufferSize);
  }

  Status Append(std::string_view data) override {
    if (!status_.ok()) return status_;
    if (closed() || fd_ < 0) return Status::Internal("append after Close: " + final_path_);
    bytes_ += data.size();
    const size_t cap = LocalStore::kWriteBufferSize;
    if (!buffer_.empty()) {
      const size_t take = std::min(data.size(), cap - buffer_.size());
      buffer_.append(data.substr(0, take));
      data.remove_prefix(take);
      if (buffer_.size() < cap) return Status::OK();
      LD_RETURN_IF_ERROR(Flush());
    }
    // Large appends go straight to the file; the rest waits in the buffer.
    if (data.size() >= cap) return Fail(WriteAll(data));
    buffer_.append(data);
    return Status::OK();
  }

  uint64_t bytes_written() const override { return bytes_; }

 protected:
  Status DoClose() override {
    if (!status_.ok()) return status_;
    LD_RETURN_IF_ERROR(Flush());
    if (pending_ == nullptr) {
      if (int err = ops_->Fsync(fd_); err != 0) {
        return Fail(ErrnoStatus(err, "fsync", final_path_));
      }
    }
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) return Fail(ErrnoStatus(errno, "close", final_path_));
    if (options_.create_only) {
      if (int err = ops_->RenameNoReplace(temp_path_, final_path_); err != 0) {
        return Fail(err == EEXIST ? Status::AlreadyExists(final_path_ + " already exists")
                                  : ErrnoStatus(err, "rename to", final_path_));
      }
    } else if (!options_.if_match.empty()) {
      LD_RETURN_IF_ERROR(Fail(RenameIfMatch(ops_, temp_path_, final_path_, options_.if_match)));
    } else if (int err = ops_->Rename(temp_path_, final_path_); err != 0) {
      return Fail(ErrnoStatus(err, "rename to", final_path_));
    }
    if (pending_ != nullptr) {
      temp_path_.clear();
      std::lock_guard lock(pending_->mu);
      pending_->paths.push_back(final_path_);
      return Status::OK();
    }
    // From here the temp file is gone; a failed directory sync removes the final
    // file so that a failed Close() never leaves the object visible.
    Status s = SyncDirectory();
    if (!s.ok()) {
      ::unlink(final_path_.c_str());
      temp_path_.clear();
      return Fail(std::move(s));
    }
    return Status::OK();
  }

  // Idempotent: also how a failure removes the temp file at once (Fail).
  void Abort() override {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
    temp_path_.clear();
  }

 private:
  // Records the first error and removes the temp file at once: a failed writer
  // never leaves anything behind, even before it is destroyed.
  Status Fail(Status s) {
    if (s.ok()) return s;
    if (status_.ok()) status_ = s;
    Abort();
    return s;
  }

  Status Flush() {
    if (buffer_.empty()) return Status::OK();
    Status s = WriteAll(buffer_);
    buffer_.clear();
    return Fail(std::move(s));
  }

  Status WriteAll(std::string_view data) {
    while (!data.empty()) {
      size_t written = 0;
      if (int err = ops_->Write(fd_, data.data(), data.size(), &written); err != 0) {
        return ErrnoStatus(err, "write", final_path_);
      }
      if (written == 0) return Status::IOError("write " + final_path_ + ": no progress");
      data.remove_prefix(written);
      file_bytes_ += written;
    }
    if (file_bytes_ - writeback_from_ >= LocalStore::kWritebackBytes) {
      ops_->StartWriteback(fd_, static_cast<off_t>(writeback_from_),
                           static_cast<off_t>(file_bytes_ - writeback_from_));
      writeback_from_ = file_bytes_;
    }
    return Status::OK();
  }

  Status SyncDirectory() {
    const std::string dir(DirName(final_path_).empty() ? "/" : DirName(final_path_));
    int dir_fd = -1;
    if (int err = ops_->Open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, &dir_fd); err != 0) {
      return ErrnoStatus(err, "open directory", dir);
    }
    const int err = ops_->Fsync(dir_fd);
    ::close(dir_fd);
    return err == 0 ? Status::OK() : ErrnoStatus(err, "fsync directory", dir);
  }

  LocalFileOps* const ops_;
  const WriteOptions options_;
  int fd_;
  std::string temp_path_;  // empty once it no longer exists
  const std::string final_path_;
  std::string buffer_;
  uint64_t bytes_ = 0;
  uint64_t file_bytes_ = 0;      // bytes handed to the file so far
  uint64_t writeback_from_ = 0;  // where the next StartWriteback begins
  Status status_;  // sticky first error
  const std::shared_ptr<LocalStore::PendingSyncs> pending_;
};

class LocalReader final : public ObjectReader {
 public:
  LocalReader(int fd, uint64_t size, std::string path)
      : fd_(fd), size_(size), path_(std::move(path)) {}
  ~LocalReader() override { ::close(fd_); }

  uint64_t size() const override { return size_; }

  Status ReadAt(uint64_t offset, uint64_t length, std::string* out) override {
    if (offset > size_ || length > size_ - offset) {
      return Status::Corruption("read of " + std::to_string(length) + " bytes at offset " +
                                std::to_string(offset) + " is past the end of " + path_ +
                                " (" + std::to_string(size_) + " bytes)");
    }
    out->resize(length);
    uint64_t done = 0;
    while (done < length) {
      const ssize_t r = ::pread(fd_, out->data() + done, length - done,
                                static_cast<off_t>(offset + done));
      if (r < 0) {
        if (errno == EINTR) continue;
        const int err = errno;
        out->clear();
        return ErrnoStatus(err, "read", path_);
      }
      if (r == 0) {
        out->clear();
        return Status::Corruption(path_ + " shrank while being read: expected " +
                                  std::to_string(size_) + " bytes");
      }
      done += static_cast<uint64_t>(r);
    }
    return Status::OK();
  }

 private:
  const int fd_;
  const uint64_t size_;
  const std::string path_;
};

}  // namespace

bool LocalStore::IsTempFileName(std::string_view file_name) {
  return file_name.size() > 1 && file_name.front() == '.' &&
         file_name.find(kTempMarker) != std::string_view::npos;
}

Result<std::unique_ptr<LocalStore>> LocalStore::Open(std::string root, LocalFileOps* ops,
                                                     bool deferred_sync) {
  if (root.empty()) return Status::InvalidArgument("destination path is empty");
  if (root.find('\0') != std::string::npos) {
    return Status::InvalidArgument("destination path contains a NUL byte");
  }
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  struct stat st;
  if (::stat(root.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return Status::InvalidArgument("destination is a file: " + root);
  } else if (errno == ENOTDIR) {
    return Status::InvalidArgument("destination " + root + " is inside a file, not a directory");
  } else if (errno != ENOENT) {
    return ErrnoStatus(errno, "stat", root);
  }
  if (root == "/") root.clear();  // PathOf() adds the '/'
  return std::unique_ptr<LocalStore>(
      new LocalStore(std::move(root), ops ? ops : LocalFileOps::Real(), deferred_sync));
}

Status LocalStore::MakeDirs(std::string_view relative_dir) const {
  std::string full = root_;
  if (!relative_dir.empty()) full.append("/").append(relative_dir);
  if (full.empty()) return Status::OK();  // "/"
  // Below the root nothing may be a symlink: stat() below would follow one out of the folder.
  LD_RETURN_IF_ERROR(CheckDirsBeneath(root_, relative_dir));
  struct stat st;
  if (::stat(full.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return Status::OK();
  // Ends of each path component: "/a/b/c" -> 2, 4, 6.
  std::vector<size_t> ends;
  for (size_t i = 1; i < full.size(); ++i) {
    if (full[i] == '/') ends.push_back(i);
  }
  ends.push_back(full.size());
  auto in_the_way = [&](const std::string& path) {
    if (path.size() <= root_.size()) return Status::InvalidArgument("destination is a file: " + path);
    return Status::InvalidArgument("cannot create directory " + path +
                                   ": a file with that name is in the way");
  };
  // Find the deepest component that exists, then create the ones below it.
  size_t first_missing = 0;
  for (size_t i = ends.size(); i-- > 0;) {
    const std::string prefix = full.substr(0, ends[i]);
    if (::stat(prefix.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) return in_the_way(prefix);
      first_missing = i + 1;
      break;
    }
    if (errno != ENOENT && errno != ENOTDIR) return ErrnoStatus(errno, "stat", prefix);
  }
  for (size_t i = first_missing; i < ends.size(); ++i) {
    const std::string prefix = full.substr(0, ends[i]);
    const int err = ops_->Mkdir(prefix, kDirMode);
    if (err == 0) continue;
    if (err == EEXIST) {  // created concurrently by another writer, or a file
      if (::stat(prefix.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) continue;
      return in_the_way(prefix);
    }
    if (err == ENOTDIR) return in_the_way(prefix);
    return ErrnoStatus(err, "create directory", prefix);
  }
  return Status::OK();
}

LocalStore::~LocalStore() {
  if (syncfs_fd_ >= 0) ::close(syncfs_fd_);
}

void LocalStore::OpenSyncfsHandle() {
  std::lock_guard lock(syncfs_mu_);
  if (syncfs_opened_) return;
  syncfs_opened_ = true;
  // Not through ops_: not a fault point, and failing to open it only means
  // per-file fsyncs.
  syncfs_fd_ = ::open(root_.empty() ? "/" : root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

Result<std::unique_ptr<ObjectWriter>> LocalStore::NewWriter(std::string_view key,
                                                            WriteOptions options) {
  LD_RETURN_IF_ERROR(ValidateObjectKey(key));
  LD_RETURN_IF_ERROR(MakeDirs(DirName(key)));
  if (pending_ != nullptr) OpenSyncfsHandle();
  std::string final_path = PathOf(key);
  const std::string_view dir = DirName(final_path);
  // Keep the temp name within NAME_MAX even for long object names.
  const std::string_view base = BaseName(final_path).substr(0, 200);
  for (int attempt = 0;; ++attempt) {
    std::string temp_path = std::string(dir) + "/." + std::string(base) +
                            std::string(kTempMarker) + RandomSuffix();
    int fd = -1;
    const int err = ops_->Open(temp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, kFileMode, &fd);
    if (err == 0) {
      return MakeObjectWriter<LocalWriter>(ops_, fd, std::move(temp_path), std::move(final_path),
                                           pending_, std::move(options));
    }
    if (err != EEXIST || attempt == 5) return ErrnoStatus(err, "create", final_path);
  }
}

Result<std::unique_ptr<ObjectReader>> LocalStore::NewReader(std::string_view key) {
  LD_RETURN_IF_ERROR(ValidateObjectKey(key));
  std::string path = PathOf(key);
  int fd = -1;
  uint64_t size = 0;
  LD_RETURN_IF_ERROR(OpenRegularBeneath(root_, key, &fd, &size));
  return std::unique_ptr<ObjectReader>(new LocalReader(fd, size, std::move(path)));
}

Result<ObjectInfo> LocalStore::Head(std::string_view key) {
  LD_RETURN_IF_ERROR(ValidateObjectKey(key));
  int fd = -1;
  uint64_t size = 0;
  LD_RETURN_IF_ERROR(OpenRegularBeneath(root_, key, &fd, &size));
  ::close(fd);
  return ObjectInfo{std::string(key), size};
}

Result<std::vector<ObjectInfo>> LocalStore::List(std::string_view prefix) {
  namespace fs = std::filesystem;
  LD_RETURN_IF_ERROR(ValidateKeyPrefix(prefix));
  // Walk only the deepest directory the prefix names completely.
  const size_t slash = prefix.rfind('/');
  const std::string dir_part(slash == std::string_view::npos ? "" : prefix.substr(0, slash + 1));
  std::string start = root_.empty() ? "/" : root_;
  if (!dir_part.empty()) {
    LD_RETURN_IF_ERROR(CheckDirsBeneath(root_, dir_part.substr(0, dir_part.size() - 1)));
    start = root_ + "/" + dir_part.substr(0, dir_part.size() - 1);
  }
  std::vector<ObjectInfo> out;
  std::error_code ec;
  if (!fs::is_directory(start, ec)) return out;
  fs::recursive_directory_iterator it(start, ec), end;
  if (ec) return ErrnoStatus(ec.value(), "list", start);
  const size_t rel_start = start.size() + (start.back() == '/' ? 0 : 1);
  for (; it != end; it.increment(ec)) {
    if (ec) return ErrnoStatus(ec.value(), "list", start);
    std::error_code entry_ec;  // entries may vanish during the walk: skip them
    // symlink_status: a link is reported as what it is, never followed (the iterator does not
    // descend into linked directories either). Links and special files are refused, so that a
    // destination holding one is never taken for empty and a dump never lists one.
    const fs::file_status st = it->symlink_status(entry_ec);
    if (entry_ec || fs::is_directory(st)) continue;
    const std::string path = it->path().string();
    if (IsTempFileName(BaseName(path))) continue;
    std::string key = dir_part + path.substr(rel_start);
    if (!key.starts_with(prefix)) continue;
    if (fs::is_symlink(st)) return RefusedEntry(path, /*is_symlink=*/true);
    if (!fs::is_regular_file(st)) return RefusedEntry(path, /*is_symlink=*/false);
    const uintmax_t size = it->file_size(entry_ec);
    if (entry_ec) continue;
    out.push_back(ObjectInfo{std::move(key), static_cast<uint64_t>(size)});
  }
  std::sort(out.begin(), out.end(),
            [](const ObjectInfo& a, const ObjectInfo& b) { return a.key < b.key; });
  return out;
}

Status LocalStore::Delete(std::span<const std::string> keys) {
  for (const std::string& key : keys) LD_RETURN_IF_ERROR(ValidateObjectKey(key));
  Status first;
  for (const std::string& key : keys) {
    // unlink() does not follow a final symlink, but would follow a linked directory above it.
    LD_RETURN_IF_ERROR(CheckDirsBeneath(root_, DirName(key)));
    const std::string path = PathOf(key);
    if (::unlink(path.c_str()) != 0 && errno != ENOENT && errno != ENOTDIR && first.ok()) {
      first = ErrnoStatus(errno, "delete", path);
    }
  }
  if (pending_ != nullptr) {  // a file written and deleted before SyncWritten: nothing to sync
    std::set<std::string> gone;
    for (const std::string& key : keys) gone.insert(PathOf(key));
    std::lock_guard lock(pending_->mu);
    std::erase_if(pending_->paths, [&](const std::string& p) { return gone.count(p) > 0; });
  }
  return first;
}

Status LocalStore::SweepStaleTempFiles(std::chrono::seconds older_than,
                                       std::vector<std::string>* removed,
                                       const std::function<bool(const std::string&)>& keep) {
  namespace fs = std::filesystem;
  const std::string root = root_.empty() ? "/" : root_;
  std::error_code ec;
  if (!fs::exists(root, ec)) return Status::OK();
  const auto cutoff = fs::file_time_type::clock::now() - older_than;
  for (auto it = fs::recursive_directory_iterator(root, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec) || !IsTempFileName(it->path().filename().string())) continue;
    if (keep && keep(it->path().filename().string())) continue;
    const auto mtime = fs::last_write_time(it->path(), ec);
    if (ec || mtime > cutoff) {
      ec.clear();
      continue;
    }
    if (!fs::remove(it->path(), ec) && ec) break;
    if (removed != nullptr) removed->push_back(it->path().string());
  }
  if (ec) return Status::IOError("sweeping temp files under " + root + ": " + ec.message());
  return Status::OK();
}

Result<std::vector<std::string>> LocalStore::ListTempFiles() {
  namespace fs = std::filesystem;
  const std::string root = root_.empty() ? "/" : root_;
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::exists(root, ec)) return out;
  for (auto it = fs::recursive_directory_iterator(root, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec) && IsTempFileName(it->path().filename().string())) {
      out.push_back(it->path().string());
    }
  }
  if (ec) return Status::IOError("listing temp files under " + root + ": " + ec.message());
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

// syncfs(2) reports writeback errors only from Linux 5.8 on (before, it
// returned 0 whatever happened to the data).
bool SyncfsReportsErrors() {
  static const bool reports = [] {
    struct utsname u;
    if (::uname(&u) != 0) return false;
    int major = 0, minor = 0;
    if (std::sscanf(u.release, "%d.%d", &major, &minor) != 2) return false;
    return major > 5 || (major == 5 && minor >= 8);
  }();
  return reports;
}

}  // namespace

// Why one syncfs(2) is as sound as the fsyncs it replaces:
//  - Durability: syncfs writes back every dirty inode and page of the
//    filesystem, then calls the filesystem's sync_fs with wait=1 (ext4: a
//    journal commit, or without a journal a device cache flush) and flushes
//    the block device's metadata buffers: our files, their renames and the new
//    directories' entries included.
//  - Errors: since Linux 5.8 a writeback error on any inode also advances the
//    superblock's error sequence (sb->s_wb_err), and syncfs returns it to
//    every descriptor opened before the error that has not reported it yet.
//    Our descriptor is opened before the first file is written
//    (OpenSyncfsHandle), so an error while writing back any of our files, in
//    the background or during the call, fails the call. errseq reports an
//    error once per descriptor, so after a failed syncfs this store falls back
//    to per-file fsyncs (each file's own error sequence still holds its error).
//  - Scope: only when every directory involved is on the descriptor's
//    filesystem (a mount point below the root falls back), and only for many
//    files: syncfs also writes back other processes' dirty data on the same
//    filesystem, which per-file fsyncs would not wait for.
std::optional<Status> LocalStore::TrySyncfs(const std::set<std::string>& dirs) {
  std::lock_guard lock(syncfs_mu_);
  if (syncfs_fd_ < 0 || syncfs_failed_ || !SyncfsReportsErrors()) return std::nullopt;
  struct stat root_st;
  if (::fstat(syncfs_fd_, &root_st) != 0) return std::nullopt;
  for (const std::string& d : dirs) {
    struct stat st;
    if (::stat(d.empty() ? "/" : d.c_str(), &st) != 0 || st.st_dev != root_st.st_dev) {
      return std::nullopt;
    }
  }
  if (const int err = ops_->Syncfs(syncfs_fd_); err != 0) {
    syncfs_failed_ = true;
    return ErrnoStatus(err, "syncfs", Describe());
  }
  return Status::OK();
}

Status LocalStore::SyncWritten() {
  if (pending_ == nullptr) return Status::OK();
  std::vector<std::string> files;
  {
    std::lock_guard lock(pending_->mu);
    files.swap(pending_->paths);
  }
  if (files.empty()) return Status::OK();
  // The files, then every directory from theirs up to the root (new
  // directories' entries live in their parents).
  std::set<std::string> dirs;
  for (const std::string& f : files) {
    std::string d(DirName(f));
    while (!d.empty() && d.size() >= root_.size() && dirs.insert(d).second) d = DirName(d);
  }
  if (root_.empty()) dirs.insert("/");
  if (files.size() >= kSyncfsMinFiles) {
    if (std::optional<Status> s = TrySyncfs(dirs)) {
      if (!s->ok()) {
        std::lock_guard lock(pending_->mu);
        pending_->paths.insert(pending_->paths.end(), files.begin(), files.end());
      }
      return *s;
    }
  }
  auto sync_all = [this](const std::vector<std::string>& paths, bool directories) {
    constexpr size_t kThreads = 8;  // fsyncs in flight: the journal batches them
    std::atomic<size_t> next{0};
    std::mutex mu;
    Status first;
    auto work = [&] {
      for (size_t i; (i = next.fetch_add(1)) < paths.size();) {
        int fd = -1;
        const int flags = O_RDONLY | O_CLOEXEC | (directories ? O_DIRECTORY : 0);
        int err = ops_->Open(paths[i], flags, 0, &fd);
        if (err == 0) {
          err = ops_->Fsync(fd);
          ::close(fd);
        }
        if (err != 0) {
          std::lock_guard lock(mu);
          if (first.ok()) {
            first = ErrnoStatus(err, directories ? "fsync directory" : "fsync", paths[i]);
          }
        }
      }
    };
    {
      std::vector<std::jthread> threads;
      for (size_t t = 1; t < std::min(kThreads, paths.size()); ++t) threads.emplace_back(work);
      work();
    }
    return first;
  };
  Status s = sync_all(files, false);
  if (s.ok()) s = sync_all(std::vector<std::string>(dirs.begin(), dirs.end()), true);
  if (!s.ok()) {
    // Nothing may be committed on top of these files; keep them pending.
    std::lock_guard lock(pending_->mu);
    pending_->paths.insert(pending_->paths.end(), files.begin(), files.end());
  }
  return s;
}

}  // namespace lakedump
