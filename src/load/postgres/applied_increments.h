// The record of what a PostgreSQL target holds of an incremental dump (docs/incremental.md,
// "Applied increments"): the table lakedump.applied_increments, one row per increment applied
// (sequence 0: the base), written in the same transaction as the increment's changes, so it is
// exact. It makes increments apply exactly once and in order: --from defaults to the one after
// the last recorded, and a gap, a double apply or an increment of another dump is refused.
// Functions on the caller's connection (one thread); FirstIncrementToApply is pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lake/incremental_state.h"
#include "source/postgres/pg_conn.h"

namespace lakedump {

inline constexpr std::string_view kAppliedIncrementsTable = "lakedump.applied_increments";

// One row: what was applied.
struct AppliedIncrement {
  std::string dump_id;          // the base dump's dump_id
  int sequence = 0;             // 0: the base
  std::string increment_id;     // the increment's run id (the base: its dump_id)
  std::string manifest_sha256;  // of its _manifest.json as read
};

// What the target records.
struct AppliedState {
  std::optional<AppliedIncrement> last;  // of this dump; none when it records none of it
  std::vector<std::string> other_dumps;  // dump ids of other dumps it records
};

// Creates the schema lakedump and the table if missing.
Status EnsureAppliedIncrementsTable(PgConn& conn);
// The target's record for `dump_id` (an absent table records nothing).
Result<AppliedState> ReadAppliedState(PgConn& conn, const std::string& dump_id);

// The first increment a load in append mode applies: `from` (0 when not given) checked
// against the record, else the one after the last recorded. `increments`: the dump's, 1..N.
// InvalidArgument, one line, for a gap, a double apply, an increment of another dump, an
// increment the target applied that differs from the dump's now, or no record without --from.
// Returns N+1 when the target holds every increment. `*unrecorded` is set when the target
// records nothing and `from` is taken as given.
Result<int> FirstIncrementToApply(const AppliedState& state, const std::string& dump_id, int from,
                                  const std::vector<IncrementManifest>& increments,
                                  bool* unrecorded);

// Inside the transaction of an increment, before its changes: locks the record (one applier at
// a time) and checks that the last recorded increment of the dump is `previous` (-1: none
// recorded, the first increment applied to a target loaded before records existed).
Status LockAppliedIncrements(PgConn& conn, const std::string& dump_id, int previous);
// Inside the same transaction, after its changes: the row.
Status InsertAppliedIncrement(PgConn& conn, const AppliedIncrement& row);
// After a base load, in a transaction of its own: forgets the rows of the dump, records the
// base (sequence 0).
Status RecordBaseLoaded(PgConn& conn, const AppliedIncrement& base);

}  // namespace lakedump
