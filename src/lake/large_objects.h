// Large objects in a dump (docs/dump-format.md, "Large objects"): each large object of a
// PostgreSQL source at the dump's snapshot is an object of its own,
// `_large_objects/<oid>-<run>.bin` (its bytes as they are), recorded in the manifest's
// schema.large_objects with its OID, owner, grants, comment, size and checksums. The list is
// read as hostile input: a malformed entry (an OID that is not a number, a key of another
// shape or another OID) is refused in one line before anything is read.
// Pure functions but ReadLargeObjectChecked (store reads); thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "source/large_object_source.h"
#include "store/object_store.h"

namespace lakedump {

inline constexpr std::string_view kLargeObjectsPrefix = "_large_objects/";
// Read and written in chunks of this many bytes (a dump's and a load's memory per object).
inline constexpr size_t kLargeObjectChunkBytes = 1u << 20;

struct LargeObjectEntry {
  LargeObjectMeta meta;
  std::string key;
  uint64_t bytes = 0;
  std::string xxh64;
  std::string sha256;  // signed dumps only
};

// "_large_objects/<oid>-<run>.bin".
std::string LargeObjectKey(uint32_t oid, std::string_view run_id);
// A key of that shape (of run `run_id`; any run when empty).
bool IsLargeObjectKey(std::string_view key, std::string_view run_id);

nlohmann::json LargeObjectJson(const LargeObjectEntry& entry);
// schema.large_objects (empty when absent, or the count an older dump recorded instead);
// InvalidArgument naming the entry and what is wrong otherwise.
Result<std::vector<LargeObjectEntry>> ParseLargeObjects(const nlohmann::json& schema);
// The keys of schema.large_objects that are well formed (what a dump holds), for sweeps.
std::vector<std::string> LargeObjectKeys(const nlohmann::json& schema);

// Reads the entry's object in chunks of kLargeObjectChunkBytes, each passed to `consume`,
// checking its size first and its XXH64 (and SHA-256 when recorded) at the end:
// InvalidArgument naming the key when either differs or it is missing. `consume` has seen
// every byte before the checksum is known: its user commits only after this returns OK.
Status ReadLargeObjectChecked(ObjectStore& store, const LargeObjectEntry& entry,
                              const std::function<Status(std::string_view)>& consume);

// The load's warning for a dump of an older lakedump, which counted the source's large
// objects without holding them; "" otherwise.
std::string UnheldLargeObjectsWarning(const nlohmann::json& schema);

}  // namespace lakedump
