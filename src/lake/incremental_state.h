// The metadata of incremental dumps (docs/incremental.md): the "incremental" block of the
// base dump's _manifest.json (IncrementalBase), and each increment's own manifest
// DEST/_increments/NNNNNN/_manifest.json (IncrementManifest), written last: the
// increment's commit point. Parsing checks every field it reads (a dump is hostile until
// checked): Corruption naming the object otherwise.
// Values and functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lake/manifest.h"
#include "source/table_source.h"
#include "store/object_store.h"

namespace lakedump {

inline constexpr std::string_view kIncrementsFolder = "_increments/";
inline constexpr std::string_view kIncrementFormatName = "lakedump-increment";
inline constexpr int kIncrementFormatVersion = 1;
// "_increments/000001/" for increment 1.
std::string IncrementPrefix(int sequence);
// Inside an increment's folder: its change files and its re-dumped tables (a dump).
inline constexpr std::string_view kChangesFolder = "changes/";
inline constexpr std::string_view kRedumpFolder = "redump/";
// A change file's columns before the table's: _op, _lsn, _xid, _commit_ts, _unchanged.
inline constexpr size_t kChangeMetaColumns = 5;
// A change file names a table's column as the source does, unless the name is one of the meta
// columns' or starts with kEscapePrefix ("_lakedump_", the names lakedump keeps for its own
// bookkeeping columns, as the load's temporary tables): then it is kEscapePrefix + the name
// ("_op" -> "_lakedump__op", "_lakedump_lsn" -> "_lakedump__lakedump_lsn"). So a table's
// column never shares a name with a column lakedump adds. Increments written so record
// "escaped_column_names": true (IncrementManifest::escaped_column_names).
inline constexpr std::string_view kEscapePrefix = "_lakedump_";
std::string EscapeChangeColumnName(std::string_view name);
// The source's name of a change file's column (an increment with escaped_column_names).
std::string UnescapeChangeColumnName(std::string_view name);

struct IncrementalColumn {
  std::string name;
  uint32_t type_oid = 0;
  int32_t typmod = -1;
  bool operator==(const IncrementalColumn&) const = default;
};

// How an increment captures one table.
enum class IncrementalMode : uint8_t {
  kChanges,  // published: its changes, from the slot
  kRedump,   // not published (no primary key or usable replica identity...): dumped whole
};

struct IncrementalTable {
  TableRef ref;
  uint32_t oid = 0;
  IncrementalMode mode = IncrementalMode::kChanges;
  std::string reason;              // kRedump: why
  char replica_identity = 'd';     // pg_class.relreplident
  std::vector<std::string> key;    // the replica identity's columns (kChanges)
  std::vector<IncrementalColumn> columns;  // as published (name, type, typmod)
  // kChanges: its array columns that the base (or the last re-dump) read as text, because a
  // value had several dimensions or another lower bound; its increments keep that form.
  std::vector<std::string> text_arrays;
  // The table's rows were last dumped whole at this WAL position (a re-dump's consistent
  // point): changes of transactions that committed before it are in those rows already.
  uint64_t skip_before_lsn = 0;
};

// Why a table with a key is re-dumped whole in every increment until the next base: it is
// not in the publication, which lists the tables the base followed by their changes.
inline constexpr std::string_view kCreatedAfterBase =
    "created after the base (not in its publication)";
inline constexpr std::string_view kCreatedAgain =
    "dropped and created again (which took it out of the publication)";

struct IncrementalBase {
  std::string slot;
  std::string publication;
  uint64_t consistent_point = 0;
  std::string system_identifier;   // "" when the role could not read it
  std::string database_oid;
  nlohmann::json pg_options;       // the type policies the base was dumped with
  std::vector<IncrementalTable> tables;
};

struct ChangeFile {
  TableRef table;
  std::string key;   // relative to the increment's folder ("changes/...")
  uint64_t rows = 0;
  uint64_t bytes = 0;
  std::string xxh64;
  std::string sha256;  // signed increments: the file's SHA-256 (64 hex digits)
};

struct RedumpedTable {
  TableRef table;
  std::string reason;
};

struct IncrementManifest {
  int sequence = 0;
  std::string increment_id;
  std::string base_dump_id;
  std::string previous_increment_id;  // "" for the first
  std::string slot;
  std::string publication;
  uint64_t start_lsn = 0;  // transactions committed at or after it...
  uint64_t end_lsn = 0;    // ...and before it
  uint64_t redump_lsn = 0; // the consistent point of redump/ (0: nothing re-dumped)
  std::string started_at;
  std::string finished_at;
  double seconds = 0;
  uint64_t transactions = 0;
  uint64_t changes = 0;
  uint64_t retained_wal_bytes = 0;
  std::vector<IncrementalTable> tables;   // every table's state after this increment
  std::vector<ChangeFile> change_files;   // in table order
  std::vector<RedumpedTable> redumped;    // in redump/, a lakedump dump of its own
  std::vector<TableRef> dropped;          // gone from the source since the last increment
  // Signed increments (docs/dump-format.md, "Signed dumps"): the SHA-256 of the exact bytes
  // of the manifest this one follows (the base's _manifest.json for the first, else the
  // previous increment's), of redump/_manifest.json (when tables were re-dumped), and where
  // the increment was written. Empty in unsigned increments.
  std::string previous_manifest_sha256;
  std::string redump_manifest_sha256;
  std::string written_to;
  bool escaped_column_names = false;      // its change files escape names (EscapeChangeColumnName)
  // Not in the JSON: the SHA-256 of its _manifest.json as ReadIncrements read it.
  std::string manifest_sha256;
};

nlohmann::json ToJson(const IncrementalTable& t);
nlohmann::json ToJson(const IncrementalBase& b);
nlohmann::json ToJson(const IncrementManifest& m);
// The tables the base selected: its dump's --tables (`include`, empty = all) and --exclude
// patterns, from its _manifest.json's options; every increment follows them.
struct BaseSelection {
  std::vector<std::string> include;
  std::vector<std::string> exclude;
};
Result<BaseSelection> ReadBaseSelection(const DumpManifest& base);

// NotFound when the dump is not the base of incremental dumps (no "incremental").
Result<IncrementalBase> ParseIncrementalBase(const DumpManifest& base);
Result<IncrementManifest> ParseIncrementManifest(std::string_view text, std::string_view what);

// The committed increments of the dump at `store` (whose base is `base`), in order 1..N:
// every folder _increments/NNNNNN/ with a _manifest.json; a last folder without one is an
// increment that never committed and is left out. Corruption when the chain is broken (a
// gap, an increment of another base, or not following the one before).
Result<std::vector<IncrementManifest>> ReadIncrements(ObjectStore& store,
                                                      const DumpManifest& base);

}  // namespace lakedump
