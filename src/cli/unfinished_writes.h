// Writes that runs left unfinished under a destination: hidden temp files of a
// local folder, incomplete multipart uploads under an S3 prefix. Invisible to
// listings (they are no objects), so verify names them; gc, and a dump that holds
// the destination's lease, remove those that a dead run's journal names (or, of a
// lakedump that wrote no journal, those of the committed dump's shapes, past an age):
// never a live run's, never someone else's (lake/run_journal.h).
// Thread-safe.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "lake/run_journal.h"
#include "store/object_store.h"
#include "store/store_options.h"

namespace lakedump::cli {

// One unfinished write: the key of the object it would become (relative to DEST), and its
// upload id (S3) or its temp file's path (local).
struct UnfinishedWrite {
  std::string key;
  std::string upload_id;
  std::string path;
  std::chrono::seconds age{0};
  // The temp file's path, or "key (upload started Ns ago)".
  std::string Describe() const;
};

// Every unfinished write under DEST.
Result<std::vector<UnfinishedWrite>> ListUnfinished(const std::string& dest, ObjectStore& store,
                                                    const StoreOptions& options);
// One line per unfinished write (for verify's warnings).
Result<std::vector<std::string>> ListUnfinishedWrites(const std::string& dest, ObjectStore& store,
                                                      const StoreOptions& options);

// What gc decided: the writes it removed (or, with dry_run, would remove).
struct GcOutcome {
  bool no_dump = false;  // DEST holds nothing of lakedump's: nothing looked at
  std::vector<UnfinishedWrite> removed;
  size_t kept = 0;  // unfinished writes left (a live run's, someone else's, too young)
};

// gc of unfinished writes: lists them first, then reads the run journals, the committed
// manifest and the lease (live: not stale at `clock`'s WallNow()), and removes what
// MayRemoveUnfinishedWrite allows (`older_than` for writes no journal names).
Result<GcOutcome> CollectUnfinishedWrites(const std::string& dest, ObjectStore& store,
                                          const StoreOptions& options,
                                          std::chrono::seconds older_than, bool dry_run,
                                          Clock& clock);

// A dump under its lease (--if-exists resume|overwrite), before it writes: removes the
// unfinished writes of dead runs (no run but this one is live; this one has written
// nothing yet). What was removed goes to *removed.
Status RemoveUnfinishedWrites(const std::string& dest, ObjectStore& store,
                              const StoreOptions& options, std::vector<std::string>* removed);

// After a failed run: aborts the multipart uploads its journal names (those whose abort did
// not happen: the link was down, the process was told to stop). S3 only; a local store's
// writers remove their temp files themselves. What was aborted is counted in *aborted.
Status AbortRunUploads(const std::string& dest, const StoreOptions& options,
                       const RunClaims& claims, size_t* aborted);

}  // namespace lakedump::cli
