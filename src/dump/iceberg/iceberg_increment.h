// The Iceberg side of an incremental dump (--incremental over a base dumped with
// --table-format iceberg; docs/iceberg.md, "Increments"): each table an increment changed
// gets one new snapshot of its Iceberg table, a row delta:
//  - the new versions of its rows (inserts, updates) in one data file,
//    "<schema>/<table>/inc-NNNNNN-<run>.parquet", every version the change file holds in
//    commit order (an unchanged TOASTed value taken from the row's previous version);
//  - the rows' old versions (deleted, updated) and the versions this same increment
//    superseded, as position deletes (file_path, pos) in "...-deletes.parquet", found
//    through the table's key index (key_index.h), written beside the metadata with it;
//  - a parent data file that has lost a fifth of its rows is rewritten without them instead
//    of getting position deletes (copy_on_write.h);
//  - the snapshot's sequence number is the next: its deletes apply to every data file
//    up to it, its own new file included (v2 rules);
//  - its summary records lakedump.increment, lakedump.start-lsn / end-lsn,
//    lakedump.inserts / updates / deletes and lakedump.key-index.
// A table the increment re-dumped (TRUNCATE, no key, types followed whole, new tables)
// gets an overwrite snapshot of the re-dumped files instead (WriteIcebergTable).
// Per table: data file, rewritten files (copy_on_write.h), delete file, key index, manifests,
// manifest list, v<N+1>.metadata.json, version-hint.text last; the increment's _manifest.json comes after
// every table. A snapshot left by a run of the same increment that died before its
// manifest is replaced: the new one's parent is the snapshot before it.
// Functions; not thread-safe per table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lake/incremental_state.h"
#include "lake/manifest.h"
#include "store/object_store.h"

namespace lakedump {

// The increment whose snapshots are written.
struct IcebergIncrement {
  int sequence = 0;
  std::string run_id;
  uint64_t start_lsn = 0;
  uint64_t end_lsn = 0;
  bool escaped_column_names = true;
};

struct IcebergChangeCounts {
  uint64_t inserts = 0;
  uint64_t updates = 0;
  uint64_t deletes = 0;
};

// One changed table: its change file (a key of `store`) and its key's columns (source names).
Result<IcebergChangeCounts> CommitIcebergChanges(ObjectStore& store, const TableRef& table,
                                                 const std::string& change_file_key,
                                                 const std::vector<std::string>& key_columns,
                                                 const IcebergIncrement& increment);

// Every table re-dumped into `redump_prefix` (the increment's "redump/" folder, a dump of its
// own) as an overwrite snapshot of its table; warnings (a history not continued) appended.
Status CommitIcebergRedumps(ObjectStore& store, const std::string& redump_prefix,
                            const IcebergIncrement& increment, std::vector<std::string>* warnings);

// Both, for increment `m` (its change files and re-dumps written, not yet committed).
Status CommitIcebergIncrement(ObjectStore& store, const IncrementManifest& m,
                              std::vector<std::string>* warnings);

}  // namespace lakedump
