// The binary COPY form of single values and of lists as one-dimensional arrays (array_send).
// Declared in pg_copy_encoder.h. The column encoder writes whole blocks of fixed-size columns
// itself; these write one value at a time: the elements of an array, and numerics.
#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <limits>

#include "load/postgres/pg_copy_encoder.h"

namespace lakedump {
namespace {

inline void AppendBe32(uint32_t v, std::string* out) {
  const uint32_t be = __builtin_bswap32(v);
  out->append(reinterpret_cast<const char*>(&be), 4);
}
inline void AppendBe64(uint64_t v, std::string* out) {
  const uint64_t be = __builtin_bswap64(v);
  out->append(reinterpret_cast<const char*>(&be), 8);
}

int64_t ArrayIntegerAt(const ColumnVector& col, size_t row) {
  switch (col.type().id) {
    case TypeId::kInt8: return col.ValueAt<int8_t>(row);
    case TypeId::kInt16: return col.ValueAt<int16_t>(row);
    case TypeId::kInt32: return col.ValueAt<int32_t>(row);
    default: return col.ValueAt<int64_t>(row);
  }
}

// kInt2, kInt4, kInt8 and kOid, range-checked as the column encoder checks them.
Status AppendBinaryInteger(int64_t v, PgEncoding e, std::string* out) {
  int64_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
  int width = 4;
  if (e == PgEncoding::kInt2) {
    lo = std::numeric_limits<int16_t>::min();
    hi = std::numeric_limits<int16_t>::max();
    width = 2;
  } else if (e == PgEncoding::kOid) {
    lo = 0;
    hi = std::numeric_limits<uint32_t>::max();
  } else if (e == PgEncoding::kInt8) {
    lo = std::numeric_limits<int64_t>::min();
    hi = std::numeric_limits<int64_t>::max();
    width = 8;
  }
  if (v < lo || v > hi) {
    return Status::InvalidArgument(
        fmt::format("value {} is out of range for the target column", v));
  }
  AppendBe32(static_cast<uint32_t>(width), out);
  if (width == 2) {
    const uint16_t be = __builtin_bswap16(static_cast<uint16_t>(v));
    out->append(reinterpret_cast<const char*>(&be), 2);
  } else if (width == 4) {
    AppendBe32(static_cast<uint32_t>(v), out);
  } else {
    AppendBe64(static_cast<uint64_t>(v), out);
  }
  return Status::OK();
}

// text, bytea and jsonb (a version byte before the text).
void AppendBinaryBytes(std::string_view bytes, bool jsonb, std::string* out) {
  AppendBe32(static_cast<uint32_t>(bytes.size() + (jsonb ? 1 : 0)), out);
  if (jsonb) out->push_back('\1');
  out->append(bytes);
}

}  // namespace

Status AppendPgBinaryValue(const ColumnVector& col, size_t row, PgEncoding e, std::string* out) {
  const TypeId from = col.type().id;
  switch (e) {
    case PgEncoding::kBool:
      AppendBe32(1, out);
      out->push_back(col.ValueAt<uint8_t>(row) ? '\1' : '\0');
      return Status::OK();
    case PgEncoding::kInt2:
    case PgEncoding::kInt4:
    case PgEncoding::kInt8:
    case PgEncoding::kOid: return AppendBinaryInteger(ArrayIntegerAt(col, row), e, out);
    case PgEncoding::kFloat4:
      AppendBe32(4, out);
      AppendBe32(std::bit_cast<uint32_t>(col.ValueAt<float>(row)), out);
      return Status::OK();
    case PgEncoding::kFloat8: {
      const double v = from == TypeId::kFloat ? col.ValueAt<float>(row) : col.ValueAt<double>(row);
      AppendBe32(8, out);
      AppendBe64(std::bit_cast<uint64_t>(v), out);
      return Status::OK();
    }
    case PgEncoding::kNumeric:
      if (from == TypeId::kDecimal) {
        AppendPgNumericFromDecimal(col.ValueAt<int128_t>(row), col.type().scale, out);
        return Status::OK();
      }
      if (from == TypeId::kString) return AppendPgNumericFromText(col.BytesAt(row), out);
      AppendPgNumericFromDecimal(ArrayIntegerAt(col, row), 0, out);
      return Status::OK();
    case PgEncoding::kText:
    case PgEncoding::kBytea:
    case PgEncoding::kJsonb:
      AppendBinaryBytes(col.BytesAt(row), e == PgEncoding::kJsonb, out);
      return Status::OK();
    case PgEncoding::kDate:
      AppendBe32(4, out);
      AppendBe32(static_cast<uint32_t>(PgDate(col.ValueAt<int32_t>(row))), out);
      return Status::OK();
    case PgEncoding::kTime:
      AppendBe32(8, out);
      AppendBe64(static_cast<uint64_t>(col.ValueAt<int64_t>(row)), out);
      return Status::OK();
    case PgEncoding::kTimestamp: {
      int64_t pg = 0;
      if (!PgTimestamp(col.ValueAt<int64_t>(row), &pg)) {
        return Status::InvalidArgument("timestamp before 4713 BC");
      }
      AppendBe32(8, out);
      AppendBe64(static_cast<uint64_t>(pg), out);
      return Status::OK();
    }
    case PgEncoding::kUuid:
      AppendBe32(16, out);
      out->append(reinterpret_cast<const char*>(col.ValueAt<Uuid>(row).bytes), 16);
      return Status::OK();
    case PgEncoding::kArray:
    case PgEncoding::kAsText:
    case PgEncoding::kArrayAsText: break;
  }
  return Status::Internal("AppendPgBinaryValue of an encoding without a binary form");
}

Status AppendPgArraySend(const ColumnVector& col, size_t row, PgEncoding element,
                         uint32_t element_oid, std::string* out) {
  const ColumnVector& elements = col.elements();
  const uint64_t begin = col.offsets()[row], end = col.offsets()[row + 1];
  if (end - begin > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
    return Status::InvalidArgument(fmt::format("array of {} elements", end - begin));
  }
  bool has_null = false;
  for (uint64_t k = begin; k < end && !has_null; ++k) has_null = elements.IsNull(k);
  const size_t start = out->size();
  AppendBe32(0, out);  // the field's length, set below
  AppendBe32(begin == end ? 0 : 1, out);  // ndim: an empty array has none
  AppendBe32(has_null ? 1 : 0, out);
  AppendBe32(element_oid, out);
  if (begin != end) {
    AppendBe32(static_cast<uint32_t>(end - begin), out);
    AppendBe32(1, out);  // the lower bound: every list was an array from 1 (the dump's rule)
  }
  for (uint64_t k = begin; k < end; ++k) {
    if (elements.IsNull(k)) {
      AppendBe32(0xffffffffu, out);
      continue;
    }
    Status s = AppendPgBinaryValue(elements, k, element, out);
    if (!s.ok()) {
      out->resize(start);
      return Status::InvalidArgument(
          fmt::format("array element {}: {}", k - begin + 1, s.message()));
    }
  }
  const size_t length = out->size() - start - 4;
  if (length > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    out->resize(start);
    return Status::InvalidArgument(fmt::format("array of {} bytes", length));
  }
  const uint32_t be = __builtin_bswap32(static_cast<uint32_t>(length));
  std::memcpy(out->data() + start, &be, 4);
  return Status::OK();
}

}  // namespace lakedump
