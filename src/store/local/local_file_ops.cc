#include "store/local/local_file_ops.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace lakedump {

int LocalFileOps::Open(const std::string& path, int flags, mode_t mode, int* fd) {
  while (true) {
    const int r = ::open(path.c_str(), flags, mode);
    if (r >= 0) {
      *fd = r;
      return 0;
    }
    if (errno != EINTR) return errno;
  }
}

int LocalFileOps::Write(int fd, const char* data, size_t size, size_t* written) {
  while (true) {
    const ssize_t r = ::write(fd, data, size);
    if (r >= 0) {
      *written = static_cast<size_t>(r);
      return 0;
    }
    if (errno != EINTR) return errno;
  }
}

int LocalFileOps::Fsync(int fd) {
  while (true) {
    if (::fsync(fd) == 0) return 0;
    if (errno != EINTR) return errno;
  }
}

int LocalFileOps::Rename(const std::string& from, const std::string& to) {
  return ::rename(from.c_str(), to.c_str()) == 0 ? 0 : errno;
}

int LocalFileOps::RenameNoReplace(const std::string& from, const std::string& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return errno;
  // link(2) fails with EEXIST as atomically; the temp name then goes.
  if (::link(from.c_str(), to.c_str()) != 0) return errno;
  ::unlink(from.c_str());
  return 0;
}

int LocalFileOps::Mkdir(const std::string& path, mode_t mode) {
  return ::mkdir(path.c_str(), mode) == 0 ? 0 : errno;
}

int LocalFileOps::Syncfs(int fd) { return ::syncfs(fd) == 0 ? 0 : errno; }

int LocalFileOps::StartWriteback(int fd, off_t offset, off_t size) {
  return ::sync_file_range(fd, offset, size, SYNC_FILE_RANGE_WRITE) == 0 ? 0 : errno;
}

LocalFileOps* LocalFileOps::Real() {
  static LocalFileOps real;
  return &real;
}

}  // namespace lakedump
