// The schema of a dump restored into SQLite after its tables' data
// (docs/dump-format.md "Schema"):
//   - from a SQLite dump, trusted (LoadOptions::trust_schema): before the data,
//     the selected tables' recorded CREATE TABLE statements in their creation order
//     (the data is then appended into them), so that `.schema` prints the source's;
//     after it, the recorded indexes, views and triggers in the source's creation order
//     (none fires during the load; `.dump` prints them in that order), each statement
//     prepared alone (a statement with anything after it is refused), the sqlite_sequence
//     rows of AUTOINCREMENT tables in the source's order, and
//     no sqlite_stat1 unless the source had one (the load's ANALYZE makes one);
//   - otherwise (untrusted, or a PostgreSQL dump): the indexes on plain columns
//     from the manifest's structured "indexes" (quoted identifiers; no recorded
//     SQL runs), and one warning line per object skipped.
// Stateless; REQUIRES: the caller holds the connection's lock.
#pragma once

#include <sqlite3.h>

#include "load/target_database.h"

namespace lakedump {

// Before the data (trusted SQLite dumps only; otherwise nothing).
Status CreateRecordedSqliteTables(sqlite3* db, const SchemaRestorePlan& plan,
                                  SchemaRestoreOutcome* out);
// After the data.
Status ReplaySqliteSchema(sqlite3* db, const SchemaRestorePlan& plan, SchemaRestoreOutcome* out);

}  // namespace lakedump
