// The PostgreSQL side of incremental dumps that is not the change stream itself: which
// tables an increment follows by their changes and which it re-dumps whole (and why), the
// publication, the slot's name. docs/incremental.md.
// Functions on the caller's connection (one thread at a time).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lake/incremental_state.h"
#include "source/postgres/pg_catalog.h"
#include "source/postgres/pg_conn.h"

namespace lakedump {

// The glob that `dump --tables` matches against exactly this table (fnmatch escapes).
std::string ExactTablePattern(const TableRef& ref);

// The tables that `dump --tables` (`include`; every table when empty) and `--exclude`
// select now among the source's plain and partitioned tables (partitions go with their
// root), as the dump's planner selects them.
Result<std::vector<TableRef>> ListSelectedTables(PgConn& conn,
                                                 const std::vector<std::string>& include,
                                                 const std::vector<std::string>& exclude);

// The tables of `refs` that exist now, each with its state as the catalog gives it now:
// kChanges when it has a primary key (replica identity default) or a replica identity
// index and no generated column (its array columns read as text, for their values' shapes,
// in text_arrays); kRedump with the reason otherwise. Tables that no longer exist are left
// out. `plans` (when not null) receives the catalog plans of the tables returned, in the
// same order.
Result<std::vector<IncrementalTable>> DescribeIncrementalTables(
    PgConn& conn, const std::vector<TableRef>& refs, const PgTypeOptions& types,
    std::vector<PgTablePlan>* plans = nullptr);

// CREATE PUBLICATION for the kChanges tables (an empty publication when there is none),
// partitioned tables published through their root, with COMMENT ON PUBLICATION `comment` in
// the same transaction (the ownership marker, dump/incremental/slot_ownership.h). A
// publication of that name already there is an error, never dropped.
Status CreateIncrementalPublication(PgConn& conn, const std::string& name,
                                    const std::vector<IncrementalTable>& tables,
                                    const std::string& comment);
Status DropIncrementalPublication(PgConn& conn, const std::string& name);
// ALTER PUBLICATION ... DROP TABLE for the tables of `oids` that are still in it (a run that
// died after removing them, before its commit, left them out already).
Status RemoveFromPublication(PgConn& conn, const std::string& name,
                             const std::vector<uint32_t>& oids);

// The database a connection reaches: its OID and name, and the server's system identifier
// ("" when it cannot be read).
struct PgDatabaseIdentity {
  std::string oid;
  std::string name;
  std::string system_identifier;
};
Result<PgDatabaseIdentity> QueryDatabaseIdentity(PgConn& conn);

// "logical", or InvalidArgument telling what to set.
Status CheckLogicalWal(PgConn& conn);

}  // namespace lakedump
