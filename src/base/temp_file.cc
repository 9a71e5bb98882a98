#include "base/temp_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace lakedump {
namespace {

// An unnamed file in `dir`, or -1.
int CreateUnnamed(const std::string& dir) {
#ifdef O_TMPFILE
  const int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
#endif
  std::string pattern = dir + "/lakedump-XXXXXX";
  const int named = ::mkostemp(pattern.data(), O_CLOEXEC);
  if (named < 0) return -1;
  ::unlink(pattern.c_str());  // at once: nothing left with a name, whatever happens next
  return named;
}

std::string TempDirectory() {
  const char* env = std::getenv("TMPDIR");
  return env && *env ? env : "/tmp";
}

}  // namespace

int CreateUnnamedTempFile() { return CreateUnnamed(TempDirectory()); }

TempFile::~TempFile() { Remove(); }

void TempFile::Remove() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  path_.clear();
}

Status TempFile::Write(std::string_view data) {
  Remove();
  const std::string dir = TempDirectory();
  fd_ = CreateUnnamed(dir);
  if (fd_ < 0) return Status::IOError("cannot create a temporary file in " + dir);
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd_, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Remove();
      return Status::IOError("cannot write a temporary file in " + dir);
    }
    done += static_cast<size_t>(n);
  }
  path_ = "/dev/fd/" + std::to_string(fd_);
  return Status::OK();
}

}  // namespace lakedump
