#include "format/parquet/batch_append.h"

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
  switch (column.type.id) {
    case TypeId::kString:
    case TypeId::kJson: {
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
        break;
      }
      for (size_t i = 0; i < n; ++i) {
        if (col.IsValid(i) && !IsValidUtf8(col.BytesAt(i))) {
          return RowError(column, first_row + i, "invalid UTF-8 text; use a binary column");
        }
      }
      break;
    }
    case TypeId::kDecimal: {
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
      break;
    }
    case TypeId::kTime: {
      const int64_t* v = col.values<int64_t>();
      for (size_t i = 0; i < n; ++i) {
        // 24:00:00 itself is a valid time in SQL (PostgreSQL, DuckDB).
        if ((v[i] < 0 || v[i] > kMicrosPerDay) && col.IsValid(i)) {
          return RowError(column, first_row + i,
                          fmt::format("time {} microseconds is outside 00:00:00..24:00:00",
                                      v[i]));
        }
      }
      break;
    }
    default:
      break;
  }
  return Status::OK();
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

void AppendColumn(const ColumnSpec& spec, const lakedump::LogicalType& type, const ColumnVector& col,
                  size_t begin, size_t end, ColumnBuffer* buf) {
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
  }
  buf->rows += count;
}

}  // namespace lakedump::parquet
