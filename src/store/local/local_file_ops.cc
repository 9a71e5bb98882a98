#include "store/local/local_file_ops.h"

#include <fcntl.h>
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

int LocalFileOps::Mkdir(const std::string& path, mode_t mode) {
  return ::mkdir(path.c_str(), mode) == 0 ? 0 : errno;
}

int LocalFileOps::Syncfs(int fd) { return ::syncfs(fd) == 0 ? 0 : errno; }

LocalFileOps* LocalFileOps::Real() {
  static LocalFileOps real;
  return &real;
}

}  // namespace lakedump
