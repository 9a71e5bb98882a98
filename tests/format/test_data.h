// Test helper: deterministic column values for every lakedump type, with the
// edge values the Parquet writer must survive placed in the first rows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "table/row_batch.h"
#include "table/schema.h"

#include <cmath>
#include <cstring>
#include <limits>
#include "table/temporal.h"

namespace lakedump::testing {
// Declarations (documented):

enum class NullPattern { kNone, kSome, kAll };

// A schema with one column per type (decimals at several precisions).
// kNone makes the columns NOT NULL.
Schema AllTypesSchema(NullPattern nulls);

// One list column per column of AllTypesSchema ("l_" + its name, elements nullable), plus
// "l_int32_nn" and "l_string_nn" whose elements are NOT NULL. kNone makes the lists NOT NULL.
Schema ListTypesSchema(NullPattern nulls);

// Appends rows [first, first+count) to `batch` (which matches `schema`).
// Row r of every column is a pure function of (r, seed).
void FillRows(const Schema& schema, NullPattern nulls, uint64_t first, size_t count,
              uint64_t seed, RowBatch* batch);

// Number of leading rows holding edge values (per type, the longest list).
size_t EdgeRows();


namespace {

uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

const std::vector<std::string>& EdgeStrings() {
  static const std::vector<std::string> k = {
      "", "a", "h\xC3\xA9llo w\xC3\xB6rld", "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E",
      "\xF0\x9F\x98\x80 emoji", std::string(70000, 'x') + "\xC3\xA9"};
  return k;
}

std::string EdgeString(size_t i) {
  if (i == 6) {
    std::string s = "\xEF\xBF\xBF";  // U+FFFF, high in sort order
    for (int k = 0; k < 40; ++k) s += "\xF4\x8F\xBF\xBF";  // U+10FFFF
    return s;
  }
  if (i == 7) return "zz";
  return EdgeStrings()[i];
}

constexpr size_t kEdgeCount = 8;

}  // namespace

inline size_t EdgeRows() { return kEdgeCount; }

inline Schema AllTypesSchema(NullPattern nulls) {
  const bool nullable = nulls != NullPattern::kNone;
  std::vector<Column> cols = {
      {"c_bool", LogicalType::Of(TypeId::kBool), nullable, ""},
      {"c_int8", LogicalType::Of(TypeId::kInt8), nullable, ""},
      {"c_int16", LogicalType::Of(TypeId::kInt16), nullable, ""},
      {"c_int32", LogicalType::Of(TypeId::kInt32), nullable, ""},
      {"c_int64", LogicalType::Of(TypeId::kInt64), nullable, ""},
      {"c_float", LogicalType::Of(TypeId::kFloat), nullable, ""},
      {"c_double", LogicalType::Of(TypeId::kDouble), nullable, ""},
      {"c_dec4", LogicalType::Decimal(4, 2), nullable, ""},
      {"c_dec18", LogicalType::Decimal(18, 6), nullable, ""},
      {"c_dec38", LogicalType::Decimal(38, 10), nullable, ""},
      {"c_dec25", LogicalType::Decimal(25, 0), nullable, ""},
      {"c_string", LogicalType::Of(TypeId::kString), nullable, ""},
      {"c_binary", LogicalType::Of(TypeId::kBinary), nullable, ""},
      {"c_date", LogicalType::Of(TypeId::kDate), nullable, ""},
      {"c_time", LogicalType::Of(TypeId::kTime), nullable, ""},
      {"c_ts", LogicalType::Of(TypeId::kTimestamp), nullable, ""},
      {"c_tstz", LogicalType::Of(TypeId::kTimestampTz), nullable, ""},
      {"c_uuid", LogicalType::Of(TypeId::kUuid), nullable, ""},
      {"c_json", LogicalType::Of(TypeId::kJson), nullable, ""},
  };
  return Schema(std::move(cols));
}

inline Schema ListTypesSchema(NullPattern nulls) {
  const bool nullable = nulls != NullPattern::kNone;
  std::vector<Column> cols;
  const Schema scalars = AllTypesSchema(nulls);
  for (const Column& c : scalars.columns()) {
    cols.push_back({"l_" + c.name.substr(2), LogicalType::List(c.type, true), nullable, ""});
  }
  cols.push_back({"l_int32_nn", LogicalType::List(LogicalType::Of(TypeId::kInt32), false),
                  nullable, ""});
  cols.push_back({"l_string_nn", LogicalType::List(LogicalType::Of(TypeId::kString), false),
                  nullable, ""});
  return Schema(std::move(cols));
}

namespace {

void FillValue(const LogicalType& t, uint64_t r, uint64_t seed, ColumnVector* c) {
  const uint64_t h = Mix(r * 1315423911u + seed);
  const bool edge = r < kEdgeCount;
  switch (t.id) {
    case TypeId::kBool: c->Append<uint8_t>(static_cast<uint8_t>(h & 1)); break;
    case TypeId::kInt8: {
      static const int8_t e[] = {INT8_MIN, INT8_MAX, 0, -1, 1, 0, 7, -7};
      c->Append<int8_t>(edge ? e[r] : static_cast<int8_t>(h % 50));
      break;
    }
    case TypeId::kInt16: {
      static const int16_t e[] = {INT16_MIN, INT16_MAX, 0, -1, 1, 0, 300, -300};
      c->Append<int16_t>(edge ? e[r] : static_cast<int16_t>(h));
      break;
    }
    case TypeId::kInt32: {
      static const int32_t e[] = {INT32_MIN, INT32_MAX, 0, -1, 1, 0, 65536, -65536};
      c->Append<int32_t>(edge ? e[r] : static_cast<int32_t>(h % 1000));
      break;
    }
    case TypeId::kInt64: {
      static const int64_t e[] = {INT64_MIN, INT64_MAX, 0, -1, 1, 0, INT64_MIN + 1, INT64_MAX - 1};
      c->Append<int64_t>(edge ? e[r] : static_cast<int64_t>(h));
      break;
    }
    case TypeId::kFloat: {
      const float inf = std::numeric_limits<float>::infinity();
      static const float e[] = {std::nanf(""), -0.0f, 0.0f, inf, -inf, 1.5f, -3.25e-30f, 3.4e38f};
      c->Append<float>(edge ? e[r] : static_cast<float>(static_cast<int64_t>(h % 2000000) - 1000000) / 64.0f);
      break;
    }
    case TypeId::kDouble: {
      const double inf = std::numeric_limits<double>::infinity();
      static const double e[] = {std::nan(""), -0.0, 0.0, inf, -inf, 0.1, -1e-300, 1.7e308};
      c->Append<double>(edge ? e[r] : static_cast<double>(static_cast<int64_t>(h)) / 1e9);
      break;
    }
    case TypeId::kDecimal: {
      const int128_t max = Pow10(t.precision) - 1;
      int128_t v;
      if (edge) {
        const int128_t e[] = {max, -max, 0, -1, 1, max / 7, -(max / 3), 12345 % (max + 1)};
        v = e[r];
      } else {
        v = static_cast<int128_t>(static_cast<int64_t>(h));
        if (t.precision > 19) v = v * static_cast<int128_t>(Mix(h) >> 2);
        v %= (max + 1);
        if (t.precision <= 4) v %= 1000;
      }
      c->Append<int128_t>(v);
      break;
    }
    case TypeId::kString:
    case TypeId::kJson: {
      if (t.id == TypeId::kJson) {
        c->AppendBytes(edge ? "{\"k\":\"" + std::to_string(r) + "\xC3\xA9\"}"
                            : "{\"id\":" + std::to_string(h % 100) + "}");
      } else {
        c->AppendBytes(edge ? EdgeString(r) : "s" + std::to_string(h % 37) + "\xCE\xB1");
      }
      break;
    }
    case TypeId::kBinary: {
      if (edge) {
        static const std::string e[] = {"", std::string(1, '\0'), "\xff\xff", "\x80", "abc",
                                        std::string(100, '\xff'), "\x00\x01", "z"};
        c->AppendBytes(e[r]);
      } else {
        uint64_t v = h;
        c->AppendBytes(std::string_view(reinterpret_cast<const char*>(&v), 1 + h % 8));
      }
      break;
    }
    case TypeId::kDate: {
      static const int32_t e[] = {0, -1, static_cast<int32_t>(DaysFromCivil(1900, 2, 28)),
                                  static_cast<int32_t>(DaysFromCivil(2100, 3, 1)),
                                  static_cast<int32_t>(DaysFromCivil(1, 1, 1)),
                                  static_cast<int32_t>(DaysFromCivil(9999, 12, 31)),
                                  static_cast<int32_t>(DaysFromCivil(2000, 2, 29)),
                                  static_cast<int32_t>(DaysFromCivil(1969, 12, 31))};
      c->Append<int32_t>(edge ? e[r] : static_cast<int32_t>(h % 40000) - 10000);
      break;
    }
    case TypeId::kTime: {
      static const int64_t e[] = {0, 86400000000LL - 1, 1, 43200000000LL, 59999999, 3600000000LL,
                                  123456789, 86399000000LL};
      c->Append<int64_t>(edge ? e[r] : static_cast<int64_t>(h % 86400000000ULL));
      break;
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      const int64_t day = 86400000000LL;
      const int64_t e[] = {0, -1, DaysFromCivil(1900, 1, 1) * day + 1,
                           DaysFromCivil(2262, 4, 11) * day, DaysFromCivil(1677, 9, 22) * day,
                           DaysFromCivil(2100, 12, 31) * day + day - 1,
                           DaysFromCivil(1, 1, 1) * day, DaysFromCivil(9999, 12, 31) * day};
      c->Append<int64_t>(edge ? e[r] : static_cast<int64_t>(h % (200ULL * 365 * day)) - 100LL * 365 * day);
      break;
    }
    case TypeId::kUuid: {
      Uuid u;
      uint64_t a = Mix(h), b = h;
      if (edge && r == 0) a = b = 0;
      if (edge && r == 1) a = b = ~0ULL;
      std::memcpy(u.bytes, &a, 8);
      std::memcpy(u.bytes + 8, &b, 8);
      c->Append<Uuid>(u);
      break;
    }
    case TypeId::kList: {
      // Lengths 0..4 (every 7th row empty), elements from the element type's values (its
      // edge values in the first rows), every 4th element null when elements may be null.
      const size_t n = r % 7 == 3 ? 0 : 1 + h % 4;
      ColumnVector& e = c->elements();
      for (size_t k = 0; k < n; ++k) {
        const uint64_t er = r < kEdgeCount ? (r + k) % kEdgeCount : r * 5 + k;
        if (t.element_nullable && Mix(h + k) % 4 == 0) {
          e.AppendNull();
        } else {
          FillValue(t.ElementType(), er, seed, &e);
        }
      }
      c->AppendList();
      break;
    }
  }
}

}  // namespace

inline void FillRows(const Schema& schema, NullPattern nulls, uint64_t first, size_t count,
              uint64_t seed, RowBatch* batch) {
  for (size_t ci = 0; ci < schema.num_columns(); ++ci) {
    ColumnVector& c = batch->column(ci);
    for (size_t k = 0; k < count; ++k) {
      const uint64_t r = first + k;
      const bool is_null = nulls == NullPattern::kAll ||
                           (nulls == NullPattern::kSome && Mix(r * 31 + ci + seed) % 5 == 0);
      if (is_null) {
        c.AppendNull();
      } else {
        FillValue(schema.column(ci).type, r, seed, &c);
      }
    }
  }
}

}  // namespace lakedump::testing
