#include "dump/incremental/incremental_base.h"

#include <fmt/format.h>

#include "dump/incremental/pg_incremental_tables.h"
#include "dump/incremental/slot_ownership.h"
#include "lake/object_keys.h"
#include "source/postgres/pg_catalog.h"
#include "source/postgres/pg_slot.h"
#include "source/postgres/pgoutput.h"

namespace lakedump {
namespace {

// Drops the slot and publication of `base` (of the dump `dump_id`) once both are shown to be
// lakedump's for it: false when both were gone already.
Result<bool> DropOwnedSlot(PgConn& conn, std::string_view dump_id, const IncrementalBase& base,
                           int wait_seconds) {
  LD_ASSIGN_OR_RETURN(const SlotOwnership owned, CheckSlotOwnership(conn, dump_id, base));
  if (owned == SlotOwnership::kGone) {
    LD_ASSIGN_OR_RETURN(PgSlotState slot, QueryPgSlot(conn, base.slot));
    if (!slot.exists) return false;
    return Status::InvalidArgument(fmt::format(
        "publication {} is gone, so nothing on the server shows that replication slot {} is "
        "lakedump's: it is left alone; drop it by hand once checked: SELECT "
        "pg_drop_replication_slot('{}')",
        base.publication, base.slot, base.slot));
  }
  LD_RETURN_IF_ERROR(DropPgSlot(conn, base.slot, wait_seconds));
  LD_RETURN_IF_ERROR(DropIncrementalPublication(conn, base.publication));
  return true;
}

// The slot and publication of the incremental base `replaced` (overwritten by a new base):
// dropped when they are lakedump's for its dump id in this database; else a warning.
void ReleaseReplacedBase(PgConn& conn, const DumpManifest& replaced,
                         std::vector<std::string>* warnings) {
  auto base = ParseIncrementalBase(replaced);
  if (!base.ok()) return;
  Status s = CheckBaseDatabase(conn, replaced, *base);
  if (s.ok()) s = DropOwnedSlot(conn, replaced.dump_id, *base, 0).status();
  if (!s.ok()) {
    warnings->push_back("the replication slot of the base this one replaces was left alone: " +
                        s.message());
  }
}

}  // namespace

Result<IncrementalBasePlan> PrepareIncrementalBase(const std::string& conninfo,
                                                   int connect_timeout_s,
                                                   const DumpOptions& options,
                                                   const PgTypeOptions& types,
                                                   nlohmann::json pg_options,
                                                   const DumpManifest* replaced) {
  LD_ASSIGN_OR_RETURN(std::unique_ptr<PgConn> conn, PgConn::Connect(conninfo, connect_timeout_s));
  LD_RETURN_IF_ERROR(CheckLogicalWal(*conn));
  LD_ASSIGN_OR_RETURN(std::vector<TableRef> refs,
                      ListSelectedTables(*conn, options.include, options.exclude));
  IncrementalBasePlan plan;
  plan.dump_id = NewRunId();
  IncrementalBase& b = plan.base;
  b.slot = IncrementalSlotName(plan.dump_id);
  b.publication = b.slot;
  b.pg_options = std::move(pg_options);
  LD_ASSIGN_OR_RETURN(b.tables, DescribeIncrementalTables(*conn, refs, types));
  LD_ASSIGN_OR_RETURN(PgDatabaseIdentity id, QueryDatabaseIdentity(*conn));
  b.database_oid = std::move(id.oid);
  b.system_identifier = std::move(id.system_identifier);
  if (replaced != nullptr) ReleaseReplacedBase(*conn, *replaced, &plan.warnings);
  LD_RETURN_IF_ERROR(CreateIncrementalPublication(*conn, b.publication, b.tables,
                                                  OwnershipMarker(plan.dump_id, b.slot)));
  return plan;
}

Status AddIncrementalBlock(const IncrementalBasePlan& plan, DumpManifest* manifest) {
  if (manifest->dump_id != plan.dump_id) {
    return Status::Internal("the dump did not run with the incremental base's dump id");
  }
  IncrementalBase b = plan.base;
  auto lsn = ParseLsn(manifest->source.value("consistent_point", std::string()));
  if (!lsn.ok()) {
    return Status::Internal("the source recorded no replication slot consistent point");
  }
  b.consistent_point = *lsn;
  manifest->incremental = ToJson(b);
  return Status::OK();
}

Status AbandonIncrementalBase(const std::string& conninfo, int connect_timeout_s,
                              const IncrementalBasePlan& plan) {
  LD_ASSIGN_OR_RETURN(std::unique_ptr<PgConn> conn, PgConn::Connect(conninfo, connect_timeout_s));
  Status slot = DropPgSlot(*conn, plan.base.slot);
  Status pub = DropIncrementalPublication(*conn, plan.base.publication);
  return slot.ok() ? pub : slot;
}

Result<bool> DropIncrementalSlot(const std::string& conninfo, int connect_timeout_s,
                                 const DumpManifest& base_manifest, const IncrementalBase& base) {
  LD_ASSIGN_OR_RETURN(std::unique_ptr<PgConn> conn, PgConn::Connect(conninfo, connect_timeout_s));
  LD_RETURN_IF_ERROR(CheckBaseDatabase(*conn, base_manifest, base));
  return DropOwnedSlot(*conn, base_manifest.dump_id, base, 10);
}

}  // namespace lakedump
