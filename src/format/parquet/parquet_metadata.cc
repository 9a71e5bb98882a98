// Field ids follow apache/parquet-format src/main/thrift/parquet.thrift.
#include "format/parquet/parquet_metadata.h"

#include "format/parquet/thrift_compact.h"

namespace lakedump::parquet {
namespace {

using T = ThriftType;

// ---------------------------------------------------------------- encoding

// Writes the body of the LogicalType union; the caller has opened its struct.
void EncodeLogicalTypeBody(const LogicalType& lt, ThriftWriter& w) {
  w.FieldStruct(lt.kind);  // the union member
  switch (lt.kind) {
    case LogicalType::kDecimal:
      w.FieldI32(1, lt.scale);
      w.FieldI32(2, lt.precision);
      break;
    case LogicalType::kTime:
    case LogicalType::kTimestamp:
      w.FieldBool(1, lt.adjusted_to_utc);
      w.FieldStruct(2);  // TimeUnit union
      w.FieldStruct(lt.unit);
      w.EndStruct();
      w.EndStruct();
      break;
    case LogicalType::kInteger:
      w.FieldI8(1, lt.bit_width);
      w.FieldBool(2, lt.is_signed);
      break;
    default:  // STRING, LIST, DATE, JSON, UUID: empty structs
      break;
  }
  w.EndStruct();
  w.EndStruct();
}

void EncodeSchemaElement(const SchemaElement& e, ThriftWriter& w) {
  w.BeginStruct();
  if (e.type) w.FieldI32(1, static_cast<int32_t>(*e.type));
  if (e.type_length) w.FieldI32(2, *e.type_length);
  if (e.repetition) w.FieldI32(3, static_cast<int32_t>(*e.repetition));
  w.FieldBinary(4, e.name);
  if (e.num_children) w.FieldI32(5, *e.num_children);
  if (e.converted_type) w.FieldI32(6, static_cast<int32_t>(*e.converted_type));
  if (e.scale) w.FieldI32(7, *e.scale);
  if (e.precision) w.FieldI32(8, *e.precision);
  if (e.field_id) w.FieldI32(9, *e.field_id);
  if (e.logical_type && e.logical_type->kind != LogicalType::kNone) {
    w.FieldStruct(10);
    EncodeLogicalTypeBody(*e.logical_type, w);
  }
  w.EndStruct();
}

void EncodeStatistics(const Statistics& s, ThriftWriter& w) {
  if (s.max) w.FieldBinary(1, *s.max);
  if (s.min) w.FieldBinary(2, *s.min);
  if (s.null_count) w.FieldI64(3, *s.null_count);
  if (s.distinct_count) w.FieldI64(4, *s.distinct_count);
  if (s.max_value) w.FieldBinary(5, *s.max_value);
  if (s.min_value) w.FieldBinary(6, *s.min_value);
  if (s.is_max_value_exact) w.FieldBool(7, *s.is_max_value_exact);
  if (s.is_min_value_exact) w.FieldBool(8, *s.is_min_value_exact);
  w.EndStruct();
}

void EncodeColumnMetaData(const ColumnMetaData& m, ThriftWriter& w) {
  w.FieldI32(1, static_cast<int32_t>(m.type));
  w.FieldList(2, T::kI32, static_cast<uint32_t>(m.encodings.size()));
  for (Encoding e : m.encodings) w.I32(static_cast<int32_t>(e));
  w.FieldList(3, T::kBinary, static_cast<uint32_t>(m.path_in_schema.size()));
  for (const auto& p : m.path_in_schema) w.Binary(p);
  w.FieldI32(4, static_cast<int32_t>(m.codec));
  w.FieldI64(5, m.num_values);
  w.FieldI64(6, m.total_uncompressed_size);
  w.FieldI64(7, m.total_compressed_size);
  w.FieldI64(9, m.data_page_offset);
  if (m.dictionary_page_offset) w.FieldI64(11, *m.dictionary_page_offset);
  if (m.statistics) {
    w.FieldStruct(12);
    EncodeStatistics(*m.statistics, w);
  }
  w.EndStruct();
}

void EncodeRowGroup(const RowGroup& g, ThriftWriter& w) {
  w.BeginStruct();
  w.FieldList(1, T::kStruct, static_cast<uint32_t>(g.columns.size()));
  for (const ColumnChunk& c : g.columns) {
    w.BeginStruct();
    if (c.file_path) w.FieldBinary(1, *c.file_path);
    w.FieldI64(2, c.file_offset);
    if (c.meta_data) {
      w.FieldStruct(3);
      EncodeColumnMetaData(*c.meta_data, w);
    }
    w.EndStruct();
  }
  w.FieldI64(2, g.total_byte_size);
  w.FieldI64(3, g.num_rows);
  if (g.file_offset) w.FieldI64(5, *g.file_offset);
  if (g.total_compressed_size) w.FieldI64(6, *g.total_compressed_size);
  if (g.ordinal) w.FieldI16(7, *g.ordinal);
  w.EndStruct();
}

}  // namespace

void EncodeFileMetaData(const FileMetaData& m, std::string* out) {
  ThriftWriter w(out);
  w.FieldI32(1, m.version);
  w.FieldList(2, T::kStruct, static_cast<uint32_t>(m.schema.size()));
  for (const SchemaElement& e : m.schema) EncodeSchemaElement(e, w);
  w.FieldI64(3, m.num_rows);
  w.FieldList(4, T::kStruct, static_cast<uint32_t>(m.row_groups.size()));
  for (const RowGroup& g : m.row_groups) EncodeRowGroup(g, w);
  if (!m.key_value_metadata.empty()) {
    w.FieldList(5, T::kStruct, static_cast<uint32_t>(m.key_value_metadata.size()));
    for (const KeyValue& kv : m.key_value_metadata) {
      w.BeginStruct();
      w.FieldBinary(1, kv.key);
      if (kv.value) w.FieldBinary(2, *kv.value);
      w.EndStruct();
    }
  }
  if (m.created_by) w.FieldBinary(6, *m.created_by);
  if (!m.column_orders.empty()) {
    w.FieldList(7, T::kStruct, static_cast<uint32_t>(m.column_orders.size()));
    for (size_t i = 0; i < m.column_orders.size(); ++i) {
      w.BeginStruct();     // ColumnOrder union
      w.FieldStruct(1);    // TYPE_ORDER: TypeDefinedOrder {}
      w.EndStruct();
      w.EndStruct();
    }
  }
  w.EndStruct();
}

void EncodePageHeader(const PageHeader& h, std::string* out) {
  ThriftWriter w(out);
  w.FieldI32(1, static_cast<int32_t>(h.type));
  w.FieldI32(2, h.uncompressed_page_size);
  w.FieldI32(3, h.compressed_page_size);
  if (h.crc) w.FieldI32(4, *h.crc);
  if (h.data_page_header) {
    const DataPageHeader& d = *h.data_page_header;
    w.FieldStruct(5);
    w.FieldI32(1, d.num_values);
    w.FieldI32(2, static_cast<int32_t>(d.encoding));
    w.FieldI32(3, static_cast<int32_t>(d.definition_level_encoding));
    w.FieldI32(4, static_cast<int32_t>(d.repetition_level_encoding));
    if (d.statistics) {
      w.FieldStruct(5);
      EncodeStatistics(*d.statistics, w);
    }
    w.EndStruct();
  }
  if (h.dictionary_page_header) {
    const DictionaryPageHeader& d = *h.dictionary_page_header;
    w.FieldStruct(7);
    w.FieldI32(1, d.num_values);
    w.FieldI32(2, static_cast<int32_t>(d.encoding));
    if (d.is_sorted) w.FieldBool(3, *d.is_sorted);
    w.EndStruct();
  }
  if (h.data_page_header_v2) {
    const DataPageHeaderV2& d = *h.data_page_header_v2;
    w.FieldStruct(8);
    w.FieldI32(1, d.num_values);
    w.FieldI32(2, d.num_nulls);
    w.FieldI32(3, d.num_rows);
    w.FieldI32(4, static_cast<int32_t>(d.encoding));
    w.FieldI32(5, d.definition_levels_byte_length);
    w.FieldI32(6, d.repetition_levels_byte_length);
    w.FieldBool(7, d.is_compressed);
    if (d.statistics) {
      w.FieldStruct(8);
      EncodeStatistics(*d.statistics, w);
    }
    w.EndStruct();
  }
  w.EndStruct();
}

}  // namespace lakedump::parquet
