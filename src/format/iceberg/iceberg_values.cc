#include "format/iceberg/iceberg_values.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "format/avro/avro_encoding.h"
#include "format/parquet/parquet_schema.h"

namespace lakedump::iceberg {
namespace {

template <typename T>
std::string LittleEndian(T v) {
  std::string s(sizeof(T), '\0');
  std::memcpy(s.data(), &v, sizeof(T));  // little-endian host
  return s;
}

template <typename T>
T FromLittleEndian(std::string_view s) {
  T v{};
  std::memcpy(&v, s.data(), std::min(sizeof(T), s.size()));
  return v;
}

int128_t FromBigEndian(std::string_view s) {
  if (s.empty()) return 0;
  // Sign-extend from the first byte, then shift the rest in.
  int128_t v = static_cast<int8_t>(s[0]);
  for (size_t i = 1; i < s.size(); ++i) v = v * 256 + static_cast<uint8_t>(s[i]);
  return v;
}

enum class Kind { kBool, kInt, kLong, kFloat, kDouble, kDecimal, kBytes };

Kind KindOf(TypeId id) {
  switch (id) {
    case TypeId::kBool: return Kind::kBool;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kDate: return Kind::kInt;
    case TypeId::kInt64:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: return Kind::kLong;
    case TypeId::kFloat: return Kind::kFloat;
    case TypeId::kDouble: return Kind::kDouble;
    case TypeId::kDecimal: return Kind::kDecimal;
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kJson:
    case TypeId::kUuid: return Kind::kBytes;
    case TypeId::kList: break;  // no bounds for lists (StatsFromParquetFooter keeps none)
  }
  return Kind::kBytes;
}

template <typename F>
int CompareFloats(F a, F b) {
  if (a < b) return -1;
  if (a > b) return 1;
  // Equal: -0.0 sorts before +0.0 (IEEE 754 totalOrder, as the spec asks).
  return static_cast<int>(std::signbit(b)) - static_cast<int>(std::signbit(a));
}

}  // namespace

std::string MinimalBigEndian(int128_t value) {
  std::string be(16, '\0');
  for (int i = 15; i >= 0; --i) {
    be[static_cast<size_t>(i)] = static_cast<char>(static_cast<uint8_t>(value & 0xff));
    value >>= 8;  // arithmetic shift keeps the sign
  }
  // Drop leading bytes that only repeat the sign of the next one.
  size_t start = 0;
  while (start < 15) {
    const uint8_t b = static_cast<uint8_t>(be[start]);
    const uint8_t next = static_cast<uint8_t>(be[start + 1]);
    if ((b == 0x00 && !(next & 0x80)) || (b == 0xff && (next & 0x80))) {
      ++start;
    } else {
      break;
    }
  }
  return be.substr(start);
}

std::optional<std::string> SingleValueAt(const ColumnVector& c, size_t i) {
  if (c.IsNull(i)) return std::nullopt;
  switch (c.type().id) {
    case TypeId::kBool: return std::string(1, c.ValueAt<uint8_t>(i) ? '\1' : '\0');
    case TypeId::kInt8: return LittleEndian<int32_t>(c.ValueAt<int8_t>(i));
    case TypeId::kInt16: return LittleEndian<int32_t>(c.ValueAt<int16_t>(i));
    case TypeId::kInt32:
    case TypeId::kDate: return LittleEndian<int32_t>(c.ValueAt<int32_t>(i));
    case TypeId::kInt64:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: return LittleEndian<int64_t>(c.ValueAt<int64_t>(i));
    case TypeId::kFloat: return LittleEndian<float>(c.ValueAt<float>(i));
    case TypeId::kDouble: return LittleEndian<double>(c.ValueAt<double>(i));
    case TypeId::kDecimal: return MinimalBigEndian(c.ValueAt<int128_t>(i));
    case TypeId::kUuid: {
      const Uuid u = c.ValueAt<Uuid>(i);
      return std::string(reinterpret_cast<const char*>(u.bytes), 16);
    }
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kJson: return std::string(c.BytesAt(i));
    case TypeId::kList: break;  // no single value for a list
  }
  return std::nullopt;
}

Result<std::string> SingleValueFromParquetStat(const LogicalType& type, std::string_view stat) {
  auto bad = [&]() {
    return Status::Corruption("Parquet statistics value of " + std::to_string(stat.size()) +
                              " bytes does not fit type " + type.ToString());
  };
  switch (KindOf(type.id)) {
    case Kind::kBool:
      if (stat.size() != 1) return bad();
      return std::string(stat);
    case Kind::kInt:
    case Kind::kFloat:
      if (stat.size() != 4) return bad();
      return std::string(stat);
    case Kind::kLong:
    case Kind::kDouble:
      if (stat.size() != 8) return bad();
      return std::string(stat);
    case Kind::kDecimal:
      // INT32 / INT64 little-endian up to 18 digits, else big-endian FIXED_LEN_BYTE_ARRAY.
      if (type.precision <= 9) {
        if (stat.size() != 4) return bad();
        return MinimalBigEndian(FromLittleEndian<int32_t>(stat));
      }
      if (type.precision <= 18) {
        if (stat.size() != 8) return bad();
        return MinimalBigEndian(FromLittleEndian<int64_t>(stat));
      }
      if (stat.size() != static_cast<size_t>(parquet::DecimalFixedBytes(type.precision))) {
        return bad();
      }
      return MinimalBigEndian(FromBigEndian(stat));
    case Kind::kBytes:
      if (type.id == TypeId::kUuid && stat.size() != 16) return bad();
      return std::string(stat);
  }
  return bad();
}

int CompareSingleValues(const LogicalType& type, std::string_view a, std::string_view b) {
  switch (KindOf(type.id)) {
    case Kind::kBool:
    case Kind::kBytes: {
      const int c = a.compare(b);  // std::char_traits<char> compares as unsigned char
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case Kind::kInt: {
      const int32_t x = FromLittleEndian<int32_t>(a), y = FromLittleEndian<int32_t>(b);
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    case Kind::kLong: {
      const int64_t x = FromLittleEndian<int64_t>(a), y = FromLittleEndian<int64_t>(b);
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    case Kind::kFloat: return CompareFloats(FromLittleEndian<float>(a), FromLittleEndian<float>(b));
    case Kind::kDouble:
      return CompareFloats(FromLittleEndian<double>(a), FromLittleEndian<double>(b));
    case Kind::kDecimal: {
      const int128_t x = FromBigEndian(a), y = FromBigEndian(b);
      return x < y ? -1 : (x > y ? 1 : 0);
    }
  }
  return 0;
}

void AppendAvroValue(const LogicalType& type, std::string_view v, std::string* out) {
  switch (KindOf(type.id)) {
    case Kind::kBool: avro::AppendBoolean(!v.empty() && v[0] != 0, out); return;
    case Kind::kInt: avro::AppendInt(FromLittleEndian<int32_t>(v), out); return;
    case Kind::kLong: avro::AppendLong(FromLittleEndian<int64_t>(v), out); return;
    case Kind::kFloat:
    case Kind::kDouble: out->append(v); return;  // Avro float/double are IEEE little-endian too
    case Kind::kDecimal: {
      const size_t size = static_cast<size_t>(parquet::DecimalFixedBytes(type.precision));
      const char fill = (!v.empty() && (static_cast<uint8_t>(v[0]) & 0x80)) ? '\xff' : '\0';
      out->append(size > v.size() ? size - v.size() : 0, fill);
      out->append(v);
      return;
    }
    case Kind::kBytes:
      if (type.id == TypeId::kUuid) {
        avro::AppendFixed(v, out);
      } else {
        avro::AppendBytes(v, out);
      }
      return;
  }
}

}  // namespace lakedump::iceberg
