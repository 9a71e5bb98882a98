// The SQLite backend of the Database seam: a read-only view of one SQLite file,
// with every source reading the same state of the database even while other
// processes write to it.
//
// Consistency. BeginSnapshot() starts a read transaction (BEGIN + a read of
// sqlite_schema) on a coordinator connection, held until the database object
// is destroyed.
//  - Rollback-journal modes (delete, truncate, persist, memory, off): the
//    coordinator's SHARED lock stops every writer from committing, so extra
//    read connections that begin their transactions right after it, inside
//    BeginSnapshot(), see the same state. Sources are spread over this pool
//    (SqliteOptions::connections), so up to that many read in parallel.
//    Writers wait (or get SQLITE_BUSY) until the dump is over. Describe() gives a
//    "snapshot_id" (the file change counter, page count and schema cookie of the header),
//    and ImportSnapshot() in another process checks that its own read transaction sees
//    that very content: a sharded dump's workers (docs/scale-out.md).
//  - WAL mode: writers keep committing; a read transaction's snapshot is fixed
//    when it starts and SQLite 3.40 (Debian) has no sqlite3_snapshot_open to
//    share it, so every source reads through the coordinator's one connection,
//    each Next() holding that connection's mutex. No snapshot other processes can share.
// Everything (ListTables, DescribeTable, Open, Split) starts the snapshot
// lazily if BeginSnapshot() was not called.
//
// Thread-safe; each TableSource it opens is for one thread at a time.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "source/table_source.h"

namespace lakedump {

struct SqliteOptions {
  // false (--sqlite-type-mismatch=fail): a value that does not fit its column's
  // declared type fails the dump, naming table, column and rowid.
  // true (=string): columns whose declared type is not a known name (affinity
  // guesses like "BIGSERIAL", unknown names) become string, BLOBs in string
  // columns are written as \x-hex text, and a pre-scan of each table turns
  // every column holding a value that does not fit into a string column.
  bool lax_types = false;
  // Keep the exact SQLite values a table's typed columns would not give back, in one more
  // column of the tables that need it (source/sqlite/sqlite_values.h). Off for Iceberg tables,
  // whose schemas hold the source's columns only.
  bool exact_values = true;
  // Read connections in rollback-journal mode (WAL mode always uses one).
  int connections = 4;
  // How long a connection waits for a lock held by a writer.
  int busy_timeout_ms = 10000;
};

// Opens a SQLite database read-only. Accepts "sqlite:///abs/path.db",
// "sqlite://rel/path.db" and "sqlite:rel/path.db" (relative to the working
// directory), or a plain path to any existing file. No URI parameters: every
// character after the scheme is part of the file name.
// Errors: NotFound "no such database file: PATH"; InvalidArgument
// "PATH is not a SQLite database".
Result<std::unique_ptr<Database>> OpenSqliteDatabase(std::string_view path_or_url,
                                                     const SqliteOptions& options);

// OK when other processes can read the same state as a read transaction held on this file:
// rollback-journal modes. WAL mode: InvalidArgument naming the file and the ways out
// (--no-snapshot, a rollback journal, one machine): a sharded dump's coordinator refuses
// it before it starts (docs/scale-out.md).
Status CheckSqliteSnapshotShareable(std::string_view path_or_url);

// The file path of a sqlite: URL, or the argument itself when it is no URL.
std::string SqlitePathFromUrl(std::string_view path_or_url);

}  // namespace lakedump
