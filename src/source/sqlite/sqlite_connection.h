// SqliteConnection: one read-only sqlite3 connection plus the mutex that
// serialises its use. Connections are opened with SQLITE_OPEN_NOMUTEX, so every
// call on `db` (prepare, step, column_*, finalize) must hold `mu`. Shared
// (std::shared_ptr) between the SqliteDatabase and the table sources reading
// through it, because in WAL mode all sources read through the one connection
// whose read transaction is the snapshot; the last owner closes it.
//
// Also the one translation point from SQLite result codes to Status.
#pragma once

#include <sqlite3.h>

#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "base/status.h"

namespace lakedump {

struct SqliteConnection {
  explicit SqliteConnection(sqlite3* handle) : db(handle) {}
  ~SqliteConnection() { sqlite3_close_v2(db); }
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  sqlite3* const db;
  std::mutex mu;
};

struct SqliteStmtDeleter {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using SqliteStmt = std::unique_ptr<sqlite3_stmt, SqliteStmtDeleter>;

// Opens `path` read-only (no URI parsing, so any file name works) with a busy
// timeout. Missing file -> NotFound "no such database file: PATH".
Result<std::shared_ptr<SqliteConnection>> OpenSqliteConnection(const std::string& path,
                                                               int busy_timeout_ms);

// rc -> Status with the connection's message: BUSY/LOCKED -> Unavailable,
// NOTADB -> InvalidArgument, CORRUPT -> Corruption, others -> IOError.
Status SqliteStatus(sqlite3* db, int rc, std::string_view context);

// REQUIRES: the connection's mutex is held (for all three).
Result<SqliteStmt> Prepare(sqlite3* db, std::string_view sql, std::string_view context);
Status ExecSql(sqlite3* db, const char* sql, std::string_view context);

// "name" with embedded quotes doubled: a safe SQL identifier for any name.
std::string QuoteIdentifier(std::string_view name);

}  // namespace lakedump
