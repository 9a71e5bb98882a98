#include "format/parquet/parquet_schema.h"

#include <fmt/format.h>

#include <algorithm>

#include "table/temporal.h"

namespace lakedump::parquet {
namespace {

LogicalType Integer(int bits) {
  LogicalType lt;
  lt.kind = LogicalType::kInteger;
  lt.bit_width = static_cast<int8_t>(bits);
  lt.is_signed = true;
  return lt;
}

LogicalType Simple(int16_t kind) {
  LogicalType lt;
  lt.kind = kind;
  return lt;
}

LogicalType Temporal(int16_t kind, bool utc) {
  LogicalType lt;
  lt.kind = kind;
  lt.adjusted_to_utc = utc;
  lt.unit = 2;  // MICROS
  return lt;
}

}  // namespace

int DecimalFixedBytes(int precision) {
  const int128_t max = Pow10(precision) - 1;
  for (int n = 1; n < 16; ++n) {
    const int128_t limit = (static_cast<int128_t>(1) << (8 * n - 1)) - 1;
    if (max <= limit) return n;
  }
  return 16;
}

int ColumnFieldId(const Schema& schema, size_t index) {
  return schema.column(index).field_id.value_or(static_cast<int>(index) + 1);
}

std::optional<int> ListElementFieldId(const Schema& schema, size_t index) {
  if (index >= schema.num_columns() || !schema.column(index).type.is_list()) return std::nullopt;
  if (schema.column(index).element_field_id) return schema.column(index).element_field_id;
  int lists_before = 0;
  for (size_t i = 0; i < index; ++i) lists_before += schema.column(i).type.is_list() ? 1 : 0;
  return static_cast<int>(schema.num_columns()) + lists_before + 1;
}

int LastFieldId(const Schema& schema) {
  int last = 0;
  for (size_t i = 0; i < schema.num_columns(); ++i) {
    last = std::max(last, ColumnFieldId(schema, i));
    last = std::max(last, ListElementFieldId(schema, i).value_or(0));
  }
  return last;
}

namespace {

// Sets the physical type and annotations of a decimal leaf.
Status SetDecimalType(const Column& c, const lakedump::LogicalType& t, ColumnSpec* s) {
  SchemaElement& e = s->element;
  const int p = t.precision, sc = t.scale;
  if (p < 1 || p > kMaxDecimalPrecision || sc < 0 || sc > p) {
    return Status::InvalidArgument(fmt::format(
        "column \"{}\": decimal({},{}) cannot be written; precision must be 1..38", c.name,
        p, sc));
  }
  if (p <= 9) {
    s->physical = Type::kInt32;
  } else if (p <= 18) {
    s->physical = Type::kInt64;
  } else {
    s->physical = Type::kFixedLenByteArray;
    s->type_length = DecimalFixedBytes(p);
    s->signed_flba = true;
    e.type_length = s->type_length;
  }
  LogicalType lt = Simple(LogicalType::kDecimal);
  lt.scale = sc;
  lt.precision = p;
  e.logical_type = lt;
  e.converted_type = ConvertedType::kDecimal;
  e.scale = sc;
  e.precision = p;
  return Status::OK();
}

// Sets the physical type and annotations of the leaf of `c`, of type `t` (not a list).
Status SetLeafType(const Column& c, const lakedump::LogicalType& t, ColumnSpec* s) {
  SchemaElement& e = s->element;
  switch (t.id) {
    case TypeId::kBool: s->physical = Type::kBoolean; break;
    case TypeId::kInt8:
      s->physical = Type::kInt32;
      e.logical_type = Integer(8);
      e.converted_type = ConvertedType::kInt8;
      break;
    case TypeId::kInt16:
      s->physical = Type::kInt32;
      e.logical_type = Integer(16);
      e.converted_type = ConvertedType::kInt16;
      break;
    case TypeId::kInt32:
      s->physical = Type::kInt32;
      e.logical_type = Integer(32);
      e.converted_type = ConvertedType::kInt32;
      break;
    case TypeId::kInt64:
      s->physical = Type::kInt64;
      e.logical_type = Integer(64);
      e.converted_type = ConvertedType::kInt64;
      break;
    case TypeId::kFloat: s->physical = Type::kFloat; break;
    case TypeId::kDouble: s->physical = Type::kDouble; break;
    case TypeId::kDecimal: return SetDecimalType(c, t, s);
    case TypeId::kString:
      s->physical = Type::kByteArray;
      s->utf8 = true;
      e.logical_type = Simple(LogicalType::kString);
      e.converted_type = ConvertedType::kUtf8;
      break;
    case TypeId::kJson:
      s->physical = Type::kByteArray;
      s->utf8 = true;
      e.logical_type = Simple(LogicalType::kJson);
      e.converted_type = ConvertedType::kJson;
      break;
    case TypeId::kBinary: s->physical = Type::kByteArray; break;
    case TypeId::kDate:
      s->physical = Type::kInt32;
      e.logical_type = Simple(LogicalType::kDate);
      e.converted_type = ConvertedType::kDate;
      break;
    case TypeId::kTime:
      // A database TIME is a local time of day: not adjusted to UTC. The legacy
      // TIME_MICROS converted type implies UTC-adjusted, so it is left out.
      s->physical = Type::kInt64;
      e.logical_type = Temporal(LogicalType::kTime, false);
      break;
    case TypeId::kTimestamp:
      // Same reasoning: TIMESTAMP_MICROS would mean an instant (UTC-adjusted).
      s->physical = Type::kInt64;
      e.logical_type = Temporal(LogicalType::kTimestamp, false);
      break;
    case TypeId::kTimestampTz:
      s->physical = Type::kInt64;
      e.logical_type = Temporal(LogicalType::kTimestamp, true);
      e.converted_type = ConvertedType::kTimestampMicros;
      break;
    case TypeId::kUuid:
      s->physical = Type::kFixedLenByteArray;
      s->type_length = 16;
      e.type_length = 16;
      e.logical_type = Simple(LogicalType::kUuid);
      break;
    case TypeId::kList:  // refused by MakeColumnSpecs
      break;
  }
  return Status::OK();
}

}  // namespace

Result<std::vector<ColumnSpec>> MakeColumnSpecs(const Schema& schema) {
  std::vector<ColumnSpec> specs;
  specs.reserve(schema.num_columns());
  for (const Column& c : schema.columns()) {
    ColumnSpec s{};
    s.name = c.name;
    s.nullable = c.nullable;
    s.max_def = c.nullable ? 1 : 0;
    SchemaElement& e = s.element;
    e.name = c.name;
    e.repetition = c.nullable ? Repetition::kOptional : Repetition::kRequired;
    // The Iceberg field id of the column (by default 1..n in column order, as in the
    // Iceberg metadata of an Iceberg dump). Written for every dump: readers that do not
    // use ids ignore it, and the data files are the same whichever table format.
    e.field_id = ColumnFieldId(schema, specs.size());
    // A list's leaf is its element; the groups around it come from MakeSchemaElements.
    const lakedump::LogicalType t = c.type.is_list() ? c.type.ElementType() : c.type;
    if (c.type.is_list()) {
      s.list = true;
      s.list_nullable = c.nullable;
      s.element_nullable = c.type.element_nullable;
      s.nullable = true;
      s.max_def = (c.nullable ? 1 : 0) + 1 + (c.type.element_nullable ? 1 : 0);
      s.max_rep = 1;
      e.name = "element";
      // The column's id goes on the LIST group (MakeSchemaElements), the element's
      // on the element (the repeated group between them has none, as Java writes it).
      s.field_id = e.field_id;
      e.field_id = ListElementFieldId(schema, specs.size());
      e.repetition = c.type.element_nullable ? Repetition::kOptional : Repetition::kRequired;
    }
    if (t.id == TypeId::kList) {
      return Status::InvalidArgument(
          fmt::format("column \"{}\": a list of lists cannot be written", c.name));
    }
    LD_RETURN_IF_ERROR(SetLeafType(c, t, &s));
    e.type = s.physical;
    specs.push_back(std::move(s));
  }
  return specs;
}

std::vector<SchemaElement> MakeSchemaElements(const std::vector<ColumnSpec>& specs) {
  std::vector<SchemaElement> out;
  out.reserve(specs.size() + 1);
  SchemaElement root;
  root.name = "schema";
  root.num_children = static_cast<int32_t>(specs.size());
  out.push_back(root);
  for (const ColumnSpec& s : specs) {
    if (s.list) {
      // <name> (LIST) { repeated group list { <element> } }, as LogicalTypes.md "Lists".
      SchemaElement outer;
      outer.name = s.name;
      outer.repetition = s.list_nullable ? Repetition::kOptional : Repetition::kRequired;
      outer.num_children = 1;
      outer.converted_type = ConvertedType::kList;
      outer.logical_type = Simple(LogicalType::kList);
      outer.field_id = s.field_id;
      out.push_back(std::move(outer));
      SchemaElement repeated;
      repeated.name = "list";
      repeated.repetition = Repetition::kRepeated;
      repeated.num_children = 1;
      out.push_back(std::move(repeated));
    }
    out.push_back(s.element);
  }
  return out;
}

}  // namespace lakedump::parquet
