// LogicalType: the column types lakedump moves between databases and Parquet,
// and how each is held in memory (see ColumnVector). Values; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace lakedump {

// In-memory storage per type (ColumnVector):
//   kBool: uint8_t 0/1          kInt8: int8_t     kInt16: int16_t
//   kInt32: int32_t             kInt64: int64_t   kFloat: float   kDouble: double
//   kDecimal: __int128, the unscaled value (value = unscaled * 10^-scale)
//   kDate: int32_t days since 1970-01-01 (proleptic Gregorian)
//   kTime: int64_t microseconds since midnight
//   kTimestamp, kTimestampTz: int64_t microseconds since 1970-01-01 00:00:00 (UTC for Tz)
//   kUuid: 16 bytes, big-endian as in RFC 4122 (struct Uuid)
//   kString (UTF-8), kBinary, kJson (UTF-8 text): variable length, offsets + arena
//   kList: a list of one scalar element type (LogicalType::element); offsets into a child
//          ColumnVector of the elements (ColumnVector::elements()), which has its own validity
enum class TypeId : uint8_t {
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kFloat,
  kDouble,
  kDecimal,
  kString,
  kBinary,
  kDate,
  kTime,
  kTimestamp,
  kTimestampTz,
  kUuid,
  kJson,
  kList,
};

using int128_t = __int128;

struct Uuid {
  uint8_t bytes[16];
};

inline constexpr int kMaxDecimalPrecision = 38;

struct LogicalType {
  TypeId id = TypeId::kInt64;
  int precision = 0;  // kDecimal, and kList of kDecimal: 1..38
  int scale = 0;      // kDecimal, and kList of kDecimal: 0..precision
  TypeId element = TypeId::kInt64;  // kList only: the element type, a scalar (never kList)
  bool element_nullable = true;     // kList only: elements may be null

  static LogicalType Of(TypeId id) { return LogicalType{id, 0, 0}; }
  static LogicalType Decimal(int precision, int scale) {
    return LogicalType{TypeId::kDecimal, precision, scale};
  }
  // REQUIRES: element is not a list.
  static LogicalType List(const LogicalType& element, bool element_nullable) {
    return LogicalType{TypeId::kList, element.precision, element.scale, element.id,
                       element_nullable};
  }
  bool is_list() const { return id == TypeId::kList; }
  // kList: the type of its elements.
  LogicalType ElementType() const { return LogicalType{element, precision, scale}; }

  // "bool", "int32", "decimal(10,2)", "timestamptz", "list<int32>", "list<string not null>",
  // ...; Parse() is its inverse.
  std::string ToString() const;
  static Result<LogicalType> Parse(std::string_view text);

  bool operator==(const LogicalType& other) const = default;
};

// Bytes per value for fixed-width types; 0 for variable-length ones.
size_t FixedWidth(TypeId id);
inline bool IsVariableLength(TypeId id) {
  return id == TypeId::kString || id == TypeId::kBinary || id == TypeId::kJson;
}

}  // namespace lakedump
