#include "source/sqlite/sqlite_connection.h"

#include <fmt/format.h>
#include <sys/stat.h>

namespace lakedump {

Result<std::shared_ptr<SqliteConnection>> OpenSqliteConnection(const std::string& path,
                                                               int busy_timeout_ms) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return Status::NotFound(fmt::format("no such database file: {}", path));
  }
  if (S_ISDIR(st.st_mode)) {
    return Status::InvalidArgument(fmt::format("{} is a directory, not a SQLite database", path));
  }
  sqlite3* db = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    Status s = Status::IOError(
        fmt::format("cannot open {}: {}", path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
    sqlite3_close_v2(db);
    return s;
  }
  auto conn = std::make_shared<SqliteConnection>(db);
  sqlite3_busy_timeout(db, busy_timeout_ms);
  sqlite3_extended_result_codes(db, 1);
  return conn;
}

Status SqliteStatus(sqlite3* db, int rc, std::string_view context) {
  const std::string msg = fmt::format("{}: {}", context, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
  switch (rc & 0xff) {
    case SQLITE_OK:
    case SQLITE_ROW:
    case SQLITE_DONE: return Status::OK();
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return Status::Unavailable(msg);
    case SQLITE_NOTADB: return Status::InvalidArgument(msg);
    case SQLITE_CORRUPT: return Status::Corruption(msg);
    case SQLITE_ERROR: return Status::InvalidArgument(msg);
    case SQLITE_NOMEM: return Status::Internal(msg);
    case SQLITE_PERM:
    case SQLITE_AUTH: return Status::PermissionDenied(msg);
    default: return Status::IOError(msg);
  }
}

Result<SqliteStmt> Prepare(sqlite3* db, std::string_view sql, std::string_view context) {
  sqlite3_stmt* stmt = nullptr;
  const int rc =
      sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return SqliteStatus(db, rc, context);
  }
  if (stmt == nullptr) return Status::InvalidArgument(fmt::format("{}: empty SQL", context));
  return SqliteStmt(stmt);
}

Status ExecSql(sqlite3* db, const char* sql, std::string_view context) {
  const int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
  return rc == SQLITE_OK ? Status::OK() : SqliteStatus(db, rc, context);
}

std::string QuoteIdentifier(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

}  // namespace lakedump
