// An Iceberg v2 table's metadata for one snapshot that adds a list of Parquet
// data files: the manifest (Avro, manifest_entry records), the manifest list
// (Avro, manifest_file records), v<N>.metadata.json and version-hint.text, as
// bytes: a new table's first snapshot (v1), or one more snapshot after a table's
// history (v<N+1>: the earlier snapshots kept, the new one their child). Avro schemas use the record names and field ids Iceberg's Java
// implementation writes (manifest_entry, r2, r102, k117_v118, ..., manifest_file,
// r508), since strict readers reject other shapes. No store, no source: the
// caller writes the files, in the order returned (version-hint.text last).
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "format/iceberg/file_stats.h"
#include "format/iceberg/iceberg_history.h"
#include "format/iceberg/removed_files.h"
#include "table/schema.h"

namespace lakedump::iceberg {

struct DataFileEntry {
  std::string path;  // full URI with scheme (s3://bucket/key, file:///abs/path)
  uint64_t record_count = 0;
  uint64_t file_size_in_bytes = 0;
  FileStats stats;
  // With a partition column: the file's value (single-value serialization), nullopt = null.
  std::optional<std::string> partition_value;
};

// A position delete file (Parquet: file_path, pos) of a row delta, unpartitioned.
struct DeleteFileEntry {
  std::string path;  // full URI, as DataFileEntry::path
  uint64_t record_count = 0;  // positions deleted
  uint64_t file_size_in_bytes = 0;
};

// A parent manifest that a row delta's copy-on-write changes (docs/iceberg.md, "Copy-on-write"):
// its live entries, those of the files the snapshot removes (`removed`) listed again as
// DELETED and the others as EXISTING (their sequence numbers kept), in
// "<file_tag>-r<k>.avro"; its manifest_file record is then not among `kept_manifests`.
struct RewrittenManifest {
  RemovedManifest live;        // LiveEntriesOf the parent's manifest
  int64_t added_snapshot_id = 0;  // its record's: the snapshot of entries that give none
  std::vector<bool> removed;   // per entry of `live`
};

struct SnapshotInput {
  Schema schema;
  std::optional<size_t> partition_column;  // identity partition spec on this column
  std::string location;                    // the table's URI, without a trailing '/'
  std::string table_uuid;                  // 8-4-4-4-12 lower-case hex
  int64_t snapshot_id = 1;                 // > 0
  int64_t timestamp_ms = 0;
  std::string file_tag;                    // unique per write; names the manifest and list
  std::vector<DataFileEntry> files;
  std::map<std::string, std::string> properties;  // added to the table's properties
  uint64_t random_seed = 0;                // for the Avro sync markers
  // The table's history to append to (checked, and CannotAppend said nothing), or
  // nullptr for a new table. The snapshot then writes v<previous->version + 1>, its
  // parent the current snapshot, its sequence number the next, operation "overwrite"
  // (it replaces every file: its manifest list names only its own manifest).
  const TableHistory* previous = nullptr;
  // The version to write without `previous` (1 for a new table; a history that could
  // not be continued starts over at the next number, so no reader sees an old file).
  int version = 1;
  // With `previous`: the live files of the snapshot it replaces (ReadManifestList,
  // LiveEntriesOf), listed again as DELETED entries (status 2) in a manifest of their own
  // each, "<file_tag>-m1.avro"..., after the new snapshot's manifest in its manifest list.
  std::vector<RemovedManifest> removed;
  // A row delta (an incremental dump's changes, docs/iceberg.md): with `previous`, the
  // snapshot keeps the parent's files: its manifest list names the snapshot's own manifests
  // (`files`, which may be empty, then `position_deletes` in "<file_tag>-m1.avro"), then
  // `kept_manifests`, the parent's manifest_file records with live files, as its list
  // holds them. Its operation is "append" (no deletes), "delete" (no files) or "overwrite",
  // and its sequence number applies its position deletes to every file up to it (v2:
  // a delete applies to data files whose data sequence number is at most its own).
  // Unpartitioned tables only; `removed` must be empty.
  bool row_delta = false;
  std::vector<std::string> kept_manifests;
  std::optional<DeleteFileEntry> position_deletes;
  // A row delta's copy-on-write: the parent manifests it rewrites (data files replaced by
  // rewritten ones in `files`, delete files dropped with them); the summary's totals lose
  // the removed files.
  std::vector<RewrittenManifest> rewritten_manifests;
  // More entries of the snapshot's summary (an increment's number, LSN range, counts).
  std::map<std::string, std::string> summary;
};

// Names of the files BuildSnapshot writes under <location>/metadata/, in order, besides
// the manifests of removed files.
std::vector<std::string> MetadataFileNames(std::string_view file_tag, int version);

// (name under metadata/, bytes), in the order to write them: manifest (a row delta without
// files: none), the manifests of removed files or of position deletes (if any), manifest list, v<N>.metadata.json, version-hint.text ("N",
// no newline): the metadata file is always the last but one.
// InvalidArgument for a snapshot id <= 0 or one already in the history, an empty
// location, a bad partition column or a version below 1.
Result<std::vector<std::pair<std::string, std::string>>> BuildSnapshot(const SnapshotInput& in);

// Avro name rules (letters, digits, '_'; no leading digit), as Iceberg's Java
// AvroSchemaUtil.makeCompatibleName: "1a" -> "_1a", "a-b" -> "a_x2Db".
std::string AvroCompatibleName(std::string_view name);

// A random version-4 UUID, "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx".
std::string RandomUuid();
// A random positive snapshot id.
int64_t RandomSnapshotId();

}  // namespace lakedump::iceberg
