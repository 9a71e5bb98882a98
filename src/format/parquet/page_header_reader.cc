#include "format/parquet/page_header_reader.h"

#include <fmt/format.h>

#include "format/parquet/thrift_compact.h"

namespace lakedump::parquet {
namespace {

using T = ThriftType;

Status Wrong(const char* what, int16_t id) {
  return Status::Corruption(fmt::format("parquet page header: {} field {} has the wrong type",
                                        what, id));
}

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

Status I32(ThriftReader& r, T type, const char* what, int16_t id, int32_t* v) {
  if (type != T::kI32) return Wrong(what, id);
  return r.ReadI32(v);
}

}  // namespace

Result<ReaderPageHeader> DecodeReaderPageHeader(std::string_view in, size_t* consumed) {
  ThriftReader r(in);
  ReaderPageHeader h;
  unsigned seen = 0;
  LD_RETURN_IF_ERROR(ForEachField(r, [&](int16_t id, T type) -> Status {
    static constexpr const char* kName = "PageHeader";
    if (id >= 1 && id <= 3) seen |= 1u << id;
    switch (id) {
      case 1: return I32(r, type, kName, id, &h.type);
      case 2: return I32(r, type, kName, id, &h.uncompressed_page_size);
      case 3: return I32(r, type, kName, id, &h.compressed_page_size);
      case 4: {
        int32_t crc;
        LD_RETURN_IF_ERROR(I32(r, type, kName, id, &crc));
        h.crc = crc;
        return Status::OK();
      }
      case 5:
        if (type != T::kStruct) return Wrong(kName, id);
        h.has_v1 = true;
        return ForEachField(r, [&](int16_t did, T dtype) -> Status {
          static constexpr const char* kD = "DataPageHeader";
          switch (did) {
            case 1: return I32(r, dtype, kD, did, &h.num_values);
            case 2: return I32(r, dtype, kD, did, &h.encoding);
            case 3: return I32(r, dtype, kD, did, &h.definition_level_encoding);
            default: return r.Skip(dtype);
          }
        });
      case 7:
        if (type != T::kStruct) return Wrong(kName, id);
        h.has_dict = true;
        return ForEachField(r, [&](int16_t did, T dtype) -> Status {
          static constexpr const char* kD = "DictionaryPageHeader";
          switch (did) {
            case 1: return I32(r, dtype, kD, did, &h.dict_num_values);
            case 2: return I32(r, dtype, kD, did, &h.dict_encoding);
            default: return r.Skip(dtype);
          }
        });
      case 8:
        if (type != T::kStruct) return Wrong(kName, id);
        h.has_v2 = true;
        return ForEachField(r, [&](int16_t did, T dtype) -> Status {
          static constexpr const char* kD = "DataPageHeaderV2";
          switch (did) {
            case 1: return I32(r, dtype, kD, did, &h.num_values);
            case 2: return I32(r, dtype, kD, did, &h.num_nulls);
            case 3: return I32(r, dtype, kD, did, &h.num_rows);
            case 4: return I32(r, dtype, kD, did, &h.encoding);
            case 5: return I32(r, dtype, kD, did, &h.definition_levels_byte_length);
            case 6: return I32(r, dtype, kD, did, &h.repetition_levels_byte_length);
            case 7:
              if (dtype != T::kTrue && dtype != T::kFalse) return Wrong(kD, did);
              return r.ReadBool(dtype, &h.is_compressed);
            default: return r.Skip(dtype);
          }
        });
      default: return r.Skip(type);
    }
  }));
  if (seen != 0xe) return Status::Corruption("parquet page header misses a required field");
  if (h.compressed_page_size < 0 || h.uncompressed_page_size < 0) {
    return Status::Corruption("parquet page header has a negative page size");
  }
  if (consumed != nullptr) *consumed = r.position();
  return h;
}

}  // namespace lakedump::parquet
