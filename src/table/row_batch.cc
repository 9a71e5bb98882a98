#include "table/row_batch.h"

#include <fmt/format.h>

namespace lakedump {

ColumnVector::ColumnVector(LogicalType type, bool nullable)
    : type_(type), nullable_(nullable), width_(FixedWidth(type.id)) {
  if (width_ == 0) offsets_.push_back(0);
  if (type.is_list()) {
    elements_ = std::make_unique<ColumnVector>(type.ElementType(), type.element_nullable);
  }
}

ColumnVector::ColumnVector(const ColumnVector& other)
    : type_(other.type_),
      nullable_(other.nullable_),
      width_(other.width_),
      size_(other.size_),
      null_count_(other.null_count_),
      data_(other.data_),
      offsets_(other.offsets_),
      arena_(other.arena_),
      validity_(other.validity_),
      elements_(other.elements_ ? std::make_unique<ColumnVector>(*other.elements_) : nullptr) {}

ColumnVector& ColumnVector::operator=(const ColumnVector& other) {
  if (this != &other) *this = ColumnVector(other);
  return *this;
}

void ColumnVector::Clear() {
  size_ = 0;
  null_count_ = 0;
  data_.clear();
  arena_.clear();
  validity_.clear();
  offsets_.clear();
  if (width_ == 0) offsets_.push_back(0);
  if (elements_) elements_->Clear();
}

void ColumnVector::Reserve(size_t rows, size_t arena_bytes) {
  if (width_ != 0) {
    data_.reserve(rows * width_);
  } else {
    offsets_.reserve(rows + 1);
    arena_.reserve(arena_bytes);
  }
}

void ColumnVector::AppendNull() {
  if (validity_.empty()) validity_.assign(size_, 1);
  if (width_ != 0) {
    data_.resize(data_.size() + width_, 0);
  } else {
    offsets_.push_back(elements_ ? elements_->size() : arena_.size());
  }
  validity_.push_back(0);
  ++null_count_;
  ++size_;
}

void ColumnVector::AppendFrom(const ColumnVector& src, size_t begin, size_t n) {
  assert(src.width_ == width_ && begin + n <= src.size_);
  if (n == 0) return;
  if (!src.validity_.empty()) {
    const uint8_t* v = src.validity_.data() + begin;
    size_t nulls = 0;
    for (size_t i = 0; i < n; ++i) nulls += v[i] == 0;
    // validity_ may be empty with size_ == 0 too: test the need, not the vector.
    if (nulls > 0 || !validity_.empty()) {
      if (validity_.empty()) validity_.assign(size_, 1);
      AppendRaw(&validity_, v, n);
    }
    null_count_ += nulls;
  } else if (!validity_.empty()) {
    AppendFill(&validity_, n, 1);
  }
  if (width_ != 0) {
    const uint8_t* d = src.data_.data() + begin * width_;
    AppendRaw(&data_, d, n * width_);
  } else if (elements_) {
    assert(src.elements_ != nullptr);
    const uint64_t from = src.offsets_[begin], to = src.offsets_[begin + n];
    const uint64_t base = elements_->size();
    elements_->AppendFrom(*src.elements_, from, to - from);
    const size_t at = offsets_.size();
    offsets_.resize(at + n);
    for (size_t i = 0; i < n; ++i) offsets_[at + i] = base + (src.offsets_[begin + i + 1] - from);
  } else {
    const uint64_t from = src.offsets_[begin], to = src.offsets_[begin + n];
    const uint64_t base = arena_.size();
    AppendRaw(&arena_, src.arena_.data() + from, to - from);
    const size_t at = offsets_.size();
    offsets_.resize(at + n);
    for (size_t i = 0; i < n; ++i) offsets_[at + i] = base + (src.offsets_[begin + i + 1] - from);
  }
  size_ += n;
}

void ColumnVector::AppendValidity(const uint8_t* valid, size_t n, size_t nulls) {
  if (valid != nullptr && (nulls > 0 || !validity_.empty())) {
    if (validity_.empty()) validity_.assign(size_, 1);
    AppendRaw(&validity_, valid, n);
  } else if (!validity_.empty()) {
    AppendFill(&validity_, n, 1);
  }
  null_count_ += nulls;
}

uint8_t* ColumnVector::AppendFixedSlots(size_t n, const uint8_t* valid, size_t nulls) {
  assert(width_ != 0);
  AppendValidity(valid, n, nulls);
  const size_t at = data_.size();
  data_.resize(at + n * width_);
  size_ += n;
  return data_.data() + at;
}

void ColumnVector::AppendBytesSpaced(const std::string_view* values, const uint8_t* valid,
                                     size_t n) {
  assert(width_ == 0);
  size_t nulls = 0;
  size_t k = 0;
  if (valid == nullptr) {
    k = n;
  } else {
    for (size_t i = 0; i < n; ++i) k += valid[i] != 0;
    nulls = n - k;
  }
  size_t bytes = 0;
  for (size_t j = 0; j < k; ++j) bytes += values[j].size();
  AppendValidity(valid, n, nulls);
  size_t apos = arena_.size();
  arena_.resize(apos + bytes);
  const size_t opos = offsets_.size();
  offsets_.resize(opos + n);
  uint8_t* arena = arena_.data();
  uint64_t* off = offsets_.data() + opos;
  size_t j = 0;
  for (size_t i = 0; i < n; ++i) {
    if (valid == nullptr || valid[i]) {
      const std::string_view v = values[j++];
      if (!v.empty()) std::memcpy(arena + apos, v.data(), v.size());
      apos += v.size();
    }
    off[i] = apos;
  }
  size_ += n;
}

void RowBatch::Reset(const Schema& schema) {
  columns_.clear();
  columns_.reserve(schema.num_columns());
  for (const Column& c : schema.columns()) columns_.emplace_back(c.type, c.nullable);
  rows_without_columns_ = 0;
}

void RowBatch::Clear() {
  for (auto& c : columns_) c.Clear();
  rows_without_columns_ = 0;
}

Status RowBatch::Validate(const Schema& schema) const {
  if (columns_.size() != schema.num_columns()) {
    return Status::InvalidArgument(fmt::format("batch has {} columns, schema has {}",
                                               columns_.size(), schema.num_columns()));
  }
  for (size_t i = 0; i < columns_.size(); ++i) {
    const Column& c = schema.column(i);
    if (!(columns_[i].type() == c.type)) {
      return Status::InvalidArgument(fmt::format("column \"{}\": batch type {} does not match schema type {}",
                                                 c.name, columns_[i].type().ToString(), c.type.ToString()));
    }
    if (columns_[i].size() != columns_[0].size()) {
      return Status::InvalidArgument(fmt::format("column \"{}\" has {} rows, column \"{}\" has {}", c.name,
                                                 columns_[i].size(), schema.column(0).name,
                                                 columns_[0].size()));
    }
  }
  return Status::OK();
}

size_t RowBatch::ByteSize() const {
  size_t n = 0;
  for (const auto& c : columns_) n += c.ByteSize();
  return n;
}

}  // namespace lakedump
