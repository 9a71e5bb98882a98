// What keeps a SQLite load from running anything a dump brings in:
//   - ExecOneStatement: one sqlite3_prepare_v2, refused when anything but white space follows
//     the first statement (sqlite3_exec would run a `;`-chained rest);
//   - SchemaAuthorizer: while installed (RAII), SQLite's authorizer denies every action but
//     creating the one expected table (and its implicit indexes), with the reads and writes of
//     sqlite_schema and of that table that creating it needs: no ATTACH, DROP, PRAGMA,
//     triggers, views, functions, other tables. For the trusted replay of a recorded index,
//     view or trigger, it allows only creating that one object under its recorded name (an
//     index or trigger on its recorded table), with what creating it needs: the schema
//     table's row, for an index reading its table's columns, its expressions' functions and
//     building it. ATTACH, DETACH, VACUUM (INTO), DROP, PRAGMA, temp objects and any other
//     statement are denied.
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

// What a SchemaAuthorizer allows creating.
enum class SchemaObject { kTable, kIndex, kView, kTrigger };

class SchemaAuthorizer {
 public:
  // Allows creating table `table` (in "main") only, until destroyed.
  SchemaAuthorizer(sqlite3* db, std::string table)
      : SchemaAuthorizer(db, SchemaObject::kTable, table, table) {}
  // Allows creating the `kind` object `name` only (an index or trigger on table `table`).
  SchemaAuthorizer(sqlite3* db, SchemaObject kind, std::string name, std::string table);
  ~SchemaAuthorizer();
  SchemaAuthorizer(const SchemaAuthorizer&) = delete;
  SchemaAuthorizer& operator=(const SchemaAuthorizer&) = delete;

  // The first action denied ("ATTACH x", "DROP_TABLE x", ...), for the warning.
  const std::string& denied() const { return denied_; }
  // Whether the object itself was created (a statement that creates nothing, such as
  // VACUUM, or CREATE ... IF NOT EXISTS of an existing object, leaves it false).
  bool created() const { return created_; }

 private:
  static int Callback(void* self, int action, const char* a1, const char* a2, const char* db,
                      const char* trigger);
  bool Allows(int action, const char* a1, const char* a2) const;
  sqlite3* db_;
  SchemaObject kind_;
  std::string name_;
  std::string table_;
  std::string denied_;
  bool created_ = false;
};

bool IsSafeSqliteTypeName(std::string_view type);

}  // namespace lakedump
