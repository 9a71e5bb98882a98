// The dump's metadata files and their JSON form (docs/dump-format.md):
//   <schema>/<table>/_table.json  TableManifest, written after the table's data files
//   _manifest.json                DumpManifest, written last: the dump's commit point
// Parsing validates the format name and refuses a newer major version.
// Values; thread-safe to read.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/checksum.h"
#include "base/status.h"
#include "source/table_source.h"
#include "store/object_store.h"
#include "table/schema.h"

namespace lakedump {

inline constexpr std::string_view kDumpFormatName = "lakedump-dump";
inline constexpr int kDumpFormatVersion = 1;       // major: readers refuse a higher one
// minor: additive, readers ignore new fields. 1: everything docs/dump-format.md lists under
// 1.1 (row-group checksums, signed dumps, run ids, unique_keys, the schema archive, ...).
inline constexpr int kDumpFormatMinorVersion = 1;

// The XXH64 of the bytes [offset, offset + bytes) of a data file.
struct ByteRangeChecksum {
  uint64_t offset = 0;
  uint64_t bytes = 0;
  std::string xxh64;  // 16 lower-case hex digits
};
// The schema archive of a PostgreSQL dump (pg_dump --schema-only --format=custom).
inline constexpr std::string_view kPgSchemaArchiveKey = "_schema/postgres.dump";

struct IcebergFileMetrics;  // dump/iceberg_commit.h

struct DataFile {
  std::string key;         // relative to the dump root
  uint64_t rows = 0;
  uint64_t bytes = 0;
  std::string xxh64;       // 16 lower-case hex digits of XXH64(file bytes, seed 0)
  std::string partition;   // "col=value" (escaped) or empty
  std::string sha256;      // 64 lower-case hex digits; only in signed dumps (--sign-key-file)
  // Format 1.1: one range per row group (the first from byte 0, so with the leading magic),
  // then the footer's range to the end of the file; together they tile the file, so a load
  // stream that reads one row group checks it without reading the file again. Both empty in
  // older dumps (then only xxh64 checks the file).
  std::vector<ByteRangeChecksum> row_groups;
  std::optional<ByteRangeChecksum> footer;
  // --table-format iceberg: metrics for the table's Iceberg manifest, from the
  // writer (not in _table.json). shared_ptr: DataFile is copied, the metrics never change.
  std::shared_ptr<const IcebergFileMetrics> iceberg;
};

// OK when `file` has no range checksums, or when they tile it: row groups from 0, each where
// the previous ended, and the footer from the end of the last to the file's size (a reader
// relies on it: every byte it reads of a row group is in that row group's range). Checked by
// the reader that uses them (load), so that verify still reports a wrong size as such.
Status CheckSectionChecksums(const DataFile& file);

// The row_groups and footer of a file from the sections its ChecksumSink hashed.
void SetSectionChecksums(const std::vector<SectionChecksum>& sections, DataFile* file);

struct TableManifest {
  TableRef table;
  std::string query;                  // for --query tables
  Schema schema;                      // logical + source types, nullability
  std::string ddl;
  std::vector<std::string> primary_key;
  // UNIQUE constraints as column lists (minor version 1). has_unique_keys: the field was
  // recorded (an older dump has its UNIQUE keys only as DDL text).
  std::vector<std::vector<std::string>> unique_keys;
  bool has_unique_keys = false;
  std::string codec;
  std::string partition_by;
  std::string run_id;                 // run that wrote the files
  // What the table was read from (Database::Fingerprint plus a schema hash);
  // resume reuses the table only when the source still gives the same one.
  nlohmann::json source_fingerprint;  // null in dumps written before it existed
  // The source's consistent state the rows come from (snapshot id, WAL
  // position, time), as Database::Describe() gives it; informative.
  nlohmann::json source_snapshot;
  std::vector<DataFile> files;
  uint64_t rows = 0;
  uint64_t bytes = 0;
  std::string started_at;             // ISO 8601 UTC
  std::string finished_at;
  double seconds = 0;
  // Not serialized: SHA-256 of this table's _table.json bytes as written or read (signed
  // dumps), for its entry in _manifest.json.
  std::string json_sha256;
  // XXH64 of the same bytes (not in the file; recorded in the manifest's entry).
  std::string json_xxh64;
};

struct TableSummary {
  TableRef table;
  std::string key;   // of its _table.json
  uint64_t rows = 0;
  uint64_t files = 0;
  uint64_t bytes = 0;
  std::string codec;
  double seconds = 0;
  std::string run_id;  // of its _table.json; "" in dumps written before it existed
  std::string table_json_sha256;  // SHA-256 of its _table.json bytes (signed dumps only)
  // XXH64 of its _table.json bytes, 16 hex digits; "" in dumps written before it existed.
  std::string table_json_xxh64;
};

struct DumpManifest {
  int format_version = kDumpFormatVersion;
  int format_minor_version = kDumpFormatMinorVersion;
  std::string dump_id;
  std::string created_by;
  nlohmann::json source;
  nlohmann::json options;
  std::string started_at;
  std::string finished_at;
  double seconds = 0;
  std::vector<TableSummary> tables;
  // One entry per run whose tables the dump holds (a resume reuses tables of
  // earlier runs): {"run_id", "tables", "snapshot"}. More than one: the tables
  // were not all read from one snapshot of the source.
  nlohmann::json snapshots = nlohmann::json::array();
  bool single_snapshot() const { return snapshots.size() <= 1; }
  uint64_t total_rows = 0;
  uint64_t total_files = 0;
  uint64_t total_bytes = 0;
  // Signed dump: every object has a SHA-256 recorded, and _manifest.sig holds the HMAC of
  // these exact _manifest.json bytes (docs/dump-format.md, "Signed dumps").
  bool sha256 = false;
  // Signed dumps: where the dump was written (its destination's Describe(), never with
  // credentials); with finished_at (when), inside what is signed, so a copied or replayed
  // dump shows it.
  std::string written_to;
  // The schema beyond the tables' own definitions (minor version 1, docs/dump-format.md
  // "Schema"): {"schema_from": "pg_dump"|"lakedump"|"sqlite_schema", "archive": {...},
  // "objects": [...], "sequences": [...], "indexes": [...], ...}; null in older dumps.
  nlohmann::json schema;
  // The base of incremental dumps (docs/incremental.md): the replication slot, publication,
  // consistent point and each table's replica identity; null in a plain dump.
  nlohmann::json incremental;
};

nlohmann::json ToJson(const TableManifest& table);
nlohmann::json ToJson(const DumpManifest& dump);
// The text of a metadata file (indented by `indent`, or compact for -1; newline-terminated);
// InvalidArgument naming `what` when a string in it is not UTF-8 (JSON cannot carry it), never
// an exception.
Result<std::string> SerializeMetadata(const nlohmann::json& j, std::string_view what,
                                      int indent = 2);

// JSON text of a metadata document (nesting bounded, no exceptions): Corruption naming `what`
// when it is not JSON or nests deeper than any lakedump document does.
Result<nlohmann::json> ParseMetadataJson(std::string_view text, std::string_view what);

// `what` names the object in errors (e.g. its key). Non-JSON, a missing or
// mistyped field, another format or a newer major version are Corruption /
// Unimplemented with a message saying so. A table's file entries must each have a
// valid relative key (ValidateObjectKey: checked by segment, so "ab..cd" is fine and
// ".." is not), bytes > 0 (no Parquet file is empty) and an xxh64 of 16 hex digits.
Result<TableManifest> ParseTableManifest(std::string_view text, std::string_view what);
Result<DumpManifest> ParseDumpManifest(std::string_view text, std::string_view what);

// Largest _manifest.json or _table.json read (checked from the object's size before reading):
// 64 MiB holds ~200K tables in a manifest, or ~300K files in a table.
inline constexpr uint64_t kMaxMetadataBytes = 64ull << 20;

// The bytes of _manifest.json; NotFound "no dump at DEST (no _manifest.json)".
Result<std::string> ReadDumpManifestText(ObjectStore& store);
// Reads and parses _manifest.json; NotFound "no dump at DEST (no _manifest.json)".
Result<DumpManifest> ReadDumpManifest(ObjectStore& store);
Result<TableManifest> ReadTableManifest(ObjectStore& store, std::string_view key);

// ISO 8601 UTC with milliseconds, "2026-11-29T23:59:59.123Z".
std::string FormatUtc(std::chrono::system_clock::time_point t);

}  // namespace lakedump
