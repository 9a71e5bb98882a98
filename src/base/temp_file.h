// TempFile: a private file under $TMPDIR (or /tmp) holding bytes that an external
// program reads (pg_restore's archive and --use-list), removed on destruction.
// Not thread-safe: one owner.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace lakedump {

class TempFile {
 public:
  TempFile() = default;
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  // Creates the file (mode 0600) with `data`; replaces an earlier one of this object.
  Status Write(std::string_view data);
  const std::string& path() const { return path_; }

 private:
  void Remove();
  std::string path_;
};

}  // namespace lakedump
