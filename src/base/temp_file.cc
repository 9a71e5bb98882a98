#include "base/temp_file.h"

#include <unistd.h>

#include <cstdlib>

namespace lakedump {

TempFile::~TempFile() { Remove(); }

void TempFile::Remove() {
  if (!path_.empty()) ::unlink(path_.c_str());
  path_.clear();
}

Status TempFile::Write(std::string_view data) {
  Remove();
  const char* dir = std::getenv("TMPDIR");
  std::string pattern = std::string(dir && *dir ? dir : "/tmp") + "/lakedump-XXXXXX";
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0) return Status::IOError("cannot create a temporary file like " + pattern);
  path_ = pattern;
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n <= 0) {
      ::close(fd);
      return Status::IOError("cannot write the temporary file " + path_);
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) return Status::IOError("cannot write the temporary file " + path_);
  return Status::OK();
}

}  // namespace lakedump
