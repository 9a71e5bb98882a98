// The dump side of --table-format iceberg: collects each data file's Iceberg
// metrics when its writer closes, and at a table's commit writes the table's
// Iceberg v2 metadata under "<schema>/<table>/metadata/" (manifest, manifest
// list, v<N>.metadata.json, then version-hint.text last), before _table.json.
// Over a committed dump the table's history is continued: v<N+1> adds this run's
// snapshot to the ones before, whose objects stay (see IcebergTableKeep).
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
#include "format/iceberg/iceberg_history.h"
#include "format/iceberg/removed_files.h"
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

// Keys of the Iceberg objects named after a committed table's run (the Avro
// manifest and manifest list of its snapshot).
std::vector<std::string> IcebergMetadataKeys(const TableManifest& table);
// "<schema>/<table>/metadata/version-hint.text" and ".../v<version>.metadata.json".
std::string IcebergHintKey(const TableRef& table);
std::string IcebergMetadataFileKey(const TableRef& table, int version);
// The table's Iceberg location: "<root URI>/<schema>/<table>".
std::string IcebergTableLocation(const ObjectStore& store, const TableRef& table);

// What of a table's Iceberg objects a sweep keeps: `keys` (the metadata files of its
// history and version-hint.text), and every Parquet file under `prefix` and object
// under its metadata/ whose name carries one of `run_ids` (the data files, manifests
// and manifest lists of its snapshots).
struct IcebergTableKeep {
  std::string prefix;  // the table's, "<schema>/<table>/"
  std::vector<std::string> keys;
  std::vector<std::string> run_ids;
  // True for an object of one of the snapshots (by the run id in its file name).
  bool KeepsObject(std::string_view key) const;
};

// A table's Iceberg history as the store holds it: `history` when version-hint.text
// names lakedump metadata of this location that checks (iceberg::ParseTableHistory);
// else `problem` says why not (empty when there is no version-hint.text at all), and
// `last_version` is the version the hint names (0 when it names none).
struct IcebergHistoryRead {
  std::optional<iceberg::TableHistory> history;
  int last_version = 0;
  std::string problem;
};
// Reads are bounded (kMaxMetadataBytes). Errors only when the store fails.
Result<IcebergHistoryRead> ReadIcebergHistory(ObjectStore& store, const TableRef& table);

// What the sweep keeps of a history (its metadata files, hint and snapshots' runs).
IcebergTableKeep KeepOfHistory(const TableRef& table, const iceberg::TableHistory& history);

struct IcebergWritten {
  IcebergTableKeep keep;              // the table's objects once its metadata is written
  std::vector<std::string> written;   // keys written now (the rest is deferred)
  std::string warning;                // a history that could not be continued, and why
};

// Writes the table's Iceberg metadata. REQUIRES: every file of `table` carries
// metrics (DataFile::iceberg). Nothing points at the new metadata until
// version-hint.text, written last. With `deferred` (over a committed dump) the
// table's history is read and continued: v<N+1> with this run's snapshot after the
// earlier ones; a history that does not check, whose field ids the files do not
// carry, or whose partitioning changed, is not continued: a new history starts at
// v<N+1> (with a warning) and the earlier snapshots' objects go with the sweep. Only
// the objects whose names carry the table's run id (the Avro manifest and manifest
// list) are written then;
// v<N+1>.metadata.json and version-hint.text are appended to *deferred as (key,
// bytes) for the caller to write in that order after the dump's new manifest: they
// must not change before it (the table would point at this run's files, which a
// failed run deletes; Java readers also look for v<N+1> past the hint).
// Without `deferred`: a new table, v1. `history`: the table's history as already read
// (ReadIcebergHistory, by the units that chose the files' field ids); nullptr: read here.
// The columns of table.schema carry the field ids of its data files; the history is
// continued only when they are the ones it gives them (iceberg::CannotAppend), with a new
// schema when the columns changed.
Result<IcebergWritten> WriteIcebergTable(
    ObjectStore& store, const TableManifest& table,
    std::vector<std::pair<std::string, std::string>>* deferred = nullptr,
    const IcebergHistoryRead* history = nullptr);

// The live files of the history's current snapshot, which a snapshot continuing it
// replaces (iceberg::LiveEntriesOf over the manifests its manifest list names; both read
// bounded, under the table's metadata/). NotFound or Corruption when they do not read.
Result<std::vector<iceberg::RemovedManifest>> ReadRemovedFiles(
    ObjectStore& store, const TableRef& table, const std::string& location,
    const iceberg::TableHistory& history);

// True for "<...>/metadata/version-hint.text".
bool IsIcebergVersionHint(std::string_view key);

// AlreadyExists naming the first Iceberg table among `objects` (a
// "<...>/metadata/<...>.metadata.json") that lakedump did not write (no
// "lakedump.run-id" property, or not JSON), so that --if-exists overwrite or
// resume never deletes a table someone else owns. Reads each such file.
Status CheckNoForeignIcebergTables(ObjectStore& store, const std::vector<ObjectInfo>& objects);

// For resume: the table's Iceberg objects to keep when every key of
// IcebergMetadataKeys(table) exists and the table's current metadata (through
// version-hint.text) has the table's run's snapshot as its current one; nullopt
// otherwise (the table is dumped again).
Result<std::optional<IcebergTableKeep>> IcebergMetadataPresent(ObjectStore& store,
                                                              const TableManifest& table);

// What `ls` shows of a table's Iceberg metadata, as found (ReadIcebergHistory:
// read bounded, checked). `problem` is empty when the table opens: version-hint.text
// names lakedump metadata of this location that checks, with `snapshots` snapshots.
struct IcebergTableStatus {
  std::string metadata_key;  // "<prefix>metadata/v<N>.metadata.json" (empty without a hint)
  uint64_t snapshots = 0;
  std::string run_id;   // its "lakedump.run-id" property
  std::string problem;  // e.g. "no version-hint.text", "metadata is not JSON"
};
// Errors only when the store fails (a missing or damaged object is a `problem`).
Result<IcebergTableStatus> ReadIcebergTableStatus(ObjectStore& store, const TableRef& table);

}  // namespace lakedump
