// What `lakedump dump` reports when a run fails or is interrupted: "nothing was
// committed" only after checking that no manifest of this run was stored, and the
// `lakedump gc` hint whenever multipart uploads could not be aborted (they stay on
// the server, invisible to `ls` and `verify`, and cost storage until removed).
//
// Stateless functions; thread-compatible.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "store/object_store.h"

namespace lakedump::cli {

// "N multipart uploads could not be aborted: run lakedump gc DEST".
std::string UnabortedUploadsHint(uint64_t unaborted_uploads, const std::string& dest);

// The status to print for a failed run. `store` reads the manifest back (a handle
// the interrupt does not cancel); `unaborted_uploads` from the data store's stats.
Status DumpFailureStatus(const Status& error, bool interrupted, ObjectStore& store,
                         const std::string& run_id, uint64_t unaborted_uploads,
                         const std::string& dest);

}  // namespace lakedump::cli
