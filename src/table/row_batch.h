// ColumnVector: one column of a batch, columnar: fixed-width values (see
// types.h for the storage of each type), an optional validity vector, and for
// variable-length types an offsets array into a byte arena; for lists an
// offsets array into a child ColumnVector of the elements (elements()).
// RowBatch: a set of equally long columns matching a Schema.
//
// Ownership: a batch owns all its memory; Clear() keeps capacity so a source
// can refill the same batch without allocating. Not thread-safe.
#pragma once

#include <cassert>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "table/schema.h"

namespace lakedump {

// An allocator whose resize() leaves new elements uninitialized (no zero-fill of bytes that are
// about to be overwritten); value-initialization with an explicit value still works.
template <typename T>
struct DefaultInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  using std::allocator<T>::allocator;
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

class ColumnVector {
 public:
  ColumnVector(LogicalType type, bool nullable);
  // Copies are deep (a list's elements too).
  ColumnVector(const ColumnVector& other);
  ColumnVector& operator=(const ColumnVector& other);
  ColumnVector(ColumnVector&&) noexcept = default;
  ColumnVector& operator=(ColumnVector&&) noexcept = default;

  const LogicalType& type() const { return type_; }
  bool nullable() const { return nullable_; }
  size_t size() const { return size_; }
  size_t null_count() const { return null_count_; }

  // Empties the column, keeping its capacity.
  void Clear();
  void Reserve(size_t rows, size_t arena_bytes = 0);

  // Fixed-width types. REQUIRES: sizeof(T) == FixedWidth(type().id).
  template <typename T>
  void Append(const T& value) {
    assert(sizeof(T) == width_);
    AppendRaw(&data_, &value, sizeof(T));
    PushValid();
  }
  // Variable-length types (string, binary, json).
  void AppendBytes(std::string_view bytes) {
    assert(width_ == 0);
    AppendRaw(&arena_, bytes.data(), bytes.size());
    offsets_.push_back(arena_.size());
    PushValid();
  }
  // Lists: append the row's elements to elements(), then close the row with AppendList(); a
  // null list is AppendNull(). Row i's elements are elements()[offsets()[i], offsets()[i+1]).
  ColumnVector& elements() {
    assert(elements_ != nullptr);
    return *elements_;
  }
  const ColumnVector& elements() const {
    assert(elements_ != nullptr);
    return *elements_;
  }
  void AppendList() {
    assert(elements_ != nullptr);
    offsets_.push_back(elements_->size());
    PushValid();
  }
  // A null: a zero placeholder keeps positions aligned. Allowed on non-nullable
  // columns too; the writer reports it as an error naming the row.
  void AppendNull();
  // Appends rows [begin, begin+n) of `src` (values and nulls) in bulk: one copy per buffer.
  // REQUIRES: src has the same storage (FixedWidth) as this column; begin+n <= src.size().
  void AppendFrom(const ColumnVector& src, size_t begin, size_t n);

  // Bulk appends for decoders. Appends n rows, row i null iff valid != nullptr && valid[i] == 0
  // (`nulls` = how many), and returns where their n * FixedWidth(type) bytes go: the caller
  // writes every slot (a null's slot: zeros). REQUIRES: fixed-width type.
  uint8_t* AppendFixedSlots(size_t n, const uint8_t* valid, size_t nulls);
  // Appends n rows, nulls as above; values[k] is the k-th non-null row's value (compacted).
  // REQUIRES: variable-length type.
  void AppendBytesSpaced(const std::string_view* values, const uint8_t* valid, size_t n);

  bool IsValid(size_t i) const { return validity_.empty() || validity_[i] != 0; }
  bool IsNull(size_t i) const { return !IsValid(i); }
  // One byte per row (1 = valid), or nullptr when every row is valid.
  const uint8_t* validity() const { return validity_.empty() ? nullptr : validity_.data(); }

  template <typename T>
  const T* values() const {
    assert(sizeof(T) == width_);
    return reinterpret_cast<const T*>(data_.data());
  }
  template <typename T>
  T ValueAt(size_t i) const {
    T v;
    std::memcpy(&v, data_.data() + i * sizeof(T), sizeof(T));
    return v;
  }
  std::string_view BytesAt(size_t i) const {
    return std::string_view(reinterpret_cast<const char*>(arena_.data()) + offsets_[i],
                            offsets_[i + 1] - offsets_[i]);
  }
  // offsets()[i]..offsets()[i+1] delimit value i in arena() (lists: its elements in
  // elements()); size()+1 entries.
  const uint64_t* offsets() const { return offsets_.data(); }
  // Fixed-width types: size() * FixedWidth(type) bytes (null rows hold placeholders).
  const uint8_t* raw_values() const { return data_.data(); }
  const uint8_t* arena() const { return arena_.data(); }
  size_t arena_size() const { return arena_.size(); }

  // Approximate bytes held (for batch sizing).
  size_t ByteSize() const {
    return data_.size() + arena_.size() + offsets_.size() * 8 + validity_.size() +
           (elements_ ? elements_->ByteSize() : 0);
  }

 private:
  void PushValid() {
    if (!validity_.empty()) validity_.push_back(1);
    ++size_;
  }

  LogicalType type_;
  bool nullable_;
  size_t width_;
  size_t size_ = 0;
  size_t null_count_ = 0;
  void AppendValidity(const uint8_t* valid, size_t n, size_t nulls);

  template <typename T>
  using Buffer = std::vector<T, DefaultInitAllocator<T>>;
  // Appends n bytes: resize (no zero-fill, DefaultInitAllocator) then memcpy. Not insert():
  // with an allocator of its own, the vector's range insert copies one byte at a time.
  static void AppendRaw(Buffer<uint8_t>* v, const void* bytes, size_t n) {
    const size_t at = v->size();
    v->resize(at + n);
    if (n != 0) std::memcpy(v->data() + at, bytes, n);
  }
  static void AppendFill(Buffer<uint8_t>* v, size_t n, uint8_t value) {
    const size_t at = v->size();
    v->resize(at + n);
    if (n != 0) std::memset(v->data() + at, value, n);
  }
  Buffer<uint8_t> data_;       // fixed-width values
  Buffer<uint64_t> offsets_;   // variable-length: size_+1 entries, starts {0}
  Buffer<uint8_t> arena_;      // variable-length bytes
  Buffer<uint8_t> validity_;   // empty while no null has been appended
  std::unique_ptr<ColumnVector> elements_;  // lists only
};

class RowBatch {
 public:
  RowBatch() = default;
  explicit RowBatch(const Schema& schema) { Reset(schema); }

  // Replaces the columns with empty ones matching `schema`.
  void Reset(const Schema& schema);
  // Empties every column, keeping capacity.
  void Clear();

  size_t num_columns() const { return columns_.size(); }
  size_t num_rows() const { return columns_.empty() ? rows_without_columns_ : columns_[0].size(); }
  bool empty() const { return num_rows() == 0; }
  ColumnVector& column(size_t i) { return columns_[i]; }
  const ColumnVector& column(size_t i) const { return columns_[i]; }
  // For tables without columns, the row count is set directly.
  void set_num_rows_without_columns(size_t rows) { rows_without_columns_ = rows; }

  // The batch has one column per schema column, of the same type, all of equal length.
  Status Validate(const Schema& schema) const;
  size_t ByteSize() const;

 private:
  std::vector<ColumnVector> columns_;
  size_t rows_without_columns_ = 0;
};

}  // namespace lakedump
