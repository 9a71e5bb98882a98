#include "dump/iceberg/key_index.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

#include <nlohmann/json.hpp>

namespace lakedump {
namespace {

constexpr size_t kKeyIndexBatchRows = 8192;
// The index's row groups: small enough that one buffered row group stays a few MiB.
constexpr uint64_t kKeyIndexRowGroupRows = 65536;
constexpr char kKeyIndexFormatKey[] = "lakedump.key-index";
constexpr char kKeyIndexFormat[] = "sorted-runs";

constexpr char kKeyIndexFilesKey[] = "lakedump.key-index.files";

Schema KeyIndexFileSchema() {
  return Schema({Column{"key", LogicalType{TypeId::kBinary}, false},
                 Column{"file", LogicalType{TypeId::kInt32}, false},
                 Column{"pos", LogicalType{TypeId::kInt64}, false},
                 Column{"rows", LogicalType{TypeId::kInt64}, false}});
}

// The form written before indexes were sorted: one row per key, in no order.
Schema OldKeyIndexFileSchema() {
  return Schema({Column{"key", LogicalType{TypeId::kBinary}, false},
                 Column{"file", LogicalType{TypeId::kString}, false},
                 Column{"pos", LogicalType{TypeId::kInt64}, false}});
}

const std::optional<std::string>* FooterValue(const ParquetReader& reader, const char* key) {
  for (const auto& kv : reader.metadata().key_value_metadata) {
    if (kv.key == key) return &kv.value;
  }
  return nullptr;
}

// The ids (in *files) of the data files an index of the sorted form lists, by list position.
Result<std::vector<uint32_t>> ListedFiles(const ParquetReader& reader, const std::string& key,
                                          IndexFiles* files) {
  const std::optional<std::string>* list = FooterValue(reader, kKeyIndexFilesKey);
  const nlohmann::json names =
      list != nullptr && *list ? nlohmann::json::parse(**list, nullptr, false) : nlohmann::json();
  if (!names.is_array()) {
    return Status::Corruption(fmt::format("{}: its list of data files is not one", key));
  }
  std::vector<uint32_t> ids;
  for (const nlohmann::json& n : names) {
    if (!n.is_string()) {
      return Status::Corruption(fmt::format("{}: its list of data files is not one", key));
    }
    ids.push_back(files->Id(n.get<std::string>()));
  }
  return ids;
}

// One row of an index file of the old form (`file` a string, no `rows`) as a run; Corruption
// when it is not one.
Status RunOfOldRow(const RowBatch& batch, size_t r, const IndexKeyOrder& order,
                   IndexFiles* files, KeyRun* run) {
  for (size_t c = 0; c < batch.num_columns(); ++c) {
    if (batch.column(c).IsNull(r)) return Status::Corruption("a row is not a key and a place");
  }
  run->key.assign(batch.column(0).BytesAt(r));
  run->file = files->Id(batch.column(1).BytesAt(r));
  run->pos = batch.column(2).ValueAt<int64_t>(r);
  run->rows = 1;
  if (run->pos < 0 || !order.Check(run->key).ok()) {
    return Status::Corruption("a row is not a key and a place");
  }
  return Status::OK();
}

// Where a sorted index file's reading is: the last run of the blocks before.
struct RunBlockCursor {
  uint64_t row = 0;  // rows read before the block
  bool has_last = false;
  std::string last_key;
  int64_t last_rows = 0;
};

// Row `r` of a sorted index file `key`'s batch is a run of `order` naming one of `listed` files,
// in key order after the run before (row r - 1, or the cursor's last); else Corruption.
Status CheckRunRow(const std::string& key, const RowBatch& batch, size_t r,
                   const IndexKeyOrder& order, size_t listed, const RunBlockCursor& cursor) {
  const uint64_t row = cursor.row + r;
  const std::string_view k = batch.column(0).BytesAt(r);
  const int32_t at = batch.column(1).ValueAt<int32_t>(r);
  const int64_t pos = batch.column(2).ValueAt<int64_t>(r);
  const int64_t rows = batch.column(3).ValueAt<int64_t>(r);
  if (at < 0 || static_cast<size_t>(at) >= listed) {
    return Status::Corruption(fmt::format(
        "{}: row {}: a row names a data file the index does not list", key, row));
  }
  if (pos < 0 || !order.Check(k).ok() || !order.RunFits(k, rows) ||
      rows > std::numeric_limits<int64_t>::max() - pos) {
    return Status::Corruption(fmt::format("{}: row {}: a row is not a key and a place", key, row));
  }
  if (r == 0 && !cursor.has_last) return Status::OK();
  const std::string_view last = r > 0 ? batch.column(0).BytesAt(r - 1)
                                      : std::string_view(cursor.last_key);
  const int64_t last_rows = r > 0 ? batch.column(3).ValueAt<int64_t>(r - 1) : cursor.last_rows;
  if (order.Compare(last, k) >= 0 || order.Distance(last, k) < last_rows) {
    return Status::Corruption(fmt::format("{}: row {} is out of key order", key, row));
  }
  return Status::OK();
}

// Corruption unless every row of a sorted index file's batch is a run that follows the one
// before (CheckRunRow); the cursor moved past the batch.
Status CheckRunBlock(const std::string& key, const RowBatch& batch, const IndexKeyOrder& order,
                     size_t listed, RunBlockCursor* cursor) {
  for (size_t c = 0; c < batch.num_columns(); ++c) {
    const ColumnVector& v = batch.column(c);
    if (v.null_count() == 0) continue;
    for (size_t r = 0; r < batch.num_rows(); ++r) {
      if (v.IsNull(r)) {
        return Status::Corruption(
            fmt::format("{}: row {}: a row is not a key and a place", key, cursor->row + r));
      }
    }
  }
  for (size_t r = 0; r < batch.num_rows(); ++r) {
    LD_RETURN_IF_ERROR(CheckRunRow(key, batch, r, order, listed, *cursor));
  }
  const size_t n = batch.num_rows();
  cursor->row += n;
  if (n > 0) {
    cursor->has_last = true;
    cursor->last_key.assign(batch.column(0).BytesAt(n - 1));
    cursor->last_rows = batch.column(3).ValueAt<int64_t>(n - 1);
  }
  return Status::OK();
}

// An opened index file: its reader, its form, and (the sorted form) its list of data files.
struct OpenedIndexFile {
  std::unique_ptr<ObjectReader> holder;
  std::unique_ptr<ParquetReader> reader;
  bool sorted = false;
  std::vector<uint32_t> listed;
};

Result<OpenedIndexFile> OpenIndexFile(ObjectStore& store, const std::string& key,
                                      IndexFiles* files) {
  OpenedIndexFile f;
  // Opened once, every column: an index file has only its own (key, file, pos[, rows]).
  LD_ASSIGN_OR_RETURN(f.reader, OpenStoredParquet(store, key, {}, &f.holder));
  const std::optional<std::string>* form = FooterValue(*f.reader, kKeyIndexFormatKey);
  f.sorted = form != nullptr && *form == kKeyIndexFormat;
  const Schema expected = f.sorted ? KeyIndexFileSchema() : OldKeyIndexFileSchema();
  const Schema& s = f.reader->schema();
  bool matches = s.num_columns() == expected.num_columns();
  for (size_t c = 0; matches && c < s.num_columns(); ++c) {
    matches = s.column(c).name == expected.column(c).name &&
              s.column(c).type.id == expected.column(c).type.id;
  }
  if (!matches) return Status::Corruption(fmt::format("{}: not a key index", key));
  if (f.sorted) {
    LD_ASSIGN_OR_RETURN(f.listed, ListedFiles(*f.reader, key, files));
  }
  return f;
}

// The runs of an index file: a block per batch when it is of the sorted form, else (one row
// per key, unsorted, no `rows`) one at a time through a sorter.
Status ForEachIndexFileRun(ObjectStore& store, const std::string& key,
                           const IndexKeyOrder& order, IndexFiles* files,
                           const KeyRunBlockVisitor& block, const KeyRunVisitor& visit) {
  LD_ASSIGN_OR_RETURN(OpenedIndexFile f, OpenIndexFile(store, key, files));
  KeyRunSorter sorter(order, kKeyIndexSortBytes);
  RunBlockCursor cursor;
  KeyRun run;
  RowBatch batch;
  for (;;) {
    LD_RETURN_IF_ERROR(f.reader->Next(kKeyIndexBatchRows, &batch));
    if (batch.num_rows() == 0) break;
    if (f.sorted) {
      LD_RETURN_IF_ERROR(CheckRunBlock(key, batch, order, f.listed.size(), &cursor));
      LD_RETURN_IF_ERROR(block(KeyRunBlock(batch, f.listed)));
      continue;
    }
    for (size_t r = 0; r < batch.num_rows(); ++r, ++cursor.row) {
      if (Status s = RunOfOldRow(batch, r, order, files, &run); !s.ok()) {
        return s.WithContext(fmt::format("{}: row {}", key, cursor.row));
      }
      LD_RETURN_IF_ERROR(sorter.Add(run).WithContext(key));
    }
  }
  if (f.sorted) return Status::OK();
  return sorter.Finish(visit).WithContext(key);
}

// The runs of an integer key column's batch (no nulls), from position `pos`: consecutive
// values at consecutive positions joined here, not one row at a time.
template <typename T>
Status AddIntegerRuns(const ColumnVector& keys, uint32_t file, int64_t pos,
                      const IndexKeyOrder& order, KeyRunSorter* sorter) {
  const T* v = reinterpret_cast<const T*>(keys.raw_values());
  const size_t n = keys.size();
  for (size_t start = 0; start < n;) {
    size_t end = start + 1;
    while (end < n && v[end] > v[end - 1] &&
           static_cast<uint64_t>(v[end]) - static_cast<uint64_t>(v[end - 1]) == 1) {
      ++end;
    }
    LD_RETURN_IF_ERROR(sorter->Add(KeyRun{order.KeyOf(static_cast<int64_t>(v[start])), file,
                                          pos + static_cast<int64_t>(start),
                                          static_cast<int64_t>(end - start)}));
    start = end;
  }
  return Status::OK();
}

Status AddIntegerBatchRuns(const ColumnVector& keys, uint32_t file, int64_t pos,
                           const IndexKeyOrder& order, KeyRunSorter* sorter) {
  switch (order.width()) {
    case 1: return AddIntegerRuns<int8_t>(keys, file, pos, order, sorter);
    case 2: return AddIntegerRuns<int16_t>(keys, file, pos, order, sorter);
    case 4: return AddIntegerRuns<int32_t>(keys, file, pos, order, sorter);
    default: return AddIntegerRuns<int64_t>(keys, file, pos, order, sorter);
  }
}

// The runs of one data file's rows, by their columns `key_columns`, into `sorter`.
Status AddDataFileRuns(ObjectStore& store, const std::string& key,
                       const std::vector<std::string>& key_columns, const IndexKeyOrder& order,
                       IndexFiles* files, KeyRunSorter* sorter) {
  std::unique_ptr<ObjectReader> holder;
  LD_ASSIGN_OR_RETURN(auto reader, OpenStoredParquet(store, key, key_columns, &holder));
  std::vector<size_t> columns;
  for (size_t i = 0; i < key_columns.size(); ++i) columns.push_back(i);
  KeyRun run;
  run.file = files->Id(key);
  RowBatch batch;
  for (;;) {
    LD_RETURN_IF_ERROR(reader->Next(kKeyIndexBatchRows, &batch));
    if (batch.num_rows() == 0) break;
    if (order.integer() && batch.column(0).null_count() == 0 &&
        FixedWidth(batch.column(0).type().id) == order.width()) {
      LD_RETURN_IF_ERROR(
          AddIntegerBatchRuns(batch.column(0), run.file, run.pos, order, sorter).WithContext(key));
      run.pos += static_cast<int64_t>(batch.num_rows());
      continue;
    }
    for (size_t r = 0; r < batch.num_rows(); ++r, ++run.pos) {
      run.key.clear();
      LD_RETURN_IF_ERROR(EncodeIndexKey(batch, columns, r, &run.key));
      LD_RETURN_IF_ERROR(order.Check(run.key).WithContext(key));
      LD_RETURN_IF_ERROR(sorter->Add(run).WithContext(key));
    }
  }
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<ParquetReader>> OpenStoredParquet(
    ObjectStore& store, const std::string& key, const std::vector<std::string>& columns,
    std::unique_ptr<ObjectReader>* holder) {
  LD_ASSIGN_OR_RETURN(*holder, store.NewReader(key));
  ObjectReader* reader = holder->get();
  ParquetReaderOptions options;
  options.name = key;
  options.columns = columns;
  return ParquetReader::Open(
      reader->size(),
      [reader](uint64_t off, uint64_t len, std::string* out) {
        return reader->ReadAt(off, len, out);
      },
      options);
}

Status EncodeIndexKey(const RowBatch& batch, const std::vector<size_t>& columns, size_t row,
                      std::string* out) {
  for (size_t c : columns) {
    const ColumnVector& v = batch.column(c);
    if (v.type().id == TypeId::kList) {
      return Status::InvalidArgument("a key column is an array, which the key index cannot hold");
    }
    if (v.IsNull(row)) {
      out->push_back('\0');
      continue;
    }
    out->push_back('\1');
    const size_t width = FixedWidth(v.type().id);
    if (width != 0) {
      out->append(reinterpret_cast<const char*>(v.raw_values()) + row * width, width);
    } else {
      const std::string_view bytes = v.BytesAt(row);
      const uint32_t n = static_cast<uint32_t>(bytes.size());
      out->append(reinterpret_cast<const char*>(&n), sizeof n);
      out->append(bytes);
    }
  }
  return Status::OK();
}

uint32_t IndexFiles::Id(std::string_view key) {
  if (last_ < keys_.size() && keys_[last_] == key) return static_cast<uint32_t>(last_);
  auto it = ids_.find(std::string(key));
  if (it == ids_.end()) {
    it = ids_.emplace(std::string(key), static_cast<uint32_t>(keys_.size())).first;
    keys_.emplace_back(key);
  }
  last_ = it->second;
  return it->second;
}

KeyRun KeyRunBlock::run(size_t i) const {
  return KeyRun{std::string(key(i)), file(i), pos(i), rows(i)};
}

size_t KeyRunBlock::FirstReaching(size_t from, std::string_view key,
                                  const IndexKeyOrder& order) const {
  size_t i = from;
  if (order.integer()) {
    const int64_t v = order.IntegerValue(key);
    // A run's last key: its first + rows - 1, which the reader checked fits.
    while (i < size() && order.IntegerValue(this->key(i)) + (rows(i) - 1) < v) ++i;
  } else {
    while (i < size() && order.Compare(this->key(i), key) < 0) ++i;
  }
  return i;
}

Status ForEachKeyRunBlock(ObjectStore& store, const KeyIndexOrigin& origin,
                          const IndexKeyOrder& order, IndexFiles* files,
                          const KeyRunBlockVisitor& block, const KeyRunVisitor& run) {
  if (!origin.index_key.empty()) {
    return ForEachIndexFileRun(store, origin.index_key, order, files, block, run);
  }
  KeyRunSorter sorter(order, kKeyIndexSortBytes);
  for (const std::string& f : origin.data_files) {
    LD_RETURN_IF_ERROR(AddDataFileRuns(store, f, origin.key_columns, order, files, &sorter));
  }
  return sorter.Finish(run);
}

Status ForEachKeyRun(ObjectStore& store, const KeyIndexOrigin& origin,
                     const IndexKeyOrder& order, IndexFiles* files, const KeyRunVisitor& visit) {
  return ForEachKeyRunBlock(
      store, origin, order, files,
      [&](const KeyRunBlock& block) -> Status {
        KeyRun run;
        for (size_t i = 0; i < block.size(); ++i) {
          run.key.assign(block.key(i));
          run.file = block.file(i);
          run.pos = block.pos(i);
          run.rows = block.rows(i);
          LD_RETURN_IF_ERROR(visit(run));
        }
        return Status::OK();
      },
      visit);
}

Result<std::unique_ptr<KeyIndexWriter>> KeyIndexWriter::Open(ObjectStore& store,
                                                             const std::string& key,
                                                             const IndexKeyOrder& order,
                                                             const IndexFiles& files) {
  std::unique_ptr<KeyIndexWriter> w(new KeyIndexWriter(order, files));
  w->key_ = key;
  LD_ASSIGN_OR_RETURN(w->out_, store.NewWriter(key));
  ParquetWriterOptions options;
  options.codec = CodecKind::kZstd;
  options.compression_level = 1;  // its fastest: the index is written at every increment
  options.row_group_rows = kKeyIndexRowGroupRows;
  // A dictionary for the few file ids and run lengths (the index a quarter smaller than
  // PLAIN under zstd, an increment a tenth less CPU); none tried on the unique keys and
  // positions, where its trial only costs.
  options.dictionary_columns = {"file", "rows"};
  // A row group is encoded on a thread of its own while the caller fills the next one.
  w->pool_ = std::make_unique<ThreadPool>(1);
  options.threads = 2;
  options.pool = w->pool_.get();
  options.key_value_metadata = {{kKeyIndexFormatKey, kKeyIndexFormat}};
  const Schema schema = KeyIndexFileSchema();
  w->writer_ = std::make_unique<ParquetWriter>(schema, options, w->out_.get());
  w->batch_.Reset(schema);
  return w;
}

KeyIndexWriter::~KeyIndexWriter() = default;

Status KeyIndexWriter::Add(std::string_view key, uint32_t file, int64_t pos, int64_t rows) {
  if (has_last_) {
    if (order_.Compare(last_key_, key) >= 0 || order_.Distance(last_key_, key) < last_rows_) {
      return Status::Internal(fmt::format("{}: written out of key order", key_));
    }
    if (order_.integer() && file == last_file_ && pos == last_pos_ + last_rows_ &&
        order_.Distance(last_key_, key) == last_rows_) {
      last_rows_ += rows;
      return Status::OK();
    }
    LD_RETURN_IF_ERROR(Put());
  }
  has_last_ = true;
  last_key_.assign(key);
  last_file_ = file;
  last_pos_ = pos;
  last_rows_ = rows;
  return Status::OK();
}

Status KeyIndexWriter::AddBlock(const KeyRunBlock& block, size_t begin, size_t end) {
  if (begin >= end) return Status::OK();
  LD_RETURN_IF_ERROR(Add(block.key(begin), block.file(begin), block.pos(begin),
                         block.rows(begin)));
  if (end - begin == 1) return Status::OK();
  LD_RETURN_IF_ERROR(Put());
  const size_t last = end - 1;
  const RowBatch& from = block.batch();
  for (size_t i = begin + 1; i < last;) {
    const size_t n = std::min(last - i, kKeyIndexBatchRows - batch_.num_rows());
    batch_.column(0).AppendFrom(from.column(0), i, n);
    for (size_t j = i; j < i + n; ++j) batch_.column(1).Append<int32_t>(ListedAs(block.file(j)));
    batch_.column(2).AppendFrom(from.column(2), i, n);
    batch_.column(3).AppendFrom(from.column(3), i, n);
    i += n;
    LD_RETURN_IF_ERROR(WriteIfFull());
  }
  last_key_.assign(block.key(last));
  last_file_ = block.file(last);
  last_pos_ = block.pos(last);
  last_rows_ = block.rows(last);
  return Status::OK();
}

int32_t KeyIndexWriter::ListedAs(uint32_t id) {
  if (listed_as_.size() <= id) listed_as_.resize(files_.size(), -1);
  int32_t& at = listed_as_[id];
  if (at < 0) {
    at = static_cast<int32_t>(listed_.size());
    listed_.push_back(id);
  }
  return at;
}

// The run held (last_*) into the batch, its file listed; the batch to the file when full.
Status KeyIndexWriter::Put() {
  const int32_t at = ListedAs(last_file_);
  batch_.column(0).AppendBytes(last_key_);
  batch_.column(1).Append<int32_t>(at);
  batch_.column(2).Append<int64_t>(last_pos_);
  batch_.column(3).Append<int64_t>(last_rows_);
  return WriteIfFull();
}

Status KeyIndexWriter::WriteIfFull() {
  if (batch_.num_rows() < kKeyIndexBatchRows) return Status::OK();
  LD_RETURN_IF_ERROR(writer_->Write(batch_).WithContext(key_));
  batch_.Clear();
  return Status::OK();
}

Result<uint64_t> KeyIndexWriter::Close() {
  if (has_last_) LD_RETURN_IF_ERROR(Put());
  has_last_ = false;
  if (!batch_.empty()) LD_RETURN_IF_ERROR(writer_->Write(batch_).WithContext(key_));
  batch_.Clear();
  nlohmann::json names = nlohmann::json::array();
  for (uint32_t id : listed_) names.push_back(files_.Key(id));
  writer_->AddKeyValueMetadata(kKeyIndexFilesKey, names.dump());
  LD_RETURN_IF_ERROR(writer_->Close().WithContext(key_));
  LD_RETURN_IF_ERROR(out_->Close().WithContext(key_));
  return writer_->stats().bytes;
}

Result<uint64_t> WriteDataFilesKeyIndex(ObjectStore& store,
                                        const std::vector<std::string>& data_files,
                                        const std::vector<std::string>& key_columns,
                                        const IndexKeyOrder& order, const std::string& index_key) {
  IndexFiles files;
  LD_ASSIGN_OR_RETURN(auto writer, KeyIndexWriter::Open(store, index_key, order, files));
  KeyIndexOrigin origin;
  origin.data_files = data_files;
  origin.key_columns = key_columns;
  LD_RETURN_IF_ERROR(ForEachKeyRun(store, origin, order, &files, [&](const KeyRun& run) {
    return writer->Add(run.key, run.file, run.pos, run.rows);
  }));
  return writer->Close();
}

}  // namespace lakedump
