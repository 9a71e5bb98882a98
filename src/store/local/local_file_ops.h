// LocalFileOps: the system calls LocalStore makes that tests need to fail
// (disk full, permission denied, fsync or rename errors). The default methods
// are the real syscalls; a test subclass overrides some of them
// (tests/fakes/fault_file_ops.h). Implementations must be thread-safe: one
// instance serves every writer of a store concurrently.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>

namespace lakedump {

class LocalFileOps {
 public:
  virtual ~LocalFileOps() = default;

  // Each returns 0 on success or an errno value. EINTR is retried inside.
  // open(2); on success *fd is the new descriptor.
  virtual int Open(const std::string& path, int flags, mode_t mode, int* fd);
  // One write(2): *written may be less than size.
  virtual int Write(int fd, const char* data, size_t size, size_t* written);
  virtual int Fsync(int fd);
  virtual int Rename(const std::string& from, const std::string& to);
  // Renames only when `to` does not exist (EEXIST otherwise, atomically):
  // renameat2(RENAME_NOREPLACE), or link(2) + unlink(2) on filesystems without it.
  virtual int RenameNoReplace(const std::string& from, const std::string& to);
  virtual int Mkdir(const std::string& path, mode_t mode);
  // syncfs(2): writes back the whole filesystem holding fd. (Added after the
  // others; subclasses that do not override it get the real call.)
  virtual int Syncfs(int fd);
  // sync_file_range(2) with SYNC_FILE_RANGE_WRITE: starts writing back [offset,
  // offset + size) without waiting for it, so that the fsync at Close finds little
  // left. Advisory: an error is not a failure (the fsync reports real ones).
  virtual int StartWriteback(int fd, off_t offset, off_t size);

  // The process-wide instance making the real calls.
  static LocalFileOps* Real();
};

}  // namespace lakedump
