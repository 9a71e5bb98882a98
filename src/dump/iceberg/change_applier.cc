#include "dump/iceberg/change_applier.h"

#include <fmt/format.h>

#include <algorithm>
#include <future>
#include <limits>
#include <numeric>
#include <utility>

#include <nlohmann/json.hpp>

#include "dump/iceberg/copy_on_write.h"
#include "dump/iceberg/iceberg_commit.h"
#include "lake/incremental_state.h"

namespace lakedump {
namespace {

constexpr size_t kApplierBatchRows = 8192;

// The columns an update did not send (_unchanged, a JSON array of names), as indices of `data`.
Result<std::vector<size_t>> UnchangedColumns(const ColumnVector& unchanged, size_t r,
                                             const Schema& data) {
  std::vector<size_t> out;
  if (unchanged.IsNull(r)) return out;
  const nlohmann::json names = nlohmann::json::parse(unchanged.BytesAt(r), nullptr, false);
  if (!names.is_array()) return Status::Corruption("a change file's _unchanged is not a list");
  for (const nlohmann::json& n : names) {
    const std::optional<size_t> j =
        n.is_string() ? data.FindColumn(n.get<std::string>()) : std::optional<size_t>();
    if (!j) return Status::Corruption("a change file's _unchanged names no column");
    out.push_back(*j);
  }
  return out;
}

// The types of the change file's key columns `key_columns` (of the data schema `data`).
std::vector<LogicalType> ChangeKeyTypes(const Schema& data, const std::vector<size_t>& key_columns) {
  std::vector<LogicalType> types;
  for (size_t k : key_columns) types.push_back(data.column(k - kChangeMetaColumns).type);
  return types;
}

// A change file's _op.
Result<IcebergChangeApplier::ChangeOp> OpOf(std::string_view op) {
  if (op == "insert") return IcebergChangeApplier::kInsertOp;
  if (op == "update") return IcebergChangeApplier::kUpdateOp;
  if (op == "delete") return IcebergChangeApplier::kDeleteOp;
  return Status::Corruption(fmt::format("a change file's _op is {}", op));
}

}  // namespace

StreamedDataFile::StreamedDataFile(ObjectStore& store, std::string key, const Schema& schema,
                                   ParquetWriterOptions options)
    : store_(store), key_(std::move(key)), schema_(schema), options_(std::move(options)) {}

StreamedDataFile::~StreamedDataFile() = default;

Status StreamedDataFile::Append(const RowBatch& rows) {
  if (rows.empty()) return Status::OK();
  if (finished_) return Status::Internal(fmt::format("{}: rows after its end", key_));
  if (!writer_) {
    LD_ASSIGN_OR_RETURN(out_, store_.NewWriter(key_));
    writer_ = std::make_unique<ParquetWriter>(schema_, options_, out_.get());
  }
  rows_ += rows.num_rows();
  return writer_->Write(rows).WithContext(key_);
}

Status StreamedDataFile::Finish() {
  if (!writer_ || finished_) return Status::OK();
  LD_RETURN_IF_ERROR(writer_->Close().WithContext(key_));
  LD_RETURN_IF_ERROR(out_->Close().WithContext(key_));
  finished_ = true;
  return Status::OK();
}

Result<std::optional<iceberg::DataFileEntry>> StreamedDataFile::Close(const std::string& root) {
  if (!writer_) return std::optional<iceberg::DataFileEntry>();
  LD_RETURN_IF_ERROR(Finish());
  LD_ASSIGN_OR_RETURN(auto metrics,
                      CollectIcebergMetrics(schema_, writer_->footer(), std::nullopt));
  iceberg::DataFileEntry e;
  e.path = root + "/" + key_;
  e.record_count = rows_;
  e.file_size_in_bytes = writer_->stats().bytes;
  e.stats = metrics->stats;
  return std::optional<iceberg::DataFileEntry>(std::move(e));
}

IcebergChangeApplier::IcebergChangeApplier(ObjectStore& store, const Schema& data,
                                           std::string change_file,
                                           std::vector<size_t> key_columns, std::string new_file)
    : store_(store), data_(data), change_file_(std::move(change_file)),
      key_columns_(std::move(key_columns)), order_(ChangeKeyTypes(data, key_columns_)), kept_(data),
      staged_(data),
      out_(std::make_unique<StreamedDataFile>(store, new_file, data)) {
  new_file_ = files_.Id(new_file);
}

IcebergChangeApplier::~IcebergChangeApplier() = default;

Status IcebergChangeApplier::CollectKeys() {
  std::unique_ptr<ObjectReader> holder;
  LD_ASSIGN_OR_RETURN(auto all, OpenStoredParquet(store_, change_file_, {}, &holder));
  std::vector<std::string> names = {all->schema().column(0).name,
                                    all->schema().column(4).name};
  for (size_t k : key_columns_) names.push_back(all->schema().column(k).name);
  all.reset();
  LD_ASSIGN_OR_RETURN(auto reader, OpenStoredParquet(store_, change_file_, names, &holder));
  std::vector<size_t> at;  // the projection's columns: _op, _unchanged, the key's
  for (const std::string& n : names) {
    const std::optional<size_t> i = reader->schema().FindColumn(n);
    if (!i) return Status::Corruption(fmt::format("{}: no column {}", change_file_, n));
    at.push_back(*i);
  }
  const std::vector<size_t> key(at.begin() + 2, at.end());
  const auto rows = static_cast<size_t>(std::max<int64_t>(reader->metadata().num_rows, 0));
  if (rows > std::numeric_limits<uint32_t>::max()) {
    return Status::InvalidArgument(fmt::format("{}: more than 2^32 changes", change_file_));
  }
  ChangeRows changes;
  changes.key_end.reserve(rows);
  changes.new_pos.reserve(rows);
  changes.takes_unchanged.reserve(rows);
  change_keys_.clear();
  row_ops_.clear();
  row_ops_.reserve(rows);
  int64_t staged = 0;
  RowBatch batch;
  for (;;) {
    LD_RETURN_IF_ERROR(reader->Next(kApplierBatchRows, &batch));
    if (batch.num_rows() == 0) break;
    for (size_t r = 0; r < batch.num_rows(); ++r) {
      const size_t begin = change_keys_.size();
      LD_RETURN_IF_ERROR(EncodeIndexKey(batch, key, r, &change_keys_));
      LD_RETURN_IF_ERROR(order_.Check(std::string_view(change_keys_).substr(begin))
                             .WithContext(change_file_));
      changes.key_end.push_back(change_keys_.size());
      LD_ASSIGN_OR_RETURN(const ChangeOp op, OpOf(batch.column(at[0]).BytesAt(r)));
      row_ops_.push_back(op);
      changes.takes_unchanged.push_back(op == kUpdateOp && !batch.column(at[1]).IsNull(r));
      changes.new_pos.push_back(op == kDeleteOp ? -1 : staged++);  // as Apply will stage them
    }
  }
  if (changes.key_end.size() != rows) {
    return Status::Corruption(fmt::format("{}: its row count is not its rows'", change_file_));
  }
  IndexChangedKeys(changes);
  return Status::OK();
}

// changed_: one entry per key, in key order, from the rows' keys (the last row of a key gives
// its new place); row_changed_: each row's entry.
void IcebergChangeApplier::IndexChangedKeys(const ChangeRows& rows) {
  const size_t n = rows.key_end.size();
  auto key_of = [&](size_t r) {
    const size_t begin = r == 0 ? 0 : rows.key_end[r - 1];
    return std::string_view(change_keys_).substr(begin, rows.key_end[r] - begin);
  };
  std::vector<uint32_t> order(n);  // the rows by key, then by their order in the file
  if (order_.integer()) {
    std::vector<std::pair<int64_t, uint32_t>> by_value(n);
    for (size_t r = 0; r < n; ++r) {
      by_value[r] = {order_.IntegerValue(key_of(r)), static_cast<uint32_t>(r)};
    }
    std::sort(by_value.begin(), by_value.end());
    for (size_t i = 0; i < n; ++i) order[i] = by_value[i].second;
  } else {
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const int c = order_.Compare(key_of(a), key_of(b));
      return c != 0 ? c < 0 : a < b;
    });
  }
  changed_.clear();
  changed_.reserve(n);
  row_changed_.assign(n, 0);
  for (size_t i = 0; i < n;) {
    Changed c;
    c.key = key_of(order[i]);
    size_t j = i;
    for (; j < n && key_of(order[j]) == c.key; ++j) {
      row_changed_[order[j]] = static_cast<uint32_t>(changed_.size());
      if (rows.takes_unchanged[order[j]]) c.takes_unchanged = true;
    }
    c.new_pos = rows.new_pos[order[j - 1]];
    changed_.push_back(c);
    i = j;
  }
}

Status IcebergChangeApplier::Merge(const KeyIndexOrigin& origin, const std::string& index_key) {
  // The new versions go to the data file meanwhile, on a thread of their own, unless an
  // update takes values from a previous version, which the merge finds.
  if (std::any_of(changed_.begin(), changed_.end(),
                  [](const Changed& c) { return c.takes_unchanged; })) {
    LD_RETURN_IF_ERROR(MergeIndex(origin, index_key));
    return ReadKeptVersions();
  }
  std::future<Status> versions =
      std::async(std::launch::async, [this] { return WriteNewVersions(); });
  const Status merged = MergeIndex(origin, index_key);
  const Status written = versions.get();
  LD_RETURN_IF_ERROR(merged);
  LD_RETURN_IF_ERROR(written);
  versions_written_ = true;
  return Status::OK();
}

// The index's runs merged with the changed keys: their old places found, the next index
// written. The runs between two changed keys go through a block at a time.
Status IcebergChangeApplier::MergeIndex(const KeyIndexOrigin& origin,
                                        const std::string& index_key) {
  LD_ASSIGN_OR_RETURN(auto writer, KeyIndexWriter::Open(store_, index_key, order_, files_));
  merge_next_ = 0;
  auto merge_block = [&](const KeyRunBlock& block) -> Status {
    for (size_t i = 0; i < block.size();) {
      // The runs that end before the next changed key are copied as they are.
      const size_t reach = merge_next_ < changed_.size()
                               ? block.FirstReaching(i, changed_[merge_next_].key, order_)
                               : block.size();
      if (reach > i) {
        LD_RETURN_IF_ERROR(writer->AddBlock(block, i, reach));
        for (; i < reach; ++i) CountLive(block.file(i), block.rows(i));
      }
      if (i < block.size()) LD_RETURN_IF_ERROR(MergeRun(block.run(i++), writer.get()));
    }
    return Status::OK();
  };
  LD_RETURN_IF_ERROR(ForEachKeyRunBlock(
      store_, origin, order_, &files_, merge_block,
      [&](const KeyRun& run) { return MergeRun(run, writer.get()); }));
  LD_RETURN_IF_ERROR(WriteChangedBefore(nullptr, writer.get()));
  return writer->Close().status();
}

// The changed keys before `bound` (all: null) not written yet that are live after the
// increment, at their places in the new data file.
Status IcebergChangeApplier::WriteChangedBefore(const std::string* bound,
                                                KeyIndexWriter* writer) {
  for (; merge_next_ < changed_.size() &&
         (bound == nullptr || order_.Compare(changed_[merge_next_].key, *bound) < 0);
       ++merge_next_) {
    const Changed& c = changed_[merge_next_];
    if (c.new_pos < 0) continue;
    LD_RETURN_IF_ERROR(writer->Add(c.key, new_file_, c.new_pos, 1));
  }
  return Status::OK();
}

// One run of the index merged: its pieces between the changed keys it holds written, their
// old places noted, the changed keys before it written.
Status IcebergChangeApplier::MergeRun(const KeyRun& run, KeyIndexWriter* writer) {
  LD_RETURN_IF_ERROR(WriteChangedBefore(&run.key, writer));
  std::string first;  // the first key of the run's piece at `done`, after the first
  for (int64_t done = 0; done < run.rows;) {
    if (done > 0) LD_RETURN_IF_ERROR(WriteChangedBefore(&first, writer));
    int64_t stop = run.rows;  // the offset of the next changed key in the run
    if (merge_next_ < changed_.size()) {
      stop = std::min(stop, order_.Distance(run.key, changed_[merge_next_].key));
    }
    if (stop > done) {
      LD_RETURN_IF_ERROR(writer->Add(done == 0 ? std::string_view(run.key) : first, run.file,
                                     run.pos + done, stop - done));
      CountLive(run.file, stop - done);
    }
    if (stop < run.rows) {  // the changed key's place before the increment
      Changed& c = changed_[merge_next_];
      c.live = true;
      c.at = KeyLocation{run.file, run.pos + stop};
    }
    done = stop + 1;
    if (done < run.rows) first = order_.Advance(run.key, done);
  }
  return Status::OK();
}

void IcebergChangeApplier::CountLive(uint32_t file, int64_t rows) {
  if (live_rows_.size() <= file) live_rows_.resize(file + 1, 0);
  live_rows_[file] += rows;
}

// The previous versions of the keys whose updates take unchanged values, into kept_.
Status IcebergChangeApplier::ReadKeptVersions() {
  std::vector<std::pair<KeyLocation, Changed*>> wanted;
  for (Changed& c : changed_) {
    if (c.takes_unchanged && c.live) wanted.emplace_back(c.at, &c);
  }
  std::sort(wanted.begin(), wanted.end(), [](const auto& a, const auto& b) {
    return a.first.file != b.first.file ? a.first.file < b.first.file
                                        : a.first.pos < b.first.pos;
  });
  std::vector<std::string> names;
  for (const Column& c : data_.columns()) names.push_back(c.name);
  auto next = wanted.begin();
  while (next != wanted.end()) {
    const uint32_t file = next->first.file;
    std::unique_ptr<ObjectReader> holder;
    LD_ASSIGN_OR_RETURN(auto reader,
                        OpenStoredParquet(store_, files_.Key(file), names, &holder));
    RowBatch batch;
    int64_t pos = 0;
    while (next != wanted.end() && next->first.file == file) {
      LD_RETURN_IF_ERROR(reader->Next(kApplierBatchRows, &batch));
      if (batch.num_rows() == 0) {
        return Status::Corruption(
            fmt::format("{} has no row {}", files_.Key(file), next->first.pos));
      }
      for (; next != wanted.end() && next->first.file == file &&
             next->first.pos < pos + static_cast<int64_t>(batch.num_rows());
           ++next) {
        for (size_t j = 0; j < data_.num_columns(); ++j) {
          kept_.column(j).AppendFrom(batch.column(j), static_cast<size_t>(next->first.pos - pos),
                                     1);
        }
        next->second->kept = static_cast<int64_t>(kept_.num_rows()) - 1;
      }
      pos += static_cast<int64_t>(batch.num_rows());
    }
  }
  return Status::OK();
}

Status IcebergChangeApplier::Apply() {
  if (!versions_written_) LD_RETURN_IF_ERROR(WriteNewVersions());
  return ApplyOps().WithContext(change_file_);
}

// The change file's rows again, in commit order: each insert's and update's new version
// staged into the data file, at the position CollectKeys counted. Rows that go as they are (no
// value taken from a previous version, none kept for a later one) are staged a range at a time.
Status IcebergChangeApplier::WriteNewVersions() {
  std::unique_ptr<ObjectReader> holder;
  LD_ASSIGN_OR_RETURN(auto changes, OpenStoredParquet(store_, change_file_, {}, &holder));
  RowBatch batch;
  std::string key;
  size_t row = 0;
  for (;;) {
    LD_RETURN_IF_ERROR(changes->Next(kApplierBatchRows, &batch));
    if (batch.num_rows() == 0) break;
    size_t as_is = 0;  // the rows before r, from r - as_is, to stage as they are
    for (size_t r = 0; r < batch.num_rows(); ++r, ++row) {
      key.clear();
      LD_RETURN_IF_ERROR(EncodeIndexKey(batch, key_columns_, r, &key));
      auto op = OpOf(batch.column(0).BytesAt(r));
      if (row >= row_changed_.size() || changed_[row_changed_[row]].key != key || !op.ok() ||
          *op != row_ops_[row]) {
        return Status::Corruption(fmt::format("{} changed while read", change_file_));
      }
      Changed& c = changed_[row_changed_[row]];
      if (*op != kDeleteOp && !c.takes_unchanged &&
          (*op == kInsertOp || batch.column(4).IsNull(r))) {
        ++as_is;
        continue;
      }
      LD_RETURN_IF_ERROR(StageRowsAsTheyAre(batch, r - as_is, as_is));
      as_is = 0;
      if (*op == kDeleteOp) continue;
      LD_RETURN_IF_ERROR(StageRow(batch, r, &c, *op == kUpdateOp).WithContext(change_file_));
    }
    LD_RETURN_IF_ERROR(StageRowsAsTheyAre(batch, batch.num_rows() - as_is, as_is));
  }
  if (row != row_changed_.size()) {
    return Status::Corruption(fmt::format("{} changed while read", change_file_));
  }
  LD_RETURN_IF_ERROR(FlushStaged());
  return out_->Finish();  // its last row group encoded here, on this thread
}

// Stages the change file's rows [begin, begin + n) of `changes`, every value as sent.
Status IcebergChangeApplier::StageRowsAsTheyAre(const RowBatch& changes, size_t begin,
                                                size_t n) {
  while (n > 0) {
    const size_t take = std::min(n, kApplierBatchRows - std::min(kApplierBatchRows,
                                                                 staged_.num_rows()));
    for (size_t j = 0; j < data_.num_columns(); ++j) {
      staged_.column(j).AppendFrom(changes.column(kChangeMetaColumns + j), begin, take);
    }
    begin += take;
    n -= take;
    if (staged_.num_rows() >= kApplierBatchRows) LD_RETURN_IF_ERROR(FlushStaged());
  }
  return Status::OK();
}

// The rows' operations in commit order against the places Merge found: the positions to
// delete, the counts, and each key's place after the increment (checked against the one
// CollectKeys counted and Merge indexed).
Status IcebergChangeApplier::ApplyOps() {
  deletes_.reserve(changed_.size());
  int64_t next_pos = 0;
  for (size_t row = 0; row < row_ops_.size(); ++row) {
    Changed& c = changed_[row_changed_[row]];
    if (row_ops_[row] == kInsertOp) {
      if (c.live) {
        return Status::Corruption("the change file inserts a key the Iceberg table holds already");
      }
      ++counts_.inserts;
    } else {
      if (!c.live) {
        return Status::Corruption(fmt::format(
            "the change file has an {} of a key the Iceberg table does not hold",
            row_ops_[row] == kDeleteOp ? "delete" : "update"));
      }
      deletes_.push_back(c.at);
      c.live = false;
      if (row_ops_[row] == kDeleteOp) {
        ++counts_.deletes;
        continue;
      }
      ++counts_.updates;
    }
    c.live = true;
    c.at = KeyLocation{new_file_, next_pos++};
  }
  for (const Changed& c : changed_) {
    if (c.live ? c.at.file != new_file_ || c.at.pos != c.new_pos : c.new_pos >= 0) {
      return Status::Corruption("it changed while read");
    }
  }
  return Status::OK();
}

// Stages the row's new version (an update's unchanged values from the key's kept version) at
// the data file's next position.
Status IcebergChangeApplier::StageRow(const RowBatch& changes, size_t r, Changed* c,
                                      bool update) {
  std::vector<size_t> unchanged;
  if (update) {
    LD_ASSIGN_OR_RETURN(unchanged, UnchangedColumns(changes.column(4), r, data_));
  }
  if (!unchanged.empty() && c->kept < 0) {
    return Status::Corruption("an update leaves values unchanged of a row not found");
  }
  for (size_t j = 0; j < data_.num_columns(); ++j) {
    if (std::find(unchanged.begin(), unchanged.end(), j) != unchanged.end()) {
      staged_.column(j).AppendFrom(kept_.column(j), static_cast<size_t>(c->kept), 1);
    } else {
      staged_.column(j).AppendFrom(changes.column(kChangeMetaColumns + j), r, 1);
    }
  }
  if (c->takes_unchanged) {
    for (size_t j = 0; j < data_.num_columns(); ++j) {
      kept_.column(j).AppendFrom(staged_.column(j), staged_.num_rows() - 1, 1);
    }
    c->kept = static_cast<int64_t>(kept_.num_rows()) - 1;
  }
  if (staged_.num_rows() < kApplierBatchRows) return Status::OK();
  return FlushStaged();
}

Status IcebergChangeApplier::FlushStaged() {
  LD_RETURN_IF_ERROR(out_->Append(staged_));
  staged_.Clear();
  return Status::OK();
}

Result<std::optional<iceberg::DataFileEntry>> IcebergChangeApplier::FinishDataFile(
    const std::string& root) {
  return out_->Close(root);
}

Result<uint64_t> IcebergChangeApplier::RemapIndex(const std::string& from, const std::string& to,
                                                  const MovedRows& moved) {
  LD_ASSIGN_OR_RETURN(auto writer, KeyIndexWriter::Open(store_, to, order_, files_));
  KeyIndexOrigin origin;
  origin.index_key = from;
  // A run's rows of a rewritten file are consecutive there too: none between them was
  // deleted, or it would not be in the index.
  LD_RETURN_IF_ERROR(ForEachKeyRun(
      store_, origin, order_, &files_, [&](const KeyRun& run) -> Status {
        const std::string* new_key = nullptr;
        int64_t new_pos = 0;
        LD_ASSIGN_OR_RETURN(bool was_moved,
                            moved.Find(files_.Key(run.file), run.pos, &new_key, &new_pos));
        if (!was_moved) return writer->Add(run.key, run.file, run.pos, run.rows);
        const std::string* last_key = nullptr;
        int64_t last_pos = 0;
        LD_RETURN_IF_ERROR(moved.Find(files_.Key(run.file), run.pos + run.rows - 1, &last_key,
                                      &last_pos)
                               .status());
        if (last_pos - new_pos != run.rows - 1) {  // a row between them was deleted
          return Status::Corruption(fmt::format(
              "the key index names deleted rows of {} as live", files_.Key(run.file)));
        }
        return writer->Add(run.key, files_.Id(*new_key), new_pos, run.rows);
      }));
  return writer->Close();
}

}  // namespace lakedump
