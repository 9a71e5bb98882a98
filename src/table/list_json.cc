#include "table/list_json.h"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "table/temporal.h"
#include "table/uuid_text.h"

namespace lakedump {
namespace {

template <typename F>
void AppendFloat(F v, std::string* out) {
  if (std::isnan(v)) {
    out->append("\"NaN\"");
  } else if (std::isinf(v)) {
    out->append(v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  } else {
    fmt::format_to(std::back_inserter(*out), "{}", v);
  }
}

void AppendString(std::string_view s, std::string* out) {
  out->append(nlohmann::json(std::string(s)).dump(-1, ' ', false,
                                                  nlohmann::json::error_handler_t::replace));
}

void AppendElement(const ColumnVector& c, size_t i, std::string* out) {
  auto append = [&](auto v) { fmt::format_to(std::back_inserter(*out), "{}", v); };
  switch (c.type().id) {
    case TypeId::kBool: out->append(c.ValueAt<uint8_t>(i) ? "true" : "false"); return;
    case TypeId::kInt8: append(static_cast<int>(c.ValueAt<int8_t>(i))); return;
    case TypeId::kInt16: append(c.ValueAt<int16_t>(i)); return;
    case TypeId::kInt32: append(c.ValueAt<int32_t>(i)); return;
    case TypeId::kInt64: append(c.ValueAt<int64_t>(i)); return;
    case TypeId::kFloat: AppendFloat(c.ValueAt<float>(i), out); return;
    case TypeId::kDouble: AppendFloat(c.ValueAt<double>(i), out); return;
    case TypeId::kDecimal: out->append(FormatDecimal(c.ValueAt<int128_t>(i), c.type().scale)); return;
    case TypeId::kString:
    case TypeId::kJson: AppendString(c.BytesAt(i), out); return;
    case TypeId::kBinary: {
      std::string hex = "\\x";
      for (unsigned char ch : c.BytesAt(i)) fmt::format_to(std::back_inserter(hex), "{:02x}", ch);
      AppendString(hex, out);
      return;
    }
    case TypeId::kDate: AppendString(FormatDate(c.ValueAt<int32_t>(i)), out); return;
    case TypeId::kTime: AppendString(FormatTime(c.ValueAt<int64_t>(i)), out); return;
    case TypeId::kTimestamp: AppendString(FormatTimestamp(c.ValueAt<int64_t>(i)), out); return;
    case TypeId::kTimestampTz:
      AppendString(FormatTimestamp(c.ValueAt<int64_t>(i)) + "Z", out);
      return;
    case TypeId::kUuid: AppendString(FormatUuid(c.ValueAt<Uuid>(i)), out); return;
    case TypeId::kList: out->append(ListToJson(c, i)); return;
  }
}

}  // namespace

std::string ListToJson(const ColumnVector& list, size_t row) {
  std::string out = "[";
  const ColumnVector& elements = list.elements();
  for (uint64_t k = list.offsets()[row]; k < list.offsets()[row + 1]; ++k) {
    if (k != list.offsets()[row]) out.push_back(',');
    if (elements.IsNull(k)) {
      out.append("null");
    } else {
      AppendElement(elements, k, &out);
    }
  }
  out.push_back(']');
  return out;
}

}  // namespace lakedump
