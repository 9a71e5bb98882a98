#include "dump/iceberg/key_index.h"

#include <fmt/format.h>

#include <cstring>

namespace lakedump {
namespace {

constexpr size_t kKeyIndexBatchRows = 8192;
// The index's row groups: small enough that one buffered row group stays a few MiB.
constexpr uint64_t kKeyIndexRowGroupRows = 65536;

Schema KeyIndexFileSchema() {
  return Schema({Column{"key", LogicalType{TypeId::kBinary}, false},
                 Column{"file", LogicalType{TypeId::kString}, false},
                 Column{"pos", LogicalType{TypeId::kInt64}, false}});
}

// The entries of an index file written by KeyIndexWriter.
Status ForEachIndexFileEntry(ObjectStore& store, const std::string& key, IndexFiles* files,
                             const KeyIndexVisitor& visit) {
  std::unique_ptr<ObjectReader> holder;
  LD_ASSIGN_OR_RETURN(auto reader, OpenStoredParquet(store, key, {"key", "file", "pos"}, &holder));
  const Schema& s = reader->schema();
  if (s.column(0).type.id != TypeId::kBinary || s.column(1).type.id != TypeId::kString ||
      s.column(2).type.id != TypeId::kInt64) {
    return Status::Corruption(fmt::format("{}: not a key index", key));
  }
  RowBatch batch;
  uint64_t row = 0;
  for (;;) {
    LD_RETURN_IF_ERROR(reader->Next(kKeyIndexBatchRows, &batch));
    if (batch.num_rows() == 0) break;
    for (size_t r = 0; r < batch.num_rows(); ++r, ++row) {
      if (batch.column(0).IsNull(r) || batch.column(1).IsNull(r) || batch.column(2).IsNull(r) ||
          batch.column(2).ValueAt<int64_t>(r) < 0) {
        return Status::Corruption(fmt::format("{}: row {} is not a key and a place", key, row));
      }
      const KeyLocation at{files->Id(batch.column(1).BytesAt(r)),
                           batch.column(2).ValueAt<int64_t>(r)};
      LD_RETURN_IF_ERROR(visit(batch.column(0).BytesAt(r), at));
    }
  }
  return Status::OK();
}

// The entries of one data file: its rows' keys by the columns `key_columns`.
Status ForEachDataFileEntry(ObjectStore& store, const std::string& key,
                            const std::vector<std::string>& key_columns, IndexFiles* files,
                            const KeyIndexVisitor& visit) {
  std::unique_ptr<ObjectReader> holder;
  LD_ASSIGN_OR_RETURN(auto reader, OpenStoredParquet(store, key, key_columns, &holder));
  std::vector<size_t> columns;
  for (size_t i = 0; i < key_columns.size(); ++i) columns.push_back(i);
  const uint32_t file = files->Id(key);
  RowBatch batch;
  int64_t pos = 0;
  std::string k;
  for (;;) {
    LD_RETURN_IF_ERROR(reader->Next(kKeyIndexBatchRows, &batch));
    if (batch.num_rows() == 0) break;
    for (size_t r = 0; r < batch.num_rows(); ++r, ++pos) {
      k.clear();
      LD_RETURN_IF_ERROR(EncodeIndexKey(batch, columns, r, &k));
      LD_RETURN_IF_ERROR(visit(k, KeyLocation{file, pos}));
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

Status ForEachKeyIndexEntry(ObjectStore& store, const KeyIndexOrigin& origin, IndexFiles* files,
                            const KeyIndexVisitor& visit) {
  if (!origin.index_key.empty()) {
    return ForEachIndexFileEntry(store, origin.index_key, files, visit);
  }
  for (const std::string& f : origin.data_files) {
    LD_RETURN_IF_ERROR(ForEachDataFileEntry(store, f, origin.key_columns, files, visit));
  }
  return Status::OK();
}

Result<std::unique_ptr<KeyIndexWriter>> KeyIndexWriter::Open(ObjectStore& store,
                                                             const std::string& key) {
  std::unique_ptr<KeyIndexWriter> w(new KeyIndexWriter());
  w->key_ = key;
  LD_ASSIGN_OR_RETURN(w->out_, store.NewWriter(key));
  ParquetWriterOptions options;
  options.codec = CodecKind::kZstd;
  options.row_group_rows = kKeyIndexRowGroupRows;
  const Schema schema = KeyIndexFileSchema();
  w->writer_ = std::make_unique<ParquetWriter>(schema, options, w->out_.get());
  w->batch_.Reset(schema);
  return w;
}

KeyIndexWriter::~KeyIndexWriter() = default;

Status KeyIndexWriter::Add(std::string_view key, std::string_view file, int64_t pos) {
  batch_.column(0).AppendBytes(key);
  batch_.column(1).AppendBytes(file);
  batch_.column(2).Append<int64_t>(pos);
  if (batch_.num_rows() < kKeyIndexBatchRows) return Status::OK();
  LD_RETURN_IF_ERROR(writer_->Write(batch_).WithContext(key_));
  batch_.Clear();
  return Status::OK();
}

Result<uint64_t> KeyIndexWriter::Close() {
  if (!batch_.empty()) LD_RETURN_IF_ERROR(writer_->Write(batch_).WithContext(key_));
  batch_.Clear();
  LD_RETURN_IF_ERROR(writer_->Close().WithContext(key_));
  LD_RETURN_IF_ERROR(out_->Close().WithContext(key_));
  return writer_->stats().bytes;
}

}  // namespace lakedump
