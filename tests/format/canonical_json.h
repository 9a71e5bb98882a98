// Test helper: the interop oracle's canonical JSON form of a RowBatch
// (tests/interop/README.md): {"columns":[...],"types":[...],"rows":[[...]]}.
#pragma once

#include <string>
#include <vector>

#include "table/row_batch.h"
#include "table/schema.h"

#include <cmath>
#include <cstdio>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include "table/temporal.h"

namespace lakedump::testing {
// Declarations (documented):

// Appends the rows of `batch` as canonical JSON arrays (without brackets
// between batches), comma-separated, to *rows_json.
void AppendCanonicalRows(const Schema& schema, const RowBatch& batch, std::string* rows_json);

// The whole expected.json document given the rows produced by AppendCanonicalRows.
std::string CanonicalDocument(const Schema& schema, const std::string& rows_json);


namespace {

std::string Quote(const std::string& s) { return nlohmann::json(s).dump(); }

template <typename F>
std::string FloatJson(F v) {
  if (std::isnan(v)) return "\"NaN\"";
  if (std::isinf(v)) return v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  if (v == 0 && std::signbit(v)) return "\"-0\"";
  // Shortest round-trip form of the value as its own type.
  return fmt::format("{}", v);
}

std::string Hex(std::string_view b) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : b) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

std::string Value(const LogicalType& t, const ColumnVector& c, size_t i) {
  if (c.IsNull(i)) return "null";
  switch (t.id) {
    case TypeId::kBool: return c.ValueAt<uint8_t>(i) ? "true" : "false";
    case TypeId::kInt8: return Quote(std::to_string(c.ValueAt<int8_t>(i)));
    case TypeId::kInt16: return Quote(std::to_string(c.ValueAt<int16_t>(i)));
    case TypeId::kInt32: return Quote(std::to_string(c.ValueAt<int32_t>(i)));
    case TypeId::kInt64: return Quote(std::to_string(c.ValueAt<int64_t>(i)));
    case TypeId::kFloat: return FloatJson(c.ValueAt<float>(i));
    case TypeId::kDouble: return FloatJson(c.ValueAt<double>(i));
    case TypeId::kDecimal: return Quote(FormatDecimal(c.ValueAt<int128_t>(i), t.scale));
    case TypeId::kString:
    case TypeId::kJson: return Quote(std::string(c.BytesAt(i)));
    case TypeId::kBinary: return Quote(Hex(c.BytesAt(i)));
    case TypeId::kDate: return Quote(FormatDate(c.ValueAt<int32_t>(i)));
    case TypeId::kTime: return Quote(FormatTime(c.ValueAt<int64_t>(i)));
    case TypeId::kTimestamp: return Quote(FormatTimestamp(c.ValueAt<int64_t>(i)));
    case TypeId::kTimestampTz: return Quote(FormatTimestamp(c.ValueAt<int64_t>(i)) + "Z");
    case TypeId::kUuid: {
      Uuid u = c.ValueAt<Uuid>(i);
      std::string h = Hex(std::string_view(reinterpret_cast<const char*>(u.bytes), 16));
      return Quote(h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" +
                   h.substr(16, 4) + "-" + h.substr(20));
    }
    case TypeId::kList: {
      std::string out = "[";
      for (uint64_t k = c.offsets()[i]; k < c.offsets()[i + 1]; ++k) {
        if (k != c.offsets()[i]) out.push_back(',');
        out += Value(t.ElementType(), c.elements(), k);
      }
      return out + "]";
    }
  }
  return "null";
}

}  // namespace

inline void AppendCanonicalRows(const Schema& schema, const RowBatch& batch, std::string* rows_json) {
  for (size_t r = 0; r < batch.num_rows(); ++r) {
    if (!rows_json->empty()) rows_json->append(",\n");
    rows_json->push_back('[');
    for (size_t c = 0; c < schema.num_columns(); ++c) {
      if (c > 0) rows_json->push_back(',');
      rows_json->append(Value(schema.column(c).type, batch.column(c), r));
    }
    rows_json->push_back(']');
  }
}

inline std::string CanonicalDocument(const Schema& schema, const std::string& rows_json) {
  nlohmann::json columns = nlohmann::json::array(), types = nlohmann::json::array();
  for (const Column& c : schema.columns()) {
    columns.push_back(c.name);
    // The oracle's list type names the element only (readers do not all show its nullability).
    types.push_back(c.type.is_list() ? "list<" + c.type.ElementType().ToString() + ">"
                                     : c.type.ToString());
  }
  return "{\"columns\":" + columns.dump() + ",\"types\":" + types.dump() + ",\"rows\":[\n" +
         rows_json + "]}\n";
}

}  // namespace lakedump::testing
