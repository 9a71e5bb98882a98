// The dump side of --table-format iceberg: collects each data file's Iceberg
// metrics when its writer closes, and at a table's commit writes the table's
// Iceberg v2 metadata under "<schema>/<table>/metadata/" (manifest, manifest
// list, v<N>.metadata.json, then version-hint.text last), before _table.json.
// Over a committed dump the table's history is continued: v<N+1> adds this run's
// snapshot to the ones before, whose objects stay (see IcebergTableKeep).
// The metadata itself is built by format/iceberg, its keys and locations are named by
// lake/iceberg_layout.h; this file writes the objects. See docs/iceberg.md.
// Functions; thread-safe (the store is).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lake/iceberg_layout.h"
#include "lake/manifest.h"
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
// schema when the columns changed. `summary`: more entries of the snapshot's summary (an
// increment's re-dump: its number and LSN range).
Result<IcebergWritten> WriteIcebergTable(
    ObjectStore& store, const TableManifest& table,
    std::vector<std::pair<std::string, std::string>>* deferred = nullptr,
    const IcebergHistoryRead* history = nullptr,
    const std::map<std::string, std::string>& summary = {});

}  // namespace lakedump
