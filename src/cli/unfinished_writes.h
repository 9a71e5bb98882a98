// Writes that runs left unfinished under a destination: hidden temp files of a
// local folder, incomplete multipart uploads under an S3 prefix. Invisible to
// listings (they are no objects), so verify names them, and a dump that holds
// the destination's lease (so no other run is writing) removes them.
// Thread-safe.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "store/object_store.h"
#include "store/store_options.h"

namespace lakedump::cli {

// One line per unfinished write (a temp file's path, an upload's key and age).
Result<std::vector<std::string>> ListUnfinishedWrites(const std::string& dest, ObjectStore& store,
                                                      const StoreOptions& options);
// Removes them all (REQUIRES: this process holds the destination's lease and
// has no write of its own in flight). What was removed goes to *removed.
Status RemoveUnfinishedWrites(const std::string& dest, ObjectStore& store,
                              const StoreOptions& options, std::vector<std::string>* removed);

}  // namespace lakedump::cli
