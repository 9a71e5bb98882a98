#include "table/types.h"

#include <fmt/format.h>

#include <charconv>

namespace lakedump {
namespace {

struct TypeName {
  TypeId id;
  std::string_view name;
};
constexpr TypeName kNames[] = {
    {TypeId::kBool, "bool"},       {TypeId::kInt8, "int8"},
    {TypeId::kInt16, "int16"},     {TypeId::kInt32, "int32"},
    {TypeId::kInt64, "int64"},     {TypeId::kFloat, "float"},
    {TypeId::kDouble, "double"},   {TypeId::kString, "string"},
    {TypeId::kBinary, "binary"},   {TypeId::kDate, "date"},
    {TypeId::kTime, "time"},       {TypeId::kTimestamp, "timestamp"},
    {TypeId::kTimestampTz, "timestamptz"}, {TypeId::kUuid, "uuid"},
    {TypeId::kJson, "json"},
};

}  // namespace

std::string LogicalType::ToString() const {
  if (id == TypeId::kList) {
    return fmt::format("list<{}{}>", ElementType().ToString(), element_nullable ? "" : " not null");
  }
  if (id == TypeId::kDecimal) return fmt::format("decimal({},{})", precision, scale);
  for (const auto& n : kNames)
    if (n.id == id) return std::string(n.name);
  return "unknown";
}

Result<LogicalType> LogicalType::Parse(std::string_view text) {
  if (text.starts_with("list<") && text.ends_with(">")) {
    std::string_view inner = text.substr(5, text.size() - 6);
    bool nullable = true;
    if (inner.ends_with(" not null")) {
      inner.remove_suffix(9);
      nullable = false;
    }
    if (!inner.starts_with("list<")) {
      Result<LogicalType> element = Parse(inner);
      if (element.ok()) return LogicalType::List(*element, nullable);
    }
    return Status::InvalidArgument(fmt::format("unknown type \"{}\"", text));
  }
  for (const auto& n : kNames)
    if (n.name == text) return LogicalType::Of(n.id);
  if (text.starts_with("decimal(") && text.ends_with(")")) {
    std::string_view args = text.substr(8, text.size() - 9);
    const size_t comma = args.find(',');
    int p = 0, s = 0;
    if (comma != std::string_view::npos) {
      auto a = args.substr(0, comma), b = args.substr(comma + 1);
      auto r1 = std::from_chars(a.data(), a.data() + a.size(), p);
      auto r2 = std::from_chars(b.data(), b.data() + b.size(), s);
      if (r1.ec == std::errc() && r2.ec == std::errc() && r1.ptr == a.data() + a.size() &&
          r2.ptr == b.data() + b.size() && p >= 1 && p <= kMaxDecimalPrecision && s >= 0 && s <= p) {
        return LogicalType::Decimal(p, s);
      }
    }
  }
  return Status::InvalidArgument(fmt::format("unknown type \"{}\"", text));
}

size_t FixedWidth(TypeId id) {
  switch (id) {
    case TypeId::kBool:
    case TypeId::kInt8: return 1;
    case TypeId::kInt16: return 2;
    case TypeId::kInt32:
    case TypeId::kDate:
    case TypeId::kFloat: return 4;
    case TypeId::kInt64:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kDouble: return 8;
    case TypeId::kDecimal:
    case TypeId::kUuid: return 16;
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kJson:
    case TypeId::kList: return 0;
  }
  return 0;
}

}  // namespace lakedump
