// The SQLite schema of a dump (docs/dump-format.md, "Schema"): every
// sqlite_schema entry of the selected tables (tables with their CREATE, so
// WITHOUT ROWID and AUTOINCREMENT; indexes, triggers) and every view, in
// creation order; the sqlite_sequence values; and each table's indexes as
// structured metadata (columns when they are plain columns), which other
// engines can rebuild without running the recorded SQL.
// Stateless; REQUIRES: the connection's mutex held, inside the snapshot.
#pragma once

#include <sqlite3.h>

#include <vector>

#include "source/table_source.h"

namespace lakedump {

Result<SchemaCapture> CaptureSqliteSchema(sqlite3* db, const std::vector<TableRef>& selected);

}  // namespace lakedump
