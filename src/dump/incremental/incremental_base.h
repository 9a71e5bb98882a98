// The base of incremental dumps (docs/incremental.md): before the full dump, the
// publication of the tables an increment follows by their changes (created before the slot,
// so that the slot's decoding sees it from its first change); after it, the manifest's
// "incremental" block. The slot itself is created by the source when it takes its snapshot
// (PostgresOptions::slot_name). After a failed base both go again.
// Functions; each opens its own connection.
#pragma once

#include <string>
#include <string_view>

#include "dump/dump_options.h"
#include "lake/incremental_state.h"
#include "lake/manifest.h"
#include "source/postgres/pg_type_map.h"

namespace lakedump {

struct IncrementalBasePlan {
  IncrementalBase base;  // slot, publication, tables; consistent_point set by the hook
};

// Checks wal_level, describes the tables `options` selects, drops a slot of the same name
// left by a dead earlier base of `dest` (refused while in use) and creates the publication.
Result<IncrementalBasePlan> PrepareIncrementalBase(const std::string& conninfo,
                                                   int connect_timeout_s,
                                                   const DumpOptions& options,
                                                   const PgTypeOptions& types,
                                                   nlohmann::json pg_options,
                                                   std::string_view dest);

// The manifest's "incremental" block, with the consistent point the source recorded.
Status AddIncrementalBlock(const IncrementalBasePlan& plan, DumpManifest* manifest);

// After a base that did not commit: drops its slot (once the connection that created it is
// gone) and its publication. Best effort: returns what could not be removed.
Status AbandonIncrementalBase(const std::string& conninfo, int connect_timeout_s,
                              const IncrementalBasePlan& plan);

// `lakedump gc --drop-slot`: drops the slot and publication the base at DEST names.
Status DropIncrementalSlot(const std::string& conninfo, int connect_timeout_s,
                           const IncrementalBase& base);

}  // namespace lakedump
