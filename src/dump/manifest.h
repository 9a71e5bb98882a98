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

#include "base/status.h"
#include "source/table_source.h"
#include "store/object_store.h"
#include "table/schema.h"

namespace lakedump {

inline constexpr std::string_view kDumpFormatName = "lakedump-dump";
inline constexpr int kDumpFormatVersion = 1;       // major: readers refuse a higher one
inline constexpr int kDumpFormatMinorVersion = 0;  // minor: additive, readers ignore new fields

struct IcebergFileMetrics;  // dump/iceberg_commit.h

struct DataFile {
  std::string key;         // relative to the dump root
  uint64_t rows = 0;
  uint64_t bytes = 0;
  std::string xxh64;       // 16 lower-case hex digits of XXH64(file bytes, seed 0)
  std::string partition;   // "col=value" (escaped) or empty
  // --table-format iceberg: metrics for the table's Iceberg manifest, from the
  // writer (not in _table.json). shared_ptr: DataFile is copied, the metrics never change.
  std::shared_ptr<const IcebergFileMetrics> iceberg;
};

struct TableManifest {
  TableRef table;
  std::string query;                  // for --query tables
  Schema schema;                      // logical + source types, nullability
  std::string ddl;
  std::vector<std::string> primary_key;
  std::string codec;
  std::string partition_by;
  std::string run_id;                 // run that wrote the files
  std::vector<DataFile> files;
  uint64_t rows = 0;
  uint64_t bytes = 0;
  std::string started_at;             // ISO 8601 UTC
  std::string finished_at;
  double seconds = 0;
};

struct TableSummary {
  TableRef table;
  std::string key;   // of its _table.json
  uint64_t rows = 0;
  uint64_t files = 0;
  uint64_t bytes = 0;
  std::string codec;
  double seconds = 0;
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
  uint64_t total_rows = 0;
  uint64_t total_files = 0;
  uint64_t total_bytes = 0;
};

nlohmann::json ToJson(const TableManifest& table);
nlohmann::json ToJson(const DumpManifest& dump);

// `what` names the object in errors (e.g. its key). Non-JSON, a missing or
// mistyped field, another format or a newer major version are Corruption /
// Unimplemented with a message saying so.
Result<TableManifest> ParseTableManifest(std::string_view text, std::string_view what);
Result<DumpManifest> ParseDumpManifest(std::string_view text, std::string_view what);

// Reads and parses _manifest.json; NotFound "no dump at DEST (no _manifest.json)".
Result<DumpManifest> ReadDumpManifest(ObjectStore& store);
Result<TableManifest> ReadTableManifest(ObjectStore& store, std::string_view key);

// ISO 8601 UTC with milliseconds, "2026-11-29T23:59:59.123Z".
std::string FormatUtc(std::chrono::system_clock::time_point t);

}  // namespace lakedump
