#include "cli/dump_failure.h"

#include <fmt/format.h>

#include "lake/manifest.h"

namespace lakedump::cli {

std::string UnabortedUploadsHint(uint64_t unaborted_uploads, const std::string& dest) {
  return fmt::format("{} multipart upload{} could not be aborted: run lakedump gc {}",
                     unaborted_uploads, unaborted_uploads == 1 ? "" : "s", dest);
}

Status DumpFailureStatus(const Status& error, bool interrupted, ObjectStore& store,
                         const std::string& run_id, uint64_t unaborted_uploads,
                         const std::string& dest) {
  auto manifest = ReadDumpManifest(store);
  if (manifest.ok() && manifest->dump_id == run_id) {
    return Status(error.code(),
                  fmt::format("{}{} (but _manifest.json of this run, {}, was stored: the dump is "
                              "committed; lakedump verify checks it)",
                              interrupted ? "interrupted: " : "", error.message(), run_id));
  }
  // The error may already carry a hint (a failed Close names its own upload).
  const size_t carried = error.message().find("run lakedump gc");
  std::string hint;
  if (unaborted_uploads > 0) {
    hint = "; " + UnabortedUploadsHint(unaborted_uploads, dest);
  } else if (carried != std::string::npos) {
    hint = "; some uploads could not be aborted: " + error.message().substr(carried);
  }
  if (!interrupted) {
    return carried != std::string::npos || hint.empty()
               ? error
               : Status(error.code(), error.message() + hint);
  }
  return Status::Cancelled("interrupted: nothing was committed" + hint);
}

}  // namespace lakedump::cli
