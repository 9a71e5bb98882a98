// RunIncrement: one incremental dump (docs/incremental.md). On a DEST whose dump is the base
// of incremental dumps, reads the changes the base's logical replication slot holds from the
// end of the last increment up to the WAL position current when it starts (once flushed), writes them per
// table as Parquet change files, re-dumps whole (at a fresh exported snapshot of a temporary
// slot) the tables it cannot follow by their changes, and commits the increment with its
// _manifest.json last. Only then is the slot moved forward: a run that dies before re-reads
// the same changes next time, and one that dies after is caught up by the next (which
// starts from the last committed increment's end, never from the slot alone).
//
// Holds DEST's lease for the whole run. Borrows the stores. Not thread-safe; one call at a
// time per DEST (the lease enforces it across processes).
#pragma once

#include <stop_token>
#include <string>
#include <vector>

#include "dump/dump_options.h"
#include "lake/incremental_state.h"
#include "lake/manifest.h"
#include "source/postgres/postgres_database.h"
#include "store/object_store.h"

namespace lakedump {

struct IncrementRequest {
  std::string conninfo;
  PostgresOptions pg;   // connections, type policies (the base's are used for decoding)
  DumpOptions dump;     // Parquet options, parallelism and lease waiting for the increment
};

struct IncrementResult {
  IncrementManifest manifest;
  // Problems after the commit point (the increment is committed): e.g. the slot could not
  // be moved forward (the next increment does it).
  std::vector<std::string> warnings;
};

Result<IncrementResult> RunIncrement(ObjectStore* store, ObjectStore* lease_store,
                                     const DumpManifest& base, const IncrementRequest& request,
                                     std::stop_token stop = {});

}  // namespace lakedump
