#include "dump/iceberg/key_index.h"

#include <fmt/format.h>

#include <cstring>

#include "base/byte_sink.h"
#include "format/parquet/parquet_writer.h"

namespace lakedump {
namespace {

constexpr size_t kKeyIndexReadRows = 8192;

Schema IndexSchema() {
  return Schema({Column{"key", LogicalType{TypeId::kBinary}, false},
                 Column{"file", LogicalType{TypeId::kString}, false},
                 Column{"pos", LogicalType{TypeId::kInt64}, false}});
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

Status KeyIndex::EncodeKey(const RowBatch& batch, const std::vector<size_t>& columns, size_t row,
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

uint32_t KeyIndex::FileId(const std::string& key) {
  auto [it, added] = file_ids_.emplace(key, static_cast<uint32_t>(files_.size()));
  if (added) files_.push_back(key);
  return it->second;
}

Result<KeyIndex> KeyIndex::Read(ObjectStore& store, const std::string& key) {
  std::unique_ptr<ObjectReader> holder;
  LD_ASSIGN_OR_RETURN(auto reader, OpenStoredParquet(store, key, {"key", "file", "pos"}, &holder));
  const Schema& s = reader->schema();
  if (s.column(0).type.id != TypeId::kBinary || s.column(1).type.id != TypeId::kString ||
      s.column(2).type.id != TypeId::kInt64) {
    return Status::Corruption(fmt::format("{}: not a key index", key));
  }
  KeyIndex index;
  RowBatch batch;
  for (;;) {
    LD_RETURN_IF_ERROR(reader->Next(kKeyIndexReadRows, &batch));
    if (batch.num_rows() == 0) break;
    for (size_t r = 0; r < batch.num_rows(); ++r) {
      if (batch.column(0).IsNull(r) || batch.column(1).IsNull(r) || batch.column(2).IsNull(r) ||
          batch.column(2).ValueAt<int64_t>(r) < 0) {
        return Status::Corruption(fmt::format("{}: row {} is not a key and a place", key, r));
      }
      const uint32_t file = index.FileId(std::string(batch.column(1).BytesAt(r)));
      if (!index.entries_
               .emplace(std::string(batch.column(0).BytesAt(r)),
                        KeyLocation{file, batch.column(2).ValueAt<int64_t>(r)})
               .second) {
        return Status::Corruption(fmt::format("{}: a key is there twice", key));
      }
    }
  }
  return index;
}

Status KeyIndex::AddDataFile(ObjectStore& store, const std::string& key,
                             const std::vector<std::string>& key_columns) {
  std::unique_ptr<ObjectReader> holder;
  LD_ASSIGN_OR_RETURN(auto reader, OpenStoredParquet(store, key, key_columns, &holder));
  std::vector<size_t> columns;
  for (size_t i = 0; i < key_columns.size(); ++i) columns.push_back(i);
  const uint32_t file = FileId(key);
  RowBatch batch;
  int64_t pos = 0;
  std::string k;
  for (;;) {
    LD_RETURN_IF_ERROR(reader->Next(kKeyIndexReadRows, &batch));
    if (batch.num_rows() == 0) break;
    for (size_t r = 0; r < batch.num_rows(); ++r, ++pos) {
      k.clear();
      LD_RETURN_IF_ERROR(EncodeKey(batch, columns, r, &k));
      if (!entries_.emplace(k, KeyLocation{file, pos}).second) {
        return Status::Corruption(fmt::format("{}: a key is in the table twice", key));
      }
    }
  }
  return Status::OK();
}

Result<std::string> KeyIndex::Serialize() const {
  const Schema schema = IndexSchema();
  StringSink sink;
  ParquetWriterOptions options;
  options.codec = CodecKind::kZstd;
  ParquetWriter writer(schema, options, &sink);
  RowBatch batch(schema);
  for (const auto& [key, at] : entries_) {
    batch.column(0).AppendBytes(key);
    batch.column(1).AppendBytes(files_[at.file]);
    batch.column(2).Append<int64_t>(at.pos);
    if (batch.num_rows() == kKeyIndexReadRows) {
      LD_RETURN_IF_ERROR(writer.Write(batch));
      batch.Clear();
    }
  }
  if (!batch.empty()) LD_RETURN_IF_ERROR(writer.Write(batch));
  LD_RETURN_IF_ERROR(writer.Close());
  return std::move(sink.mutable_str());
}

}  // namespace lakedump
