// The PostgreSQL target of `lakedump load` (TargetDatabase, see
// load/target_database.h for the protocol). Per table:
//   PrepareTable  refuses an existing table in fail mode; creates the schema if
//                 missing and a staging table "<schema>"."_lakedump_load_<name>"
//                 (a leftover of a crashed run under that name is dropped first)
//                 with the source's exact types (dump from PostgreSQL, types that
//                 exist in the target) or types mapped from the logical ones;
//                 in append mode with the existing table's column types, leaving out
//                 the columns it generates (GENERATED ALWAYS AS ... STORED).
//   OpenSink      one pooled connection, BEGIN, COPY staging FROM STDIN (FORMAT
//                 binary), rows encoded by PgCopyEncoder, ~1 MiB per PQputCopyData;
//                 Finish = end of COPY + COMMIT; destroyed unfinished = ROLLBACK.
//                 The only sink of a table (TablePlan::single_sink) runs
//                 BEGIN; TRUNCATE staging; COPY ... (FORMAT binary, FREEZE).
//   CommitTable   casts text-staged columns to their real types, builds the primary
//                 key and unique constraints, then in ONE transaction drops the old
//                 table (replace), renames the staging table and its keys and
//                 restores identity columns (fail/replace), or
//                 INSERT ... SELECT from staging into the existing table and drops
//                 the staging table (append); then ANALYZE.
//   AbortTable    drops the staging table.
// With --data-only (TablePlan::commit_together) the appends wait, staged, for
// CommitTogether: every table's rows in one transaction, in foreign-key order
// (pg_append_together.h).
// So a reader sees the old table or the whole new one, never a part; a failed
// or killed load leaves at most a staging table, which the next run replaces.
//
// A table the schema restore has just created (TablePlan::restored_empty: empty, no
// indexes yet; a plain or partitioned table, else the staging path above) is loaded
// straight into:
//   PrepareTable  reads the table's column types; no staging table. A column without a
//                 binary encoding (kAsText, pg_copy_encoder.h) makes the table's COPY
//                 FORMAT text (every value in its type's text input form).
//   OpenSink      BEGIN, COPY table FROM STDIN (FORMAT binary|text); the only sink of a plain
//                 table runs BEGIN; TRUNCATE ONLY table; COPY ... (FORMAT ..., FREEZE),
//                 so its whole load is one transaction; several sinks commit each their part.
//   CommitTable   tells the schema restorer the table is loaded: its post-data (indexes,
//                 keys, constraints, triggers) may be restored while other tables load
//                 (pg_schema_restore.h); no ANALYZE, as pg_restore: autovacuum analyzes new
//                 tables.
//   AbortTable    empties the table (TRUNCATE), so no part of it stays loaded.
// The restore is into an empty database and fails as a whole: after a failed table no more
// post-data starts and no grant is restored (README "A replica").
// Mapping and limits: docs/type-mapping.md, "Loading into PostgreSQL".
//
// Thread-safe (TargetDatabase contract). Sinks borrow the target: REQUIRES
// every sink is destroyed before the target.
#pragma once

#include <memory>
#include <string>

#include "load/postgres/pg_ddl_text.h"
#include "load/target_database.h"

namespace lakedump {

struct PostgresTargetOptions {
  // Connections open at once (sinks + table DDL). Should be at least
  // table parallelism x files per table, or table tasks wait for each other.
  int max_connections = 8;
  int connect_timeout_s = 10;
  // COPY data is sent in chunks of about this many bytes.
  size_t copy_buffer_bytes = 1 << 20;
  // Sinks (connections, each with its own COPY) loading one table at once.
  int max_sinks_per_table = 2;
  // When one sink loads a whole table (TablePlan::single_sink): TRUNCATE the staging table
  // and COPY ... FREEZE in the sink's transaction.
  bool copy_freeze = true;
  // maintenance_work_mem of the session that builds a table's keys (server memory,
  // per table being committed); empty = the server's setting (64MB by default,
  // which makes the primary key of a 10M-row table an external sort).
  std::string maintenance_work_mem = "256MB";
  // How long the swap (and append, and the staging table's drop) waits for a lock on the
  // existing table before giving up with a clear error; 0 = wait forever.
  int64_t lock_timeout_ms = 30000;
  // load --disable-triggers (with --data-only, superuser only): the transaction that moves
  // the rows into existing tables fires no triggers and checks no foreign keys
  // (pg_append_together.h).
  bool disable_triggers = false;
};

// Connects once to check the server is reachable and the login works (one
// line errors, never the password); the connection is kept for reuse.
Result<std::unique_ptr<TargetDatabase>> OpenPostgresTarget(std::string conninfo,
                                                           PostgresTargetOptions options = {});

// The PostgreSQL type a logical type is created as when the dump's source
// types are not usable: int64 -> bigint, decimal(p,s) -> numeric(p,s), ...
std::string PgTypeForLogical(const LogicalType& type);

// "_lakedump_load_<name>", at most 63 bytes (long names are cut and hashed).
std::string PgStagingTableName(std::string_view table);

}  // namespace lakedump
