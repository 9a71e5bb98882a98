#include "dump/iceberg/compact_key_order.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <numeric>
#include <string_view>
#include <utility>

#include "base/temp_file.h"
#include "dump/iceberg/key_index.h"
#include "format/parquet/parquet_writer.h"

namespace lakedump {
// Named, not anonymous: KeyOrderedRows' nested types (declared in the header) hold these, and
// GCC's -Wsubobject-linkage refuses an anonymous type there once a unity build includes this file.
namespace key_order_internal {

constexpr size_t kBatchRows = 8192;
// The temporary files' row groups: a merge holds one of each source it reads.
constexpr uint64_t kTemporaryRowGroupRows = 8192;

// An unnamed temporary file (base/temp_file.h) written once, then read at any offset.
class TemporaryFile final : public ByteSink {
 public:
  static Result<std::shared_ptr<TemporaryFile>> Create() {
    const int fd = CreateUnnamedTempFile();
    if (fd < 0) return Status::IOError("cannot create a temporary file to sort the rows in");
    return std::shared_ptr<TemporaryFile>(new TemporaryFile(fd));
  }
  ~TemporaryFile() override { ::close(fd_); }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  Status Append(std::string_view data) override {
    while (!data.empty()) {
      const ssize_t n = ::write(fd_, data.data(), data.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return Status::IOError("cannot write a temporary file to sort the rows in");
      data.remove_prefix(static_cast<size_t>(n));
      size_ += static_cast<uint64_t>(n);
    }
    return Status::OK();
  }
  uint64_t bytes_written() const override { return size_; }

  Status ReadAt(uint64_t offset, uint64_t len, std::string* out) const {
    out->resize(len);
    size_t done = 0;
    while (done < len) {
      const ssize_t n = ::pread(fd_, out->data() + done, len - done,
                                static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return Status::IOError("cannot read back a temporary file of sorted rows");
      done += static_cast<size_t>(n);
    }
    return Status::OK();
  }

 private:
  explicit TemporaryFile(int fd) : fd_(fd) {}
  int fd_;
  uint64_t size_ = 0;
};

// The keys of a batch's rows, their bytes one after another.
class BatchKeys {
 public:
  Status Encode(const RowBatch& rows, const std::vector<size_t>& columns,
                const IndexKeyOrder& order) {
    bytes_.clear();
    ends_.clear();
    for (size_t r = 0; r < rows.num_rows(); ++r) {
      LD_RETURN_IF_ERROR(EncodeIndexKey(rows, columns, r, &bytes_));
      ends_.push_back(bytes_.size());
      LD_RETURN_IF_ERROR(order.Check(key(r)));
    }
    return Status::OK();
  }
  std::string_view key(size_t r) const {
    const size_t begin = r == 0 ? 0 : ends_[r - 1];
    return std::string_view(bytes_).substr(begin, ends_[r] - begin);
  }
  size_t size() const { return ends_.size(); }

 private:
  std::string bytes_;
  std::vector<size_t> ends_;
};

// Sorted rows into a temporary Parquet file of small row groups, a slice of rows at a time.
class TemporaryRunWriter {
 public:
  static Result<std::unique_ptr<TemporaryRunWriter>> Create(const Schema& schema) {
    LD_ASSIGN_OR_RETURN(auto file, TemporaryFile::Create());
    return std::unique_ptr<TemporaryRunWriter>(new TemporaryRunWriter(schema, std::move(file)));
  }
  Status Append(const RowBatch& rows, size_t begin, size_t n) {
    for (size_t j = 0; j < slice_.num_columns(); ++j) {
      slice_.column(j).AppendFrom(rows.column(j), begin, n);
    }
    return slice_.num_rows() >= kBatchRows ? WriteSlice() : Status::OK();
  }
  Result<std::shared_ptr<TemporaryFile>> Finish() {
    LD_RETURN_IF_ERROR(WriteSlice());
    LD_RETURN_IF_ERROR(writer_.Close());
    return file_;
  }

 private:
  TemporaryRunWriter(const Schema& schema, std::shared_ptr<TemporaryFile> file)
      : file_(std::move(file)), writer_(schema, Options(), file_.get()), slice_(schema) {}
  static ParquetWriterOptions Options() {
    ParquetWriterOptions options;
    options.row_group_rows = kTemporaryRowGroupRows;
    options.dictionary = false;
    options.codec = CodecKind::kNone;  // read once, soon: compressing costs more than it saves
    return options;
  }
  Status WriteSlice() {
    if (slice_.empty()) return Status::OK();
    Status s = writer_.Write(slice_);
    slice_.Clear();
    return s;
  }

  std::shared_ptr<TemporaryFile> file_;
  ParquetWriter writer_;
  RowBatch slice_;
};

}  // namespace key_order_internal

// A sorted source of the merge: a data file read as it is, or a temporary file of sorted rows.
struct KeyOrderedRows::Source {
  std::string key;  // the data file's (empty for a temporary file)
  const std::vector<int64_t>* deleted = nullptr;
  std::shared_ptr<key_order_internal::TemporaryFile> temporary;
  uint64_t rows = 0;  // its surviving rows
};

Result<std::unique_ptr<SurvivingRows>> SurvivingRows::Open(ObjectStore& store,
                                                           const std::string& key,
                                                           const Schema& schema,
                                                           const std::vector<int64_t>* deleted) {
  std::vector<std::string> names;
  for (const Column& c : schema.columns()) names.push_back(c.name);
  std::unique_ptr<ObjectReader> holder;
  LD_ASSIGN_OR_RETURN(auto reader, OpenStoredParquet(store, key, names, &holder));
  for (size_t j = 0; j < schema.num_columns(); ++j) {
    if (reader->schema().column(j).type != schema.column(j).type) {
      return Status::InvalidArgument(fmt::format("its data file {} has another type for column {}",
                                                 key, schema.column(j).name));
    }
  }
  return std::make_unique<SurvivingRows>(std::move(holder), std::move(reader), deleted);
}

SurvivingRows::SurvivingRows(std::unique_ptr<ObjectReader> holder,
                             std::unique_ptr<ParquetReader> reader,
                             const std::vector<int64_t>* deleted)
    : holder_(std::move(holder)), reader_(std::move(reader)), deleted_(deleted) {
  if (deleted_ != nullptr) next_deleted_ = deleted_->begin();
}

SurvivingRows::~SurvivingRows() = default;

Status SurvivingRows::Next(RowBatch* out) {
  for (;;) {
    LD_RETURN_IF_ERROR(reader_->Next(key_order_internal::kBatchRows, &read_));
    const int64_t n = static_cast<int64_t>(read_.num_rows());
    if (n == 0) {
      out->Clear();
      return Status::OK();
    }
    const int64_t end = pos_ + n;
    if (deleted_ == nullptr || next_deleted_ == deleted_->end() || *next_deleted_ >= end) {
      pos_ = end;
      std::swap(*out, read_);  // nothing deleted in this batch
      return Status::OK();
    }
    // Runs of surviving rows, copied column by column.
    if (out->num_columns() != read_.num_columns()) {
      out->Reset(reader_->schema());
    } else {
      out->Clear();
    }
    while (pos_ < end) {
      while (next_deleted_ != deleted_->end() && *next_deleted_ < pos_) ++next_deleted_;
      if (next_deleted_ != deleted_->end() && *next_deleted_ == pos_) {
        ++pos_;
        continue;
      }
      const int64_t stop =
          next_deleted_ == deleted_->end() ? end : std::min<int64_t>(end, *next_deleted_);
      const size_t begin = static_cast<size_t>(pos_ - (end - n));
      for (size_t j = 0; j < read_.num_columns(); ++j) {
        out->column(j).AppendFrom(read_.column(j), begin, static_cast<size_t>(stop - pos_));
      }
      pos_ = stop;
    }
    if (!out->empty()) return Status::OK();
  }
}

KeyOrderedRows::KeyOrderedRows(ObjectStore& store, const Schema& schema,
                               std::vector<size_t> key_columns, size_t memory_bytes)
    : store_(store), schema_(schema), key_columns_(std::move(key_columns)),
      order_(schema_, key_columns_), memory_bytes_(memory_bytes) {}

KeyOrderedRows::~KeyOrderedRows() = default;

Status KeyOrderedRows::AddFile(const std::string& key, const std::vector<int64_t>* deleted) {
  uint64_t rows = 0;
  LD_ASSIGN_OR_RETURN(bool in_order, InKeyOrder(key, deleted, &rows));
  if (in_order) {
    ++files_in_order_;
    sources_.push_back(Source{key, deleted, nullptr, rows});
    return Status::OK();
  }
  ++files_sorted_;
  return SortFile(key, deleted);
}

// Whether the file's surviving rows come in key order, each key after the one before: its key
// columns read alone. *rows: how many it has (when they are in order).
Result<bool> KeyOrderedRows::InKeyOrder(const std::string& key,
                                        const std::vector<int64_t>* deleted, uint64_t* rows) {
  std::vector<Column> columns;
  for (size_t c : key_columns_) columns.push_back(schema_.column(c));
  const Schema keys_only(std::move(columns));
  std::vector<size_t> all(key_columns_.size());
  std::iota(all.begin(), all.end(), size_t{0});
  LD_ASSIGN_OR_RETURN(auto reader, SurvivingRows::Open(store_, key, keys_only, deleted));
  RowBatch batch;
  key_order_internal::BatchKeys keys;
  std::string last;
  bool first = true;
  for (;;) {
    LD_RETURN_IF_ERROR(reader->Next(&batch));
    if (batch.empty()) return true;
    *rows += batch.num_rows();
    LD_RETURN_IF_ERROR(keys.Encode(batch, all, order_).WithContext(key));
    for (size_t r = 0; r < keys.size(); ++r) {
      if (!first && order_.Compare(last, keys.key(r)) >= 0) return false;
      first = false;
      last.assign(keys.key(r));
    }
  }
}

// The file's surviving rows sorted a chunk of at most memory_bytes_ at a time, each chunk
// into a temporary file of its own.
Status KeyOrderedRows::SortFile(const std::string& key, const std::vector<int64_t>* deleted) {
  LD_ASSIGN_OR_RETURN(auto rows, SurvivingRows::Open(store_, key, schema_, deleted));
  RowBatch chunk(schema_);
  RowBatch batch;
  for (;;) {
    LD_RETURN_IF_ERROR(rows->Next(&batch));
    if (!batch.empty()) {
      for (size_t j = 0; j < schema_.num_columns(); ++j) {
        chunk.column(j).AppendFrom(batch.column(j), 0, batch.num_rows());
      }
    }
    if (!chunk.empty() && (batch.empty() || chunk.ByteSize() >= memory_bytes_)) {
      LD_RETURN_IF_ERROR(SpillSorted(chunk).WithContext(key));
      chunk.Clear();
    }
    if (batch.empty()) return Status::OK();
  }
}

Status KeyOrderedRows::SpillSorted(const RowBatch& chunk) {
  key_order_internal::BatchKeys keys;
  LD_RETURN_IF_ERROR(keys.Encode(chunk, key_columns_, order_));
  std::vector<uint32_t> by_key(chunk.num_rows());
  std::iota(by_key.begin(), by_key.end(), uint32_t{0});
  std::sort(by_key.begin(), by_key.end(), [&](uint32_t a, uint32_t b) {
    return order_.Compare(keys.key(a), keys.key(b)) < 0;
  });
  LD_ASSIGN_OR_RETURN(auto out, key_order_internal::TemporaryRunWriter::Create(schema_));
  for (size_t i = 0; i < by_key.size();) {
    // Rows that follow each other in the chunk too are copied as one range.
    size_t n = 1;
    while (i + n < by_key.size() && by_key[i + n] == by_key[i] + n) ++n;
    LD_RETURN_IF_ERROR(out->Append(chunk, by_key[i], n));
    i += n;
  }
  LD_ASSIGN_OR_RETURN(auto file, out->Finish());
  ++temporary_files_;
  sources_.push_back(Source{"", nullptr, std::move(file), chunk.num_rows()});
  return Status::OK();
}

Result<std::unique_ptr<SurvivingRows>> KeyOrderedRows::OpenSource(const Source& s) {
  if (s.temporary == nullptr) return SurvivingRows::Open(store_, s.key, schema_, s.deleted);
  std::shared_ptr<key_order_internal::TemporaryFile> file = s.temporary;
  ParquetReaderOptions options;
  options.name = "a temporary file of sorted rows";
  LD_ASSIGN_OR_RETURN(
      auto reader,
      ParquetReader::Open(
          file->bytes_written(),
          [file](uint64_t offset, uint64_t len, std::string* out) {
            return file->ReadAt(offset, len, out);
          },
          options));
  return std::make_unique<SurvivingRows>(nullptr, std::move(reader), nullptr);
}

// Merges sorted sources: each step takes from the source whose next key is least the rows
// that come before every other source's next key, as one range.
class KeyOrderedRows::Merger {
 public:
  explicit Merger(const KeyOrderedRows& owner) : owner_(owner) {}

  Status Add(std::unique_ptr<SurvivingRows> rows, std::string name) {
    heads_.push_back(Head{std::move(rows), std::move(name)});
    return Load(&heads_.back());
  }

  Status Run(const Emit& emit) {
    for (;;) {
      Head* least = nullptr;
      Head* second = nullptr;
      for (Head& h : heads_) {
        if (h.batch.empty()) continue;
        if (least == nullptr || Less(h, *least)) {
          second = least;
          least = &h;
        } else if (second == nullptr || Less(h, *second)) {
          second = &h;
        }
      }
      if (least == nullptr) return Status::OK();
      size_t end = least->batch.num_rows();
      if (second != nullptr) {
        const std::string_view bound = second->keys.key(second->at);
        if (owner_.order_.Compare(least->keys.key(least->at), bound) == 0) {
          return Status::Corruption(fmt::format("two live rows have the same key ({} and {})",
                                                least->name, second->name));
        }
        end = FirstNotBefore(*least, bound);
      }
      LD_RETURN_IF_ERROR(emit(least->batch, least->at, end - least->at));
      least->at = end;
      if (end == least->batch.num_rows()) LD_RETURN_IF_ERROR(Load(least));
    }
  }

 private:
  struct Head {
    std::unique_ptr<SurvivingRows> rows;
    std::string name;
    RowBatch batch;
    key_order_internal::BatchKeys keys;
    size_t at = 0;
    std::string last;  // the key of the batch before's last row (a key is never empty)
  };

  bool Less(const Head& a, const Head& b) const {
    return owner_.order_.Compare(a.keys.key(a.at), b.keys.key(b.at)) < 0;
  }

  // The first row of h's batch from h.at on whose key is `bound` or after it.
  size_t FirstNotBefore(const Head& h, std::string_view bound) const {
    size_t lo = h.at + 1, hi = h.batch.num_rows();
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (owner_.order_.Compare(h.keys.key(mid), bound) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  // The source's next batch and its keys, checked to be in key order.
  Status Load(Head* h) {
    if (!h->batch.empty()) h->last.assign(h->keys.key(h->batch.num_rows() - 1));
    LD_RETURN_IF_ERROR(h->rows->Next(&h->batch));
    h->at = 0;
    LD_RETURN_IF_ERROR(h->keys.Encode(h->batch, owner_.key_columns_, owner_.order_)
                           .WithContext(h->name));
    for (size_t r = 0; r < h->keys.size(); ++r) {
      const std::string_view before = r == 0 ? std::string_view(h->last) : h->keys.key(r - 1);
      if ((r > 0 || !h->last.empty()) && owner_.order_.Compare(before, h->keys.key(r)) >= 0) {
        return Status::Corruption(
            fmt::format("{}: its rows are not in key order (it changed while compact read it?)",
                        h->name));
      }
    }
    return Status::OK();
  }

  const KeyOrderedRows& owner_;
  std::vector<Head> heads_;
};

Status KeyOrderedRows::Merge(const std::vector<Source>& sources, const Emit& emit) {
  Merger merger(*this);
  for (const Source& s : sources) {
    LD_ASSIGN_OR_RETURN(auto rows, OpenSource(s));
    LD_RETURN_IF_ERROR(
        merger.Add(std::move(rows), s.key.empty() ? "a temporary file of sorted rows" : s.key));
  }
  return merger.Run(emit);
}

Status KeyOrderedRows::Finish(const Emit& emit) {
  std::vector<Source> sources = std::move(sources_);
  sources_.clear();
  // Too many sources to read at once: the smallest merged into a temporary file, in turn, so
  // that the big ones (a base's files) are read once, by the last merge.
  auto larger = [](const Source& a, const Source& b) { return a.rows > b.rows; };
  std::make_heap(sources.begin(), sources.end(), larger);
  while (sources.size() > kMaxMergeWidth) {
    std::vector<Source> group;
    uint64_t rows = 0;
    while (group.size() < kMaxMergeWidth) {
      std::pop_heap(sources.begin(), sources.end(), larger);
      rows += sources.back().rows;
      group.push_back(std::move(sources.back()));
      sources.pop_back();
    }
    LD_ASSIGN_OR_RETURN(auto out, key_order_internal::TemporaryRunWriter::Create(schema_));
    LD_RETURN_IF_ERROR(Merge(group, [&](const RowBatch& batch, size_t begin, size_t n) {
      return out->Append(batch, begin, n);
    }));
    LD_ASSIGN_OR_RETURN(auto file, out->Finish());
    ++temporary_files_;
    sources.push_back(Source{"", nullptr, std::move(file), rows});
    std::push_heap(sources.begin(), sources.end(), larger);
  }
  return Merge(sources, emit);
}

}  // namespace lakedump
