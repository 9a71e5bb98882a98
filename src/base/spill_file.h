// SpillFile: private scratch bytes of a sort that outgrew its memory bound. The file is created
// unnamed, as TempFile's (O_TMPFILE under $TMPDIR or /tmp; else created 0600 and unlinked at
// once), so that nothing is left with a name, even after kill -9. It is written once,
// sequentially, then read back from its start, both through stdio's buffer.
// Not thread-safe: one owner.
#pragma once

#include <cstdio>
#include <memory>
#include <string_view>

#include "base/status.h"

namespace lakedump {

class SpillFile {
 public:
  static Result<std::unique_ptr<SpillFile>> Create();
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  Status Append(std::string_view bytes);
  // Ends the writing; reads start at the first byte.
  Status Rewind();
  // Reads exactly `n` bytes into `out`: false at the end of the file, Corruption when the
  // file ends within them.
  Result<bool> Read(size_t n, char* out);

 private:
  explicit SpillFile(std::FILE* f) : f_(f) {}
  std::FILE* f_;
};

}  // namespace lakedump
