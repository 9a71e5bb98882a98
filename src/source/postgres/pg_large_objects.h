// The large objects of a PostgreSQL source at the dump's snapshot (docs/dump-format.md,
// "Large objects"): listed with owner, grants and comment from pg_largeobject_metadata, read
// with lo_get(oid, offset, length) in binary, one chunk at a time, on a session of their own
// that imported the snapshot (the tables' workers and the coordinator are not held up).
// The source is used by one thread at a time.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "source/large_object_source.h"

namespace lakedump {

// Connects, imports `snapshot_id` (REPEATABLE READ, READ ONLY) and lists the large objects;
// nullptr when there are none (the session is then closed at once).
Result<std::unique_ptr<LargeObjectSource>> OpenPgLargeObjects(const std::string& conninfo,
                                                              int connect_timeout_s,
                                                              const std::string& snapshot_id);

}  // namespace lakedump
