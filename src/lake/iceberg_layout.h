// Where a table's Iceberg v2 metadata lives in a dump and how it is read back: the keys
// under "<schema>/<table>/metadata/", the table's location, its history as the store holds
// it (bounded reads, checked), what a sweep keeps of it, and the foreign-table check. Shared
// by dump (which writes it: dump/iceberg/), verify, ls and gc. See docs/iceberg.md.
// Functions; thread-safe (the store is).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/iceberg/iceberg_history.h"
#include "format/iceberg/removed_files.h"
#include "lake/manifest.h"
#include "store/object_store.h"

namespace lakedump {

// The URI of the store's root as Iceberg locations name it: "s3://bucket/prefix",
// "file:///abs/dir" for a local folder (others as the store describes itself).
std::string StoreRootUri(const ObjectStore& store);

// Keys of the Iceberg objects named after a committed table's run (the Avro
// manifest and manifest list of its snapshot).
std::vector<std::string> IcebergMetadataKeys(const TableManifest& table);
// "<schema>/<table>/metadata/version-hint.text" and ".../v<version>.metadata.json".
std::string IcebergHintKey(const TableRef& table);
std::string IcebergMetadataFileKey(const TableRef& table, int version);
// A key index's name in the table's metadata/ folder, "keyindex-<run>.parquet" (`run`: the
// run that writes it, with any suffix of its own), as a snapshot's summary names it.
std::string IcebergKeyIndexName(std::string_view run);
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

// The live files of the history's current snapshot, which a snapshot continuing it
// replaces (iceberg::LiveEntriesOf over the manifests its manifest list names; both read
// bounded, under the table's metadata/). NotFound or Corruption when they do not read.
Result<std::vector<iceberg::RemovedManifest>> ReadRemovedFiles(
    ObjectStore& store, const TableRef& table, const std::string& location,
    const iceberg::TableHistory& history);

// Every manifest the current snapshot's manifest list names, with its live entries (maybe
// none), as ReadRemovedFiles reads them.
struct LiveManifest {
  iceberg::ManifestRef ref;
  iceberg::RemovedManifest live;
};
Result<std::vector<LiveManifest>> ReadLiveManifests(ObjectStore& store, const TableRef& table,
                                                    const std::string& location,
                                                    const iceberg::TableHistory& history);

// The manifest list of the history's current snapshot (read bounded, under the table's
// metadata/). NotFound or Corruption when it does not read.
Result<std::vector<iceberg::ManifestRef>> ReadCurrentManifestList(
    ObjectStore& store, const TableRef& table, const std::string& location,
    const iceberg::TableHistory& history);

// The number of the increment whose snapshot is the history's current one (its summary's
// "lakedump.increment", docs/iceberg.md "Increments"); 0 for a dump's own snapshot.
int IcebergIncrementOf(const iceberg::TableHistory& history);

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
  int increment = 0;    // the increment whose snapshot is current (IcebergIncrementOf)
  std::string problem;  // e.g. "no version-hint.text", "metadata is not JSON"
};
// Errors only when the store fails (a missing or damaged object is a `problem`).
Result<IcebergTableStatus> ReadIcebergTableStatus(ObjectStore& store, const TableRef& table);

}  // namespace lakedump
