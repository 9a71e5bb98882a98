#include "load/large_object_load.h"

#include <fmt/format.h>

#include <map>

namespace lakedump {
namespace {

// PlanLargeObjects plans objects only for a target with the capability.
Result<LargeObjectTarget*> LargeObjectTargetOf(TargetDatabase& target) {
  auto* into = dynamic_cast<LargeObjectTarget*>(&target);
  if (into == nullptr) return Status::Internal("large objects planned for a target without them");
  return into;
}

}  // namespace

Result<LargeObjectLoadPlan> PlanLargeObjects(const DumpManifest& manifest,
                                             const LoadOptions& options,
                                             const TargetDatabase& target, bool subset) {
  LargeObjectLoadPlan plan;
  LD_ASSIGN_OR_RETURN(std::vector<LargeObjectEntry> objects, ParseLargeObjects(manifest.schema));
  if (objects.empty() || options.schema_only) return plan;  // data, as pg_restore's BLOBS
  if (dynamic_cast<const LargeObjectTarget*>(&target) == nullptr) {
    plan.skipped.push_back(fmt::format(
        "skipped {} PostgreSQL large object(s): large objects cannot be restored into {}",
        objects.size(), target.Describe()));
    return plan;
  }
  if (subset) {
    plan.warnings.push_back(fmt::format(
        "the dump's {} large object(s) are not restored: -t/--table, --tables and -n/--schema "
        "restore tables only (as pg_restore leaves large objects out with -t or -n); load "
        "without them to restore the large objects",
        objects.size()));
    return plan;
  }
  plan.roles = options.roles;
  if (!options.trust_schema) {
    plan.roles.no_owner = true;
    plan.roles.no_privileges = true;
    plan.warnings.push_back(fmt::format(
        "{} large object(s) restored without their owners and grants: the dump is not trusted "
        "(load with --trust-dump, or --require-signature, to restore them)",
        objects.size()));
  }
  plan.objects = std::move(objects);
  return plan;
}

Status CheckLargeObjectsBeforeLoad(ObjectStore& store, TargetDatabase& target,
                                   const LargeObjectLoadPlan& plan) {
  if (plan.objects.empty()) return Status::OK();
  LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> listed, store.List(kLargeObjectsPrefix));
  std::map<std::string, uint64_t> sizes;
  for (const ObjectInfo& o : listed) sizes.emplace(o.key, o.size);
  std::vector<LargeObjectMeta> metas;
  for (const LargeObjectEntry& e : plan.objects) {
    auto it = sizes.find(e.key);
    if (it == sizes.end()) {
      return Status::InvalidArgument(fmt::format(
          "{}: the large object's file is missing (the manifest lists it); nothing was "
          "restored",
          e.key));
    }
    if (it->second != e.bytes) {
      return Status::InvalidArgument(
          fmt::format("{}: {} bytes but _manifest.json says {}; nothing was restored", e.key,
                      it->second, e.bytes));
    }
    metas.push_back(e.meta);
  }
  LD_ASSIGN_OR_RETURN(LargeObjectTarget * into, LargeObjectTargetOf(target));
  return into->CheckLargeObjects(metas, plan.roles);
}

Result<uint64_t> RestoreLargeObjects(ObjectStore& store, TargetDatabase& target,
                                     const LargeObjectLoadPlan& plan, std::stop_token stop) {
  uint64_t restored = 0;
  if (plan.objects.empty()) return restored;
  LD_ASSIGN_OR_RETURN(LargeObjectTarget * into, LargeObjectTargetOf(target));
  for (const LargeObjectEntry& e : plan.objects) {
    if (stop.stop_requested()) return Status::Cancelled("cancelled");
    LD_ASSIGN_OR_RETURN(std::unique_ptr<LargeObjectSink> sink,
                        into->OpenLargeObject(e.meta, plan.roles));
    // The checksum is known after the last chunk: the sink commits only then, so a file that
    // does not match leaves nothing of its object.
    LD_RETURN_IF_ERROR(ReadLargeObjectChecked(
        store, e, [&sink](std::string_view chunk) { return sink->Append(chunk); }));
    LD_RETURN_IF_ERROR(sink->Commit());
    ++restored;
  }
  return restored;
}

}  // namespace lakedump
