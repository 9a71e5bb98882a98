// The PostgreSQL source: OpenPostgresDatabase() connects a coordinator session
// and returns a Database whose sources read one exported snapshot in parallel.
//
// Consistency (as pg_dump -j): BeginSnapshot() opens REPEATABLE READ, READ ONLY
// on the coordinator, exports its snapshot and records the WAL position; the
// coordinator stays open (idle in transaction) until the Database is
// destroyed. Tables are locked ACCESS SHARE (NOWAIT) by the coordinator in
// LockTables(), or lazily on first Split()/Open(). Each source runs on a pooled
// worker connection (at most max_connections) in its own REPEATABLE READ, READ
// ONLY transaction that imports the snapshot and locks its table NOWAIT, so a
// worker never queues behind a pending exclusive lock.
//
// CaptureSchema() reads the schema's catalog facts on a short-lived connection of its
// own that imports the snapshot (so they never wait for, or hold up, the coordinator),
// and pg_dump --schema-only opens one more: at most max_connections + 3 sessions.
//
// Thread-safety: the Database is thread-safe (catalog calls serialize on the
// coordinator connection). Sources are not; they must be destroyed before the
// Database.
#pragma once

#include <memory>
#include <stop_token>
#include <string_view>

#include "source/postgres/pg_copy_decoder.h"
#include "source/postgres/pg_type_map.h"
#include "source/table_source.h"

namespace lakedump {

inline constexpr int kLockWaitForever = -1;

struct PostgresOptions {
  int max_connections = 4;          // worker connections (the coordinator is one more)
  int connect_timeout_seconds = 10; // unless the conninfo or PGCONNECT_TIMEOUT sets one
  bool include_materialized_views = false;
  PgTypeOptions types;              // unbounded numeric policy
  PgInfinityPolicy infinity = PgInfinityPolicy::kClamp;
  PgNumericSpecialPolicy numeric_special = PgNumericSpecialPolicy::kError;
  // How long the dump's ACCESS SHARE lock on a table waits for a conflicting lock (a
  // migration, VACUUM FULL) to go (dump --lock-wait-timeout): 0 = NOWAIT, fail at once;
  // > 0 = up to that many ms per table; kLockWaitForever = without limit (pg_dump's default).
  // The wait is taken in slices of at most a second, so that `stop` ends it.
  int lock_timeout_ms = 0;
  std::stop_token stop;             // SIGINT/SIGTERM: a lock wait ends (Cancelled)
  // Incremental dumps (docs/incremental.md): non-empty = BeginSnapshot() creates this
  // logical replication slot (pgoutput) on a replication connection with
  // CREATE_REPLICATION_SLOT ... (SNAPSHOT 'export') and every session reads the slot's
  // exported snapshot; the replication connection stays open, idle, until the Database is
  // destroyed (the snapshot lives as long as it does). Describe() then gives
  // "replication_slot" and "consistent_point" (the LSN where the slot's changes start).
  // Refused in one line when the server's wal_level is not logical.
  std::string slot_name;
  bool slot_temporary = false;      // dropped by the server when the connection closes
};

// A measured default for Split() target_bytes (heap bytes per work unit).
inline constexpr uint64_t kDefaultPostgresSplitBytes = 256ull << 20;

// conninfo: postgres:// or postgresql:// URI, or a libpq keyword string
// ("host=... dbname=..."); empty = PG* environment variables only.
Result<std::unique_ptr<Database>> OpenPostgresDatabase(std::string_view conninfo,
                                                       const PostgresOptions& options);

}  // namespace lakedump
