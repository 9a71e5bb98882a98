// `load --data-only` into tables that exist (a schema restored earlier with --schema-only, or
// by hand), all or nothing (issue 31, "Schema now, data later"; README "A replica").
//
// The rows of every such table are copied in parallel into staging tables, as any append
// is (postgres_target.h). Then one transaction moves them in: the tables in foreign-key order
// (a referenced table before the tables whose keys reference it, by the target's own
// pg_constraint, partitions through their ancestors), with SET CONSTRAINTS ALL DEFERRED, one
// INSERT ... SELECT per table, each staging table dropped; then COMMIT. Why this way:
//   - the keys stay as they are and check every row (what pg_restore --data-only does, table
//     by table), while the slow part, the COPY, still runs in parallel;
//   - parallel loads straight into the tables would check a child's rows against a parent
//     still loading on another connection (today's failure), and dropping the keys to add
//     them back would leave the schema without them if the load died in between;
//   - one transaction: a failure (a row that breaks a key, a cycle of keys that are not
//     DEFERRABLE) rolls every table back, and nothing is presented as loaded.
// After the rows, in the same transaction, the materialized views the dump recorded as
// populated and the target has are refreshed, in the archive's (dependency) order, as
// pg_restore --data-only does (its MATERIALIZED VIEW DATA entries).
// `disable_triggers` (load --disable-triggers, as pg_restore's, superuser only): the
// transaction runs with session_replication_role = replica, so neither the keys' checks nor
// user triggers fire (a cycle of keys then loads; the rows are not checked).
// Functions on the caller's connection; one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "source/postgres/pg_conn.h"

namespace lakedump {

// One table whose rows wait in a staging table.
struct PgStagedAppend {
  std::string name;         // "schema.table", for messages
  std::string final_table;  // quoted, qualified
  std::string staging;      // quoted, qualified
  std::string insert_sql;   // INSERT INTO final_table (...) ... SELECT ... FROM staging; empty
                            // for a materialized view (refreshed instead)
};

// Positions 0..n-1 in an order where each `edges` (parent, child) has the parent first; the
// original order is kept where the edges allow. Positions on a cycle come last, in their
// original order, and are listed in *cyclic.
std::vector<size_t> ForeignKeyOrder(size_t n, const std::vector<std::pair<size_t, size_t>>& edges,
                                    std::vector<size_t>* cyclic);

// The materialized views to refresh after a --data-only load: those of the manifest's
// schema (`schema`: its "objects", in archive order) not recorded as unpopulated, with
// their schema renamed by `schema_map`, that exist in the target as materialized views;
// quoted and qualified.
Result<std::vector<std::string>> PgMatviewsToRefresh(
    PgConn& conn, const nlohmann::json& schema,
    const std::vector<std::pair<std::string, std::string>>& schema_map);

// Moves the staged rows into their tables as described above, then refreshes `matviews`; the
// staging tables are dropped in the same transaction. On failure everything is rolled back
// (the staging tables stay, for PgDropStaged) and the error names the table and, for a
// cycle, the tables on it.
Status PgCommitAppendsTogether(PgConn& conn, const std::vector<PgStagedAppend>& tables,
                               const std::vector<std::string>& matviews, bool disable_triggers,
                               int64_t lock_timeout_ms);

// Drops the staging tables (best effort: every one is tried); the first error.
Status PgDropStaged(PgConn& conn, const std::vector<PgStagedAppend>& tables);

}  // namespace lakedump
