#include "format/parquet/batch_append.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "base/utf8.h"
#include "table/temporal.h"

namespace lakedump::parquet {
namespace {

constexpr int64_t kMicrosPerDay = 86400LL * 1000000LL;


Status RowError(const Column& c, uint64_t row, std::string_view what) {
  return Status::InvalidArgument(fmt::format("column \"{}\", row {}: {}", c.name, row, what));
}

// The elements, as a column of their own; a message names the row holding the element.
Status ValidateListElements(const Column& column, const ColumnVector& col, uint64_t first_row) {
  const size_t n = col.size();
  const Column elements{column.name, column.type.ElementType(), column.type.element_nullable,
                        ""};
  Status s = ValidateColumn(elements, col.elements(), 0);
  if (s.ok()) return s;
  const uint64_t* off = col.offsets();
  size_t k = 0;  // the element the message names, from its "row N"
  const std::string& m = s.message();
  const size_t at = m.find(", row ", column.name.size() + 9);  // after `column "<name>"`
  if (at != std::string::npos) k = std::strtoull(m.c_str() + at + 6, nullptr, 10);
  const size_t row = static_cast<size_t>(std::upper_bound(off, off + n + 1, k) - off) - 1;
  const size_t colon = m.find(": ", at == std::string::npos ? 0 : at);
  return RowError(column, first_row + row,
                  fmt::format("element {} of the list: {}", k - off[row] + 1,
                              colon == std::string::npos ? m : m.substr(colon + 2)));
}

Status ValidateUtf8(const Column& column, const ColumnVector& col, uint64_t first_row) {
  const size_t n = col.size();
  // Fast: the whole arena at once; only if that fails, find the value.
  const std::string_view arena(reinterpret_cast<const char*>(col.arena()), col.arena_size());
  if (IsValidUtf8(arena)) {
    // A character can still straddle two values; check boundaries cheaply.
    const uint64_t* off = col.offsets();
    for (size_t i = 1; i < n; ++i) {
      const uint64_t o = off[i];
      if (o < arena.size() && (static_cast<uint8_t>(arena[o]) & 0xc0) == 0x80) {
        return RowError(column, first_row + i, "invalid UTF-8 text; use a binary column");
      }
    }
    return Status::OK();
  }
  for (size_t i = 0; i < n; ++i) {
    if (col.IsValid(i) && !IsValidUtf8(col.BytesAt(i))) {
      return RowError(column, first_row + i, "invalid UTF-8 text; use a binary column");
    }
  }
  return Status::OK();
}

Status ValidateDecimals(const Column& column, const ColumnVector& col, uint64_t first_row) {
  const size_t n = col.size();
  const int128_t limit = Pow10(column.type.precision);
  const int128_t* v = col.values<int128_t>();
  for (size_t i = 0; i < n; ++i) {
    if ((v[i] >= limit || v[i] <= -limit) && col.IsValid(i)) {
      return RowError(column, first_row + i,
                      fmt::format("decimal value {} does not fit decimal({},{})",
                                  FormatDecimal(v[i], column.type.scale),
                                  column.type.precision, column.type.scale));
    }
  }
  return Status::OK();
}

Status ValidateTimes(const Column& column, const ColumnVector& col, uint64_t first_row) {
  const size_t n = col.size();
  const int64_t* v = col.values<int64_t>();
  for (size_t i = 0; i < n; ++i) {
    // 24:00:00 itself is a valid time in SQL (PostgreSQL, DuckDB).
    if ((v[i] < 0 || v[i] > kMicrosPerDay) && col.IsValid(i)) {
      return RowError(column, first_row + i,
                      fmt::format("time {} microseconds is outside 00:00:00..24:00:00", v[i]));
    }
  }
  return Status::OK();
}

}  // namespace

Status ValidateColumn(const Column& column, const ColumnVector& col, uint64_t first_row) {
  const size_t n = col.size();
  if (!column.nullable && col.null_count() > 0) {
    for (size_t i = 0; i < n; ++i) {
      if (col.IsNull(i)) {
        return RowError(column, first_row + i,
                        "null in a NOT NULL column; declare the column nullable");
      }
    }
  }
  // One check per column type, each a loop over the batch's values.
  switch (column.type.id) {
    case TypeId::kList: return ValidateListElements(column, col, first_row);
    case TypeId::kString:
    case TypeId::kJson: return ValidateUtf8(column, col, first_row);
    case TypeId::kDecimal: return ValidateDecimals(column, col, first_row);
    case TypeId::kTime: return ValidateTimes(column, col, first_row);
    default: return Status::OK();
  }
}

namespace {

template <typename From, typename To>
void AppendConverted(const ColumnVector& col, size_t begin, size_t end, std::vector<uint8_t>* out) {
  const size_t at = out->size();
  out->resize(at + (end - begin) * sizeof(To));
  To* dst = reinterpret_cast<To*>(out->data() + at);
  const From* src = col.values<From>() + begin;
  for (size_t i = 0; i < end - begin; ++i) dst[i] = static_cast<To>(src[i]);
}

template <typename T>
void AppendRaw(const ColumnVector& col, size_t begin, size_t end, std::vector<uint8_t>* out) {
  const uint8_t* src = reinterpret_cast<const uint8_t*>(col.values<T>());
  out->insert(out->end(), src + begin * sizeof(T), src + end * sizeof(T));
}

}  // namespace

namespace {

size_t SlotWidth(const ColumnSpec& spec) {
  switch (spec.physical) {
    case Type::kBoolean: return 1;
    case Type::kInt32:
    case Type::kFloat: return 4;
    case Type::kInt64:
    case Type::kDouble: return 8;
    case Type::kFixedLenByteArray: return static_cast<size_t>(spec.type_length);
    case Type::kInt96: return 12;
    case Type::kByteArray: return 0;
  }
  return 0;
}

// A slot without a value (a null or empty list), at definition level `def`.
void AppendEmptySlot(const ColumnSpec& spec, uint8_t def, ColumnBuffer* buf) {
  if (buf->validity.empty()) buf->validity.assign(buf->rows, 1);
  buf->validity.push_back(0);
  ++buf->null_count;
  const size_t w = SlotWidth(spec);
  if (w == 0) {
    buf->offsets.push_back(buf->arena.size());
  } else {
    buf->data.insert(buf->data.end(), w, 0);
  }
  buf->rep_levels.push_back(0);
  buf->def_levels.push_back(def);
  ++buf->rows;
}

// Rows [begin, end) of list column `col` as level entries and leaf slots.
void AppendListColumn(const ColumnSpec& spec, const lakedump::LogicalType& type,
                      const ColumnVector& col, size_t begin, size_t end, ColumnBuffer* buf) {
  ColumnSpec leaf = spec;
  leaf.list = false;
  leaf.nullable = true;
  const ColumnVector& elements = col.elements();
  const lakedump::LogicalType element_type = type.ElementType();
  const uint64_t* off = col.offsets();
  const uint8_t list_def = spec.list_nullable ? 1 : 0;   // an empty list
  const uint8_t max_def = static_cast<uint8_t>(spec.max_def);
  // Elements of consecutive non-empty rows are contiguous: appended in runs.
  uint64_t run_begin = off[begin], run_end = off[begin];
  auto flush = [&] {
    if (run_end == run_begin) return;
    AppendColumn(leaf, element_type, elements, run_begin, run_end, buf);
    const uint8_t* valid = elements.validity();
    for (uint64_t k = run_begin; k < run_end; ++k) {
      buf->def_levels.push_back(valid == nullptr || valid[k] ? max_def : max_def - 1);
    }
    run_begin = run_end;
  };
  for (size_t i = begin; i < end; ++i) {
    const uint64_t from = off[i], to = off[i + 1];
    if (col.IsNull(i) || from == to) {
      flush();
      AppendEmptySlot(spec, col.IsNull(i) ? 0 : list_def, buf);
      run_begin = run_end = to;
      continue;
    }
    buf->rep_levels.push_back(0);
    buf->rep_levels.insert(buf->rep_levels.end(), to - from - 1, 1);
    run_end = to;
  }
  flush();
}

}  // namespace

void AppendColumn(const ColumnSpec& spec, const lakedump::LogicalType& type, const ColumnVector& col,
                  size_t begin, size_t end, ColumnBuffer* buf) {
  if (spec.list) {
    AppendListColumn(spec, type, col, begin, end, buf);
    return;
  }
  const size_t count = end - begin;
  // Validity first (only nullable columns keep it).
  if (spec.nullable) {
    const uint8_t* valid = col.validity();
    if (valid != nullptr) {
      if (buf->validity.empty()) buf->validity.assign(buf->rows, 1);
      buf->validity.insert(buf->validity.end(), valid + begin, valid + end);
      for (size_t i = begin; i < end; ++i) buf->null_count += valid[i] == 0;
    } else if (!buf->validity.empty()) {
      buf->validity.insert(buf->validity.end(), count, 1);
    }
  }
  switch (type.id) {
    case TypeId::kBool:
      AppendRaw<uint8_t>(col, begin, end, &buf->data);
      break;
    case TypeId::kInt8: AppendConverted<int8_t, int32_t>(col, begin, end, &buf->data); break;
    case TypeId::kInt16: AppendConverted<int16_t, int32_t>(col, begin, end, &buf->data); break;
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kFloat:
      AppendRaw<int32_t>(col, begin, end, &buf->data);
      break;
    case TypeId::kInt64:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kDouble:
      AppendRaw<int64_t>(col, begin, end, &buf->data);
      break;
    case TypeId::kUuid:
      AppendRaw<Uuid>(col, begin, end, &buf->data);
      break;
    case TypeId::kDecimal:
      if (spec.physical == Type::kInt32) {
        AppendConverted<int128_t, int32_t>(col, begin, end, &buf->data);
      } else if (spec.physical == Type::kInt64) {
        AppendConverted<int128_t, int64_t>(col, begin, end, &buf->data);
      } else {
        // Big-endian two's complement, the low type_length bytes of the int128.
        const size_t w = static_cast<size_t>(spec.type_length);
        const size_t at = buf->data.size();
        buf->data.resize(at + count * w);
        uint8_t* dst = buf->data.data() + at;
        const int128_t* src = col.values<int128_t>() + begin;
        for (size_t i = 0; i < count; ++i) {
          unsigned __int128 u = static_cast<unsigned __int128>(src[i]);
          for (size_t k = w; k-- > 0;) {
            dst[i * w + k] = static_cast<uint8_t>(u & 0xff);
            u >>= 8;
          }
        }
      }
      break;
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kJson: {
      const uint64_t* off = col.offsets();
      const uint64_t base = off[begin];
      const uint64_t shift = buf->arena.size();
      buf->arena.insert(buf->arena.end(), col.arena() + base, col.arena() + off[end]);
      const size_t at = buf->offsets.size();
      buf->offsets.resize(at + count);
      uint64_t* dst = buf->offsets.data() + at;
      for (size_t i = 0; i < count; ++i) dst[i] = off[begin + i + 1] - base + shift;
      break;
    }
    case TypeId::kList:  // handled above
      break;
  }
  buf->rows += count;
}

}  // namespace lakedump::parquet
