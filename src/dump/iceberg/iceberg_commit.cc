#include "dump/iceberg/iceberg_commit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>

#include <nlohmann/json.hpp>
#include <filesystem>
#include <random>

#include "lake/object_keys.h"
#include "format/iceberg/iceberg_table.h"

namespace lakedump {

Result<std::shared_ptr<const IcebergFileMetrics>> CollectIcebergMetrics(
    const Schema& schema, const parquet::FileMetaData* footer,
    std::optional<std::string> partition_value) {
  if (footer == nullptr) {
    return Status::Internal("the file format has no Parquet footer to take Iceberg metrics from");
  }
  auto m = std::make_shared<IcebergFileMetrics>();
  LD_ASSIGN_OR_RETURN(m->stats, iceberg::StatsFromParquetFooter(schema, *footer));
  m->partition_value = std::move(partition_value);
  return std::shared_ptr<const IcebergFileMetrics>(std::move(m));
}

namespace {

// Over a committed dump: continues the table's history in `in` (version, removed files)
// and returns the history continued, or nullopt with *warning saying why not.
Result<std::optional<iceberg::TableHistory>> ContinueHistory(ObjectStore& store,
                                                              const TableManifest& table,
                                                              const IcebergHistoryRead* history,
                                                              iceberg::SnapshotInput* in,
                                                              std::string* warning) {
  IcebergHistoryRead read;
  if (history != nullptr) {
    read = *history;
  } else {
    LD_ASSIGN_OR_RETURN(read, ReadIcebergHistory(store, table.table));
  }
  std::optional<iceberg::TableHistory> previous;
  std::string why = read.problem;
  if (read.history) {
    if (auto cannot = iceberg::CannotAppend(*read.history, in->schema, in->partition_column)) {
      why = *cannot;
    } else {
      // The files the new snapshot replaces, listed again as DELETED entries.
      auto removed = ReadRemovedFiles(store, table.table, in->location, *read.history);
      if (removed.ok()) {
        in->removed = std::move(*removed);
        previous = std::move(read.history);
      } else if (removed.status().code() == Code::kNotFound ||
                 removed.status().code() == Code::kCorruption) {
        why = fmt::format("its current snapshot's manifests do not read: {}",
                          removed.status().message());
      } else {
        return removed.status();
      }
    }
  }
  if (!why.empty()) {
    *warning = fmt::format(
        "Iceberg table {}: its history is not continued ({}): a new history starts at "
        "v{}.metadata.json, and the earlier snapshots' files are deleted with the old dump",
        table.table.QualifiedName(), why, read.last_version + 1);
  }
  in->version = read.last_version + 1;
  return previous;
}

// The new snapshot's ids, time and data files (their metrics) into `in`.
Status DescribeSnapshot(const ObjectStore& store, const TableManifest& table,
                        const iceberg::TableHistory* previous, iceberg::SnapshotInput* in) {
  std::string root = StoreRootUri(store);
  if (root == "file:///") root = "file://";  // a dump into "/" itself
  in->previous = previous;
  in->table_uuid = iceberg::RandomUuid();
  in->snapshot_id = iceberg::RandomSnapshotId();
  while (previous && std::count(previous->snapshot_ids.begin(), previous->snapshot_ids.end(),
                                in->snapshot_id) > 0) {
    in->snapshot_id = iceberg::RandomSnapshotId();
  }
  in->timestamp_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  in->file_tag = table.run_id;
  in->random_seed = std::random_device{}();
  in->properties["lakedump.run-id"] = table.run_id;
  for (const DataFile& f : table.files) {
    if (!f.iceberg) {
      return Status::Internal("data file " + f.key + " has no Iceberg metrics");
    }
    iceberg::DataFileEntry e;
    e.path = root + "/" + f.key;
    e.record_count = f.rows;
    e.file_size_in_bytes = f.bytes;
    e.stats = f.iceberg->stats;
    e.partition_value = f.iceberg->partition_value;
    in->files.push_back(std::move(e));
  }
  return Status::OK();
}

// What the table's history holds once the metadata (`metadata_key`) is written.
IcebergTableKeep KeepAfterWrite(const TableManifest& table, const std::string& metadata_key,
                                const iceberg::TableHistory* previous) {
  IcebergTableKeep keep;
  keep.prefix = TablePrefix(table.table);
  keep.keys = {IcebergHintKey(table.table), metadata_key};
  if (previous) {
    IcebergTableKeep before = KeepOfHistory(table.table, *previous);
    for (std::string& k : before.keys) {
      if (k != keep.keys[0]) keep.keys.push_back(std::move(k));
    }
    keep.run_ids = std::move(before.run_ids);
  }
  keep.run_ids.push_back(table.run_id);
  return keep;
}

}  // namespace

Result<IcebergWritten> WriteIcebergTable(
    ObjectStore& store, const TableManifest& table,
    std::vector<std::pair<std::string, std::string>>* deferred,
    const IcebergHistoryRead* history, const std::map<std::string, std::string>& summary) {
  IcebergWritten out;
  iceberg::SnapshotInput in;
  in.schema = table.schema;
  in.summary = summary;
  if (!table.partition_by.empty()) {
    in.partition_column = table.schema.FindColumn(table.partition_by);
  }
  in.location = IcebergTableLocation(store, table.table);
  std::optional<iceberg::TableHistory> previous;
  if (deferred != nullptr) {
    // Over a committed dump: continue the table's history, or say why not.
    LD_ASSIGN_OR_RETURN(previous, ContinueHistory(store, table, history, &in, &out.warning));
  }
  const iceberg::TableHistory* before = previous ? &*previous : nullptr;
  LD_RETURN_IF_ERROR(DescribeSnapshot(store, table, before, &in));
  LD_ASSIGN_OR_RETURN(auto files, iceberg::BuildSnapshot(in));
  const std::string meta_prefix = TablePrefix(table.table) + "metadata/";
  // In order: the manifests and the metadata file first, version-hint.text last, so
  // that no hint ever points at a metadata file that is not complete.
  for (auto& [name, bytes] : files) {
    if (deferred != nullptr && name.find(table.run_id) == std::string::npos) {
      // v<N>.metadata.json, version-hint.text: the caller writes them later.
      deferred->emplace_back(meta_prefix + name, std::move(bytes));
      continue;
    }
    LD_RETURN_IF_ERROR(store.PutObject(meta_prefix + name, bytes).WithContext(meta_prefix + name));
    out.written.push_back(meta_prefix + name);
  }
  out.keep = KeepAfterWrite(table, meta_prefix + files[files.size() - 2].first, before);
  return out;
}
}  // namespace lakedump
