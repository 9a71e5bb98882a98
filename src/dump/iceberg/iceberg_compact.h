// `lakedump compact DEST` (docs/iceberg.md, "Compaction"): rewrites the current snapshot of
// each selected Iceberg table of an incremental dump (its data files with their position
// deletes applied) into clean data files of about the target size, with no delete file,
// their rows in key order for a table with a key (compact_key_order.h: the files already in
// key order read as they are, the others sorted first, spilling past sort_memory_bytes),
// and commits them as a `replace` snapshot (the same rows), with a new key index
// ("lakedump.key-index": key -> the new file and position) so that the next increment finds
// its keys in the new files. `gc --expire-snapshots` then removes what no retained snapshot
// needs.
//
// Safety: it holds the dump's lease (_lease.json) for the whole run, as an increment does,
// so no increment commits beside it (a held lease refuses the compaction in one line), and
// it checks the lease again before each table's metadata. A table whose current snapshot is
// of an increment that never committed (a run that died before its manifest) is left as it
// is: the rerun of that increment replaces the snapshot.
// Memory: a file's rows stream through one batch and the writer's row group; the deleted
// positions of the table (8 bytes each) are held; to order the rows by key, one chunk being
// sorted (sort_memory_bytes), or in the merge one batch and row group per file it reads.
// Per table: data files, key index, manifests, manifest list, v<N+1>.metadata.json, then
// version-hint.text; a table that fails deletes what it wrote before its hint.
// A function; the store must be thread-safe (the lease renews from its own thread).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "dump/iceberg/compact_key_order.h"
#include "source/table_source.h"
#include "store/object_store.h"

namespace lakedump {

inline constexpr uint64_t kDefaultCompactFileBytes = uint64_t{512} << 20;  // Iceberg's default

struct CompactOptions {
  std::vector<std::string> tables;  // --tables patterns (lake/table_selection.h); empty: all
  uint64_t target_file_bytes = kDefaultCompactFileBytes;
  // The rows of a file not in key order sorted in memory at most before spilling
  // (compact_key_order.h).
  size_t sort_memory_bytes = kCompactSortBytes;
};

struct CompactedTable {
  TableRef table;
  uint64_t data_files_before = 0;
  uint64_t delete_files_before = 0;
  uint64_t deleted_rows = 0;  // rows the position deletes removed
  uint64_t files_after = 0;
  uint64_t files_in_key_order = 0;  // data files read as they were (their rows in key order)
  uint64_t files_sorted = 0;        // data files sorted first
  uint64_t rows = 0;
  int64_t snapshot_id = 0;
};

struct CompactResult {
  std::vector<CompactedTable> compacted;
  std::vector<std::string> skipped;  // "T: why" for tables left as they are
};

// InvalidArgument when DEST is not an Iceberg dump with increments or a pattern selects no
// table; the lease's AlreadyExists when a dump or gc holds DEST.
Result<CompactResult> CompactIcebergTables(ObjectStore& store, const CompactOptions& options);

}  // namespace lakedump
