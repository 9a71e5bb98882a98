// A generator of crafted dumps for tests: a *valid* dump (Parquet data files with their real
// XXH64 and sizes, _table.json and _manifest.json with consistent totals, so that `verify`
// passes) whose metadata says whatever the test chooses -- the DDL text, source types, keys --
// as a hostile party would hand one over. Optionally signed, as `dump --sign-key-file` does.
// Rows are generated: row i holds i + 1 in integer columns and "v<i+1>" in string columns.
// Header-only users link tests/fakes/crafted_dump.cc. Not thread-safe (tests).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "lake/manifest.h"

namespace lakedump::testing_crafted {

struct CraftedTable {
  TableRef table;
  Schema schema;  // int32/int64/string columns, with the source_type the test wants
  std::string ddl;
  std::vector<std::string> primary_key;
  std::vector<std::vector<std::string>> unique_keys;
  bool record_unique_keys = true;  // false: as an older lakedump wrote _table.json
  uint64_t rows = 3;
  // Edits _table.json (as JSON) before it is written: anything a hostile writer could do.
  std::function<void(nlohmann::json&)> patch;
};

struct CraftedDump {
  std::string source_kind = "postgresql";  // manifest source.kind
  std::vector<CraftedTable> tables;
  std::string sign_key;  // non-empty: SHA-256 digests and _manifest.sig, as a signed dump
};

// Writes the dump into the directory `dir` (created if missing).
Status WriteCraftedDump(const std::string& dir, const CraftedDump& dump);

// A one-table dump from `kind` with the given columns (name, logical type, source type).
CraftedTable CraftedIntTable(const std::string& schema, const std::string& name,
                             const std::string& source_type);

}  // namespace lakedump::testing_crafted
