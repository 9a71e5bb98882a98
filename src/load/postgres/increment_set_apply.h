// Set-based apply of one table's changes in an increment (docs/incremental.md, "Load"), for
// tables with many changes, on the caller's connection inside the transaction that applies
// the increment:
//   1. the table's change rows are COPied into a temporary table (typed as the target's
//      columns);
//   2. they are folded per key: the last change wins (by _lsn, then file order); a column an
//      update left unchanged (an unchanged TOASTed value) takes the value of the latest
//      change that set it, or keeps the target's;
//   3. the target must be where the increment starts, as row by row checks it: a key whose
//      first change is an insert must be absent, any other present;
//   4. one DELETE, one UPDATE and one INSERT against the target.
// The end state equals that of applying the changes one by one. Applied before the tables
// applied row by row, out of commit order across tables: SetBasedApplyAllowed() admits only
// target tables that nothing orders against others or against themselves (no foreign key
// either way, user trigger, rule, exclusion constraint, or unique index but the key's).
// Memory: one batch of a change file. Functions on the caller's connection (one thread).
#pragma once

#include <stop_token>
#include <string>
#include <vector>

#include "lake/incremental_state.h"
#include "load/postgres/increment_apply.h"
#include "source/postgres/pg_conn.h"
#include "store/object_store.h"

namespace lakedump {

// The changes of one table in an increment.
struct TableChangeSet {
  TableRef table;                        // in the source
  std::string target;                    // "schema"."table" in the target
  std::vector<std::string> key;          // the replica identity's columns
  std::vector<const ChangeFile*> files;  // in the increment's order
  bool escaped_names = false;            // IncrementManifest::escaped_column_names
  uint64_t rows() const {
    uint64_t n = 0;
    for (const ChangeFile* f : files) n += f->rows;
    return n;
  }
};

// From this many changes in one increment, a table is applied set-based when allowed: a
// temporary table and a few statements instead of one statement per change.
inline constexpr uint64_t kSetBasedMinChanges = 1000;

// Whether `target` (a plain table) may be applied set-based: see above; and the role may
// create temporary tables. False for a table that does not exist (row by row then says so).
Result<bool> SetBasedApplyAllowed(PgConn& conn, const std::string& target,
                                  const std::vector<std::string>& key);

// Applies `changes` (files under `increment`, the increment's folder) to the target table.
// InvalidArgument when the target is not where the increment starts; Corruption for a file
// that is not what the increment records.
Status ApplyChangesSetBased(PgConn& conn, ObjectStore& increment, int sequence,
                            const TableChangeSet& changes, IncrementApplyStats* stats,
                            std::stop_token stop);

}  // namespace lakedump
