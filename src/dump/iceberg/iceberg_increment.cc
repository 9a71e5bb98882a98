#include "dump/iceberg/iceberg_increment.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <numeric>
#include <random>

#include <nlohmann/json.hpp>

#include "dump/iceberg/change_applier.h"
#include "dump/iceberg/copy_on_write.h"
#include "dump/iceberg/iceberg_commit.h"
#include "dump/iceberg/iceberg_table_committer.h"
#include "dump/iceberg/key_index.h"
#include "format/avro/avro_reader.h"
#include "format/iceberg/iceberg_table.h"
#include "lake/iceberg_layout.h"
#include "lake/object_keys.h"
#include "source/postgres/pgoutput.h"
#include "store/prefix_store.h"

namespace lakedump {
namespace {

using json = nlohmann::ordered_json;
// The position delete file's columns (Iceberg spec, "Position Delete Files").
constexpr int kFilePathFieldId = 2147483546;
constexpr int kPosFieldId = 2147483545;

std::string RootUri(const ObjectStore& store) {
  std::string root = StoreRootUri(store);
  if (root == "file:///") root = "file://";  // a dump into "/" itself
  return root;
}

const json* CurrentSnapshotJson(const iceberg::TableHistory& h) {
  for (const json& s : h.metadata["snapshots"]) {
    if (s["snapshot-id"] == h.current_snapshot_id) return &s;
  }
  return nullptr;
}

std::string SummaryValue(const json* snapshot, const char* key) {
  if (snapshot == nullptr || !snapshot->contains("summary")) return "";
  const json& v = (*snapshot)["summary"].value(key, json());
  return v.is_string() ? v.get<std::string>() : "";
}

// A run of this same increment that died before its manifest left its snapshot current:
// the history without it (its parent current again), so that its changes are not applied
// twice. The sequence numbers go on from the highest given. Returns the dead run's id ("" when
// there was none).
std::string DropDeadRunSnapshot(iceberg::TableHistory* h, int sequence) {
  const json* current = CurrentSnapshotJson(*h);
  const std::string inc = SummaryValue(current, "lakedump.increment");
  if (inc.empty() || inc.find_first_not_of("0123456789") != std::string::npos ||
      inc.size() > 9 || std::stoi(inc) < sequence || !current->contains("parent-snapshot-id")) {
    return "";
  }
  std::string dead_run;
  const int64_t dead = h->current_snapshot_id;
  const int64_t parent = (*current)["parent-snapshot-id"].get<int64_t>();
  json& m = h->metadata;
  json snapshots = json::array(), log = json::array();
  for (json& s : m["snapshots"]) {
    if (s["snapshot-id"] != dead) snapshots.push_back(std::move(s));
  }
  for (json& e : m["snapshot-log"]) {
    if (e["snapshot-id"] != dead) log.push_back(std::move(e));
  }
  m["snapshots"] = std::move(snapshots);
  m["snapshot-log"] = std::move(log);
  m["current-snapshot-id"] = parent;
  m["refs"] = {{"main", {{"snapshot-id", parent}, {"type", "branch"}}}};
  for (size_t i = 0; i < h->snapshot_ids.size(); ++i) {
    if (h->snapshot_ids[i] != dead) continue;
    dead_run = h->run_ids[i];
    h->snapshot_ids.erase(h->snapshot_ids.begin() + static_cast<std::ptrdiff_t>(i));
    h->run_ids.erase(h->run_ids.begin() + static_cast<std::ptrdiff_t>(i));
    break;
  }
  h->current_snapshot_id = parent;
  return dead_run;
}

// Deletes what runs that died before their manifest left in the table's folder: objects
// named after a run (Iceberg manifests and manifest lists, key indexes, increment data and
// delete files) that `keep` (the table's history as now written) does not name: a dead
// run's snapshot left out of the history, and the objects of one that died before its
// table's version-hint.text. DEST's lease keeps every other writer out meanwhile.
Status DeleteOrphanRunObjects(ObjectStore& store, const IcebergTableKeep& keep) {
  LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> listing, store.List(keep.prefix));
  std::vector<std::string> orphans;
  for (const ObjectInfo& o : listing) {
    std::string_view name = std::string_view(o.key).substr(keep.prefix.size());
    const bool meta = name.starts_with("metadata/");
    if (meta) name.remove_prefix(9);
    if (name.find('/') != std::string_view::npos) continue;
    const bool run_named =
        meta ? name.ends_with(".avro") ||
                   (name.starts_with("keyindex-") && name.ends_with(".parquet"))
             : name.starts_with("inc-") && name.ends_with(".parquet");
    if (run_named && !keep.KeepsObject(o.key)) orphans.push_back(o.key);
  }
  if (orphans.empty()) return Status::OK();
  return store.Delete(orphans);
}

// The data file's schema: the change file's table columns, named as the source names them,
// with the field ids (and requiredness) of the Iceberg table's current schema.
Result<Schema> DataSchema(const iceberg::TableHistory& h, const Schema& changes, bool escaped,
                          const std::string& table) {
  std::vector<Column> columns;
  for (size_t i = kChangeMetaColumns; i < changes.num_columns(); ++i) {
    columns.push_back(changes.column(i));
    if (escaped) columns.back().name = UnescapeChangeColumnName(columns.back().name);
  }
  if (auto wrong = iceberg::TakeCurrentFieldIds(h, &columns)) {
    if (wrong->count) {
      return Status::Corruption(fmt::format(
          "Iceberg table {}: its current schema does not have the change file's columns", table));
    }
    return Status::Corruption(fmt::format(
        "Iceberg table {}: its current schema has no column {} where the change file has it",
        table, wrong->column));
  }
  return Schema(std::move(columns));
}

// The store keys of the live data files of the current snapshot (`manifests`, its list).
Result<std::vector<std::string>> LiveDataFiles(ObjectStore& store, const TableRef& table,
                                               const std::string& location,
                                               const iceberg::TableHistory& h) {
  LD_ASSIGN_OR_RETURN(auto manifests, ReadRemovedFiles(store, table, location, h));
  const std::string root = RootUri(store) + "/";
  std::vector<std::string> keys;
  for (const iceberg::RemovedManifest& m : manifests) {
    if (m.content != 0) continue;
    for (const iceberg::RemovedEntry& e : m.entries) {
      avro::AvroDecoder d(e.data_file);
      LD_RETURN_IF_ERROR(d.ReadLong().status());  // content
      LD_ASSIGN_OR_RETURN(std::string_view path, d.ReadBytes());
      if (!path.starts_with(root)) {
        return Status::Corruption(fmt::format("{} is not in the dump", path));
      }
      keys.emplace_back(path.substr(root.size()));
    }
  }
  return keys;
}

// Where the current snapshot's key index comes from: the index its summary names, or (a
// snapshot without position deletes: the base, an overwrite) its data files' key columns.
Result<KeyIndexOrigin> KeyIndexOriginOf(ObjectStore& store, const TableRef& table,
                                        const std::string& location,
                                        const iceberg::TableHistory& h,
                                        const std::vector<std::string>& key_columns) {
  const json* current = CurrentSnapshotJson(h);
  const std::string name = SummaryValue(current, "lakedump.key-index");
  KeyIndexOrigin origin;
  if (!name.empty()) {
    if (name.find('/') != std::string::npos || !name.starts_with("keyindex-")) {
      return Status::Corruption(
          fmt::format("Iceberg table {}: its key index {} is not in its metadata/",
                      table.QualifiedName(), name));
    }
    origin.index_key = TablePrefix(table) + "metadata/" + name;
    return origin;
  }
  const std::string deletes = SummaryValue(current, "total-delete-files");
  if (!deletes.empty() && deletes != "0") {
    return Status::Corruption(fmt::format(
        "Iceberg table {}: its current snapshot has deletes but no key index",
        table.QualifiedName()));
  }
  LD_ASSIGN_OR_RETURN(origin.data_files, LiveDataFiles(store, table, location, h));
  origin.key_columns = key_columns;
  return origin;
}

constexpr size_t kDeleteFileBatchRows = 8192;
// A delete file's row groups are small: its paths (one per row, the same for many) are
// buffered in one row group's memory, reused by the next, instead of every row's at once.
constexpr uint64_t kDeleteFileRowGroupRows = 16384;

// Writes the position delete file `key`: (file_path, pos) sorted by path, then position.
Result<iceberg::DeleteFileEntry> WriteDeleteFile(ObjectStore& store, const std::string& key,
                                                 const IndexFiles& index,
                                                 std::vector<KeyLocation> deletes) {
  const std::string root = RootUri(store) + "/";
  std::vector<uint32_t> by_path(index.size());  // file ids in path order
  std::iota(by_path.begin(), by_path.end(), 0);
  std::sort(by_path.begin(), by_path.end(),
            [&](uint32_t a, uint32_t b) { return index.Key(a) < index.Key(b); });
  std::vector<uint32_t> rank(index.size());
  for (uint32_t i = 0; i < by_path.size(); ++i) rank[by_path[i]] = i;
  std::sort(deletes.begin(), deletes.end(), [&](const KeyLocation& a, const KeyLocation& b) {
    return a.file != b.file ? rank[a.file] < rank[b.file] : a.pos < b.pos;
  });
  Schema schema({Column{"file_path", LogicalType{TypeId::kString}, false, "", kFilePathFieldId},
                 Column{"pos", LogicalType{TypeId::kInt64}, false, "", kPosFieldId}});
  RowBatch batch(schema);
  ParquetWriterOptions options;
  options.row_group_rows = kDeleteFileRowGroupRows;
  options.dictionary_columns = {"file_path"};  // `pos` is unique per path: no dictionary pays
  StreamedDataFile file(store, key, schema, std::move(options));
  std::string path;
  for (size_t i = 0; i < deletes.size(); ++i) {
    if (i == 0 || deletes[i].file != deletes[i - 1].file) path = root + index.Key(deletes[i].file);
    batch.column(0).AppendBytes(path);
    batch.column(1).Append<int64_t>(deletes[i].pos);
    if (batch.num_rows() == kDeleteFileBatchRows) {  // handed over a batch at a time
      LD_RETURN_IF_ERROR(file.Append(batch));
      batch.Clear();
    }
  }
  LD_RETURN_IF_ERROR(file.Append(batch));
  LD_ASSIGN_OR_RETURN(std::optional<iceberg::DataFileEntry> written, file.Close(RootUri(store)));
  return iceberg::DeleteFileEntry{written->path, written->record_count,
                                  written->file_size_in_bytes};
}

// The key columns' indices in the change file.
Result<std::vector<size_t>> KeyColumnsOf(const Schema& changes,
                                         const std::vector<std::string>& key_columns,
                                         bool escaped) {
  std::vector<size_t> out;
  for (const std::string& k : key_columns) {
    auto i = changes.FindColumn(escaped ? EscapeChangeColumnName(k) : k);
    if (!i || *i < kChangeMetaColumns) {
      return Status::Corruption(fmt::format("the change file has no key column {}", k));
    }
    out.push_back(*i);
  }
  return out;
}

// The row delta's snapshot description, but for its files.
iceberg::SnapshotInput RowDeltaInput(const ObjectStore& store, const TableRef& table,
                                     const Schema& data, const iceberg::TableHistory& h,
                                     const IcebergIncrement& inc) {
  iceberg::SnapshotInput in;
  in.schema = data;
  in.location = IcebergTableLocation(store, table);
  in.previous = &h;
  in.row_delta = true;
  in.snapshot_id = iceberg::RandomSnapshotId();
  while (std::count(h.snapshot_ids.begin(), h.snapshot_ids.end(), in.snapshot_id) > 0) {
    in.snapshot_id = iceberg::RandomSnapshotId();
  }
  in.timestamp_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
  in.file_tag = inc.run_id;
  in.random_seed = std::random_device{}();
  in.properties["lakedump.run-id"] = inc.run_id;
  in.summary["lakedump.increment"] = std::to_string(inc.sequence);
  in.summary["lakedump.start-lsn"] = FormatLsn(inc.start_lsn);
  in.summary["lakedump.end-lsn"] = FormatLsn(inc.end_lsn);
  return in;
}

// The table's history, as this increment continues it; *dead_run: a run of the same
// increment whose snapshot it leaves out.
Result<iceberg::TableHistory> HistoryToContinue(ObjectStore& store, const TableRef& table,
                                                int sequence, std::string* dead_run) {
  LD_ASSIGN_OR_RETURN(IcebergHistoryRead read, ReadIcebergHistory(store, table));
  if (!read.history) {
    return Status::Corruption(fmt::format(
        "Iceberg table {} does not open ({}): its changes cannot become a snapshot",
        table.QualifiedName(), read.problem.empty() ? "no version-hint.text" : read.problem));
  }
  *dead_run = DropDeadRunSnapshot(&*read.history, sequence);
  return std::move(*read.history);
}

// Writes the snapshot's metadata objects in order, version-hint.text last.
Status WriteSnapshotFiles(ObjectStore& store, const TableRef& table,
                          const iceberg::SnapshotInput& in) {
  LD_ASSIGN_OR_RETURN(auto files, iceberg::BuildSnapshot(in));
  const std::string meta_prefix = TablePrefix(table) + "metadata/";
  for (const auto& [name, bytes] : files) {
    LD_RETURN_IF_ERROR(store.PutObject(meta_prefix + name, bytes).WithContext(meta_prefix + name));
  }
  return Status::OK();
}

}  // namespace

Result<IcebergChangeCounts> CommitIcebergChanges(ObjectStore& store, const TableRef& table,
                                                 const std::string& change_file_key,
                                                 const std::vector<std::string>& key_columns,
                                                 const IcebergIncrement& inc) {
  const std::string location = IcebergTableLocation(store, table);
  std::string dead_run;
  LD_ASSIGN_OR_RETURN(iceberg::TableHistory h,
                      HistoryToContinue(store, table, inc.sequence, &dead_run));
  std::unique_ptr<ObjectReader> holder;
  LD_ASSIGN_OR_RETURN(auto changes, OpenStoredParquet(store, change_file_key, {}, &holder));
  LD_ASSIGN_OR_RETURN(Schema data, DataSchema(h, changes->schema(), inc.escaped_column_names,
                                              table.QualifiedName()));
  LD_ASSIGN_OR_RETURN(auto key_in_changes,
                      KeyColumnsOf(changes->schema(), key_columns, inc.escaped_column_names));
  LD_ASSIGN_OR_RETURN(KeyIndexOrigin origin,
                      KeyIndexOriginOf(store, table, location, h, key_columns));
  const std::string base = fmt::format("{}inc-{:06d}-{}", TablePrefix(table), inc.sequence,
                                        inc.run_id);
  IcebergChangeApplier applier(store, data, change_file_key, std::move(key_in_changes),
                               base + ".parquet");
  const std::string meta_prefix = TablePrefix(table) + "metadata/";
  std::string index_name = IcebergKeyIndexName(inc.run_id);
  LD_RETURN_IF_ERROR(applier.CollectKeys());
  LD_RETURN_IF_ERROR(applier.Merge(origin, meta_prefix + index_name));
  LD_RETURN_IF_ERROR(applier.Apply());
  iceberg::SnapshotInput in = RowDeltaInput(store, table, data, h, inc);
  LD_ASSIGN_OR_RETURN(std::optional<iceberg::DataFileEntry> file,
                      applier.FinishDataFile(RootUri(store)));
  if (file) in.files.push_back(std::move(*file));
  LD_ASSIGN_OR_RETURN(CopyOnWritten cow, CopyOnWrite(store, table, location, h, data,
                                                     applier.files(), applier.live_rows(),
                                                     &applier.deletes(), base,
                                                     RootUri(store)));
  for (iceberg::DataFileEntry& f : cow.added) in.files.push_back(std::move(f));
  if (!applier.deletes().empty()) {
    LD_ASSIGN_OR_RETURN(in.position_deletes, WriteDeleteFile(store, base + "-deletes.parquet",
                                                             applier.files(), applier.deletes()));
  }
  if (!cow.moved.empty()) {  // the index again, with the rewritten files' rows where they went
    const std::string merged = meta_prefix + index_name;
    index_name = IcebergKeyIndexName(inc.run_id + "-cow");
    LD_RETURN_IF_ERROR(
        applier.RemapIndex(merged, meta_prefix + index_name, cow.moved).status());
    LD_RETURN_IF_ERROR(store.Delete(std::vector<std::string>{merged}).WithContext(merged));
  }
  in.kept_manifests = std::move(cow.kept);
  in.rewritten_manifests = std::move(cow.rewritten);
  const IcebergChangeCounts counts = applier.counts();
  in.summary["lakedump.inserts"] = std::to_string(counts.inserts);
  in.summary["lakedump.updates"] = std::to_string(counts.updates);
  in.summary["lakedump.deletes"] = std::to_string(counts.deletes);
  in.summary["lakedump.key-index"] = index_name;
  LD_RETURN_IF_ERROR(WriteSnapshotFiles(store, table, in));
  IcebergTableKeep keep = KeepOfHistory(table, h);
  keep.run_ids.push_back(inc.run_id);
  LD_RETURN_IF_ERROR(DeleteOrphanRunObjects(store, keep)
                         .WithContext("deleting the objects of runs that did not commit"));
  return counts;
}

Status CommitIcebergRedumps(ObjectStore& store, const std::string& redump_prefix,
                            const IcebergIncrement& inc, std::vector<std::string>* warnings) {
  const std::map<std::string, std::string> summary = {
      {"lakedump.increment", std::to_string(inc.sequence)},
      {"lakedump.start-lsn", FormatLsn(inc.start_lsn)},
      {"lakedump.end-lsn", FormatLsn(inc.end_lsn)},
      {"lakedump.redump", "the table is re-dumped whole"}};
  PrefixStore redump_store(&store, redump_prefix);
  LD_ASSIGN_OR_RETURN(DumpManifest redump, ReadDumpManifest(redump_store));
  for (const TableSummary& s : redump.tables) {
    LD_ASSIGN_OR_RETURN(TableManifest t, ReadTableManifest(redump_store, s.key));
    // The ids the re-dump's files carry (DumpOptions::iceberg_ids_from): the history goes on.
    LD_ASSIGN_OR_RETURN(t.schema, ContinuingFieldIds(store, t.table, std::move(t.schema)));
    for (DataFile& f : t.files) {
      std::unique_ptr<ObjectReader> holder;
      LD_ASSIGN_OR_RETURN(auto reader, OpenStoredParquet(redump_store, f.key, {}, &holder));
      LD_ASSIGN_OR_RETURN(f.iceberg,
                          CollectIcebergMetrics(t.schema, &reader->metadata(), std::nullopt));
      f.key = redump_prefix + f.key;
    }
    // A snapshot of this increment by a run that died before its manifest is left out.
    LD_ASSIGN_OR_RETURN(IcebergHistoryRead history, ReadIcebergHistory(store, t.table));
    if (history.history) DropDeadRunSnapshot(&*history.history, inc.sequence);
    std::vector<std::pair<std::string, std::string>> deferred;
    LD_ASSIGN_OR_RETURN(IcebergWritten written,
                        WriteIcebergTable(store, t, &deferred, &history, summary));
    if (!written.warning.empty()) warnings->push_back(written.warning);
    for (const auto& [key, bytes] : deferred) {
      LD_RETURN_IF_ERROR(store.PutObject(key, bytes).WithContext(key));
    }
    LD_RETURN_IF_ERROR(DeleteOrphanRunObjects(store, written.keep)
                           .WithContext("deleting the objects of runs that did not commit"));
  }
  return Status::OK();
}

Status CommitIcebergIncrement(ObjectStore& store, const IncrementManifest& m,
                              std::vector<std::string>* warnings) {
  IcebergIncrement inc{m.sequence, m.increment_id, m.start_lsn, m.end_lsn,
                       m.escaped_column_names};
  const std::string prefix = IncrementPrefix(m.sequence);
  for (const ChangeFile& f : m.change_files) {
    auto state = std::find_if(m.tables.begin(), m.tables.end(),
                              [&](const IncrementalTable& t) { return t.ref == f.table; });
    if (state == m.tables.end()) {
      return Status::Internal("a change file of a table the increment does not record");
    }
    LD_RETURN_IF_ERROR(
        CommitIcebergChanges(store, f.table, prefix + f.key, state->key, inc).status());
  }
  if (m.redumped.empty()) return Status::OK();
  return CommitIcebergRedumps(store, prefix + std::string(kRedumpFolder), inc, warnings);
}

}  // namespace lakedump
