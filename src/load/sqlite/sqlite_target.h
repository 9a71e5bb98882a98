// SqliteTarget: the SQLite backend of `lakedump load` (TargetDatabase).
//
// One read-write connection, guarded by one mutex; SQLite has one writer, so
// max_sinks_per_table() is 1. Table tasks decode Parquet in parallel and take
// turns inserting: each Append() is one transaction of prepared INSERTs.
//
// Atomicity: rows go into a staging table "_lakedump_load_<name>"; CommitTable
// then, in one transaction, drops the old table (--if-exists replace) and
// renames the staging table to <name>, or (append) copies the staging rows
// into the existing table and drops the staging table. A failure anywhere
// before (or a killed process) leaves at most the staging table, which
// AbortTable -- or the next PrepareTable of the same table -- drops. A sink
// destroyed without Finish() leaves its rows in staging; LoadService always
// aborts the table then.
//
// Names: SQLite has one schema here ("main"); a table loads under its table
// name, the dump's schema is ignored. Two tables loading into one name in one
// run are refused.
// Types: load/sqlite/sqlite_load_types.h. When the dump came from SQLite the
// recorded CREATE TABLE is re-used (declared types, constraints, WITHOUT ROWID
// identical), provided it creates exactly the dumped columns.
// Speed: synchronous=OFF and a 64 MiB page cache while loading (the commit
// itself runs at the database's own synchronous level); restored on close.
//
// Thread-safe. Sinks must not outlive the target.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "load/target_database.h"

namespace lakedump {

struct SqliteTargetOptions {
  int busy_timeout_ms = 10000;
};

// Opens (creating if missing) the SQLite database file at `path` for writing.
Result<std::unique_ptr<TargetDatabase>> OpenSqliteTarget(const std::string& path,
                                                         const SqliteTargetOptions& options);

// "_lakedump_load_<name>": where a table's rows wait until CommitTable.
std::string SqliteStagingName(std::string_view table);

}  // namespace lakedump
