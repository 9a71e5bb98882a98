// `lakedump gc DEST --expire-snapshots`: trims the history of every Iceberg table of a
// committed dump. For each table of _manifest.json whose Iceberg metadata checks (as a
// later dump would read it), the snapshots that expire are left out of a new
// v<N+1>.metadata.json (then version-hint.text), and only then are the objects that only
// they referenced deleted: the data files, manifests and manifest lists named after their
// runs. The current snapshot never expires; metadata files stay (they are small, and the
// metadata-log names them). Holds the dump's lease while it works, so no dump runs beside it.
// A function; thread-safe (the store is).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "store/object_store.h"

namespace lakedump {

struct ExpireOptions {
  // Snapshots to keep, newest first (the current one included): at least 1.
  int retain_last = 1;
  // With a value: only snapshots older than this expire (the newest retain_last never).
  std::optional<std::chrono::milliseconds> older_than;
  int64_t now_ms = 0;  // the clock, in ms since the epoch
};

struct ExpireResult {
  uint64_t tables = 0;              // tables whose history was trimmed
  uint64_t snapshots_expired = 0;
  std::vector<std::string> deleted;  // keys
  std::vector<std::string> warnings;  // tables left alone, and why
};

// NotFound without a committed dump; InvalidArgument for retain_last < 1; the lease's
// error when a dump holds DEST. A table whose metadata does not check is left alone (a
// warning), never trimmed.
Result<ExpireResult> ExpireIcebergSnapshots(ObjectStore& store, const ExpireOptions& options);

}  // namespace lakedump
