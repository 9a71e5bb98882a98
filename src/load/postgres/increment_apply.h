// Applies increments of an incremental dump (docs/incremental.md) to a PostgreSQL target that
// holds the state the increment before left: each increment in ONE transaction on one
// connection (a failure leaves the target as the previous increment left it):
//   1. tables dropped from the source are dropped;
//   2. re-dumped tables (redump/, a lakedump dump of its own) are emptied and loaded whole,
//      after their columns are made to match (added, dropped, retyped); one the target
//      lacks (created in the source after the base) is created (columns, primary key);
//   3. the tables with many changes whose target table nothing orders against other rows
//      (increment_set_apply.h) are applied set-based, table by table;
//   4. the other change files are merged by _lsn (commit order across tables) and applied
//      row by row: insert, update by key (columns in _unchanged keep their value), delete by
//      key.
// An update or delete that finds no row, or an insert that collides, means the target is
// not where the increment starts: the increment fails and nothing of it stays.
// Every file is checked against its recorded size and XXH64 before it is applied.
//
// Memory: one batch per change file of the increment. Not thread-safe.
#pragma once

#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "lake/incremental_state.h"
#include "load/postgres/applied_increments.h"
#include "source/postgres/pg_conn.h"
#include "store/object_store.h"

namespace lakedump {

struct IncrementApplyStats {
  uint64_t inserted = 0, updated = 0, deleted = 0;
  uint64_t redumped_rows = 0;
  uint64_t set_based_tables = 0;  // tables whose changes were applied set-based
};

struct IncrementApplyOptions {
  std::vector<std::pair<std::string, std::string>> schema_map;  // --schema-map
  // IncrementDdlAllowed (increment_checks.h) for this increment: without it, an increment
  // with re-dumped or dropped tables is refused (CheckIncrementsBeforeApply refused it first).
  bool ddl_allowed = false;
  // Recorded in lakedump.applied_increments in the increment's transaction
  // (applied_increments.h), after checking that the last recorded increment is `previous`.
  const AppliedIncrement* record = nullptr;
  int previous = -1;
};

// `dest`: the store of the whole incremental dump (DEST). Column types of re-dumped tables
// come from the closed grammar of pg_type_grammar.h.
Result<IncrementApplyStats> ApplyIncrement(PgConn& target, ObjectStore& dest,
                                           const IncrementManifest& increment,
                                           const IncrementApplyOptions& options,
                                           std::stop_token stop);

}  // namespace lakedump
