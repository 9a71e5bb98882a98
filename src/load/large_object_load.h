// The large objects of a load (lake/large_objects.h, docs/dump-format.md "Large objects"):
// which are restored, as pg_restore treats BLOBS (data: restored with the data, so not with
// --schema-only; left out by -t/--tables/-n, which restore tables only; restored into
// PostgreSQL only), the checks before anything is created, and the restore itself: each
// object streamed from the dump in chunks into the target, checked against its size and
// checksums before its transaction commits.
// Stateless functions; the restore runs on the calling thread.
#pragma once

#include <stop_token>
#include <string>
#include <vector>

#include "base/status.h"
#include "lake/large_objects.h"
#include "lake/manifest.h"
#include "load/load_options.h"
#include "load/target_database.h"
#include "store/object_store.h"

namespace lakedump {

struct LargeObjectLoadPlan {
  std::vector<LargeObjectEntry> objects;  // to restore, by OID
  RestoreRoles roles;                     // as restored (an untrusted dump's: neither)
  std::vector<std::string> warnings;      // the load's warnings (left out by -t...)
  std::vector<std::string> skipped;       // cross-engine skips (schema.skipped)
};

// The dump's large objects (a malformed list is InvalidArgument) and which this load
// restores: `subset` is -t/--tables/-n. Without `options.trust_schema` a large object's
// owner and grants are not restored (they are the dump's word on who may read it), as with
// --no-owner --no-privileges, and a warning says so.
Result<LargeObjectLoadPlan> PlanLargeObjects(const DumpManifest& manifest,
                                             const LoadOptions& options,
                                             const TargetDatabase& target, bool subset);

// Before anything is created: each object's file is in the dump's listing with its size, and
// the target takes them (TargetDatabase::CheckLargeObjects). InvalidArgument otherwise.
Status CheckLargeObjectsBeforeLoad(ObjectStore& store, TargetDatabase& target,
                                   const LargeObjectLoadPlan& plan);

// Restores each object in a transaction of its own; returns how many.
Result<uint64_t> RestoreLargeObjects(ObjectStore& store, TargetDatabase& target,
                                     const LargeObjectLoadPlan& plan, std::stop_token stop);

}  // namespace lakedump
