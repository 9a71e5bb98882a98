// What a recorded SQLite CREATE TABLE says beyond its columns' types: foreign keys, DEFAULTs,
// CHECK constraints, AUTOINCREMENT, collations and generated columns, for the cross-engine
// report (load/cross_engine_skips.h) and the foreign keys a PostgreSQL target may recreate.
//
// The statement is created alone in a private in-memory database under the SchemaAuthorizer
// (creating that one table and nothing else), and read back with SQLite's own pragmas: SQLite
// parses it, nothing of it runs (a DEFAULT, CHECK or generated expression is only stored), and
// nothing reaches the target. CHECKs, which no pragma lists, are counted from the statement's
// tokens. Stateless; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace lakedump {

struct SqliteTableFacts {
  struct ForeignKey {
    std::vector<std::string> columns;
    std::string ref_table;
    std::vector<std::string> ref_columns;  // empty entries: the referenced primary key
    std::string on_update, on_delete;      // "NO ACTION", "CASCADE", ...
  };
  std::vector<ForeignKey> foreign_keys;
  std::vector<std::pair<std::string, std::string>> defaults;    // column, DEFAULT's SQL text
  std::vector<std::pair<std::string, std::string>> collations;  // column, collation (not BINARY)
  std::vector<std::pair<std::string, bool>> generated;          // column, STORED
  std::string autoincrement;                                    // its column, or empty
  size_t checks = 0;
};

// REQUIRES: `ddl` is the CREATE TABLE of table `table` recorded by a SQLite source.
// InvalidArgument when it is not exactly one statement creating that table.
Result<SqliteTableFacts> ReadSqliteTableFacts(std::string_view ddl, const std::string& table);

// CHECK constraints in a CREATE TABLE: the keyword CHECK followed by "(", outside strings,
// quoted identifiers and comments.
size_t CountSqliteChecks(std::string_view ddl);

}  // namespace lakedump
