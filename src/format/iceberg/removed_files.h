// The data files an overwrite snapshot removes, for its manifests to list them as DELETED
// entries (status 2), as the Iceberg spec has a replacing snapshot do: the live entries
// (ADDED or EXISTING) of the data manifests of the snapshot it replaces, read from that
// snapshot's manifest list and manifests. Those were written by an earlier lakedump run
// and are hostile until checked: their Avro schemas must have the shape lakedump writes,
// every entry a data file under the table's location. Each entry's data_file record is
// kept as its bytes, so that the DELETED entry carries exactly what the manifest said.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace lakedump::iceberg {

// Manifest lists and manifests lakedump reads back: at most this many records each.
inline constexpr size_t kMaxManifestRecords = 1'000'000;

// One manifest_file record of a manifest list (the fields used here).
struct ManifestRef {
  std::string path;  // manifest_path, a URI
  int32_t partition_spec_id = 0;
  int32_t content = 0;  // 0 data, 1 deletes
  int64_t sequence_number = 0;
  int64_t added_snapshot_id = 0;
  // The record's bytes as the list holds them (a row delta carries it over unchanged), and
  // how many live files its manifest has (added_files_count + existing_files_count).
  std::string record;
  int64_t live_files = 0;
};

// The manifest list's records. Corruption when it is not a manifest list of the shape
// lakedump writes.
Result<std::vector<ManifestRef>> ReadManifestList(std::string_view bytes);

struct RemovedEntry {
  std::string data_file;  // the data_file record's Avro bytes, as in its manifest
  int64_t data_sequence_number = 0;  // explicit, or inherited from the manifest list
  int64_t file_sequence_number = 0;
  int64_t record_count = 0;
  bool partition_null = false;  // its partition value is null
  std::string path;             // the file's URI
  int64_t file_size_in_bytes = 0;
  std::optional<int64_t> snapshot_id;  // as the entry gives it (else the manifest's)
};

// The live entries of one data manifest, with what its DELETED copy needs: the manifest's
// own Avro schema and Iceberg header keys (the data_file bytes follow them).
struct RemovedManifest {
  int32_t content = 0;  // 0 data files, 1 delete files (position deletes of a row delta)
  std::string avro_schema;
  std::vector<std::pair<std::string, std::string>> header;  // schema, schema-id, partition-spec...
  int32_t partition_spec_id = 0;
  bool partitioned = false;         // one partition field (identity), else none
  bool partition_floating = false;  // that field is a float or double
  std::vector<RemovedEntry> entries;
};

// The live entries of the manifest `bytes` that `ref` names (data, or position deletes) (sequence numbers inherited
// from `ref`); every file must be under `location` + "/", or under `also_under` when it is
// not empty (an incremental dump's re-dumped files: "<root>/_increments/"). Corruption
// otherwise.
Result<RemovedManifest> LiveEntriesOf(std::string_view bytes, const ManifestRef& ref,
                                      std::string_view location,
                                      std::string_view also_under = {});

}  // namespace lakedump::iceberg
