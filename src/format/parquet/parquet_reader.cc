#include "format/parquet/parquet_reader.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "format/codec/codec.h"
#include "format/parquet/column_reader.h"
#include "format/parquet/parquet_footer.h"
#include "format/parquet/read_schema.h"

namespace lakedump {

using parquet::ColumnChunkReader;
using parquet::FieldInfo;

class ParquetReader::Impl {
 public:
  Impl(uint64_t file_size, ReadAtFn read_at, ParquetReaderOptions options)
      : file_size_(file_size), read_at_(std::move(read_at)), options_(std::move(options)) {
    name_ = options_.name.empty() ? std::string("parquet file") : "file " + options_.name;
  }

  Status Open() {
    Result<parquet::FileMetaData> meta = parquet::ReadParquetFooter(file_size_, read_at_);
    if (!meta.ok()) return meta.status().WithContext(name_);
    meta_ = std::move(meta).value();
    Result<std::vector<FieldInfo>> fields = parquet::MapParquetSchema(meta_.schema);
    if (!fields.ok()) return fields.status().WithContext(name_);
    all_fields_ = std::move(fields).value();
    size_t leaves = 0;
    for (const FieldInfo& f : all_fields_) leaves += f.num_leaves;
    if (options_.columns.empty()) {
      for (size_t i = 0; i < all_fields_.size(); ++i) selected_.push_back(i);
    } else {
      for (const std::string& c : options_.columns) {
        size_t i = 0;
        while (i < all_fields_.size() && all_fields_[i].column.name != c) ++i;
        if (i == all_fields_.size()) {
          return Status::NotFound(fmt::format("{}: has no column \"{}\"", name_, c));
        }
        selected_.push_back(i);
      }
    }
    for (size_t i : selected_) {
      const FieldInfo& f = all_fields_[i];
      if (!f.unsupported.empty()) {
        return Status::Unimplemented(
            fmt::format("{}: column \"{}\": {}", name_, f.column.name, f.unsupported));
      }
      schema_.AddColumn(f.column);
    }
    int64_t total = 0;
    for (size_t g = 0; g < meta_.row_groups.size(); ++g) {
      const parquet::RowGroup& rg = meta_.row_groups[g];
      if (rg.columns.size() != leaves) {
        return Status::Corruption(fmt::format("{}: row group {} has {} column chunks, the schema {}",
                                              name_, g, rg.columns.size(), leaves));
      }
      if (rg.num_rows < 0 || __builtin_add_overflow(total, rg.num_rows, &total)) {
        return Status::Corruption(fmt::format("{}: row group {} has a bad row count", name_, g));
      }
    }
    if (total != meta_.num_rows) {
      return Status::Corruption(fmt::format("{}: the footer says {} rows, its row groups hold {}",
                                            name_, meta_.num_rows, total));
    }
    // Rows without any column data cost nothing to claim: 2^62 of them would keep a reader
    // (and a load streaming them) busy forever.
    if (leaves == 0 && meta_.num_rows > 0) {
      return Status::Corruption(fmt::format(
          "{}: has no columns but claims {} rows (refused: lakedump reads rows only from column "
          "data)", name_, meta_.num_rows));
    }
    return Status::OK();
  }

  Status Next(size_t max_rows, RowBatch* batch) {
    PrepareBatch(batch);
    while (rg_rows_left_ == 0) {
      if (next_rg_ >= meta_.row_groups.size()) {
        lease_.Reset();  // the file is read: its decompression memory goes back
        return Status::OK();
      }
      LD_RETURN_IF_ERROR(OpenRowGroup(next_rg_++));
    }
    const size_t rows = static_cast<size_t>(std::min<int64_t>(
        rg_rows_left_, static_cast<int64_t>(std::min<size_t>(max_rows, INT64_MAX))));
    for (size_t i = 0; i < readers_.size(); ++i) {
      LD_RETURN_IF_ERROR(readers_[i]->Read(rows, &batch->column(i)));
    }
    if (readers_.empty()) batch->set_num_rows_without_columns(rows);
    rg_rows_left_ -= static_cast<int64_t>(rows);
    return Status::OK();
  }

  void SeekRowGroup(size_t g) {
    next_rg_ = std::min(g, meta_.row_groups.size());
    rg_rows_left_ = 0;
  }

  const Schema& schema() const { return schema_; }
  const parquet::FileMetaData& meta() const { return meta_; }

 private:
  void PrepareBatch(RowBatch* batch) {
    bool same = batch->num_columns() == schema_.num_columns();
    for (size_t i = 0; same && i < schema_.num_columns(); ++i) {
      same = batch->column(i).type() == schema_.column(i).type;
    }
    if (same) {
      batch->Clear();
    } else {
      batch->Reset(schema_);
    }
    batch->set_num_rows_without_columns(0);
  }

  Result<const lakedump::Codec*> GetCodec(parquet::Codec c, const std::string& ctx) {
    CodecKind kind;
    switch (c) {
      case parquet::Codec::kUncompressed: return static_cast<const lakedump::Codec*>(nullptr);
      case parquet::Codec::kSnappy: kind = CodecKind::kSnappy; break;
      case parquet::Codec::kGzip: kind = CodecKind::kGzip; break;
      case parquet::Codec::kZstd: kind = CodecKind::kZstd; break;
      case parquet::Codec::kLz4Raw: kind = CodecKind::kLz4Raw; break;
      case parquet::Codec::kLz4:
        return Status::Unimplemented(fmt::format(
            "{}: the legacy LZ4 codec is not supported; rewrite the file with LZ4_RAW, zstd or "
            "snappy", ctx));
      default:
        return Status::Unimplemented(fmt::format("{}: compression codec {} is not supported", ctx,
                                                 static_cast<int>(c)));
    }
    auto& slot = codecs_[static_cast<size_t>(kind)];
    if (!slot) {
      LD_ASSIGN_OR_RETURN(slot, MakeCodec(kind));
    }
    return static_cast<const lakedump::Codec*>(slot.get());
  }

  Status OpenRowGroup(size_t g) {
    const parquet::RowGroup& rg = meta_.row_groups[g];
    // One reader per selected column for the whole file: its buffers are reused by every row
    // group (fresh ones per row group cost page faults on first touch).
    if (readers_.size() != selected_.size()) {
      readers_.clear();
      for (size_t i : selected_) {
        readers_.push_back(std::make_unique<ColumnChunkReader>(all_fields_[i],
                                                               options_.verify_crc));
      }
    }
    uint64_t need = 0;  // what the row group's chunks may decompress into
    for (size_t r = 0; r < selected_.size(); ++r) {
      const size_t i = selected_[r];
      const FieldInfo& f = all_fields_[i];
      const std::string ctx =
          fmt::format("{}: column \"{}\": row group {}", name_, f.column.name, g);
      const parquet::ColumnChunk& cc = rg.columns[f.first_leaf];
      if (cc.file_path.has_value()) {
        return Status::Unimplemented(ctx + ": column data in another file is not supported");
      }
      if (!cc.meta_data.has_value()) return Status::Corruption(ctx + ": no column metadata");
      const parquet::ColumnMetaData& m = *cc.meta_data;
      if (m.type != f.leaf.physical) {
        return Status::Corruption(ctx + ": the column chunk's type differs from the schema's");
      }
      const int64_t start = parquet::ColumnChunkStart(m);
      const int64_t len = m.total_compressed_size;
      if (start < 4 || len < 0 || static_cast<uint64_t>(start) > file_size_ ||
          static_cast<uint64_t>(len) > file_size_ - static_cast<uint64_t>(start)) {
        return Status::Corruption(fmt::format("{}: column chunk at offset {} of {} bytes lies "
                                              "outside the {}-byte file", ctx, start, len,
                                              file_size_));
      }
      LD_ASSIGN_OR_RETURN(const lakedump::Codec* codec, GetCodec(m.codec, ctx));
      std::string* chunk = readers_[r]->chunk_buffer();
      LD_RETURN_IF_ERROR(read_at_(static_cast<uint64_t>(start), static_cast<uint64_t>(len), chunk)
                             .WithContext(ctx));
      if (chunk->size() != static_cast<size_t>(len)) {
        return Status::Corruption(ctx + ": short read");
      }
      readers_[r]->Reset(rg.num_rows, codec, ctx, m.total_uncompressed_size);
      need += parquet::DecompressionBound(codec, m.total_uncompressed_size);
    }
    LD_RETURN_IF_ERROR(Reserve(g, need));
    rg_rows_left_ = rg.num_rows;
    return Status::OK();
  }

  // Holds `need` bytes of the budget for row group g (the previous row group's given back
  // first, so a reader never waits while holding any).
  Status Reserve(size_t g, uint64_t need) {
    lease_.Reset();
    MemoryBudget* budget = options_.budget != nullptr ? options_.budget : &own_budget_;
    if (need > budget->capacity()) {
      return Status::Corruption(fmt::format(
          "{}: row group {}: its compressed column chunks declare {} bytes uncompressed, over "
          "the {}-byte memory budget for decompression (refused)",
          name_, g, need, budget->capacity()));
    }
    if (need == 0) return Status::OK();
    LD_RETURN_IF_ERROR(budget->Acquire(need));
    lease_ = BudgetLease(budget, need);
    return Status::OK();
  }

  uint64_t file_size_;
  ReadAtFn read_at_;
  ParquetReaderOptions options_;
  std::string name_;
  parquet::FileMetaData meta_;
  std::vector<FieldInfo> all_fields_;
  std::vector<size_t> selected_;
  Schema schema_;
  std::array<std::unique_ptr<lakedump::Codec>, 8> codecs_;
  size_t next_rg_ = 0;
  int64_t rg_rows_left_ = 0;
  std::vector<std::unique_ptr<ColumnChunkReader>> readers_;
  MemoryBudget own_budget_{kDefaultDecompressionMemory};
  BudgetLease lease_;  // declared after the budget: released before it is destroyed
};

ParquetReader::ParquetReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ParquetReader::~ParquetReader() = default;

Result<std::unique_ptr<ParquetReader>> ParquetReader::Open(uint64_t file_size, ReadAtFn read_at,
                                                           ParquetReaderOptions options) {
  auto impl = std::make_unique<Impl>(file_size, std::move(read_at), std::move(options));
  LD_RETURN_IF_ERROR(impl->Open());
  return std::unique_ptr<ParquetReader>(new ParquetReader(std::move(impl)));
}

Result<std::unique_ptr<ParquetReader>> ParquetReader::OpenBuffer(std::string_view file,
                                                                 ParquetReaderOptions options) {
  return Open(
      file.size(),
      [file](uint64_t off, uint64_t len, std::string* out) {
        if (off > file.size() || len > file.size() - off) {
          return Status::Corruption("read past the end of the file");
        }
        out->assign(file.substr(off, len));
        return Status::OK();
      },
      std::move(options));
}

const Schema& ParquetReader::schema() const { return impl_->schema(); }
uint64_t ParquetReader::num_rows() const { return static_cast<uint64_t>(impl_->meta().num_rows); }
size_t ParquetReader::num_row_groups() const { return impl_->meta().row_groups.size(); }
const parquet::FileMetaData& ParquetReader::metadata() const { return impl_->meta(); }
Status ParquetReader::Next(size_t max_rows, RowBatch* batch) { return impl_->Next(max_rows, batch); }
void ParquetReader::SeekRowGroup(size_t g) { impl_->SeekRowGroup(g); }

}  // namespace lakedump
