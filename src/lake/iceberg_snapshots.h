// The snapshots of a table's Iceberg history as `lakedump ls DEST --snapshots` lists them
// (docs/iceberg.md, "Time travel"): per retained snapshot its id, the increment it belongs
// to (its summary's "lakedump.increment", written by an incremental dump and kept by
// `compact`), its operation (append, overwrite, delete, replace), time and change counts.
// The history was checked (iceberg::ParseTableHistory); summary values are still shown only
// when they are what they claim (a count that is not one is left out). Pure functions;
// thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "format/iceberg/iceberg_history.h"

namespace lakedump {

struct IcebergSnapshotInfo {
  int64_t id = 0;
  std::optional<int64_t> parent;
  int64_t sequence_number = 0;
  int64_t timestamp_ms = 0;
  std::string operation;  // "append", "overwrite", "delete", "replace" ("" when absent)
  int increment = 0;      // 0: the dump's own snapshot
  bool current = false;
  std::string run_id;
  std::string redump;     // why an increment re-dumped the table ("" for a row delta)
  // The summary's counts that are counts: lakedump.inserts/updates/deletes, added-records,
  // deleted-records, added-position-deletes, total-records, total-data-files,
  // total-delete-files, total-position-deletes; keyed without the "lakedump." prefix.
  std::map<std::string, uint64_t> counts;
};

// The history's snapshots in the order the metadata lists them (oldest first, as written).
std::vector<IcebergSnapshotInfo> ListIcebergSnapshots(const iceberg::TableHistory& history);

// One line for `ls --snapshots`: "  <id>  increment N  <operation>  <time>  <counts>".
std::string FormatIcebergSnapshot(const IcebergSnapshotInfo& snapshot);

// The snapshot as `ls --json` gives it.
nlohmann::json IcebergSnapshotJson(const IcebergSnapshotInfo& snapshot);

}  // namespace lakedump
