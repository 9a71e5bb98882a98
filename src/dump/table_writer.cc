#include "dump/table_writer.h"

#include <fmt/format.h>

#include "dump/iceberg/iceberg_commit.h"
#include "lake/object_keys.h"
#include "format/iceberg/iceberg_values.h"
#include "table/temporal.h"
#include "table/uuid_text.h"

namespace lakedump {

struct TableFileWriter::OpenFile {
  std::string key;
  std::string partition;
  std::unique_ptr<ObjectWriter> object;
  std::unique_ptr<ChecksumSink> hash;
  std::unique_ptr<FileEncoder> encoder;
  std::optional<std::string> partition_value;  // Iceberg single value; nullopt = null
  uint64_t rows = 0;
  uint64_t reported_bytes = 0;
  std::optional<TraceSpan> span;
};

std::optional<std::string> PartitionValueText(const ColumnVector& c, size_t i) {
  if (c.IsNull(i)) return std::nullopt;
  switch (c.type().id) {
    case TypeId::kBool: return c.ValueAt<uint8_t>(i) ? "true" : "false";
    case TypeId::kInt8: return std::to_string(c.ValueAt<int8_t>(i));
    case TypeId::kInt16: return std::to_string(c.ValueAt<int16_t>(i));
    case TypeId::kInt32: return std::to_string(c.ValueAt<int32_t>(i));
    case TypeId::kInt64: return std::to_string(c.ValueAt<int64_t>(i));
    case TypeId::kFloat: return fmt::format("{}", c.ValueAt<float>(i));
    case TypeId::kDouble: return fmt::format("{}", c.ValueAt<double>(i));
    case TypeId::kDecimal: return FormatDecimal(c.ValueAt<int128_t>(i), c.type().scale);
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kJson: return std::string(c.BytesAt(i));
    case TypeId::kList: return std::nullopt;  // refused before the table is read
    case TypeId::kDate: return FormatDate(c.ValueAt<int32_t>(i));
    case TypeId::kTime: return FormatTime(c.ValueAt<int64_t>(i));
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: return FormatTimestamp(c.ValueAt<int64_t>(i));
    case TypeId::kUuid: return FormatUuid(c.ValueAt<Uuid>(i));
  }
  return std::nullopt;
}

void AppendRowValue(const ColumnVector& src, size_t i, ColumnVector* dst) {
  if (src.IsNull(i)) {
    dst->AppendNull();
    return;
  }
  if (IsVariableLength(src.type().id)) {
    dst->AppendBytes(src.BytesAt(i));
    return;
  }
  if (src.type().is_list()) {
    dst->AppendFrom(src, i, 1);
    return;
  }
  switch (FixedWidth(src.type().id)) {
    case 1: dst->Append(src.ValueAt<uint8_t>(i)); break;
    case 2: dst->Append(src.ValueAt<uint16_t>(i)); break;
    case 4: dst->Append(src.ValueAt<uint32_t>(i)); break;
    case 8: dst->Append(src.ValueAt<uint64_t>(i)); break;
    case 16: dst->Append(src.ValueAt<Uuid>(i)); break;
    default: dst->AppendNull(); break;  // unreachable: every fixed width is listed
  }
}

TableFileWriter::TableFileWriter(const TableFileWriterContext& ctx, const TableRef& table,
                                 Schema schema, int unit)
    : ctx_(ctx), table_(table), schema_(std::move(schema)), unit_(unit) {
  if (!ctx_.options->partition_by.empty()) {
    partition_column_ = schema_.FindColumn(ctx_.options->partition_by);
    partition_name_ = EscapeHivePartitionValue(ctx_.options->partition_by);
    scratch_.Reset(schema_);
  }
}

TableFileWriter::~TableFileWriter() = default;

Result<TableFileWriter::OpenFile*> TableFileWriter::FileFor(
    const std::string& partition, std::optional<std::string> partition_value) {
  auto it = open_.find(partition);
  if (it != open_.end()) return it->second.get();
  if (static_cast<int>(open_.size()) >= std::max(1, ctx_.options->max_open_partitions)) {
    return Status::InvalidArgument(fmt::format(
        "--partition-by {}: table {} has more than {} distinct values in one task; choose a "
        "column with fewer distinct values",
        ctx_.options->partition_by, table_.QualifiedName(), ctx_.options->max_open_partitions));
  }
  auto f = std::make_unique<OpenFile>();
  f->partition = partition;
  f->partition_value = std::move(partition_value);
  f->key = DataFileKey(table_, partition, unit_, next_seq_++, ctx_.run_id);
  f->span.emplace(ctx_.trace, f->key, "file");
  LD_ASSIGN_OR_RETURN(f->object, ctx_.store->NewWriter(f->key));
  f->hash = std::make_unique<ChecksumSink>(f->object.get());
  if (!ctx_.options->sign_key.empty()) f->hash->EnableSha256();
  f->encoder = (*ctx_.encoder)(schema_, f->hash.get());
  OpenFile* raw = f.get();
  open_.emplace(partition, std::move(f));
  return raw;
}

Status TableFileWriter::WriteTo(OpenFile* f, const RowBatch& batch) {
  LD_RETURN_IF_ERROR(f->encoder->Write(batch));
  f->rows += batch.num_rows();
  if (ctx_.progress != nullptr) {
    ctx_.progress->rows += batch.num_rows();
    const uint64_t now = f->hash->bytes_written();
    ctx_.progress->bytes += now - f->reported_bytes;
    f->reported_bytes = now;
  }
  const uint64_t limit = ctx_.options->file_size;
  if (limit > 0 && f->encoder->EstimatedFileSize() >= limit && !f->encoder->EstimateMeasured()) {
    // Until a row group is written the estimate is uncompressed (3-4x the
    // file's size): write what is buffered and measure.
    LD_RETURN_IF_ERROR(f->encoder->FlushBuffered());
  }
  if (limit > 0 && f->encoder->EstimatedFileSize() >= limit) {
    auto it = open_.find(f->partition);
    std::unique_ptr<OpenFile> owned = std::move(it->second);
    open_.erase(it);
    return CloseFile(std::move(owned));
  }
  return Status::OK();
}

Status TableFileWriter::Write(const RowBatch& batch) {
  if (batch.empty()) return Status::OK();
  if (!partition_column_) {
    LD_ASSIGN_OR_RETURN(OpenFile * f, FileFor(""));
    return WriteTo(f, batch);
  }
  const ColumnVector& key_col = batch.column(*partition_column_);
  std::map<std::string, std::vector<uint32_t>> groups;
  for (size_t i = 0; i < batch.num_rows(); ++i) {
    std::optional<std::string> v = PartitionValueText(key_col, i);
    const std::string dir =
        partition_name_ + "=" +
        (v ? EscapeHivePartitionValue(*v) : std::string(kHiveNullPartition));
    groups[dir].push_back(static_cast<uint32_t>(i));
  }
  for (auto& [dir, rows] : groups) {
    LD_ASSIGN_OR_RETURN(OpenFile * f,
                        FileFor(dir, iceberg::SingleValueAt(key_col, rows.front())));
    if (rows.size() == batch.num_rows()) {
      LD_RETURN_IF_ERROR(WriteTo(f, batch));
      continue;
    }
    scratch_.Clear();
    for (size_t c = 0; c < batch.num_columns(); ++c) {
      const ColumnVector& src = batch.column(c);
      ColumnVector* dst = &scratch_.column(c);
      for (uint32_t r : rows) AppendRowValue(src, r, dst);
    }
    LD_RETURN_IF_ERROR(WriteTo(f, scratch_));
  }
  return Status::OK();
}

Status TableFileWriter::CloseFile(std::unique_ptr<OpenFile> f) {
  LD_RETURN_IF_ERROR(f->encoder->Close().WithContext(f->key));
  LD_RETURN_IF_ERROR(f->object->Close().WithContext(f->key));
  if (ctx_.progress != nullptr) {
    ctx_.progress->bytes += f->hash->bytes_written() - f->reported_bytes;
    ctx_.progress->files += 1;
  }
  if (f->span) f->span->args() = {{"rows", f->rows}, {"bytes", f->hash->bytes_written()}};
  std::shared_ptr<const IcebergFileMetrics> metrics;
  if (ctx_.options->table_format == TableFormat::kIceberg) {
    auto collected =
        CollectIcebergMetrics(schema_, f->encoder->footer(), std::move(f->partition_value));
    if (!collected.ok()) return collected.status().WithContext(f->key);
    metrics = std::move(*collected);
  }
  done_.push_back(DataFile{f->key, f->rows, f->hash->bytes_written(), f->hash->hex_digest(),
                           f->partition, f->hash->sha256_hex()});
  SetSectionChecksums(f->hash->sections(), &done_.back());
  done_.back().iceberg = std::move(metrics);
  return Status::OK();
}

Result<std::vector<DataFile>> TableFileWriter::Finish(bool write_empty_file) {
  if (write_empty_file && done_.empty() && open_.empty()) {
    LD_ASSIGN_OR_RETURN(OpenFile * f, FileFor(""));
    (void)f;
  }
  while (!open_.empty()) {
    std::unique_ptr<OpenFile> f = std::move(open_.begin()->second);
    open_.erase(open_.begin());
    LD_RETURN_IF_ERROR(CloseFile(std::move(f)));
  }
  return std::move(done_);
}

}  // namespace lakedump
