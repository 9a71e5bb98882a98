// The dump side of --table-format iceberg: collects each data file's Iceberg
// metrics when its writer closes, and at a table's commit writes the table's
// Iceberg v2 metadata under "<schema>/<table>/metadata/" (manifest, manifest
// list, v1.metadata.json, then version-hint.text last), before _table.json.
// The metadata itself is built by format/iceberg; this file only names keys,
// locations and writes objects. See docs/iceberg.md.
// Functions; thread-safe (the store is).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dump/manifest.h"
#include "format/iceberg/file_stats.h"
#include "format/parquet/parquet_metadata.h"
#include "store/object_store.h"

namespace lakedump {

struct IcebergFileMetrics {
  iceberg::FileStats stats;
  // The file's partition value (single-value serialization); nullopt = null or unpartitioned.
  std::optional<std::string> partition_value;
};

// Metrics from the footer the file's writer built. Internal error without a footer.
Result<std::shared_ptr<const IcebergFileMetrics>> CollectIcebergMetrics(
    const Schema& schema, const parquet::FileMetaData* footer,
    std::optional<std::string> partition_value);

// The URI of the store's root as Iceberg locations name it: "s3://bucket/prefix",
// "file:///abs/dir" for a local folder (others as the store describes itself).
std::string StoreRootUri(const ObjectStore& store);

// Keys of the Iceberg metadata written for a committed table (they follow from
// its run id), version-hint.text last.
std::vector<std::string> IcebergMetadataKeys(const TableManifest& table);

// Writes the table's Iceberg metadata. REQUIRES: every file of `table` carries
// metrics (DataFile::iceberg). Nothing points at the new metadata until
// version-hint.text, written last. With `deferred`, only the objects whose names
// carry the table's run id (the Avro manifest and manifest list) are written; the
// fixed-name ones (v1.metadata.json, then version-hint.text) are appended to
// *deferred as (key, bytes) for the caller to write in that order after the dump's
// new manifest: over a committed dump they must not change before it (its tables
// would point at this run's files, which a failed run deletes).
Status WriteIcebergTable(ObjectStore& store, const TableManifest& table,
                         std::vector<std::pair<std::string, std::string>>* deferred = nullptr);

// True for "<...>/metadata/version-hint.text".
bool IsIcebergVersionHint(std::string_view key);

// AlreadyExists naming the first Iceberg table among `objects` (a
// "<...>/metadata/<...>.metadata.json") that lakedump did not write (no
// "lakedump.run-id" property, or not JSON), so that --if-exists overwrite or
// resume never deletes a table someone else owns. Reads each such file.
Status CheckNoForeignIcebergTables(ObjectStore& store, const std::vector<ObjectInfo>& objects);

// True when every key of IcebergMetadataKeys(table) exists and its metadata.json
// names the table's run id (for resume).
Result<bool> IcebergMetadataPresent(ObjectStore& store, const TableManifest& table);

// What `ls` shows of a table's Iceberg metadata, as found (the objects are not
// trusted: read bounded, parsed without exceptions). `problem` is empty when the
// table opens: version-hint.text names a metadata file that parses, is lakedump's
// and holds `snapshots` snapshots.
struct IcebergTableStatus {
  std::string metadata_key;  // "<prefix>metadata/v<N>.metadata.json" (empty without a hint)
  uint64_t snapshots = 0;
  std::string run_id;   // its "lakedump.run-id" property
  std::string problem;  // e.g. "no version-hint.text", "metadata is not JSON"
};
// Errors only when the store fails (a missing or damaged object is a `problem`).
Result<IcebergTableStatus> ReadIcebergTableStatus(ObjectStore& store, const TableRef& table);

}  // namespace lakedump
