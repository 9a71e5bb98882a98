#include "base/spill_file.h"

#include <unistd.h>

#include "base/temp_file.h"

namespace lakedump {

Result<std::unique_ptr<SpillFile>> SpillFile::Create() {
  const int fd = CreateUnnamedTempFile();
  if (fd < 0) return Status::IOError("cannot create a temporary file to sort in");
  std::FILE* f = ::fdopen(fd, "w+b");
  if (f == nullptr) {
    ::close(fd);
    return Status::IOError("cannot open a temporary file to sort in");
  }
  return std::unique_ptr<SpillFile>(new SpillFile(f));
}

SpillFile::~SpillFile() { std::fclose(f_); }

Status SpillFile::Append(std::string_view bytes) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), f_) != bytes.size()) {
    return Status::IOError("cannot write a temporary file to sort in (is the disk full?)");
  }
  return Status::OK();
}

Status SpillFile::Rewind() {
  if (std::fflush(f_) != 0 || std::fseek(f_, 0, SEEK_SET) != 0) {
    return Status::IOError("cannot write a temporary file to sort in (is the disk full?)");
  }
  return Status::OK();
}

Result<bool> SpillFile::Read(size_t n, char* out) {
  const size_t got = std::fread(out, 1, n, f_);
  if (got == n) return true;
  if (std::ferror(f_)) return Status::IOError("cannot read a temporary file to sort in");
  if (got == 0) return false;
  return Status::Corruption("a temporary file to sort in ends within a record");
}

}  // namespace lakedump
