#include "format/parquet/read_schema.h"

#include <fmt/format.h>

namespace lakedump::parquet {
namespace {

// ConvertedType values beyond the writer's enum (parquet.thrift).
enum Ct : int32_t {
  kCtUtf8 = 0, kCtMap = 1, kCtMapKeyValue = 2, kCtList = 3, kCtEnum = 4, kCtDecimal = 5,
  kCtDate = 6, kCtTimeMillis = 7, kCtTimeMicros = 8, kCtTimestampMillis = 9,
  kCtTimestampMicros = 10, kCtUint8 = 11, kCtUint16 = 12, kCtUint32 = 13, kCtUint64 = 14,
  kCtInt8 = 15, kCtInt16 = 16, kCtInt32 = 17, kCtInt64 = 18, kCtJson = 19, kCtBson = 20,
  kCtInterval = 21,
};
// LogicalType union members.
enum Lt : int16_t {
  kLtString = 1, kLtMap = 2, kLtList = 3, kLtEnum = 4, kLtDecimal = 5, kLtDate = 6, kLtTime = 7,
  kLtTimestamp = 8, kLtInteger = 10, kLtUnknown = 11, kLtJson = 12, kLtBson = 13, kLtUuid = 14,
  kLtFloat16 = 15,
};

const char* PhysicalName(Type t) {
  switch (t) {
    case Type::kBoolean: return "BOOLEAN";
    case Type::kInt32: return "INT32";
    case Type::kInt64: return "INT64";
    case Type::kInt96: return "INT96";
    case Type::kFloat: return "FLOAT";
    case Type::kDouble: return "DOUBLE";
    case Type::kByteArray: return "BYTE_ARRAY";
    case Type::kFixedLenByteArray: return "FIXED_LEN_BYTE_ARRAY";
  }
  return "?";
}

struct Mapped {
  TypeId id = TypeId::kInt32;
  int precision = 0, scale = 0;
  Conv conv = Conv::kI32;
};

// A leaf's annotations: its logical type's union member (0: none), its converted type
// (-1: none) and its logical type.
struct Annotation {
  int16_t lk;
  int32_t ct;
  LogicalType lt;
};

Annotation AnnotationOf(const SchemaElement& e) {
  return {e.logical_type ? e.logical_type->kind : int16_t{0},
          e.converted_type ? static_cast<int32_t>(*e.converted_type) : -1,
          e.logical_type.value_or(LogicalType{})};
}

// The Map* functions return an empty string on success, else why the leaf cannot be read.
std::string MapDecimal(const SchemaElement& e, Type phys, const Annotation& a, Mapped* m) {
  const int p = a.lk == kLtDecimal ? a.lt.precision : e.precision.value_or(0);
  const int s = a.lk == kLtDecimal ? a.lt.scale : e.scale.value_or(0);
  if (p < 1 || p > kMaxDecimalPrecision || s < 0 || s > p) {
    return fmt::format("decimal({},{}) is not supported (precision must be 1..38)", p, s);
  }
  m->id = TypeId::kDecimal;
  m->precision = p;
  m->scale = s;
  switch (phys) {
    case Type::kInt32: m->conv = Conv::kI32ToDecimal; return "";
    case Type::kInt64: m->conv = Conv::kI64ToDecimal; return "";
    case Type::kByteArray:
    case Type::kFixedLenByteArray: m->conv = Conv::kBytesToDecimal; return "";
    default: return fmt::format("a decimal stored as {} is not supported", PhysicalName(phys));
  }
}

std::string MapInt32(const Annotation& a, Mapped* m) {
  const int16_t lk = a.lk;
  const int32_t ct = a.ct;
  int bits = 32;
  bool is_signed = true;
  if (lk == kLtInteger) {
    bits = a.lt.bit_width;
    is_signed = a.lt.is_signed;
  } else if (lk == 0) {
    switch (ct) {
      case kCtInt8: bits = 8; break;
      case kCtInt16: bits = 16; break;
      case kCtUint8: bits = 8; is_signed = false; break;
      case kCtUint16: bits = 16; is_signed = false; break;
      case kCtUint32: is_signed = false; break;
      default: break;
    }
  }
  if (lk == kLtDate || (lk == 0 && ct == kCtDate)) {
    m->id = TypeId::kDate;
    m->conv = Conv::kI32;
  } else if ((lk == kLtTime && a.lt.unit == 1) || (lk == 0 && ct == kCtTimeMillis)) {
    m->id = TypeId::kTime;
    m->conv = Conv::kI32MillisToMicros;
  } else if (lk == kLtTime) {
    return "a TIME stored as INT32 must be in milliseconds";
  } else if (is_signed && bits == 8) {
    m->id = TypeId::kInt8;
    m->conv = Conv::kI32ToI8;
  } else if ((is_signed && bits == 16) || (!is_signed && bits == 8)) {
    m->id = TypeId::kInt16;
    m->conv = Conv::kI32ToI16;
  } else if (is_signed || bits == 16) {
    m->id = TypeId::kInt32;
    m->conv = Conv::kI32;
  } else {
    m->id = TypeId::kInt64;
    m->conv = Conv::kU32ToI64;
  }
  return "";
}

std::string MapInt64(const Annotation& a, Mapped* m) {
  const int16_t lk = a.lk;
  const int32_t ct = a.ct;
  const LogicalType& lt = a.lt;
  if (lk == kLtTime || (lk == 0 && ct == kCtTimeMicros)) {
    m->id = TypeId::kTime;
    const int unit = lk == kLtTime ? lt.unit : 2;
    m->conv = unit == 3 ? Conv::kI64NanosToMicros : Conv::kI64;
    if (unit == 1) return "a TIME stored as INT64 must be in micro- or nanoseconds";
    return "";
  }
  if (lk == kLtTimestamp || (lk == 0 && (ct == kCtTimestampMicros || ct == kCtTimestampMillis))) {
    // The legacy converted types mean UTC-adjusted instants.
    const bool utc = lk == kLtTimestamp ? lt.adjusted_to_utc : true;
    const int unit = lk == kLtTimestamp ? lt.unit : (ct == kCtTimestampMillis ? 1 : 2);
    m->id = utc ? TypeId::kTimestampTz : TypeId::kTimestamp;
    m->conv = unit == 1 ? Conv::kI64MillisToMicros
                        : unit == 3 ? Conv::kI64NanosToMicros : Conv::kI64;
    return "";
  }
  const bool is_unsigned = (lk == kLtInteger && !lt.is_signed) || (lk == 0 && ct == kCtUint64);
  if (is_unsigned) {
    m->id = TypeId::kDecimal;
    m->precision = 20;
    m->scale = 0;
    m->conv = Conv::kU64ToDecimal;
    return "";
  }
  m->id = TypeId::kInt64;
  m->conv = Conv::kI64;
  return "";
}

std::string MapByteArray(const Annotation& a, Mapped* m) {
  const int16_t lk = a.lk;
  const int32_t ct = a.ct;
  m->conv = Conv::kBytes;
  if (lk == kLtString || lk == kLtEnum || (lk == 0 && (ct == kCtUtf8 || ct == kCtEnum))) {
    m->id = TypeId::kString;
  } else if (lk == kLtJson || (lk == 0 && ct == kCtJson)) {
    m->id = TypeId::kJson;
  } else {
    m->id = TypeId::kBinary;
  }
  return "";
}

std::string MapFixedLenByteArray(const SchemaElement& e, const Annotation& a, Mapped* m) {
  if (!e.type_length || *e.type_length < 0) return "FIXED_LEN_BYTE_ARRAY without a length";
  if (a.lk == kLtUuid) {
    if (*e.type_length != 16) return "a UUID must be 16 bytes long";
    m->id = TypeId::kUuid;
    m->conv = Conv::kUuid;
    return "";
  }
  m->id = TypeId::kBinary;
  m->conv = Conv::kBytes;
  return "";
}

// Empty string on success, else why the leaf cannot be read.
std::string MapLeaf(const SchemaElement& e, Mapped* m) {
  const Type phys = *e.type;
  const Annotation a = AnnotationOf(e);
  if (a.lk == kLtDecimal || (a.lk == 0 && a.ct == kCtDecimal)) return MapDecimal(e, phys, a, m);
  switch (phys) {
    case Type::kBoolean: m->id = TypeId::kBool; m->conv = Conv::kBool; return "";
    case Type::kFloat: m->id = TypeId::kFloat; m->conv = Conv::kFloat; return "";
    case Type::kDouble: m->id = TypeId::kDouble; m->conv = Conv::kDouble; return "";
    case Type::kInt96: m->id = TypeId::kTimestamp; m->conv = Conv::kInt96ToMicros; return "";
    case Type::kInt32: return MapInt32(a, m);
    case Type::kInt64: return MapInt64(a, m);
    case Type::kByteArray: return MapByteArray(a, m);
    case Type::kFixedLenByteArray: return MapFixedLenByteArray(e, a, m);
  }
  return fmt::format("physical type {} is not supported", static_cast<int>(phys));
}

// Counts the leaves of the subtree at *idx, advancing *idx past it.
Status SkipSubtree(const std::vector<SchemaElement>& el, size_t* idx, size_t* leaves, int depth) {
  if (depth > 64) return Status::Corruption("parquet schema nested too deeply");
  if (*idx >= el.size()) return Status::Corruption("parquet schema: a group has more children than elements");
  const SchemaElement& e = el[(*idx)++];
  const int32_t n = e.num_children.value_or(0);
  if (n < 0) return Status::Corruption("parquet schema: negative num_children");
  if (n == 0 && e.type.has_value()) {
    ++*leaves;
    return Status::OK();
  }
  if (static_cast<size_t>(n) > el.size() - *idx) {
    return Status::Corruption("parquet schema: a group has more children than elements");
  }
  for (int32_t i = 0; i < n; ++i) LD_RETURN_IF_ERROR(SkipSubtree(el, idx, leaves, depth + 1));
  return Status::OK();
}

bool IsListAnnotated(const SchemaElement& e) {
  return (e.logical_type && e.logical_type->kind == kLtList) ||
         (e.converted_type && static_cast<int32_t>(*e.converted_type) == kCtList);
}

bool IsPrimitive(const SchemaElement& e) {
  return e.type.has_value() && e.num_children.value_or(0) == 0;
}

// The field at el[at] as a list of a primitive type, if it is one of the shapes of
// LogicalTypes.md "Lists" (with its backward-compatibility rules):
//   <opt|req> group a (LIST) { repeated group <any> { <opt|req> <primitive> element; } }
//   <opt|req> group a (LIST) { repeated <primitive> element; }        (2-level: required elements)
//   repeated <primitive> a;                                           (a required list)
// Sets *leaf_at and the levels; returns "" or why the field cannot be read.
std::string MapList(const std::vector<SchemaElement>& el, size_t at, FieldInfo* f,
                    size_t* leaf_at) {
  const SchemaElement& e = el[at];
  const Repetition rep = e.repetition.value_or(Repetition::kOptional);
  LeafInfo& leaf = f->leaf;
  leaf.max_rep = 1;
  if (IsPrimitive(e)) {  // an unannotated repeated primitive
    leaf.list_def = 0;
    leaf.elem_def = 1;
    leaf.max_def = 1;
    f->column.nullable = false;
    *leaf_at = at;
    return "";
  }
  if (!IsListAnnotated(e)) {
    return "nested (group, list, map or struct) columns are not supported";
  }
  if (e.num_children.value_or(0) != 1 || at + 1 >= el.size()) {
    return "a LIST group must have exactly one (repeated) child";
  }
  const SchemaElement& r = el[at + 1];
  if (r.repetition.value_or(Repetition::kOptional) != Repetition::kRepeated) {
    return "the child of a LIST group must be repeated";
  }
  f->column.nullable = rep != Repetition::kRequired;
  leaf.list_def = f->column.nullable ? 1 : 0;
  leaf.elem_def = leaf.list_def + 1;
  if (IsPrimitive(r)) {  // 2-level: the repeated field is the (required) element
    leaf.max_def = leaf.elem_def;
    *leaf_at = at + 1;
    return "";
  }
  if (r.num_children.value_or(0) != 1 || at + 2 >= el.size()) {
    return "lists of structs are not supported";
  }
  if (r.name == "array" || r.name == e.name + "_tuple") {
    // The backward-compatibility rule makes the repeated group itself the element: a struct.
    return "lists of structs are not supported";
  }
  const SchemaElement& x = el[at + 2];
  if (!IsPrimitive(x)) return "lists of lists, structs or maps are not supported";
  const Repetition xr = x.repetition.value_or(Repetition::kOptional);
  if (xr == Repetition::kRepeated) return "lists of lists are not supported";
  leaf.max_def = leaf.elem_def + (xr == Repetition::kOptional ? 1 : 0);
  *leaf_at = at + 2;
  return "";
}

}  // namespace

Result<std::vector<FieldInfo>> MapParquetSchema(const std::vector<SchemaElement>& el) {
  if (el.empty()) return Status::Corruption("parquet schema is empty");
  const int32_t n = el[0].num_children.value_or(0);
  if (n < 0 || static_cast<size_t>(n) > el.size() - 1) {
    return Status::Corruption("parquet schema: the root has a bad number of children");
  }
  std::vector<FieldInfo> fields;
  size_t idx = 1, leaves = 0;
  for (int32_t i = 0; i < n; ++i) {
    if (idx >= el.size()) {
      return Status::Corruption("parquet schema: the root has more children than elements");
    }
    FieldInfo f;
    const size_t at = idx;
    const SchemaElement& e = el[idx];
    f.column.name = e.name;
    f.first_leaf = leaves;
    const bool group = !e.type.has_value() || e.num_children.value_or(0) > 0;
    LD_RETURN_IF_ERROR(SkipSubtree(el, &idx, &leaves, 1));
    f.num_leaves = leaves - f.first_leaf;
    const Repetition rep = e.repetition.value_or(Repetition::kOptional);
    if (group || rep == Repetition::kRepeated) {
      size_t leaf_at = 0;
      f.unsupported = MapList(el, at, &f, &leaf_at);
      if (f.unsupported.empty()) {
        const SchemaElement& x = el[leaf_at];
        Mapped m;
        f.unsupported = MapLeaf(x, &m);
        const lakedump::LogicalType element =
            m.id == TypeId::kDecimal ? lakedump::LogicalType::Decimal(m.precision, m.scale)
                                     : lakedump::LogicalType::Of(m.id);
        f.column.type = lakedump::LogicalType::List(element, f.leaf.max_def > f.leaf.elem_def);
        f.leaf.physical = *x.type;
        f.leaf.type_length = x.type_length.value_or(0);
        f.leaf.conv = m.conv;
        f.column.source_type = fmt::format("LIST<{}>", PhysicalName(*x.type));
      }
    } else {
      Mapped m;
      f.unsupported = MapLeaf(e, &m);
      f.column.type = m.id == TypeId::kDecimal ? lakedump::LogicalType::Decimal(m.precision, m.scale)
                                               : lakedump::LogicalType::Of(m.id);
      f.column.nullable = rep != Repetition::kRequired;
      f.leaf.physical = *e.type;
      f.leaf.type_length = e.type_length.value_or(0);
      f.leaf.max_def = f.column.nullable ? 1 : 0;
      f.leaf.conv = m.conv;
      f.column.source_type = PhysicalName(*e.type);
    }
    fields.push_back(std::move(f));
  }
  if (idx != el.size()) return Status::Corruption("parquet schema has elements outside the tree");
  return fields;
}

}  // namespace lakedump::parquet
