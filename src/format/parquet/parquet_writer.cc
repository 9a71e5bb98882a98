// ParquetWriter: rows are appended to the buffers of the row group being built
// (a RowGroupJob). A full row group is encoded either inline (threads <= 1) or
// on the pool, and appended to the sink strictly in order by the producer
// thread (DuckDB's PrepareRowGroup / FlushRowGroup split). A row group's
// columns are encoded in parallel (`threads` lanes per job, see
// row_group_job.h), so a file of few row groups (300K rows are 3 of them)
// still keeps every thread busy, and one row group encoding while the producer
// fills the next is enough overlap. The producer never blocks on a lane that has not
// started: it claims and runs it itself, so waiting cannot deadlock even when
// the producer is a thread of the same pool. Before the first row group is
// handed over, the pool would idle: then the producer checks and copies each
// batch column by column with the pool's help (ParallelFor).
//
// Jobs (column buffers, encoder scratch and dictionaries, encoded chunks) are
// recycled: within a writer from row group to row group, and across writers
// through a small process-wide pool bounded in bytes (JobPool). Fresh memory
// is expensive here: every page of it costs a page fault on first touch, and
// vectors grown by doubling copy their contents; a dump writes many files one
// after another, so the next writer starts with warm buffers.
#include "format/parquet/parquet_writer.h"

#include <algorithm>
#include <deque>
#include <optional>

#include <fmt/format.h>

#include "base/thread_pool.h"
#include "format/parquet/batch_append.h"
#include "format/parquet/column_chunk.h"
#include "format/parquet/parallel_for.h"
#include "format/parquet/parquet_metadata.h"
#include "format/parquet/parquet_schema.h"
#include "format/parquet/row_group_job.h"

namespace lakedump {
namespace {

namespace pq = parquet;
using pq::JobPool;
using pq::RowGroupJob;

constexpr std::string_view kMagic = "PAR1";
// Batches are appended in slices so a row group overshoots its byte target by little.
constexpr size_t kSliceRows = 16384;
// Fewer rows are checked and copied on the producer alone (waking pool threads
// costs more than it saves).
constexpr size_t kParallelFillRows = 2048;

pq::Codec ToParquetCodec(CodecKind kind) {
  switch (kind) {
    case CodecKind::kNone: return pq::Codec::kUncompressed;
    case CodecKind::kSnappy: return pq::Codec::kSnappy;
    case CodecKind::kZstd: return pq::Codec::kZstd;
    case CodecKind::kGzip: return pq::Codec::kGzip;
    case CodecKind::kLz4Raw: return pq::Codec::kLz4Raw;
  }
  return pq::Codec::kUncompressed;
}

// Bytes per value of a column buffer's fixed-width data (0 for variable-length).
size_t ValueWidth(const pq::ColumnSpec& spec) {
  switch (spec.physical) {
    case pq::Type::kBoolean: return 1;
    case pq::Type::kInt32:
    case pq::Type::kFloat: return 4;
    case pq::Type::kInt64:
    case pq::Type::kDouble: return 8;
    case pq::Type::kFixedLenByteArray: return static_cast<size_t>(spec.type_length);
    case pq::Type::kInt96: return 12;
    case pq::Type::kByteArray: return 0;
  }
  return 0;
}

}  // namespace

class ParquetWriter::Impl {
 public:
  Impl(Schema schema, ParquetWriterOptions options, ByteSink* sink)
      : schema_(std::move(schema)), options_(std::move(options)), sink_(sink) {
    auto shared = std::make_unique<pq::EncodeContext>();
    Result<std::vector<pq::ColumnSpec>> specs = pq::MakeColumnSpecs(schema_);
    if (!specs.ok()) {
      error_ = specs.status();
    } else {
      shared->specs = std::move(*specs);
      const std::vector<std::string>& only = options_.dictionary_columns;
      for (pq::ColumnSpec& spec : shared->specs) {
        spec.dictionary =
            only.empty() || std::find(only.begin(), only.end(), spec.name) != only.end();
      }
    }
    Status valid = schema_.Validate();
    if (error_.ok() && !valid.ok()) error_ = valid;
    shared->encode.page_bytes = options_.page_bytes;
    shared->encode.dictionary = options_.dictionary;
    shared->encode.dictionary_limit_bytes = options_.dictionary_limit_bytes;
    shared->encode.codec = ToParquetCodec(options_.codec);
    if (options_.codec != CodecKind::kNone) {
      Result<std::unique_ptr<Codec>> codec = MakeCodec(options_.codec, options_.compression_level);
      if (!codec.ok() && error_.ok()) {
        error_ = codec.status();
      } else if (codec.ok()) {
        shared->codec = std::move(*codec);
      }
    }
    if (options_.row_group_rows == 0) options_.row_group_rows = 1;
    parallel_ = options_.threads > 1 && options_.pool != nullptr;
    shared_ = std::move(shared);
    current_ = NewJob();
  }

  ~Impl() {
    // Lanes not yet started are cancelled, running ones are waited for (they
    // touch the job's buffers); then every job goes back to the process-wide pool.
    JobPool& pool = JobPool::Instance();
    for (auto& job : in_flight_) {
      job->Abandon();
      pool.Give(std::move(job));
    }
    if (current_) pool.Give(std::move(current_));
    for (auto& job : free_) pool.Give(std::move(job));
  }

  Status Write(const RowBatch& batch) {
    if (!error_.ok()) return error_;
    if (closed_) return Status::InvalidArgument("ParquetWriter::Write after Close");
    Status s = batch.Validate(schema_);
    if (!s.ok()) return Fail(s);
    const size_t n = batch.num_rows();
    const size_t ncols = schema_.num_columns();
    const uint64_t first_row = stats_rows_in_buffers();
    // With no row group in flight the pool is idle (the first row group of a
    // file above all): checking and copying the batch column by column on the
    // pool too shortens the stretch where nothing else can run.
    const bool fan_out = parallel_ && in_flight_.empty() && n >= kParallelFillRows && ncols > 1;
    if (fan_out) {
      std::vector<Status> statuses(ncols);
      pq::ParallelFor(options_.pool, static_cast<size_t>(options_.threads - 1), ncols,
                      [&](size_t c) {
                        statuses[c] =
                            pq::ValidateColumn(schema_.column(c), batch.column(c), first_row);
                      });
      for (size_t c = 0; c < ncols && s.ok(); ++c) s = statuses[c];  // first in column order
    } else {
      for (size_t c = 0; c < ncols && s.ok(); ++c) {
        s = pq::ValidateColumn(schema_.column(c), batch.column(c), first_row);
      }
    }
    if (!s.ok()) return Fail(s);
    const size_t row_bytes = n == 0 ? 1 : std::max<size_t>(1, batch.ByteSize() / n);
    size_t pos = 0;
    while (pos < n) {
      if (current_->rows == 0) ReserveRowGroup(batch, row_bytes);
      size_t take = std::min(n - pos, kSliceRows);
      take = std::min<uint64_t>(take, options_.row_group_rows - current_->rows);
      // Wide rows: slice so the row group ends near row_group_bytes.
      const uint64_t buffered = BufferedBytes();
      const uint64_t room = options_.row_group_bytes > buffered ? options_.row_group_bytes - buffered : 0;
      take = std::max<size_t>(1, std::min<uint64_t>(take, room / row_bytes + 1));
      auto append = [&](size_t c) {
        pq::AppendColumn(shared_->specs[c], schema_.column(c).type, batch.column(c), pos,
                         pos + take, &current_->columns[c]);
      };
      if (fan_out && in_flight_.empty() && take >= kParallelFillRows) {
        pq::ParallelFor(options_.pool, static_cast<size_t>(options_.threads - 1), ncols, append);
      } else {
        for (size_t c = 0; c < ncols; ++c) append(c);
      }
      current_->rows += take;
      pos += take;
      if (current_->rows >= options_.row_group_rows || BufferedBytes() >= options_.row_group_bytes) {
        LD_RETURN_IF_ERROR(Fail(FinishRowGroup()));
      }
    }
    return Status::OK();
  }

  void AddKeyValueMetadata(std::string key, std::string value) {
    options_.key_value_metadata.emplace_back(std::move(key), std::move(value));
  }

  Status Close() {
    if (!error_.ok()) return error_;
    if (closed_) return Status::OK();
    LD_RETURN_IF_ERROR(Fail(FinishRowGroup()));
    while (!in_flight_.empty()) LD_RETURN_IF_ERROR(Fail(FlushFront()));
    LD_RETURN_IF_ERROR(Fail(WriteMagicOnce()));
    pq::FileMetaData footer;
    footer.version = 1;
    footer.schema = pq::MakeSchemaElements(shared_->specs);
    footer.num_rows = static_cast<int64_t>(rows_written_);
    footer.row_groups = std::move(row_groups_);
    for (const auto& [k, v] : options_.key_value_metadata) footer.key_value_metadata.push_back({k, v});
    footer.created_by = CreatedBy();
    footer.column_orders.assign(shared_->specs.size(), true);
    std::string bytes;
    pq::EncodeFileMetaData(footer, &bytes);
    const uint32_t len = static_cast<uint32_t>(bytes.size());
    bytes.append(reinterpret_cast<const char*>(&len), 4);
    bytes.append(kMagic);
    LD_RETURN_IF_ERROR(Fail(sink_->Append(bytes)));
    closed_ = true;
    stats_.rows = rows_written_;
    stats_.bytes = sink_->bytes_written() - sink_start_;
    stats_.row_groups = footer.row_groups.size();
    footer_ = std::move(footer);
    return Status::OK();
  }

  const ParquetFileStats& stats() const { return stats_; }
  const pq::FileMetaData* footer() const { return footer_ ? &*footer_ : nullptr; }

  // What is buffered counts at the compression this file's written row groups
  // had (their bytes in the file over their bytes in memory): a file of
  // --file-size is that big on disk, not before compression.
  uint64_t EstimatedFileSize() const {
    const uint64_t written = sink_->bytes_written() - sink_start_;
    uint64_t pending = BufferedBytes();
    for (const auto& job : in_flight_) pending += job->bytes;
    if (flushed_input_bytes_ > 0) {
      pending = static_cast<uint64_t>(static_cast<double>(pending) *
                                      static_cast<double>(written) /
                                      static_cast<double>(flushed_input_bytes_));
    }
    return written + pending;
  }

  bool measured_compression() const { return flushed_input_bytes_ > 0; }

  Status FlushRowGroup() {
    if (!error_.ok()) return error_;
    LD_RETURN_IF_ERROR(Fail(FinishRowGroup()));
    while (!in_flight_.empty()) LD_RETURN_IF_ERROR(Fail(FlushFront()));
    return Status::OK();
  }

 private:
  Status Fail(Status s) {
    if (!s.ok() && error_.ok()) error_ = s;
    return s;
  }

  uint64_t stats_rows_in_buffers() const {
    uint64_t n = rows_written_ + current_->rows;
    for (const auto& job : in_flight_) n += job->rows;
    return n;
  }

  // Sizes the new row group's buffers for the rows it will likely hold, estimated
  // from `batch`, so that appending never grows them by doubling.
  void ReserveRowGroup(const RowBatch& batch, size_t row_bytes) {
    const size_t n = batch.num_rows();
    const uint64_t rows =
        std::min<uint64_t>(options_.row_group_rows, options_.row_group_bytes / row_bytes + 1);
    for (size_t c = 0; c < schema_.num_columns(); ++c) {
      const pq::ColumnSpec& spec = shared_->specs[c];
      const size_t width = ValueWidth(spec);
      const ColumnVector& col = batch.column(c);
      size_t arena = 0;
      if (width == 0 && n > 0) {
        const uint64_t per_row = col.arena_size() / n + 1;
        arena = static_cast<size_t>(std::min<uint64_t>(per_row * rows, options_.row_group_bytes));
      }
      current_->columns[c].Reserve(static_cast<size_t>(rows), width, width == 0, arena,
                                   spec.nullable);
    }
  }

  uint64_t BufferedBytes() const {
    uint64_t n = 0;
    for (const auto& c : current_->columns) n += c.ByteSize();
    return n;
  }

  std::unique_ptr<RowGroupJob> NewJob() {
    std::unique_ptr<RowGroupJob> job;
    if (!free_.empty()) {
      job = std::move(free_.back());
      free_.pop_back();
    } else {
      job = JobPool::Instance().Take();
      if (!job) job = std::make_unique<RowGroupJob>();
    }
    job->Reset(schema_.num_columns());
    return job;
  }

  Status FinishRowGroup() {
    if (current_->rows == 0) return Status::OK();
    current_->bytes = BufferedBytes();
    if (!parallel_) {
      current_->Start(*shared_, 1);
      current_->Finish();
      LD_RETURN_IF_ERROR(AppendRowGroup(*current_));
      current_->Reset(schema_.num_columns());
      return Status::OK();
    }
    // The row group's columns are encoded by `threads` lanes: pool threads
    // that are idle (or done with the row group before) take its columns,
    // and whatever no one took by the time the row group is due, the producer
    // encodes itself in FlushFront().
    const size_t lanes = std::min<size_t>(static_cast<size_t>(options_.threads),
                                          std::max<size_t>(1, schema_.num_columns()));
    std::shared_ptr<pq::LaneTickets> tickets = current_->Start(*shared_, lanes);
    for (size_t i = 0; i < lanes; ++i) {
      options_.pool->Submit([tickets, i] { tickets->RunIfUnclaimed(i); });
    }
    in_flight_.push_back(std::move(current_));
    // Then the row group before it is finished and written (lanes done with
    // it have already moved on to this one), and its buffers take the next
    // rows. Since every row group is encoded by all threads, one row group
    // encoding while the next fills is enough: 2 jobs per writer whatever
    // `threads`, where one per thread had to be filled (page faults) and held.
    Status s;
    while (in_flight_.size() > 1 && s.ok()) s = FlushFront();
    current_ = NewJob();
    return s;
  }

  Status FlushFront() {
    std::unique_ptr<RowGroupJob> job = std::move(in_flight_.front());
    in_flight_.pop_front();
    job->Finish();
    Status s = AppendRowGroup(*job);
    free_.push_back(std::move(job));
    return s;
  }

  Status WriteMagicOnce() {
    if (magic_written_) return Status::OK();
    sink_start_ = sink_->bytes_written();
    LD_RETURN_IF_ERROR(sink_->Append(kMagic));
    magic_written_ = true;
    return Status::OK();
  }

  // Appends the encoded chunks and records their metadata at their file offsets.
  Status AppendRowGroup(RowGroupJob& job) {
    LD_RETURN_IF_ERROR(job.status());
    LD_RETURN_IF_ERROR(WriteMagicOnce());
    flushed_input_bytes_ += job.bytes;
    pq::RowGroup group;
    group.num_rows = static_cast<int64_t>(job.rows);
    int64_t total_compressed = 0;
    for (const pq::EncodedChunk& chunk : job.chunks()) {
      const int64_t base = static_cast<int64_t>(sink_->bytes_written() - sink_start_);
      LD_RETURN_IF_ERROR(sink_->Append(chunk.bytes));
      pq::ColumnChunk cc;
      cc.file_offset = base;
      pq::ColumnMetaData meta = chunk.meta;
      meta.data_page_offset += base;
      if (meta.dictionary_page_offset) *meta.dictionary_page_offset += base;
      group.total_byte_size += meta.total_uncompressed_size;
      total_compressed += meta.total_compressed_size;
      cc.meta_data = std::move(meta);
      if (group.columns.empty()) group.file_offset = base;
      group.columns.push_back(std::move(cc));
    }
    group.total_compressed_size = total_compressed;
    group.ordinal = static_cast<int16_t>(row_groups_.size() & 0x7fff);
    row_groups_.push_back(std::move(group));
    rows_written_ += job.rows;
    sink_->MarkSectionEnd();  // a load stream reads (and checks) each row group on its own
    return Status::OK();
  }

  Schema schema_;
  ParquetWriterOptions options_;
  ByteSink* sink_;
  std::unique_ptr<const pq::EncodeContext> shared_;
  bool parallel_ = false;
  Status error_;
  bool closed_ = false;
  bool magic_written_ = false;
  uint64_t sink_start_ = 0;
  uint64_t rows_written_ = 0;
  uint64_t flushed_input_bytes_ = 0;  // in-memory bytes of the row groups written
  std::unique_ptr<RowGroupJob> current_;
  std::deque<std::unique_ptr<RowGroupJob>> in_flight_;  // started, in file order
  std::vector<std::unique_ptr<RowGroupJob>> free_;
  std::vector<pq::RowGroup> row_groups_;
  ParquetFileStats stats_;
  std::optional<pq::FileMetaData> footer_;  // set by Close()
};

ParquetWriter::ParquetWriter(Schema schema, ParquetWriterOptions options, ByteSink* sink)
    : impl_(std::make_unique<Impl>(std::move(schema), std::move(options), sink)) {}
ParquetWriter::~ParquetWriter() = default;
Status ParquetWriter::Write(const RowBatch& batch) { return impl_->Write(batch); }
Status ParquetWriter::Close() { return impl_->Close(); }

void ParquetWriter::AddKeyValueMetadata(std::string key, std::string value) {
  impl_->AddKeyValueMetadata(std::move(key), std::move(value));
}
const ParquetFileStats& ParquetWriter::stats() const { return impl_->stats(); }
const parquet::FileMetaData* ParquetWriter::footer() const { return impl_->footer(); }
uint64_t ParquetWriter::EstimatedFileSize() const { return impl_->EstimatedFileSize(); }
bool ParquetWriter::measured_compression() const { return impl_->measured_compression(); }
Status ParquetWriter::FlushRowGroup() { return impl_->FlushRowGroup(); }

}  // namespace lakedump
