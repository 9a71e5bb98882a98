// What a load lets an increment do (docs/incremental.md, "What an increment may do"), decided
// for every increment to apply BEFORE the first one (or the base) is applied, so that a
// refused increment leaves the target unchanged:
//   - it touches only tables of its base dump (the base manifest's tables; for re-dumped and
//     dropped tables also the tables created after the base that the base's own selection
//     covers, once an increment up to this one records one as such), under the load's selection (--tables/--exclude, then --schema-map), and never a
//     schema of the target's system or lakedump's own (pg_*, information_schema, lakedump);
//   - the DDL it carries (re-dumped tables: TRUNCATE, columns added, dropped or retyped, a table
//     created; dropped tables) only when IncrementDdlAllowed;
//   - the column types of its re-dumped tables come from the closed grammar of
//     pg_type_grammar.h.
// Each refusal is InvalidArgument: one line naming the increment (and the table or column).
// Functions; thread-safe (the store's calls are).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "lake/increment_signature.h"
#include "lake/incremental_state.h"
#include "lake/manifest.h"
#include "store/object_store.h"

namespace lakedump {

// What the user said about trusting the dump's increments.
struct IncrementTrust {
  bool trust_dump = false;  // --trust-dump
  // With --require-signature: the increments whose own signature verified (lake/
  // increment_signature.h); nullptr without it. Not owned.
  const SignedIncrementChain* chain = nullptr;
};

// THE decision whether the DDL an increment carries is applied: the one place it is made
// (increment_checks.cc). A trusted load, or a verified signature of that increment (never the
// base's alone).
bool IncrementDdlAllowed(const IncrementTrust& trust, const IncrementManifest& increment);

// Whether the increment carries DDL at all (re-dumped or dropped tables).
bool IncrementCarriesDdl(const IncrementManifest& increment);

// The load's selection, as the load applies it.
struct IncrementScope {
  std::vector<std::string> include;  // --tables (empty: every table)
  std::vector<std::string> exclude;  // --exclude
  std::vector<std::pair<std::string, std::string>> schema_map;  // --schema-map
};

// The checks above for increments first..until of `increments` (every increment of the dump
// at `dest`, in order; those before `first` say which tables were created after the base),
// whose base is `base`. Reads the re-dumped tables' _table.json (redump/) of the increments
// whose DDL is allowed.
Status CheckIncrementsBeforeApply(ObjectStore& dest, const DumpManifest& base,
                                  const std::vector<IncrementManifest>& increments, int first,
                                  int until, const IncrementScope& scope,
                                  const IncrementTrust& trust);

}  // namespace lakedump
