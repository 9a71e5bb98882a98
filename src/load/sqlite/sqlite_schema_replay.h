// The schema of a dump restored into SQLite after its tables' data
// (docs/dump-format.md "Schema"):
//   - from a SQLite dump, trusted (LoadOptions::trust_schema): the recorded
//     sqlite_schema entries of the selected tables (indexes, then views, then
//     triggers last, so that none fires during the load), each statement prepared
//     alone (a statement with anything after it is refused), then the
//     sqlite_sequence values of AUTOINCREMENT tables;
//   - otherwise (untrusted, or a PostgreSQL dump): the indexes on plain columns
//     from the manifest's structured "indexes" (quoted identifiers; no recorded
//     SQL runs), and one warning line per object skipped.
// Stateless; REQUIRES: the caller holds the connection's lock.
#pragma once

#include <sqlite3.h>

#include "load/target_database.h"

namespace lakedump {

Status ReplaySqliteSchema(sqlite3* db, const SchemaRestorePlan& plan, SchemaRestoreOutcome* out);

}  // namespace lakedump
