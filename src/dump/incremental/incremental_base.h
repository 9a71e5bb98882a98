// The base of incremental dumps (docs/incremental.md): before the full dump, the
// publication of the tables an increment follows by their changes (created before the slot,
// so that the slot's decoding sees it from its first change); after it, the manifest's
// "incremental" block. The slot itself is created by the source when it takes its snapshot
// (PostgresOptions::slot_name). After a failed base both go again.
// Functions; each opens its own connection.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dump/dump_options.h"
#include "lake/incremental_state.h"
#include "lake/manifest.h"
#include "source/postgres/pg_type_map.h"

namespace lakedump {

struct IncrementalBasePlan {
  // The base's dump id, chosen before the dump (the dump must run with it: the slot and
  // publication are named after it, dump/incremental/slot_ownership.h).
  std::string dump_id;
  IncrementalBase base;  // slot, publication, tables; consistent_point set by the hook
  std::vector<std::string> warnings;  // e.g. the replaced base's slot that was left alone
};

// Checks wal_level, describes the tables `options` selects, chooses the dump id and creates
// the publication with its ownership marker. `replaced`: the incremental base this one
// overwrites (null if none); its slot and publication are dropped when they are lakedump's
// for its dump id in this database and unused (else left, with a warning).
Result<IncrementalBasePlan> PrepareIncrementalBase(const std::string& conninfo,
                                                   int connect_timeout_s,
                                                   const DumpOptions& options,
                                                   const PgTypeOptions& types,
                                                   nlohmann::json pg_options,
                                                   const DumpManifest* replaced);

// The manifest's "incremental" block, with the consistent point the source recorded
// (Internal error when the dump did not run with the plan's dump id).
Status AddIncrementalBlock(const IncrementalBasePlan& plan, DumpManifest* manifest);

// After a base that did not commit: drops its slot (once the connection that created it is
// gone) and its publication. Best effort: returns what could not be removed.
Status AbandonIncrementalBase(const std::string& conninfo, int connect_timeout_s,
                              const IncrementalBasePlan& plan);

// `lakedump gc --drop-slot`: drops the slot and publication of the base at DEST, connecting
// with `conninfo` (the user's, never the manifest's). Refused (InvalidArgument, nothing
// dropped) unless the connection reaches the database the base records and the slot and
// publication are lakedump's for its dump id (slot_ownership.h). False when both were gone.
Result<bool> DropIncrementalSlot(const std::string& conninfo, int connect_timeout_s,
                                 const DumpManifest& base_manifest, const IncrementalBase& base);

}  // namespace lakedump
