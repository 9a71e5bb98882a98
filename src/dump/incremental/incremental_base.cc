#include "dump/incremental/incremental_base.h"

#include <fmt/format.h>

#include "dump/incremental/pg_incremental_tables.h"
#include "source/postgres/pg_catalog.h"
#include "source/postgres/pg_slot.h"
#include "source/postgres/pgoutput.h"

namespace lakedump {

Result<IncrementalBasePlan> PrepareIncrementalBase(const std::string& conninfo,
                                                   int connect_timeout_s,
                                                   const DumpOptions& options,
                                                   const PgTypeOptions& types,
                                                   nlohmann::json pg_options,
                                                   std::string_view dest) {
  LD_ASSIGN_OR_RETURN(std::unique_ptr<PgConn> conn, PgConn::Connect(conninfo, connect_timeout_s));
  LD_RETURN_IF_ERROR(CheckLogicalWal(*conn));
  LD_ASSIGN_OR_RETURN(std::vector<TableRef> refs,
                      ListSelectedTables(*conn, options.include, options.exclude));
  IncrementalBasePlan plan;
  IncrementalBase& b = plan.base;
  b.slot = IncrementalSlotName(dest);
  b.publication = b.slot;
  b.pg_options = std::move(pg_options);
  LD_ASSIGN_OR_RETURN(b.tables, DescribeIncrementalTables(*conn, refs, types));
  LD_ASSIGN_OR_RETURN(PgDatabaseIdentity id, QueryDatabaseIdentity(*conn));
  b.database_oid = std::move(id.oid);
  b.system_identifier = std::move(id.system_identifier);
  LD_ASSIGN_OR_RETURN(PgSlotState slot, QueryPgSlot(*conn, b.slot));
  if (slot.exists) {
    if (slot.active) {
      return Status::Unavailable(fmt::format(
          "replication slot {} (of {}) is in use by another connection", b.slot, dest));
    }
    // Left by an earlier base of this DEST that did not commit, or by the base this one
    // overwrites: its chain ends here.
    LD_RETURN_IF_ERROR(DropPgSlot(*conn, b.slot));
  }
  LD_RETURN_IF_ERROR(CreateIncrementalPublication(*conn, b.publication, b.tables));
  return plan;
}

Status AddIncrementalBlock(const IncrementalBasePlan& plan, DumpManifest* manifest) {
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

Status DropIncrementalSlot(const std::string& conninfo, int connect_timeout_s,
                           const IncrementalBase& base) {
  LD_ASSIGN_OR_RETURN(std::unique_ptr<PgConn> conn, PgConn::Connect(conninfo, connect_timeout_s));
  LD_RETURN_IF_ERROR(DropPgSlot(*conn, base.slot, 10));
  return DropIncrementalPublication(*conn, base.publication);
}

}  // namespace lakedump
