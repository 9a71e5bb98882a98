// A table's Iceberg history as lakedump wrote it: the metadata a later dump appends its
// snapshot to (v<N+1>.metadata.json) and that `gc --expire-snapshots` trims. The metadata
// was read from a store and is not trusted: ParseTableHistory checks every field it uses.
// Each snapshot is one dump run's, named in its summary ("lakedump.run-id"); the objects of
// a snapshot are the ones whose names carry that run id. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "table/schema.h"

namespace lakedump::iceberg {

// Iceberg metadata files lakedump reads back: at most this many snapshots.
inline constexpr size_t kMaxSnapshots = 100000;

struct TableHistory {
  int version = 0;                   // N of the v<N>.metadata.json it was read from
  nlohmann::ordered_json metadata;   // that file, checked
  std::vector<int64_t> snapshot_ids; // in the order of "snapshots"
  std::vector<std::string> run_ids;  // the run of each snapshot, same order
  int64_t current_snapshot_id = 0;
  // The metadata files of metadata-log (URIs), oldest first.
  std::vector<std::string> logged_metadata_files;
};

// Parses and checks the text of `<location>/metadata/v<version>.metadata.json`: format
// version 2, lakedump's ("lakedump.run-id" property), this location, and every field
// used later well-formed (snapshots with ids, sequence numbers, run ids and a manifest list
// under <location>/metadata/; the current snapshot among them; logs of the right shape).
// Corruption with a one-line reason otherwise. `valid_run_id` says which run ids are
// lakedump's own (a hostile one could otherwise name other objects).
Result<TableHistory> ParseTableHistory(std::string_view text, int version,
                                       std::string_view location,
                                       bool (*valid_run_id)(std::string_view));

// What TakeCurrentFieldIds found wrong: the numbers of columns differ (`count`), or the
// current schema has no field named `column` at that column's position.
struct CurrentFieldsMismatch {
  bool count = false;
  std::string column;
};

// Gives each of `columns` (as a data or change file holds them) the field id, requiredness
// and list element id of the history's current schema's field at its position, where that
// field has the column's name; nullopt when every column has its field.
std::optional<CurrentFieldsMismatch> TakeCurrentFieldIds(const TableHistory& history,
                                                         std::vector<Column>* columns);

// Why a snapshot of `schema` (with the field ids its data files carry, partitioned by
// `partition_column`) cannot follow the history, or nullopt: the history's current schema
// is not one lakedump writes (EvolveSchema), the columns' ids are not the ones EvolveSchema
// gives them (data files written without the history's ids), or the partition spec
// changed. Changed columns alone do not stop a history: they are a new
// schema with the same field ids for unchanged columns.
std::optional<std::string> CannotAppend(const TableHistory& history, const Schema& schema,
                                        std::optional<size_t> partition_column);

// The text of v<history.version + 1>.metadata.json without the snapshots in `expire`
// (never the current one), their snapshot-log entries dropped and metadata-log extended
// by the file read. InvalidArgument when `expire` names the current snapshot.
Result<std::string> ExpireSnapshots(const TableHistory& history,
                                    const std::vector<int64_t>& expire, int64_t now_ms,
                                    std::string_view location);

}  // namespace lakedump::iceberg
