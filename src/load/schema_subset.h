// The part of a dump's schema that crosses engines or needs no trust: indexes on
// plain columns, rebuilt from the manifest's structured "indexes" (never from
// recorded SQL: identifiers quoted by the target), and the warning lines for
// every object that is not restored. Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "load/target_database.h"

namespace lakedump {

// j[key] when j is an object holding a string there, else "" (manifest fields are
// hostile until checked).
std::string JsonString(const nlohmann::json& j, const char* key);

struct PlainIndex {
  TableRef table;  // target table (after --schema-map)
  std::string name;
  bool unique = false;
  std::vector<std::string> columns;
};

// Indexes of the selected tables that are on plain columns, not the primary key,
// and (from PostgreSQL) not the index of a constraint the table load already built.
// SQLite's automatic indexes of UNIQUE constraints get PostgreSQL's default name
// (<table>_<columns>_key).
std::vector<PlainIndex> PlainIndexesToCreate(const SchemaRestorePlan& plan);

// `CREATE [UNIQUE] INDEX IF NOT EXISTS "name" ON "schema"."table" ("c", ...)`, with
// `qualified` the target's quoted table name.
std::string CreateIndexStatement(const PlainIndex& index, const std::string& qualified);

// One line per schema object of the dump that the target does not get (views,
// functions, triggers, types, indexes on expressions...), naming it and why.
// `target` is "PostgreSQL" or "SQLite".
std::vector<std::string> SkippedObjectWarnings(const SchemaRestorePlan& plan,
                                               std::string_view target);

// The one line for an untrusted dump whose schema code was not run.
std::string UntrustedSchemaLine(size_t not_restored);

}  // namespace lakedump
