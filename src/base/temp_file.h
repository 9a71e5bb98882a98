// TempFile: private bytes that an external program reads by path (pg_restore's archive and
// --use-list, libpq's service file holding the client key's passphrase), that never have a
// name in the temp directory: the file is created unnamed (O_TMPFILE under $TMPDIR or /tmp;
// where the file system has no O_TMPFILE, created 0600 and unlinked at once), and only our
// open descriptor keeps it. path() is "/dev/fd/N": RunSubprocess hands descriptor N to a child
// whose argv or environment names it. A crash, even kill -9, leaves nothing behind: the kernel
// frees the file with the last descriptor.
// Not thread-safe: one owner.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace lakedump {

// An unnamed file opened read-write in $TMPDIR (or /tmp), as TempFile creates its file; -1 when
// none can be created.
int CreateUnnamedTempFile();

class TempFile {
 public:
  TempFile() = default;
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  // Creates the file with `data`; replaces an earlier one of this object.
  Status Write(std::string_view data);
  // "/dev/fd/N" while the file exists, else empty.
  const std::string& path() const { return path_; }

 private:
  void Remove();
  int fd_ = -1;
  std::string path_;
};

}  // namespace lakedump
