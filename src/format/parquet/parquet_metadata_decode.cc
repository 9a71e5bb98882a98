// Decoding of the footer structures. Every read is bounds-checked by
// ThriftReader; unknown fields are skipped; a field with an unexpected wire
// type or a missing required field is Corruption.
#include <fmt/format.h>

#include "format/parquet/parquet_metadata.h"
#include "format/parquet/thrift_compact.h"

namespace lakedump::parquet {
namespace {

using T = ThriftType;

Status WrongType(const char* strct, int16_t id) {
  return Status::Corruption(fmt::format("parquet metadata: {} field {} has the wrong type", strct, id));
}

// Iterates the fields of one struct, calling fn(id, type) -> Status for each.
// fn must consume the value (or return Skip(type)).
template <typename Fn>
Status ForEachField(ThriftReader& r, Fn&& fn) {
  LD_RETURN_IF_ERROR(r.BeginStruct());
  while (true) {
    int16_t id;
    T type;
    LD_RETURN_IF_ERROR(r.ReadFieldHeader(&id, &type));
    if (type == T::kStop) break;
    LD_RETURN_IF_ERROR(fn(id, type));
  }
  r.EndStruct();
  return Status::OK();
}

template <typename E>
Status ReadEnum(ThriftReader& r, T type, const char* strct, int16_t id, E* out) {
  if (type != T::kI32) return WrongType(strct, id);
  int32_t v;
  LD_RETURN_IF_ERROR(r.ReadI32(&v));
  *out = static_cast<E>(v);
  return Status::OK();
}

#define LD_EXPECT(wire)                                   \
  do {                                                    \
    if (type != (wire)) return WrongType(kName, id);      \
  } while (0)

template <typename E>
Status ReadOptEnum(ThriftReader& r, T type, const char* name, int16_t id, std::optional<E>* out) {
  E v{};
  LD_RETURN_IF_ERROR(ReadEnum(r, type, name, id, &v));
  *out = v;
  return Status::OK();
}

Status ReadOptI32(ThriftReader& r, T type, const char* kName, int16_t id,
                  std::optional<int32_t>* out) {
  LD_EXPECT(T::kI32);
  int32_t v;
  LD_RETURN_IF_ERROR(r.ReadI32(&v));
  *out = v;
  return Status::OK();
}

Status ReadOptI64(ThriftReader& r, T type, const char* kName, int16_t id,
                  std::optional<int64_t>* out) {
  LD_EXPECT(T::kI64);
  int64_t v;
  LD_RETURN_IF_ERROR(r.ReadI64(&v));
  *out = v;
  return Status::OK();
}

Status ReadOptBinary(ThriftReader& r, T type, const char* kName, int16_t id,
                     std::optional<std::string>* out) {
  LD_EXPECT(T::kBinary);
  std::string v;
  LD_RETURN_IF_ERROR(r.ReadBinary(&v));
  *out = std::move(v);
  return Status::OK();
}

Status ReadOptBool(ThriftReader& r, T type, const char* kName, int16_t id,
                   std::optional<bool>* out) {
  if (type != T::kTrue && type != T::kFalse) return WrongType(kName, id);
  bool v;
  LD_RETURN_IF_ERROR(r.ReadBool(type, &v));
  *out = v;
  return Status::OK();
}

// Reads a list header whose elements must be `elem`.
Status ReadList(ThriftReader& r, T type, const char* kName, int16_t id, T elem, uint32_t* n) {
  LD_EXPECT(T::kList);
  T actual;
  LD_RETURN_IF_ERROR(r.ReadListHeader(&actual, n));
  if (actual != elem) return WrongType(kName, id);
  return Status::OK();
}

Status DecodeTimeUnit(ThriftReader& r, int16_t* unit) {
  return ForEachField(r, [&](int16_t id, T type) -> Status {
    if (type == T::kStruct) *unit = id;
    return r.Skip(type);
  });
}

Status DecodeLogicalType(ThriftReader& r, LogicalType* lt) {
  return ForEachField(r, [&](int16_t member, T type) -> Status {
    static constexpr const char* kName = "LogicalType";
    if (type != T::kStruct) return r.Skip(type);
    lt->kind = member;
    return ForEachField(r, [&](int16_t id, T type) -> Status {
      switch (member) {
        case LogicalType::kDecimal:
          if (id == 1 || id == 2) {
            LD_EXPECT(T::kI32);
            return r.ReadI32(id == 1 ? &lt->scale : &lt->precision);
          }
          break;
        case LogicalType::kTime:
        case LogicalType::kTimestamp:
          if (id == 1) {
            if (type != T::kTrue && type != T::kFalse) return WrongType(kName, id);
            return r.ReadBool(type, &lt->adjusted_to_utc);
          }
          if (id == 2) {
            LD_EXPECT(T::kStruct);
            return DecodeTimeUnit(r, &lt->unit);
          }
          break;
        case LogicalType::kInteger:
          if (id == 1) {
            LD_EXPECT(T::kByte);
            return r.ReadI8(&lt->bit_width);
          }
          if (id == 2) {
            if (type != T::kTrue && type != T::kFalse) return WrongType(kName, id);
            return r.ReadBool(type, &lt->is_signed);
          }
          break;
        default:
          break;
      }
      return r.Skip(type);
    });
  });
}

Status DecodeSchemaElement(ThriftReader& r, SchemaElement* e) {
  static constexpr const char* kName = "SchemaElement";
  bool has_name = false;
  LD_RETURN_IF_ERROR(ForEachField(r, [&](int16_t id, T type) -> Status {
    switch (id) {
      case 1: return ReadOptEnum(r, type, kName, id, &e->type);
      case 2: return ReadOptI32(r, type, kName, id, &e->type_length);
      case 3: return ReadOptEnum(r, type, kName, id, &e->repetition);
      case 4:
        LD_EXPECT(T::kBinary);
        has_name = true;
        return r.ReadBinary(&e->name);
      case 5: return ReadOptI32(r, type, kName, id, &e->num_children);
      case 6: return ReadOptEnum(r, type, kName, id, &e->converted_type);
      case 7: return ReadOptI32(r, type, kName, id, &e->scale);
      case 8: return ReadOptI32(r, type, kName, id, &e->precision);
      case 9: return ReadOptI32(r, type, kName, id, &e->field_id);
      case 10:
        LD_EXPECT(T::kStruct);
        e->logical_type.emplace();
        return DecodeLogicalType(r, &*e->logical_type);
      default: return r.Skip(type);
    }
  }));
  if (!has_name) return Status::Corruption("parquet metadata: SchemaElement without a name");
  return Status::OK();
}

Status DecodeStatistics(ThriftReader& r, Statistics* s) {
  static constexpr const char* kName = "Statistics";
  return ForEachField(r, [&](int16_t id, T type) -> Status {
    switch (id) {
      case 1: return ReadOptBinary(r, type, kName, id, &s->max);
      case 2: return ReadOptBinary(r, type, kName, id, &s->min);
      case 3: return ReadOptI64(r, type, kName, id, &s->null_count);
      case 4: return ReadOptI64(r, type, kName, id, &s->distinct_count);
      case 5: return ReadOptBinary(r, type, kName, id, &s->max_value);
      case 6: return ReadOptBinary(r, type, kName, id, &s->min_value);
      case 7: return ReadOptBool(r, type, kName, id, &s->is_max_value_exact);
      case 8: return ReadOptBool(r, type, kName, id, &s->is_min_value_exact);
      default: return r.Skip(type);
    }
  });
}

Status DecodeColumnMetaData(ThriftReader& r, ColumnMetaData* m) {
  static constexpr const char* kName = "ColumnMetaData";
  unsigned seen = 0;
  LD_RETURN_IF_ERROR(ForEachField(r, [&](int16_t id, T type) -> Status {
    if (id >= 1 && id <= 9) seen |= 1u << id;
    uint32_t n;
    switch (id) {
      case 1: return ReadEnum(r, type, kName, id, &m->type);
      case 2:
        LD_RETURN_IF_ERROR(ReadList(r, type, kName, id, T::kI32, &n));
        m->encodings.resize(n);
        for (auto& e : m->encodings) LD_RETURN_IF_ERROR(ReadEnum(r, T::kI32, kName, id, &e));
        return Status::OK();
      case 3:
        LD_RETURN_IF_ERROR(ReadList(r, type, kName, id, T::kBinary, &n));
        m->path_in_schema.resize(n);
        for (auto& p : m->path_in_schema) LD_RETURN_IF_ERROR(r.ReadBinary(&p));
        return Status::OK();
      case 4: return ReadEnum(r, type, kName, id, &m->codec);
      case 5: LD_EXPECT(T::kI64); return r.ReadI64(&m->num_values);
      case 6: LD_EXPECT(T::kI64); return r.ReadI64(&m->total_uncompressed_size);
      case 7: LD_EXPECT(T::kI64); return r.ReadI64(&m->total_compressed_size);
      case 9: LD_EXPECT(T::kI64); return r.ReadI64(&m->data_page_offset);
      case 11: return ReadOptI64(r, type, kName, id, &m->dictionary_page_offset);
      case 12:
        LD_EXPECT(T::kStruct);
        m->statistics.emplace();
        return DecodeStatistics(r, &*m->statistics);
      default: return r.Skip(type);
    }
  }));
  constexpr unsigned kRequired = (1u << 1) | (1u << 2) | (1u << 3) | (1u << 4) | (1u << 5) |
                                 (1u << 6) | (1u << 7) | (1u << 9);
  if ((seen & kRequired) != kRequired) {
    return Status::Corruption("parquet metadata: ColumnMetaData misses a required field");
  }
  return Status::OK();
}

Status DecodeColumnChunk(ThriftReader& r, ColumnChunk* c) {
  static constexpr const char* kName = "ColumnChunk";
  return ForEachField(r, [&](int16_t id, T type) -> Status {
    switch (id) {
      case 1: return ReadOptBinary(r, type, kName, id, &c->file_path);
      case 2: LD_EXPECT(T::kI64); return r.ReadI64(&c->file_offset);
      case 3:
        LD_EXPECT(T::kStruct);
        c->meta_data.emplace();
        return DecodeColumnMetaData(r, &*c->meta_data);
      default: return r.Skip(type);
    }
  });
}

Status DecodeRowGroup(ThriftReader& r, RowGroup* g) {
  static constexpr const char* kName = "RowGroup";
  return ForEachField(r, [&](int16_t id, T type) -> Status {
    switch (id) {
      case 1: {
        uint32_t n;
        LD_RETURN_IF_ERROR(ReadList(r, type, kName, id, T::kStruct, &n));
        g->columns.resize(n);
        for (auto& c : g->columns) LD_RETURN_IF_ERROR(DecodeColumnChunk(r, &c));
        return Status::OK();
      }
      case 2: LD_EXPECT(T::kI64); return r.ReadI64(&g->total_byte_size);
      case 3: LD_EXPECT(T::kI64); return r.ReadI64(&g->num_rows);
      case 5: return ReadOptI64(r, type, kName, id, &g->file_offset);
      case 6: return ReadOptI64(r, type, kName, id, &g->total_compressed_size);
      case 7: {
        LD_EXPECT(T::kI16);
        int16_t v;
        LD_RETURN_IF_ERROR(r.ReadI16(&v));
        g->ordinal = v;
        return Status::OK();
      }
      default: return r.Skip(type);
    }
  });
}

Status DecodeFileMetaDataInto(ThriftReader& r, FileMetaData* m) {
  static constexpr const char* kName = "FileMetaData";
  unsigned seen = 0;
  LD_RETURN_IF_ERROR(ForEachField(r, [&](int16_t id, T type) -> Status {
    if (id >= 1 && id <= 4) seen |= 1u << id;
    uint32_t n;
    switch (id) {
      case 1: LD_EXPECT(T::kI32); return r.ReadI32(&m->version);
      case 2:
        LD_RETURN_IF_ERROR(ReadList(r, type, kName, id, T::kStruct, &n));
        m->schema.resize(n);
        for (auto& e : m->schema) LD_RETURN_IF_ERROR(DecodeSchemaElement(r, &e));
        return Status::OK();
      case 3: LD_EXPECT(T::kI64); return r.ReadI64(&m->num_rows);
      case 4:
        LD_RETURN_IF_ERROR(ReadList(r, type, kName, id, T::kStruct, &n));
        m->row_groups.resize(n);
        for (auto& g : m->row_groups) LD_RETURN_IF_ERROR(DecodeRowGroup(r, &g));
        return Status::OK();
      case 5:
        LD_RETURN_IF_ERROR(ReadList(r, type, kName, id, T::kStruct, &n));
        m->key_value_metadata.resize(n);
        for (auto& kv : m->key_value_metadata) {
          LD_RETURN_IF_ERROR(ForEachField(r, [&](int16_t kid, T ktype) -> Status {
            if (kid == 1 && ktype == T::kBinary) return r.ReadBinary(&kv.key);
            if (kid == 2) return ReadOptBinary(r, ktype, "KeyValue", kid, &kv.value);
            return r.Skip(ktype);
          }));
        }
        return Status::OK();
      case 6: return ReadOptBinary(r, type, kName, id, &m->created_by);
      case 7:
        LD_RETURN_IF_ERROR(ReadList(r, type, kName, id, T::kStruct, &n));
        m->column_orders.resize(n);
        for (size_t i = 0; i < n; ++i) {
          bool type_order = false;
          LD_RETURN_IF_ERROR(ForEachField(r, [&](int16_t oid, T otype) -> Status {
            if (oid == 1 && otype == T::kStruct) type_order = true;
            return r.Skip(otype);
          }));
          m->column_orders[i] = type_order;
        }
        return Status::OK();
      default: return r.Skip(type);
    }
  }));
  if (seen != 0x1e) return Status::Corruption("parquet metadata: FileMetaData misses a required field");
  return Status::OK();
}

Status DecodePageHeaderInto(ThriftReader& r, PageHeader* h) {
  static constexpr const char* kName = "PageHeader";
  unsigned seen = 0;
  LD_RETURN_IF_ERROR(ForEachField(r, [&](int16_t id, T type) -> Status {
    if (id >= 1 && id <= 3) seen |= 1u << id;
    switch (id) {
      case 1: return ReadEnum(r, type, kName, id, &h->type);
      case 2: LD_EXPECT(T::kI32); return r.ReadI32(&h->uncompressed_page_size);
      case 3: LD_EXPECT(T::kI32); return r.ReadI32(&h->compressed_page_size);
      case 4: return ReadOptI32(r, type, kName, id, &h->crc);
      case 5: {
        LD_EXPECT(T::kStruct);
        DataPageHeader& d = h->data_page_header.emplace();
        return ForEachField(r, [&](int16_t did, T dtype) -> Status {
          static constexpr const char* kName = "DataPageHeader";
          const int16_t id = did;
          const T type = dtype;
          switch (id) {
            case 1: LD_EXPECT(T::kI32); return r.ReadI32(&d.num_values);
            case 2: return ReadEnum(r, type, kName, id, &d.encoding);
            case 3: return ReadEnum(r, type, kName, id, &d.definition_level_encoding);
            case 4: return ReadEnum(r, type, kName, id, &d.repetition_level_encoding);
            case 5:
              LD_EXPECT(T::kStruct);
              d.statistics.emplace();
              return DecodeStatistics(r, &*d.statistics);
            default: return r.Skip(type);
          }
        });
      }
      case 7: {
        LD_EXPECT(T::kStruct);
        DictionaryPageHeader& d = h->dictionary_page_header.emplace();
        return ForEachField(r, [&](int16_t id, T type) -> Status {
          static constexpr const char* kName = "DictionaryPageHeader";
          switch (id) {
            case 1: LD_EXPECT(T::kI32); return r.ReadI32(&d.num_values);
            case 2: return ReadEnum(r, type, kName, id, &d.encoding);
            case 3: return ReadOptBool(r, type, kName, id, &d.is_sorted);
            default: return r.Skip(type);
          }
        });
      }
      case 8: {
        LD_EXPECT(T::kStruct);
        DataPageHeaderV2& d = h->data_page_header_v2.emplace();
        return ForEachField(r, [&](int16_t id, T type) -> Status {
          static constexpr const char* kName = "DataPageHeaderV2";
          switch (id) {
            case 1: LD_EXPECT(T::kI32); return r.ReadI32(&d.num_values);
            case 2: LD_EXPECT(T::kI32); return r.ReadI32(&d.num_nulls);
            case 3: LD_EXPECT(T::kI32); return r.ReadI32(&d.num_rows);
            case 4: return ReadEnum(r, type, kName, id, &d.encoding);
            case 5: LD_EXPECT(T::kI32); return r.ReadI32(&d.definition_levels_byte_length);
            case 6: LD_EXPECT(T::kI32); return r.ReadI32(&d.repetition_levels_byte_length);
            case 7:
              if (type != T::kTrue && type != T::kFalse) return WrongType(kName, id);
              return r.ReadBool(type, &d.is_compressed);
            case 8:
              LD_EXPECT(T::kStruct);
              d.statistics.emplace();
              return DecodeStatistics(r, &*d.statistics);
            default: return r.Skip(type);
          }
        });
      }
      default: return r.Skip(type);
    }
  }));
  if (seen != 0xe) return Status::Corruption("parquet page header misses a required field");
  if (h->compressed_page_size < 0 || h->uncompressed_page_size < 0) {
    return Status::Corruption("parquet page header has a negative page size");
  }
  return Status::OK();
}

}  // namespace

Result<FileMetaData> DecodeFileMetaData(std::string_view in) {
  ThriftReader r(in);
  FileMetaData m;
  m.version = 0;
  LD_RETURN_IF_ERROR(DecodeFileMetaDataInto(r, &m));
  return m;
}

Result<PageHeader> DecodePageHeader(std::string_view in, size_t* consumed) {
  ThriftReader r(in);
  PageHeader h;
  LD_RETURN_IF_ERROR(DecodePageHeaderInto(r, &h));
  if (consumed) *consumed = r.position();
  return h;
}

}  // namespace lakedump::parquet
