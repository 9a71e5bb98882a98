#include "store/local/beneath.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace lakedump {
namespace {

std::string Join(const std::string& root, std::string_view rel) {
  std::string out = root.empty() ? "" : root;
  out += '/';
  out.append(rel);
  return out;
}

// An errno of an open that followed nothing: why it failed, as a Status naming `path`.
Status OpenError(int err, const std::string& path) {
  switch (err) {
    case ENOENT:
      return Status::NotFound("no object " + path);
    case ELOOP:
    case EXDEV:  // RESOLVE_BENEATH: the path tried to leave the root
      return RefusedEntry(path, /*is_symlink=*/true);
    case EACCES:
    case EPERM:
      return Status::PermissionDenied("permission denied: " + path);
    default:
      return Status::IOError("open " + path + ": " + std::strerror(err));
  }
}

// openat2 is unknown before Linux 5.6 (ENOSYS) and may be filtered by a seccomp policy
// (EPERM, ENOSYS): then the segment walk, and never openat2 again.
std::atomic<bool> g_no_openat2{false};

int TryOpenat2(int dir_fd, const std::string& rel, int flags, int* fd) {
#ifdef SYS_openat2
  if (g_no_openat2.load(std::memory_order_relaxed)) return ENOSYS;
  struct open_how how;
  std::memset(&how, 0, sizeof(how));
  how.flags = static_cast<uint64_t>(flags);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  while (true) {
    const long r = ::syscall(SYS_openat2, dir_fd, rel.c_str(), &how, sizeof(how));
    if (r >= 0) {
      *fd = static_cast<int>(r);
      return 0;
    }
    if (errno == EINTR || errno == EAGAIN) continue;
    if (errno == ENOSYS || errno == EPERM || errno == E2BIG) {
      g_no_openat2.store(true, std::memory_order_relaxed);
      return ENOSYS;
    }
    return errno;
  }
#else
  (void)dir_fd, (void)rel, (void)flags, (void)fd;
  return ENOSYS;
#endif
}

// Without openat2: each directory opened with O_NOFOLLOW relative to the previous one.
int WalkOpen(int root_fd, std::string_view rel, int flags, int* fd) {
  int dir = ::dup(root_fd);
  if (dir < 0) return errno;
  while (true) {
    const size_t slash = rel.find('/');
    const std::string segment(rel.substr(0, slash));
    const bool last = slash == std::string_view::npos;
    const int f = last ? flags : (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int next;
    do {
      next = ::openat(dir, segment.c_str(), f, 0);
    } while (next < 0 && errno == EINTR);
    int err = errno;
    if (next < 0 && err == ENOTDIR && !last) {
      // O_NOFOLLOW | O_DIRECTORY on a symlink fails with ENOTDIR too: tell the two apart.
      struct stat st;
      if (::fstatat(dir, segment.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
        err = ELOOP;
      }
    }
    ::close(dir);
    if (next < 0) return err;
    if (last) {
      *fd = next;
      return 0;
    }
    dir = next;
    rel.remove_prefix(slash + 1);
  }
}

}  // namespace

void UseSegmentWalkForTesting() { g_no_openat2.store(true); }

Status RefusedEntry(std::string_view path, bool is_symlink) {
  return Status::Corruption(
      std::string(path) +
      (is_symlink ? " is (or lies under) a symbolic link: lakedump never follows links inside "
                    "a dump or destination (refused)"
                  : " is not a regular file (a FIFO, socket or device): refused"));
}

Status OpenRegularBeneath(const std::string& root, std::string_view rel, int* fd,
                          uint64_t* size) {
  const std::string path = Join(root, rel);
  const std::string root_path = root.empty() ? "/" : root;
  int root_fd = ::open(root_path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) return Status::NotFound("no object " + path);
    return OpenError(err, root_path);
  }
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
  const int flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
  const std::string rel_str(rel);
  int opened = -1;
  int err = TryOpenat2(root_fd, rel_str, flags, &opened);
  if (err == ENOSYS) err = WalkOpen(root_fd, rel, flags, &opened);
  ::close(root_fd);
  if (err != 0) {
    if (err == ENOTDIR) return Status::NotFound("no object " + path);
    return OpenError(err, path);
  }
  struct stat st;
  if (::fstat(opened, &st) != 0) {
    err = errno;
    ::close(opened);
    return OpenError(err, path);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(opened);
    if (S_ISDIR(st.st_mode)) return Status::NotFound("no object " + path + " (a directory)");
    return RefusedEntry(path, /*is_symlink=*/false);
  }
  const int fl = ::fcntl(opened, F_GETFL);
  if (fl >= 0) (void)::fcntl(opened, F_SETFL, fl & ~O_NONBLOCK);
  *fd = opened;
  *size = static_cast<uint64_t>(st.st_size);
  return Status::OK();
}

Status CheckDirsBeneath(const std::string& root, std::string_view rel_dir) {
  std::string path = root;
  while (!rel_dir.empty()) {
    const size_t slash = rel_dir.find('/');
    path += '/';
    path.append(rel_dir.substr(0, slash));
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) return Status::OK();  // created later, as a directory
    if (S_ISLNK(st.st_mode)) return RefusedEntry(path, /*is_symlink=*/true);
    if (!S_ISDIR(st.st_mode)) return Status::OK();  // the caller reports "in the way"
    if (slash == std::string_view::npos) break;
    rel_dir.remove_prefix(slash + 1);
  }
  return Status::OK();
}

}  // namespace lakedump
