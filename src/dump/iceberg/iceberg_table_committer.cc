#include "dump/iceberg/iceberg_table_committer.h"

#include <fmt/format.h>

#include <algorithm>

#include "dump/iceberg/key_index.h"
#include "lake/metadata_io.h"
#include "lake/object_keys.h"
#include "format/iceberg/schema_evolution.h"

namespace lakedump {
namespace {

// A table's metadata is a few small objects in a row, so twice the table tasks keep
// up with them; at most that many tables' metadata is held at once.
size_t WritersFor(int table_parallelism) {
  return MetadataIoWidth(table_parallelism, /*per_task=*/2, /*at_least=*/4);
}

}  // namespace

Result<bool> ReuseIcebergTable(ObjectStore& store, const TableManifest& table,
                               IcebergTableSlot* slot) {
  LD_ASSIGN_OR_RETURN(std::optional<IcebergTableKeep> keep, IcebergMetadataPresent(store, table));
  if (!keep) return false;
  slot->keep = std::move(*keep);
  slot->written = IcebergMetadataKeys(table);
  slot->written.push_back(IcebergHintKey(table.table));
  return true;
}

Result<Schema> ContinuingFieldIds(ObjectStore& store, const TableRef& table, Schema schema) {
  LD_ASSIGN_OR_RETURN(IcebergHistoryRead read, ReadIcebergHistory(store, table));
  if (!read.history) return schema;
  auto evolved = iceberg::EvolveSchema(*read.history, schema);
  if (!evolved.ok()) return schema;
  return std::move(*evolved);
}

IcebergTableCommitter::IcebergTableCommitter(
    ObjectStore* store, int table_parallelism, bool after_committed_dump,
    const std::map<std::string, std::vector<std::string>>& key_index, std::stop_token stop)
    : store_(store),
      after_committed_dump_(after_committed_dump),
      key_index_(key_index),
      pool_(WritersFor(table_parallelism)),
      writes_(&pool_, WritersFor(table_parallelism), stop) {}

IcebergTableCommitter::~IcebergTableCommitter() = default;

Result<Schema> IcebergTableCommitter::PrepareSchema(IcebergTableSlot* slot, const TableRef& table,
                                                    const Schema& schema) {
  if (!after_committed_dump_) return schema;
  std::lock_guard<std::mutex> lock(slot->mu);
  if (!slot->history_read) {
    LD_ASSIGN_OR_RETURN(IcebergHistoryRead read, ReadIcebergHistory(*store_, table));
    slot->history = std::move(read);
    slot->history_read = true;
  }
  if (!slot->history->history) return schema;
  auto evolved = iceberg::EvolveSchema(*slot->history->history, schema);
  // A current schema that lakedump did not write: positional ids, and the commit
  // (CannotAppend) starts a new history, saying why.
  if (!evolved.ok()) return schema;
  return std::move(*evolved);
}

Status IcebergTableCommitter::Schedule(IcebergTableSlot* slot, TableManifest table) {
  // The table's _table.json is written beside this (by the caller), and the next tables
  // go on: a crash in between leaves a _table.json without metadata, which resume dumps
  // again.
  const bool spawned =
      writes_.Spawn([this, slot, table = std::move(table)](std::stop_token) -> Status {
        return WriteTable(slot, table);
      });
  if (!spawned) return Status::Cancelled("Iceberg metadata writes stopped");  // Wait() says why
  return Status::OK();
}

Status IcebergTableCommitter::WriteTable(IcebergTableSlot* slot, const TableManifest& table) {
  std::optional<IcebergHistoryRead> history;  // as the table's units read it, if they did
  {
    std::lock_guard<std::mutex> lock(slot->mu);
    history = std::move(slot->history);
  }
  std::vector<std::string> index_written;
  auto summary = WriteKeyIndex(table, &index_written);
  if (!summary.ok()) {
    return summary.status().WithContext(
        fmt::format("the key index of {}", table.table.QualifiedName()));
  }
  std::vector<std::pair<std::string, std::string>> deferred;
  auto written = WriteIcebergTable(*store_, table, after_committed_dump_ ? &deferred : nullptr,
                                   history ? &*history : nullptr, *summary);
  if (!written.ok()) {
    return written.status().WithContext(
        fmt::format("Iceberg metadata of {}", table.table.QualifiedName()));
  }
  // The slot is the table's alone, and read only after Wait().
  slot->keep = std::move(written->keep);
  slot->written = std::move(written->written);
  for (std::string& k : index_written) slot->written.push_back(std::move(k));
  if (!deferred.empty() || !written->warning.empty()) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& object : deferred) deferred_.push_back(std::move(object));
    if (!written->warning.empty()) warnings_.push_back(std::move(written->warning));
  }
  return Status::OK();
}

Result<std::map<std::string, std::string>> IcebergTableCommitter::WriteKeyIndex(
    const TableManifest& table, std::vector<std::string>* written) {
  std::map<std::string, std::string> summary;
  auto key = key_index_.find(table.table.QualifiedName());
  if (key == key_index_.end()) return summary;
  std::vector<size_t> columns;
  for (const std::string& k : key->second) {
    const std::optional<size_t> i = table.schema.FindColumn(k);
    if (!i) return Status::Internal(fmt::format("no key column {} in the table's schema", k));
    columns.push_back(*i);
  }
  // A key of one integer column only: its index is a few runs per file when the table is in
  // key order. Any other key's index is a row per key, whose sort (4M text keys: 4.7 s,
  // docs/performance.md) would make the base several times slower; its first increment
  // builds the runs from the files instead, as before.
  const IndexKeyOrder order(table.schema, columns);
  if (!order.integer()) return summary;
  std::vector<std::string> files;
  for (const DataFile& f : table.files) files.push_back(f.key);
  // Named after the run, as an increment's index is: the sweep keeps it with the snapshot.
  const std::string name = IcebergKeyIndexName(table.run_id);
  const std::string index_key = TablePrefix(table.table) + "metadata/" + name;
  std::lock_guard<std::mutex> one_at_a_time(index_mu_);
  LD_RETURN_IF_ERROR(
      WriteDataFilesKeyIndex(*store_, files, key->second, order, index_key).status());
  written->push_back(index_key);
  summary["lakedump.key-index"] = name;
  return summary;
}

Status IcebergTableCommitter::Wait() {
  Status w = writes_.Wait();
  if (!w.ok() && w.code() != Code::kCancelled) return w;
  return Status::OK();
}

Status IcebergTableCommitter::WriteDeferred() {
  std::vector<std::pair<std::string, std::string>> objects;
  {
    std::lock_guard<std::mutex> lock(mu_);
    objects = std::move(deferred_);
  }
  // A failure leaves the new manifest committed (the CLI says so) and the old dump's
  // files unswept, so the Iceberg tables still read the old data whole.
  for (const auto& [key, bytes] : objects) {
    LD_RETURN_IF_ERROR(store_->PutObject(key, bytes).WithContext(
        fmt::format("Iceberg metadata {} (after the manifest)", key)));
  }
  return Status::OK();
}

std::vector<std::string> IcebergTableCommitter::TakeWarnings() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::move(warnings_);
}

}  // namespace lakedump
