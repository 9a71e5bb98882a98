// The schema part of a dump's manifest (_manifest.json "schema", docs/dump-format.md):
// reading the PostgreSQL archive back with its size and checksum checked, and the
// parsed fields load and ls need. Stateless functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "store/object_store.h"

namespace lakedump {

// Refuses archives larger than this (a hostile manifest cannot make us read more).
inline constexpr uint64_t kMaxSchemaArchiveBytes = 1ull << 30;

struct SchemaArchiveEntry {
  std::string key;
  uint64_t bytes = 0;
  std::string xxh64;
  std::string sha256;  // signed dumps only: checked when present
  std::string pg_dump_version;
};

// "_schema/postgres.dump", or "_schema/postgres-<run id>.dump" (a dump written over another).
bool IsSchemaArchiveKey(std::string_view key);

// The manifest's schema.archive, or nullopt-like empty key when there is none.
// Corruption when present but malformed (a key other than kPgSchemaArchiveKey, no
// size or checksum).
Result<SchemaArchiveEntry> ParseSchemaArchiveEntry(const nlohmann::json& schema);

// Reads the archive and checks its size and XXH64 (Corruption naming the key if
// either differs or the object is missing).
Result<std::string> ReadSchemaArchive(ObjectStore& store, const SchemaArchiveEntry& entry);

// "pg_dump" | "lakedump" | "sqlite_schema" | "" (older dumps).
std::string SchemaFrom(const nlohmann::json& schema);

}  // namespace lakedump
