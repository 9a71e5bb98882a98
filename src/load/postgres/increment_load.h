// The increments a load applies to a PostgreSQL target, decided and checked before anything
// is written (docs/incremental.md, "Load"), then applied one transaction each, each recorded in
// lakedump.applied_increments (applied_increments.h):
//   - after a base load (PlanIncrementsAfterBase): increments 1..until;
//   - onto a target that holds an earlier state (--if-exists append, PlanIncrementsToAppend):
//     from the one after the last the target records (or --from N, which must agree).
// Functions on the caller's connection (one thread).
#pragma once

#include <functional>
#include <stop_token>
#include <string>
#include <vector>

#include "lake/incremental_state.h"
#include "lake/manifest.h"
#include "load/postgres/applied_increments.h"
#include "load/postgres/increment_apply.h"
#include "load/postgres/increment_checks.h"
#include "source/postgres/pg_conn.h"
#include "store/object_store.h"

namespace lakedump {

struct IncrementLoadRequest {
  int from = 0;    // --from (0: not given)
  int until = 0;   // the last increment to apply
  IncrementScope scope;
  IncrementTrust trust;
};

struct IncrementLoadPlan {
  int first = 1;      // the first increment to apply (> until: none)
  int until = 0;
  int previous = 0;   // the last one the target records before it (-1: none)
  std::string note;   // a warning to print ("" = none)
};

// Increments 1..until after the base, checked (CheckIncrementsBeforeApply) before the base is
// loaded. InvalidArgument for a refused increment.
Result<IncrementLoadPlan> PlanIncrementsAfterBase(ObjectStore& dest, const DumpManifest& base,
                                                  const std::vector<IncrementManifest>& increments,
                                                  const IncrementLoadRequest& request);

// The increments to apply onto `conn`'s target, from its record (FirstIncrementToApply), and
// checked. InvalidArgument for a refusal.
Result<IncrementLoadPlan> PlanIncrementsToAppend(PgConn& conn, ObjectStore& dest,
                                                 const DumpManifest& base,
                                                 const std::vector<IncrementManifest>& increments,
                                                 const IncrementLoadRequest& request);

// The row that records the base.
AppliedIncrement BaseRecord(const DumpManifest& base, const std::string& manifest_sha256);

// Applies plan.first..plan.until in order, each in one transaction that records it; `report`
// after each. Stops at the first failure (the increments before it stay applied and recorded).
Status ApplyPlannedIncrements(
    PgConn& conn, ObjectStore& dest, const DumpManifest& base,
    const std::vector<IncrementManifest>& increments, const IncrementLoadPlan& plan,
    const IncrementLoadRequest& request, std::stop_token stop,
    const std::function<void(const IncrementManifest&, const IncrementApplyStats&)>& report);

}  // namespace lakedump
