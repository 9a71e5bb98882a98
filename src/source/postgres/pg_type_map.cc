#include "source/postgres/pg_type_map.h"

#include <fmt/format.h>

#include <charconv>

#include "source/postgres/pg_conn.h"

namespace lakedump {
namespace {

// Built-in type OIDs (stable since forever, pg_type.dat).
enum : uint32_t {
  kBoolOid = 16, kByteaOid = 17, kNameOid = 19, kInt8Oid = 20, kInt2Oid = 21, kInt4Oid = 23,
  kTextOid = 25, kOidOid = 26, kJsonOid = 114, kFloat4Oid = 700, kFloat8Oid = 701,
  kBpcharOid = 1042, kVarcharOid = 1043, kDateOid = 1082, kTimeOid = 1083,
  kTimestampOid = 1114, kTimestampTzOid = 1184, kNumericOid = 1700, kUuidOid = 2950,
  kJsonbOid = 3802, kXmlOid = 142, kCidrOid = 650, kInetOid = 869,
};

// The output function of the types whose cast to text is not their output: inet and cidr
// (text(inet) always adds the netmask: '10.0.0.1/32' where inet_out prints '10.0.0.1') and
// xml (a binary coercion: the stored string, where xml_out drops the XML declaration's
// encoding, as pg_dump's COPY does); nullptr for the others.
const char* TextOutputFunction(uint32_t base_oid) {
  switch (base_oid) {
    case kInetOid: return "inet_out";
    case kCidrOid: return "cidr_out";
    case kXmlOid: return "xml_out";
    default: return nullptr;
  }
}

void Direct(PgColumnMapping* m, PgWire wire, LogicalType type) {
  m->field.wire = wire;
  m->column.type = type;
  m->field.type = type;
}

}  // namespace

bool DecodeNumericTypmod(int32_t typmod, int* precision, int* scale) {
  if (typmod < 4) return false;
  const int32_t t = typmod - 4;
  *precision = (t >> 16) & 0xffff;
  *scale = (((t & 0x7ff) ^ 1024) - 1024);
  return true;
}

namespace {

// numeric: a decimal when its typmod fits one, else as options.numeric says.
void MapNumeric(const PgColumnInfo& info, const PgTypeOptions& options, PgColumnMapping* m) {
  int p = 0, s = 0;
  if (DecodeNumericTypmod(info.base_typmod, &p, &s)) {
    // numeric(p,-s) holds integers of p+s digits; numeric(p,s>p) holds |v| < 10^(p-s).
    const int precision = s < 0 ? p - s : std::max(p, s);
    const int scale = std::max(s, 0);
    if (precision <= kMaxDecimalPrecision) {
      Direct(m, PgWire::kNumericDecimal, LogicalType::Decimal(precision, scale));
      return;
    }
  }
  switch (options.numeric) {
    case PgNumericPolicy::kString:
      Direct(m, PgWire::kNumericText, LogicalType::Of(TypeId::kString));
      return;
    case PgNumericPolicy::kDouble:
      Direct(m, PgWire::kNumericDouble, LogicalType::Of(TypeId::kDouble));
      return;
    case PgNumericPolicy::kDecimal:
      Direct(m, PgWire::kNumericDecimal,
             LogicalType::Decimal(kMaxDecimalPrecision, options.numeric_scale));
      m->field.round = true;
      return;
  }
}

// An array column (base_category 'A'); m->select_expr is the quoted column name.
void MapArray(const PgColumnInfo& info, const PgTypeOptions& options, PgColumnMapping* m) {
  const std::string quoted = m->select_expr;
  PgColumnInfo element;
  element.name = info.name;
  element.base_oid = info.element_oid;
  element.base_typmod = info.base_typmod;
  element.base_typtype = info.element_typtype;
  element.base_category = info.element_category;
  element.base_name = info.element_name;
  if (info.array_as_text || info.element_oid == 0 || info.element_category == 'A') {
    // Several dimensions or other bounds somewhere in the column: the exact text
    // ('[0:1]={5,6}'), which load casts back to the array type.
    Direct(m, PgWire::kText, LogicalType::Of(TypeId::kString));
    m->select_expr = quoted + "::pg_catalog.text";  // I/O conversion: array_out
    return;
  }
  // One-dimensional arrays from 1: a list of the element type's mapping; elements without
  // a binary mapping are read as text (the array cast to text[]).
  const PgColumnMapping em = MapPgColumn(element, options);
  m->field.wire = em.field.wire;
  m->field.round = em.field.round;
  m->field.array = true;
  m->column.type = LogicalType::List(em.column.type, true);
  m->field.type = m->column.type;
  if (TextOutputFunction(info.element_oid) != nullptr) {
    // Each element through its output function (array_out), then split into text[].
    m->select_expr = "pg_catalog.textin(pg_catalog.array_out(" + quoted + "))::pg_catalog.text[]";
  } else if (em.select_expr != quoted) {
    m->select_expr = quoted + "::pg_catalog.text[]";
  }
}

}  // namespace

PgColumnMapping MapPgColumn(const PgColumnInfo& info, const PgTypeOptions& options) {
  PgColumnMapping m;
  m.column.name = info.name;
  m.column.nullable = !info.not_null;
  m.column.source_type = info.format_type;
  m.field.name = info.name;
  m.field.pg_type = info.format_type;
  const std::string quoted = QuoteIdent(info.name);
  m.select_expr = quoted;
  switch (info.base_oid) {
    case kBoolOid: Direct(&m, PgWire::kBool, LogicalType::Of(TypeId::kBool)); return m;
    case kByteaOid: Direct(&m, PgWire::kBytea, LogicalType::Of(TypeId::kBinary)); return m;
    case kInt2Oid: Direct(&m, PgWire::kInt2, LogicalType::Of(TypeId::kInt16)); return m;
    case kInt4Oid: Direct(&m, PgWire::kInt4, LogicalType::Of(TypeId::kInt32)); return m;
    case kInt8Oid: Direct(&m, PgWire::kInt8, LogicalType::Of(TypeId::kInt64)); return m;
    case kOidOid: Direct(&m, PgWire::kOid, LogicalType::Of(TypeId::kInt64)); return m;
    case kFloat4Oid: Direct(&m, PgWire::kFloat4, LogicalType::Of(TypeId::kFloat)); return m;
    case kFloat8Oid: Direct(&m, PgWire::kFloat8, LogicalType::Of(TypeId::kDouble)); return m;
    case kNameOid:
    case kTextOid:
    case kBpcharOid:
    case kVarcharOid: Direct(&m, PgWire::kText, LogicalType::Of(TypeId::kString)); return m;
    case kJsonOid: Direct(&m, PgWire::kText, LogicalType::Of(TypeId::kJson)); return m;
    case kJsonbOid: Direct(&m, PgWire::kJsonb, LogicalType::Of(TypeId::kJson)); return m;
    case kDateOid: Direct(&m, PgWire::kDate, LogicalType::Of(TypeId::kDate)); return m;
    case kTimeOid: Direct(&m, PgWire::kTime, LogicalType::Of(TypeId::kTime)); return m;
    case kTimestampOid:
      Direct(&m, PgWire::kTimestamp, LogicalType::Of(TypeId::kTimestamp));
      return m;
    case kTimestampTzOid:
      Direct(&m, PgWire::kTimestamp, LogicalType::Of(TypeId::kTimestampTz));
      return m;
    case kUuidOid: Direct(&m, PgWire::kUuid, LogicalType::Of(TypeId::kUuid)); return m;
    case kNumericOid: MapNumeric(info, options, &m); return m;
    default: break;
  }
  if (info.base_category == 'A') {
    MapArray(info, options, &m);
    return m;
  }
  if (info.base_typtype == 'e' || info.base_name == "citext") {
    // Enum labels and citext are sent as their text bytes.
    Direct(&m, PgWire::kText, LogicalType::Of(TypeId::kString));
    return m;
  }
  // Everything else (interval, inet, cidr, macaddr, money, bit, xml, timetz,
  // ranges, geometric, composite, tsvector, extension types...): its text output.
  Direct(&m, PgWire::kText, LogicalType::Of(TypeId::kString));
  if (const char* out = TextOutputFunction(info.base_oid)) {
    m.select_expr = fmt::format("pg_catalog.textin(pg_catalog.{}({}))", out, quoted);
  } else {
    m.select_expr = quoted + "::pg_catalog.text";
  }
  m.text_fallback = true;
  return m;
}

Status ParsePgNumericPolicy(std::string_view text, PgTypeOptions* out) {
  if (text == "string") {
    out->numeric = PgNumericPolicy::kString;
  } else if (text == "double") {
    out->numeric = PgNumericPolicy::kDouble;
  } else if (text == "decimal") {
    out->numeric = PgNumericPolicy::kDecimal;
  } else if (text.starts_with("decimal(38,") && text.ends_with(")")) {
    std::string_view digits = text.substr(11, text.size() - 12);
    int scale = -1;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), scale);
    if (ec != std::errc() || ptr != digits.data() + digits.size() || scale < 0 || scale > 38) {
      return Status::InvalidArgument(fmt::format("invalid numeric policy \"{}\": scale must be 0..38", text));
    }
    out->numeric = PgNumericPolicy::kDecimal;
    out->numeric_scale = scale;
  } else {
    return Status::InvalidArgument(fmt::format(
        "invalid numeric policy \"{}\": use string, double, decimal or decimal(38,S)", text));
  }
  return Status::OK();
}

Result<PgInfinityPolicy> ParsePgInfinityPolicy(std::string_view text) {
  if (text == "clamp") return PgInfinityPolicy::kClamp;
  if (text == "null") return PgInfinityPolicy::kNull;
  if (text == "error") return PgInfinityPolicy::kError;
  return Status::InvalidArgument(
      fmt::format("invalid infinity policy \"{}\": use clamp, null or error", text));
}

Result<PgNumericSpecialPolicy> ParsePgNumericSpecialPolicy(std::string_view text) {
  if (text == "error") return PgNumericSpecialPolicy::kError;
  if (text == "null") return PgNumericSpecialPolicy::kNull;
  return Status::InvalidArgument(
      fmt::format("invalid numeric NaN policy \"{}\": use error or null", text));
}

}  // namespace lakedump
