// What --if-exists resume needs to decide whether a table of an earlier run
// may be reused: the source fingerprint recorded in _table.json, and where an
// earlier run may have left a table's _table.json. See docs/dump-format.md,
// "--if-exists". Pure functions; thread-safe when the database is.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "source/table_source.h"
#include "store/object_store.h"
#include "table/schema.h"

namespace lakedump {

// 16 hex digits: XXH64 of the columns' names, logical types, nullability and
// source types, in order.
std::string SchemaDigest(const Schema& schema);

// {"source": Database::Fingerprint(table), "columns_xxh64": SchemaDigest(def.schema)}.
Result<nlohmann::json> TableFingerprint(Database& db, const TableInfo& table,
                                        const TableDefinition& def);

// "<schema>/<table>/_table-<run>.json": where a run commits a table while the
// destination still holds a committed dump whose manifest names the
// table's _table.json (which must stay as it is until the new manifest is written).
std::string RunTableManifestKey(const TableRef& table, std::string_view run_id);

// The keys in `listing` that may hold a commit of `table`: its _table.json and
// any _table-<run>.json, the newest run first (run ids sort by time).
std::vector<std::string> TableManifestCandidates(const std::vector<ObjectInfo>& listing,
                                                 const TableRef& table);

}  // namespace lakedump
