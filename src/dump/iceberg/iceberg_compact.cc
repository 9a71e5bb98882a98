#include "dump/iceberg/iceberg_compact.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <random>

#include <nlohmann/json.hpp>

#include "dump/iceberg/compact_key_order.h"
#include "dump/iceberg/iceberg_commit.h"
#include "dump/iceberg/key_index.h"
#include "format/iceberg/iceberg_table.h"
#include "format/parquet/parquet_writer.h"
#include "lake/dump_lease.h"
#include "lake/iceberg_layout.h"
#include "lake/iceberg_snapshot_objects.h"
#include "lake/incremental_state.h"
#include "lake/manifest.h"
#include "lake/object_keys.h"
#include "lake/table_selection.h"

namespace lakedump {
namespace {

using ojson = nlohmann::ordered_json;
constexpr size_t kCompactBatchRows = 8192;

// One live file of the snapshot being compacted.
struct CompactInput {
  std::string key;
  std::string uri;
  int64_t sequence = 0;  // data sequence number
};

// What a table's current snapshot holds: its live data and delete files.
struct CompactSource {
  std::vector<CompactInput> data;
  std::vector<CompactInput> deletes;
  std::vector<iceberg::RemovedManifest> manifests;  // listed again as DELETED entries
  uint64_t small_files = 0;                          // data files below 3/4 of the target
};

Result<CompactSource> ReadCompactSource(ObjectStore& store, const TableRef& table,
                                        const iceberg::TableHistory& h, uint64_t target) {
  CompactSource out;
  LD_ASSIGN_OR_RETURN(out.manifests,
                      ReadRemovedFiles(store, table, IcebergTableLocation(store, table), h));
  for (const iceberg::RemovedManifest& m : out.manifests) {
    if (m.partitioned) {
      return Status::InvalidArgument("it is partitioned, which compact does not rewrite yet");
    }
    for (const iceberg::RemovedEntry& e : m.entries) {
      CompactInput in;
      LD_ASSIGN_OR_RETURN(in.uri, IcebergEntryPath(e));
      LD_ASSIGN_OR_RETURN(in.key, IcebergUriKey(store, in.uri));
      in.sequence = e.data_sequence_number;
      (m.content == 0 ? out.data : out.deletes).push_back(std::move(in));
    }
  }
  for (const CompactInput& d : out.data) {
    LD_ASSIGN_OR_RETURN(ObjectInfo info, store.Head(d.key));
    if (info.size < target / 4 * 3) ++out.small_files;
  }
  return out;
}

// The deleted positions of each live data file (by URI), sorted: a position delete applies
// to a data file whose data sequence number is at most its own (Iceberg v2).
Result<std::map<std::string, std::vector<int64_t>>> ReadDeletedPositions(
    ObjectStore& store, const CompactSource& source) {
  std::map<std::string, int64_t> data_sequence;
  for (const CompactInput& d : source.data) data_sequence[d.uri] = d.sequence;
  std::map<std::string, std::vector<int64_t>> out;
  for (const CompactInput& del : source.deletes) {
    std::unique_ptr<ObjectReader> holder;
    LD_ASSIGN_OR_RETURN(auto reader, OpenStoredParquet(store, del.key, {"file_path", "pos"},
                                                       &holder));
    if (reader->schema().column(0).type.id != TypeId::kString ||
        reader->schema().column(1).type.id != TypeId::kInt64) {
      return Status::Corruption(fmt::format("{} is not a position delete file", del.key));
    }
    RowBatch batch;
    for (;;) {
      LD_RETURN_IF_ERROR(reader->Next(kCompactBatchRows, &batch));
      if (batch.num_rows() == 0) break;
      for (size_t r = 0; r < batch.num_rows(); ++r) {
        if (batch.column(0).IsNull(r) || batch.column(1).IsNull(r)) {
          return Status::Corruption(fmt::format("{}: a position delete without a place", del.key));
        }
        auto seq = data_sequence.find(std::string(batch.column(0).BytesAt(r)));
        if (seq == data_sequence.end() || seq->second > del.sequence) continue;
        out[seq->first].push_back(batch.column(1).ValueAt<int64_t>(r));
      }
    }
  }
  for (auto& [uri, positions] : out) {
    std::sort(positions.begin(), positions.end());
    positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  }
  return out;
}

// The compacted files' schema: the current Iceberg schema's columns (names, field ids,
// requiredness) with the types of the data file `first` as read.
Result<Schema> CompactSchema(const iceberg::TableHistory& h, const Schema& first) {
  std::vector<Column> columns = first.columns();
  if (auto wrong = iceberg::TakeCurrentFieldIds(h, &columns)) {
    if (wrong->count) {
      return Status::InvalidArgument("its data files do not have the current schema's columns");
    }
    return Status::InvalidArgument(
        fmt::format("its data files do not have the current schema's column {}", wrong->column));
  }
  return Schema(std::move(columns));
}

std::string RootUriOf(const ObjectStore& store) {
  std::string root = StoreRootUri(store);
  return root == "file:///" ? "file://" : root;
}

// Writes the rows that survive the deletes into files of about the target size, and the
// key index of the new files beside them, streaming.
class CompactWriter {
 public:
  CompactWriter(ObjectStore* store, const TableRef& table, std::string run_id, Schema schema,
                std::vector<size_t> key_columns, uint64_t target)
      : store_(store), table_(table), run_id_(std::move(run_id)), schema_(std::move(schema)),
        key_columns_(std::move(key_columns)), order_(schema_, key_columns_),
        sorter_(order_, kKeyIndexSortBytes), target_(target), pending_(schema_) {}

  // Appends the rows of data file `in` but for the sorted `deleted` positions.
  Status AddFile(const CompactInput& in, const std::vector<int64_t>& deleted);
  // Appends rows [begin, begin + n) of `rows`.
  Status Append(const RowBatch& rows, size_t begin, size_t n);
  // Closes the last file and the key index.
  Status Finish();

  std::vector<iceberg::DataFileEntry>& files() { return files_; }
  const std::vector<std::string>& written() const { return written_; }
  uint64_t rows() const { return rows_; }
  std::string index_name() const {
    return key_columns_.empty() ? "" : IcebergKeyIndexName(run_id_);
  }

 private:
  Status Flush();
  Status CloseFile();
  Status IndexRows();
  Status WriteIndex();

  ObjectStore* store_;
  const TableRef& table_;
  std::string run_id_;
  Schema schema_;
  std::vector<size_t> key_columns_;
  IndexKeyOrder order_;
  KeyRunSorter sorter_;  // the new files' key runs, for the index sorted
  IndexFiles index_files_;
  uint64_t target_;
  RowBatch pending_;
  std::unique_ptr<ObjectWriter> out_;
  std::unique_ptr<ParquetWriter> writer_;
  std::string file_key_;
  int64_t file_rows_ = 0;
  KeyRun run_;
  std::vector<iceberg::DataFileEntry> files_;
  std::vector<std::string> written_;
  uint64_t rows_ = 0;
};

Status CompactWriter::AddFile(const CompactInput& in, const std::vector<int64_t>& deleted) {
  LD_ASSIGN_OR_RETURN(auto rows, SurvivingRows::Open(*store_, in.key, schema_, &deleted));
  RowBatch batch;
  for (;;) {
    LD_RETURN_IF_ERROR(rows->Next(&batch));
    if (batch.empty()) return Status::OK();
    LD_RETURN_IF_ERROR(Append(batch, 0, batch.num_rows()));
  }
}

Status CompactWriter::Append(const RowBatch& rows, size_t begin, size_t n) {
  for (size_t j = 0; j < schema_.num_columns(); ++j) {
    pending_.column(j).AppendFrom(rows.column(j), begin, n);
  }
  return pending_.num_rows() >= kCompactBatchRows ? Flush() : Status::OK();
}

// The pending rows into the current file (opened if none), its key index rows, and the
// file closed once it reaches the target size.
Status CompactWriter::Flush() {
  if (pending_.empty()) return Status::OK();
  if (!writer_) {
    file_key_ = fmt::format("{}compact-{}-{:05d}.parquet", TablePrefix(table_), run_id_,
                            files_.size());
    written_.push_back(file_key_);
    LD_ASSIGN_OR_RETURN(out_, store_->NewWriter(file_key_));
    writer_ = std::make_unique<ParquetWriter>(schema_, ParquetWriterOptions{}, out_.get());
    file_rows_ = 0;
  }
  LD_RETURN_IF_ERROR(writer_->Write(pending_).WithContext(file_key_));
  LD_RETURN_IF_ERROR(IndexRows());
  file_rows_ += static_cast<int64_t>(pending_.num_rows());
  rows_ += pending_.num_rows();
  pending_.Clear();
  if (writer_->EstimatedFileSize() >= target_) return CloseFile();
  return Status::OK();
}

// The key runs of the pending rows (they go to file_key_ from file_rows_ on), to sort.
Status CompactWriter::IndexRows() {
  if (key_columns_.empty()) return Status::OK();
  run_.file = index_files_.Id(file_key_);
  for (size_t r = 0; r < pending_.num_rows(); ++r) {
    run_.key.clear();
    LD_RETURN_IF_ERROR(EncodeIndexKey(pending_, key_columns_, r, &run_.key));
    LD_RETURN_IF_ERROR(order_.Check(run_.key));
    run_.pos = file_rows_ + static_cast<int64_t>(r);
    LD_RETURN_IF_ERROR(sorter_.Add(run_));
  }
  return Status::OK();
}

// The key index of the new files (an empty one for an empty table, so that the next increment
// does not build one from no files).
Status CompactWriter::WriteIndex() {
  const std::string key = TablePrefix(table_) + "metadata/" + index_name();
  written_.push_back(key);
  LD_ASSIGN_OR_RETURN(auto index, KeyIndexWriter::Open(*store_, key, order_, index_files_));
  LD_RETURN_IF_ERROR(sorter_.Finish([&](const KeyRun& run) {
    return index->Add(run.key, run.file, run.pos, run.rows);
  }));
  return index->Close().status();
}

Status CompactWriter::CloseFile() {
  LD_RETURN_IF_ERROR(writer_->Close().WithContext(file_key_));
  LD_RETURN_IF_ERROR(out_->Close().WithContext(file_key_));
  LD_ASSIGN_OR_RETURN(auto metrics,
                      CollectIcebergMetrics(schema_, writer_->footer(), std::nullopt));
  iceberg::DataFileEntry e;
  e.path = RootUriOf(*store_) + "/" + file_key_;
  e.record_count = static_cast<uint64_t>(file_rows_);
  e.file_size_in_bytes = writer_->stats().bytes;
  e.stats = metrics->stats;
  files_.push_back(std::move(e));
  writer_.reset();
  out_.reset();
  return Status::OK();
}

Status CompactWriter::Finish() {
  LD_RETURN_IF_ERROR(Flush());
  if (writer_) LD_RETURN_IF_ERROR(CloseFile());
  if (key_columns_.empty()) return Status::OK();
  return WriteIndex();
}

// A count of the current snapshot's summary ("0" when absent).
std::string CurrentSummaryCount(const iceberg::TableHistory& h, const char* key) {
  for (const ojson& s : h.metadata["snapshots"]) {
    if (s["snapshot-id"] != h.current_snapshot_id) continue;
    const ojson& v = s["summary"].value(key, ojson());
    if (v.is_string()) return v.get<std::string>();
  }
  return "0";
}

// The replace snapshot of the new files, as the next metadata version.
iceberg::SnapshotInput ReplaceInput(const ObjectStore& store, const TableRef& table,
                                    const iceberg::TableHistory& h, const std::string& run_id,
                                    Schema schema) {
  iceberg::SnapshotInput in;
  in.schema = std::move(schema);
  in.location = IcebergTableLocation(store, table);
  in.previous = &h;
  in.snapshot_id = iceberg::RandomSnapshotId();
  while (std::count(h.snapshot_ids.begin(), h.snapshot_ids.end(), in.snapshot_id) > 0) {
    in.snapshot_id = iceberg::RandomSnapshotId();
  }
  in.timestamp_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
  in.file_tag = run_id;
  in.random_seed = std::random_device{}();
  in.properties["lakedump.run-id"] = run_id;
  // The spec's "replace": the same rows in other files. The increment stays the table's.
  in.summary["operation"] = "replace";
  in.summary["lakedump.increment"] = std::to_string(IcebergIncrementOf(h));
  in.summary["lakedump.compacted"] = "the rows of the snapshot before, deletes applied";
  in.summary["removed-delete-files"] = CurrentSummaryCount(h, "total-delete-files");
  in.summary["removed-position-deletes"] = CurrentSummaryCount(h, "total-position-deletes");
  return in;
}

// Writes the new files and the replace snapshot of one table (its history `h`); returns
// what it did. *written: the keys written so far (for the caller to delete on failure).
Result<CompactedTable> CompactTable(ObjectStore& store, const TableRef& table,
                                    const iceberg::TableHistory& h, const CompactSource& source,
                                    const std::vector<std::string>& key_columns,
                                    const std::string& run_id, const CompactOptions& options,
                                    DumpLease& lease, std::vector<std::string>* written) {
  LD_ASSIGN_OR_RETURN(auto deleted, ReadDeletedPositions(store, source));
  std::unique_ptr<ObjectReader> holder;
  LD_ASSIGN_OR_RETURN(auto first, OpenStoredParquet(store, source.data.front().key, {}, &holder));
  LD_ASSIGN_OR_RETURN(Schema schema, CompactSchema(h, first->schema()));
  first.reset();
  std::vector<size_t> keys;
  for (const std::string& k : key_columns) {
    auto i = schema.FindColumn(k);
    if (!i) return Status::InvalidArgument(fmt::format("its key column {} is gone", k));
    keys.push_back(*i);
  }
  CompactedTable done;
  done.table = table;
  done.data_files_before = source.data.size();
  done.delete_files_before = source.deletes.size();
  for (const auto& [uri, positions] : deleted) done.deleted_rows += positions.size();
  CompactWriter writer(&store, table, run_id, schema, keys, options.target_file_bytes);
  Status s = [&]() -> Status {
    static const std::vector<int64_t> kNone;
    auto deleted_of = [&](const CompactInput& in) -> const std::vector<int64_t>& {
      auto d = deleted.find(in.uri);
      return d == deleted.end() ? kNone : d->second;
    };
    if (keys.empty()) {  // no key to order by: the files' order
      for (const CompactInput& in : source.data) {
        LD_RETURN_IF_ERROR(writer.AddFile(in, deleted_of(in)));
      }
      return writer.Finish();
    }
    KeyOrderedRows ordered(store, schema, keys, options.sort_memory_bytes);
    for (const CompactInput& in : source.data) {
      LD_RETURN_IF_ERROR(ordered.AddFile(in.key, &deleted_of(in)));
    }
    LD_RETURN_IF_ERROR(ordered.Finish([&](const RowBatch& rows, size_t begin, size_t n) {
      return writer.Append(rows, begin, n);
    }));
    done.files_in_key_order = ordered.files_in_order();
    done.files_sorted = ordered.files_sorted();
    return writer.Finish();
  }();
  *written = writer.written();
  LD_RETURN_IF_ERROR(s);
  iceberg::SnapshotInput in = ReplaceInput(store, table, h, run_id, std::move(schema));
  in.files = std::move(writer.files());
  in.removed = source.manifests;
  if (!writer.index_name().empty()) in.summary["lakedump.key-index"] = writer.index_name();
  LD_ASSIGN_OR_RETURN(auto objects, iceberg::BuildSnapshot(in));
  const std::string meta = TablePrefix(table) + "metadata/";
  for (size_t i = 0; i < objects.size(); ++i) {
    // Fencing: the hint (last) is written only while this run holds the lease.
    if (i + 1 == objects.size()) LD_RETURN_IF_ERROR(lease.CheckHeld());
    if (i + 1 < objects.size()) written->push_back(meta + objects[i].first);
    LD_RETURN_IF_ERROR(store.PutObject(meta + objects[i].first, objects[i].second)
                           .WithContext(meta + objects[i].first));
  }
  done.files_after = in.files.size();
  done.rows = writer.rows();
  done.snapshot_id = in.snapshot_id;
  return done;
}

// Why the table is left as it is, or "" when it is to be compacted.
std::string WhyNotCompact(const iceberg::TableHistory& h, int committed,
                          const CompactSource& source) {
  const int increment = IcebergIncrementOf(h);
  if (increment == 0) return "nothing to compact: it is as its dump wrote it";
  if (increment > committed) {
    return fmt::format(
        "its current snapshot is of increment {}, which never committed: run the dump again "
        "first",
        increment);
  }
  if (source.data.empty()) return "nothing to compact: it has no data file";
  if (source.deletes.empty() && source.small_files < 2) {
    return "nothing to compact: no delete files and no small files to merge";
  }
  return "";
}

// The key columns of each table that increments follow by its changes (their key index).
Result<std::map<std::string, std::vector<std::string>>> FollowedKeys(
    ObjectStore& store, const DumpManifest& m, int* committed) {
  LD_ASSIGN_OR_RETURN(IncrementalBase base, ParseIncrementalBase(m));
  LD_ASSIGN_OR_RETURN(std::vector<IncrementManifest> increments, ReadIncrements(store, m));
  *committed = increments.empty() ? 0 : increments.back().sequence;
  const std::vector<IncrementalTable>& tables =
      increments.empty() ? base.tables : increments.back().tables;
  std::map<std::string, std::vector<std::string>> out;
  for (const IncrementalTable& t : tables) {
    if (t.mode == IncrementalMode::kChanges) out[t.ref.QualifiedName()] = t.key;
  }
  return out;
}

// Compacts one table of the dump, or says why not in result->skipped.
Status CompactOne(ObjectStore& store, const TableRef& table,
                  const std::map<std::string, std::vector<std::string>>& keys, int committed,
                  const std::string& run_id, const CompactOptions& options, DumpLease& lease,
                  CompactResult* result) {
  const std::string name = table.QualifiedName();
  LD_ASSIGN_OR_RETURN(IcebergHistoryRead read, ReadIcebergHistory(store, table));
  if (!read.history) {
    result->skipped.push_back(fmt::format("{}: its Iceberg metadata does not open ({})", name,
                                          read.problem.empty() ? "no version-hint.text"
                                                               : read.problem));
    return Status::OK();
  }
  auto source = ReadCompactSource(store, table, *read.history, options.target_file_bytes);
  if (!source.ok() && source.status().code() != Code::kInvalidArgument) return source.status();
  std::string why = source.ok() ? WhyNotCompact(*read.history, committed, *source)
                                : std::string(source.status().message());
  if (why.empty()) {
    auto k = keys.find(name);
    std::vector<std::string> written;
    auto done = CompactTable(store, table, *read.history, *source,
                             k == keys.end() ? std::vector<std::string>() : k->second, run_id,
                             options, lease, &written);
    if (done.ok()) {
      result->compacted.push_back(std::move(*done));
      return Status::OK();
    }
    (void)store.Delete(written);  // best effort: nothing names them (no hint was written)
    if (done.status().code() != Code::kInvalidArgument) return done.status().WithContext(name);
    why = std::string(done.status().message());
  }
  result->skipped.push_back(fmt::format("{}: {}", name, why));
  return Status::OK();
}

}  // namespace

Result<CompactResult> CompactIcebergTables(ObjectStore& store, const CompactOptions& options) {
  if (options.target_file_bytes < (uint64_t{1} << 20)) {
    return Status::InvalidArgument("--target-file-size must be at least 1MiB");
  }
  const std::string run_id = NewRunId();
  LD_ASSIGN_OR_RETURN(std::unique_ptr<DumpLease> lease,
                      DumpLease::Acquire(&store, run_id, LeaseOptions{}));
  CompactResult result;
  Status status = [&]() -> Status {
    LD_ASSIGN_OR_RETURN(DumpManifest m, ReadDumpManifest(store));
    if (!m.options.is_object() || m.options.value("table_format", "") != "iceberg" ||
        m.incremental.is_null()) {
      return Status::InvalidArgument(
          "not an incremental Iceberg dump (dump --incremental --table-format iceberg): "
          "its tables are as their dump wrote them, with nothing to compact");
    }
    int committed = 0;
    LD_ASSIGN_OR_RETURN(auto keys, FollowedKeys(store, m, &committed));
    std::vector<TableRef> selected;
    for (const TableSummary& s : m.tables) {
      if (options.tables.empty() || AnyTablePatternMatches(options.tables, s.table)) {
        selected.push_back(s.table);
      }
    }
    if (selected.empty()) {
      return Status::InvalidArgument("--tables selects no table of the dump");
    }
    for (const TableRef& t : selected) {
      LD_RETURN_IF_ERROR(lease->CheckHeld());
      LD_RETURN_IF_ERROR(CompactOne(store, t, keys, committed, run_id, options, *lease, &result));
    }
    return Status::OK();
  }();
  Status released = lease->Release();
  if (!status.ok()) return status;
  if (!released.ok()) {
    result.skipped.push_back(fmt::format("(could not delete the lease {}: {})", kLeaseKey,
                                         released.message()));
  }
  return result;
}

}  // namespace lakedump
