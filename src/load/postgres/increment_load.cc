#include "load/postgres/increment_load.h"

#include <fmt/format.h>

namespace lakedump {
namespace {

std::vector<const IncrementManifest*> Range(const std::vector<IncrementManifest>& increments,
                                            int first, int until) {
  std::vector<const IncrementManifest*> out;
  for (int n = first; n <= until && n <= static_cast<int>(increments.size()); ++n) {
    out.push_back(&increments[static_cast<size_t>(n - 1)]);
  }
  return out;
}

}  // namespace

Result<IncrementLoadPlan> PlanIncrementsAfterBase(ObjectStore& dest, const DumpManifest& base,
                                                  const std::vector<IncrementManifest>& increments,
                                                  const IncrementLoadRequest& request) {
  IncrementLoadPlan plan;
  plan.first = 1;
  plan.until = request.until;
  plan.previous = 0;
  LD_RETURN_IF_ERROR(CheckIncrementsBeforeApply(dest, base, increments, 1, request.until,
                                                request.scope, request.trust));
  return plan;
}

Result<IncrementLoadPlan> PlanIncrementsToAppend(PgConn& conn, ObjectStore& dest,
                                                 const DumpManifest& base,
                                                 const std::vector<IncrementManifest>& increments,
                                                 const IncrementLoadRequest& request) {
  LD_ASSIGN_OR_RETURN(AppliedState state, ReadAppliedState(conn, base.dump_id));
  bool unrecorded = false;
  LD_ASSIGN_OR_RETURN(const int first, FirstIncrementToApply(state, base.dump_id, request.from,
                                                             increments, &unrecorded));
  IncrementLoadPlan plan;
  plan.first = first;
  plan.until = request.until;
  plan.previous = unrecorded ? -1 : first - 1;
  if (unrecorded) {
    plan.note = fmt::format(
        "the target records no increment of dump {}: increments are applied from {} as --from "
        "says, and recorded from then on",
        base.dump_id, first);
  }
  LD_RETURN_IF_ERROR(CheckIncrementsBeforeApply(dest, base, increments, first, plan.until,
                                                request.scope, request.trust));
  return plan;
}

AppliedIncrement BaseRecord(const DumpManifest& base, const std::string& manifest_sha256) {
  return AppliedIncrement{base.dump_id, 0, base.dump_id, manifest_sha256};
}

Status ApplyPlannedIncrements(
    PgConn& conn, ObjectStore& dest, const DumpManifest& base,
    const std::vector<IncrementManifest>& increments, const IncrementLoadPlan& plan,
    const IncrementLoadRequest& request, std::stop_token stop,
    const std::function<void(const IncrementManifest&, const IncrementApplyStats&)>& report) {
  if (plan.first > plan.until) return Status::OK();
  LD_RETURN_IF_ERROR(EnsureAppliedIncrementsTable(conn));
  int previous = plan.previous;
  for (const IncrementManifest* m : Range(increments, plan.first, plan.until)) {
    const AppliedIncrement record{base.dump_id, m->sequence, m->increment_id, m->manifest_sha256};
    IncrementApplyOptions options;
    options.schema_map = request.scope.schema_map;
    options.ddl_allowed = IncrementDdlAllowed(request.trust, *m);
    options.record = &record;
    options.previous = previous;
    auto stats = ApplyIncrement(conn, dest, *m, options, stop);
    if (!stats.ok()) {
      return stats.status().WithContext(fmt::format(
          "increment {} not applied (the target holds what increment {} left; re-run with "
          "--if-exists append)",
          m->sequence, m->sequence - 1));
    }
    report(*m, *stats);
    previous = m->sequence;
  }
  return Status::OK();
}

}  // namespace lakedump
