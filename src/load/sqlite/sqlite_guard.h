// What keeps a SQLite load from running anything a dump brings in:
//   - ExecOneStatement: one sqlite3_prepare_v2, refused when anything but white space follows
//     the first statement (sqlite3_exec would run a `;`-chained rest);
//   - SchemaAuthorizer: while installed (RAII), SQLite's authorizer denies every action but
//     creating the one expected table (and its implicit indexes), with the reads and writes of
//     sqlite_schema and of that table that creating it needs: no ATTACH, DROP, PRAGMA,
//     triggers, views, functions, other tables.
//   - IsSafeSqliteTypeName: a recorded declared type is used only when it is a plain
//     type name: words, optionally one "(n)" or "(n, m)".
// Not thread-safe: a connection is used under its owner's mutex.
#pragma once

#include <sqlite3.h>

#include <string>
#include <string_view>

#include "base/status.h"

namespace lakedump {

Status ExecOneStatement(sqlite3* db, std::string_view sql, std::string_view context);

class SchemaAuthorizer {
 public:
  // Allows creating table `table` (in "main") only, until destroyed.
  SchemaAuthorizer(sqlite3* db, std::string table);
  ~SchemaAuthorizer();
  SchemaAuthorizer(const SchemaAuthorizer&) = delete;
  SchemaAuthorizer& operator=(const SchemaAuthorizer&) = delete;

  // The first action denied ("ATTACH", "DROP_TABLE x", ...), for the warning.
  const std::string& denied() const { return denied_; }

 private:
  static int Callback(void* self, int action, const char* a1, const char* a2, const char* db,
                      const char* trigger);
  sqlite3* db_;
  std::string table_;
  std::string denied_;
};

bool IsSafeSqliteTypeName(std::string_view type);

}  // namespace lakedump
