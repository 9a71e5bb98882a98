// The large objects of a load (lake/large_objects.h, docs/dump-format.md "Large objects"):
// which are restored, as pg_restore treats BLOBS (data: restored with the data, so not with
// --schema-only; left out by -t/--tables/-n, which restore tables only; restored into
// PostgreSQL only), the checks before anything is created, and the restore itself: each
// object streamed from the dump in chunks into the target, checked against its size and
// checksums before its transaction commits.
// Stateless functions; the restore runs on the calling thread.
#pragma once

#include <stop_token>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "lake/large_objects.h"
#include "lake/manifest.h"
#include "load/load_options.h"
#include "load/target_database.h"
#include "store/object_store.h"

namespace lakedump {

// One large object being restored (LargeObjectTarget::OpenLargeObject): created with its OID,
// its bytes appended in chunks, then Commit() sets its owner, grants and comment and commits.
// Destroyed without Commit(): rolled back, nothing of it left. One thread.
class LargeObjectSink {
 public:
  virtual ~LargeObjectSink() = default;
  virtual Status Append(std::string_view bytes) = 0;
  virtual Status Commit() = 0;
};

// The capability of a TargetDatabase that holds large objects (PostgreSQL), found with
// dynamic_cast: a target without it (SQLite) leaves them out, listed as skipped.
// Thread-safe, like the target.
class LargeObjectTarget {
 public:
  virtual ~LargeObjectTarget() = default;
  // Before anything is created: InvalidArgument in one line when one of `objects` exists in
  // the target already (naming its OID), or a role restoring them needs (owner unless
  // --no-owner, grantees unless --no-privileges, after --role-map) does not.
  virtual Status CheckLargeObjects(const std::vector<LargeObjectMeta>& objects,
                                   const RestoreRoles& roles) = 0;
  // Starts restoring one large object with its own OID, in a transaction of its own.
  virtual Result<std::unique_ptr<LargeObjectSink>> OpenLargeObject(
      const LargeObjectMeta& object, const RestoreRoles& roles) = 0;
};

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
