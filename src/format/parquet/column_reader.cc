#include "format/parquet/column_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "format/parquet/rle.h"
#include "format/parquet/rle_decoder.h"

namespace lakedump::parquet {
namespace {

enum : int32_t {
  kPageData = 0, kPageIndex = 1, kPageDictionary = 2, kPageDataV2 = 3,
  kEncPlain = 0, kEncPlainDictionary = 2, kEncRle = 3, kEncBitPacked = 4, kEncRleDictionary = 8,
};

// Conversions Emit() does on the fly from the physical values (plain casts that cannot fail).
// Every other conversion goes through AppendConverted into the page's conv_ vector first.
bool IsDirect(Conv c) {
  switch (c) {
    case Conv::kBool:
    case Conv::kI32ToI8:
    case Conv::kI32ToI16:
    case Conv::kI32:
    case Conv::kU32ToI64:
    case Conv::kI32ToDecimal:
    case Conv::kI32MillisToMicros:
    case Conv::kI64:
    case Conv::kI64ToDecimal:
    case Conv::kU64ToDecimal:
    case Conv::kFloat:
    case Conv::kDouble:
    case Conv::kBytes:
      return true;
    default:
      return false;
  }
}

// Writes n rows of To into dst: row i null (zero slot) iff valid && !valid[i]; the non-null
// rows take f(src[k]) for k = 0, 1, ... (src: compacted From values, unaligned).
template <typename From, typename To, typename F>
void ConvertSpaced(const uint8_t* src, const uint8_t* valid, size_t n, uint8_t* dst, F f) {
  if (valid == nullptr) {
    if constexpr (std::is_same_v<From, To>) {
      std::memcpy(dst, src, n * sizeof(To));
    } else {
      for (size_t i = 0; i < n; ++i) {
        From v;
        std::memcpy(&v, src + i * sizeof(From), sizeof(From));
        const To t = f(v);
        std::memcpy(dst + i * sizeof(To), &t, sizeof(To));
      }
    }
    return;
  }
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    To t{};
    if (valid[i]) {
      From v;
      std::memcpy(&v, src + k * sizeof(From), sizeof(From));
      t = f(v);
      ++k;
    }
    std::memcpy(dst + i * sizeof(To), &t, sizeof(To));
  }
}

template <typename From, typename To>
void CastSpaced(const uint8_t* src, const uint8_t* valid, size_t n, uint8_t* dst) {
  ConvertSpaced<From, To>(src, valid, n, dst, [](From v) { return static_cast<To>(v); });
}

// Copies W-byte values (compacted, src) into n slots, nulls zeroed.
template <size_t W>
void CopySpacedW(const uint8_t* src, const uint8_t* valid, size_t n, uint8_t* dst) {
  struct V {
    uint8_t b[W];
  };
  ConvertSpaced<V, V>(src, valid, n, dst, [](V v) { return v; });
}

void CopySpaced(size_t width, const uint8_t* src, const uint8_t* valid, size_t n, uint8_t* dst) {
  switch (width) {
    case 1: return CopySpacedW<1>(src, valid, n, dst);
    case 2: return CopySpacedW<2>(src, valid, n, dst);
    case 4: return CopySpacedW<4>(src, valid, n, dst);
    case 8: return CopySpacedW<8>(src, valid, n, dst);
    case 16: return CopySpacedW<16>(src, valid, n, dst);
    default: break;
  }
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    if (valid == nullptr || valid[i]) {
      std::memcpy(dst + i * width, src + k++ * width, width);
    } else {
      std::memset(dst + i * width, 0, width);
    }
  }
}

// Dictionary values dict[idx[k]] for the non-null rows, nulls zeroed.
template <size_t W>
void GatherSpacedW(const uint8_t* dict, const uint32_t* idx, const uint8_t* valid, size_t n,
                   uint8_t* dst) {
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    if (valid == nullptr || valid[i]) {
      std::memcpy(dst + i * W, dict + static_cast<size_t>(idx[k++]) * W, W);
    } else {
      std::memset(dst + i * W, 0, W);
    }
  }
}

void GatherSpaced(size_t width, const uint8_t* dict, const uint32_t* idx, const uint8_t* valid,
                  size_t n, uint8_t* dst) {
  switch (width) {
    case 1: return GatherSpacedW<1>(dict, idx, valid, n, dst);
    case 2: return GatherSpacedW<2>(dict, idx, valid, n, dst);
    case 4: return GatherSpacedW<4>(dict, idx, valid, n, dst);
    case 8: return GatherSpacedW<8>(dict, idx, valid, n, dst);
    case 16: return GatherSpacedW<16>(dict, idx, valid, n, dst);
    default: break;
  }
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    if (valid == nullptr || valid[i]) {
      std::memcpy(dst + i * width, dict + static_cast<size_t>(idx[k++]) * width, width);
    } else {
      std::memset(dst + i * width, 0, width);
    }
  }
}

// The physical values of a page converted by `conv` (IsDirect, fixed-width) into slots.
void ConvertPhysical(Conv conv, const uint8_t* src, const uint8_t* valid, size_t n,
                     uint8_t* dst) {
  switch (conv) {
    case Conv::kBool: return CastSpaced<uint8_t, uint8_t>(src, valid, n, dst);
    case Conv::kI32ToI8: return CastSpaced<int32_t, int8_t>(src, valid, n, dst);
    case Conv::kI32ToI16: return CastSpaced<int32_t, int16_t>(src, valid, n, dst);
    case Conv::kI32: return CastSpaced<int32_t, int32_t>(src, valid, n, dst);
    case Conv::kU32ToI64: return CastSpaced<uint32_t, int64_t>(src, valid, n, dst);
    case Conv::kI32ToDecimal: return CastSpaced<int32_t, int128_t>(src, valid, n, dst);
    case Conv::kI32MillisToMicros:
      return ConvertSpaced<int32_t, int64_t>(src, valid, n, dst,
                                             [](int32_t v) { return int64_t{v} * 1000; });
    case Conv::kI64: return CastSpaced<int64_t, int64_t>(src, valid, n, dst);
    case Conv::kI64ToDecimal: return CastSpaced<int64_t, int128_t>(src, valid, n, dst);
    case Conv::kU64ToDecimal: return CastSpaced<uint64_t, int128_t>(src, valid, n, dst);
    case Conv::kFloat: return CastSpaced<float, float>(src, valid, n, dst);
    case Conv::kDouble: return CastSpaced<double, double>(src, valid, n, dst);
    default: return;  // not IsDirect
  }
}

}  // namespace

ColumnChunkReader::ColumnChunkReader(const FieldInfo& field, bool verify_crc)
    : field_(field),
      value_type_(field.column.type.is_list() ? field.column.type.ElementType()
                                              : field.column.type),
      verify_crc_(verify_crc),
      dict_(value_type_, false),
      conv_(value_type_, false) {}

ColumnChunkReader::ColumnChunkReader(const FieldInfo& field, std::string chunk, int64_t num_rows,
                                     const lakedump::Codec* codec, std::string context,
                                     bool verify_crc)
    : ColumnChunkReader(field, verify_crc) {
  chunk_ = std::move(chunk);
  Reset(num_rows, codec, std::move(context));
}

int64_t MaxCompressionRatio(lakedump::CodecKind kind) {
  switch (kind) {
    case lakedump::CodecKind::kSnappy: return 32;
    case lakedump::CodecKind::kLz4Raw: return 256;
    case lakedump::CodecKind::kGzip: return 1040;
    case lakedump::CodecKind::kZstd: return 1024;
    case lakedump::CodecKind::kNone: return 1;
  }
  return 1;
}

uint64_t DecompressionBound(const lakedump::Codec* codec, int64_t chunk_uncompressed_bytes) {
  if (codec == nullptr) return 0;
  if (chunk_uncompressed_bytes <= 0) return static_cast<uint64_t>(kMaxPageBytes);
  return static_cast<uint64_t>(std::min(chunk_uncompressed_bytes, kMaxPageBytes));
}

void ColumnChunkReader::Reset(int64_t num_rows, const lakedump::Codec* codec,
                              std::string context, int64_t chunk_uncompressed_bytes) {
  // A page buffer grown for one large page is given back when the last chunk needed far less,
  // so one odd row group does not pin its peak for the rest of the file; and when it is over
  // what this chunk may use, so that it stays within what the reader reserved for it.
  constexpr size_t kKeepBelow = 16u << 20;
  if ((decompressed_.size() > kKeepBelow && decompressed_.size() > 2 * largest_page_) ||
      decompressed_.size() > DecompressionBound(codec, chunk_uncompressed_bytes)) {
    std::string().swap(decompressed_);
  }
  largest_page_ = 0;
  chunk_uncompressed_bytes_ = chunk_uncompressed_bytes;
  pos_ = 0;
  rows_left_ = num_rows;
  rows_in_pages_ = 0;
  codec_ = codec;
  context_ = std::move(context);
  has_dict_ = false;
  dict_.Clear();
  page_rows_ = 0;
  row_pos_ = 0;
  value_pos_ = 0;
  list_row_ = ListRow::kNone;
}

Status ColumnChunkReader::Error(const std::string& what) const {
  return Status::Corruption(fmt::format("{}: {}", context_, what));
}

Status ColumnChunkReader::CheckPageSize(const PageHeader& h, size_t compressed_size) const {
  const int64_t declared = h.uncompressed_page_size;
  if (declared < 0) return Error(fmt::format("page declares {} bytes uncompressed", declared));
  if (codec_ != nullptr && declared > kPageBytesWithoutRatioCheck) {
    const int64_t ratio = MaxCompressionRatio(codec_->kind());
    if (declared / ratio > static_cast<int64_t>(compressed_size)) {
      return Error(fmt::format("page declares {} bytes from {} compressed bytes, a ratio over "
                               "{}:1 for {} (refused: a decompression bomb?)",
                               declared, compressed_size, ratio, CodecName(codec_->kind())));
    }
  }
  if (chunk_uncompressed_bytes_ > 0 && declared > chunk_uncompressed_bytes_) {
    return Error(fmt::format("page declares {} bytes uncompressed, more than its column "
                             "chunk's total_uncompressed_size of {}",
                             declared, chunk_uncompressed_bytes_));
  }
  if (declared > kMaxPageBytes) {
    return Error(fmt::format("page of {} bytes is over the {}-byte page limit", declared,
                             kMaxPageBytes));
  }
  return Status::OK();
}

Status ColumnChunkReader::Decompress(std::string_view in, size_t size, std::string_view* out) {
  // The buffer only grows within a chunk (zero-filled once); pages are decompressed over its
  // old contents. CheckPageSize() bounded `size` before this allocates.
  largest_page_ = std::max(largest_page_, size);
  if (decompressed_.size() < size) decompressed_.resize(size);
  Status s = codec_->DecompressTo(in, size, decompressed_.data());
  if (!s.ok()) return Error(fmt::format("page decompression failed: {}", s.message()));
  *out = std::string_view(decompressed_.data(), size);
  return Status::OK();
}

Status ColumnChunkReader::Read(size_t n, ColumnVector* out) {
  if (field_.leaf.max_rep > 0) return ReadList(n, out);
  while (n > 0) {
    if (row_pos_ >= page_rows_) {
      LD_RETURN_IF_ERROR(LoadNextPage());
      continue;
    }
    const size_t k = std::min(n, page_rows_ - row_pos_);
    Emit(k, out);
    n -= k;
    rows_left_ -= static_cast<int64_t>(k);
  }
  return Status::OK();
}

void ColumnChunkReader::CloseListRow(ColumnVector* out) {
  if (list_row_ == ListRow::kNull) out->AppendNull();
  if (list_row_ == ListRow::kOpen) out->AppendList();
  list_row_ = ListRow::kNone;
}

// A row is known to be complete when the next slot starts a row (repetition level 0) or the
// chunk ends, so a row may span pages (as writers other than ours may do).
Status ColumnChunkReader::ReadList(size_t n, ColumnVector* out) {
  ColumnVector& elements = out->elements();
  const LeafInfo& leaf = field_.leaf;
  size_t done = 0;
  while (done < n || list_row_ != ListRow::kNone) {
    if (row_pos_ >= page_rows_) {
      if (pos_ >= chunk_.size() && list_row_ != ListRow::kNone) {
        CloseListRow(out);  // the chunk's last row
        ++done;
        continue;
      }
      LD_RETURN_IF_ERROR(LoadNextPage());
      continue;
    }
    const uint8_t rep = rep_levels_[row_pos_];
    if (rep == 0) {
      if (list_row_ != ListRow::kNone) {
        CloseListRow(out);
        ++done;
        if (done == n) break;  // the slot starts the next call's first row
      }
      const uint8_t def = def_levels_[row_pos_];
      if (def < leaf.list_def) {
        list_row_ = ListRow::kNull;
        ++row_pos_;
        continue;
      }
      list_row_ = ListRow::kOpen;
      if (def < leaf.elem_def) {  // an empty list
        ++row_pos_;
        continue;
      }
    } else if (list_row_ == ListRow::kNone) {
      return Error("a list's first value has a repetition level above 0");
    } else if (list_row_ == ListRow::kNull || def_levels_[row_pos_] < leaf.elem_def) {
      return Error("a list holds a value after a level that ends it");
    }
    // A run of elements of this row: up to the next slot that starts a row or the page's end.
    size_t end = row_pos_ + 1;
    while (end < page_rows_ && rep_levels_[end] != 0) {
      if (def_levels_[end] < leaf.elem_def) {
        return Error("a list holds a value after a level that ends it");
      }
      ++end;
    }
    Emit(end - row_pos_, &elements);
  }
  rows_left_ -= static_cast<int64_t>(n);
  return Status::OK();
}

Status ColumnChunkReader::DecodeLevels(std::string_view in, size_t n, int bit_width, int max,
                                       const char* what, std::vector<uint8_t>* levels) {
  levels->resize(n);
  RleDecoder dec(in, bit_width);
  Status s = dec.Get(n, levels->data());
  if (!s.ok()) return Error(fmt::format("{} levels: {}", what, s.message()));
  for (size_t i = 0; i < n; ++i) {
    if ((*levels)[i] > max) {
      return Error(fmt::format("{} level {} above the column's maximum of {}", what,
                               (*levels)[i], max));
    }
  }
  return Status::OK();
}

void ColumnChunkReader::Emit(size_t k, ColumnVector* out) {
  const uint8_t* valid = has_levels_ ? levels_.data() + row_pos_ : nullptr;
  size_t nn = k;
  if (valid != nullptr) {
    nn = 0;
    for (size_t i = 0; i < k; ++i) nn += valid[i];
    if (nn == k) valid = nullptr;
  }
  const size_t nulls = k - nn;
  const size_t width = FixedWidth(value_type_.id);
  if (width == 0) {
    // Variable-length values: views of the non-null ones, then one bulk append.
    const std::string_view* vals;
    if (source_ == Source::kDictionary) {
      views_.resize(nn);
      const uint32_t* idx = indices_.data() + value_pos_;
      for (size_t j = 0; j < nn; ++j) views_[j] = dict_.BytesAt(idx[j]);
      vals = views_.data();
    } else {
      vals = values_.var.data() + value_pos_;
    }
    out->AppendBytesSpaced(vals, valid, k);
  } else {
    uint8_t* dst = out->AppendFixedSlots(k, valid, nulls);
    switch (source_) {
      case Source::kDictionary:
        GatherSpaced(width, dict_.raw_values(), indices_.data() + value_pos_, valid, k, dst);
        break;
      case Source::kConverted:
        CopySpaced(width, conv_.raw_values() + value_pos_ * width, valid, k, dst);
        break;
      case Source::kPhysical: {
        const size_t pw = PhysicalWidth(field_.leaf.physical);
        ConvertPhysical(field_.leaf.conv,
                        reinterpret_cast<const uint8_t*>(values_.data.data()) + value_pos_ * pw,
                        valid, k, dst);
        break;
      }
    }
  }
  row_pos_ += k;
  value_pos_ += nn;
}

Status ColumnChunkReader::LoadNextPage() {
  while (true) {
    if (pos_ >= chunk_.size()) {
      return Error(fmt::format("the column chunk ends after {} values; the row group has more rows",
                               rows_in_pages_));
    }
    size_t header_len = 0;
    Result<PageHeader> hr = DecodePageHeader(std::string_view(chunk_).substr(pos_), &header_len);
    if (!hr.ok()) return Error(fmt::format("bad page header at chunk offset {}: {}", pos_,
                                           hr.status().message()));
    const PageHeader& h = *hr;
    pos_ += header_len;
    const size_t size = static_cast<size_t>(h.compressed_page_size);
    if (size > chunk_.size() - pos_) {
      return Error(fmt::format("a page of {} bytes runs past the end of the column chunk", size));
    }
    const std::string_view body = std::string_view(chunk_).substr(pos_, size);
    pos_ += size;
    LD_RETURN_IF_ERROR(CheckPageSize(h, size));
    if (verify_crc_ && h.crc.has_value()) {
      const uint32_t crc = static_cast<uint32_t>(
          crc32(0, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size())));
      if (crc != static_cast<uint32_t>(*h.crc)) return Error("page CRC mismatch");
    }
    switch (static_cast<int32_t>(h.type)) {
      case kPageDictionary: LD_RETURN_IF_ERROR(LoadDictionary(h, body)); continue;
      case kPageData:
      case kPageDataV2: return DecodeDataPage(h, body);
      default: continue;  // index pages and unknown pages are skipped
    }
  }
}

Status ColumnChunkReader::LoadDictionary(const PageHeader& h, std::string_view body) {
  if (has_dict_) return Error("a second dictionary page");
  if (!h.dictionary_page_header) return Error("dictionary page without a dictionary page header");
  const int32_t num_values = h.dictionary_page_header->num_values;
  const int32_t encoding = static_cast<int32_t>(h.dictionary_page_header->encoding);
  if (num_values < 0 || num_values > kMaxPageValues) {
    return Error(fmt::format("dictionary of {} values", num_values));
  }
  if (encoding != kEncPlain && encoding != kEncPlainDictionary) {
    return Error(fmt::format("dictionary page encoding {} is not PLAIN", encoding));
  }
  std::string_view data = body;
  if (codec_ != nullptr) {
    LD_RETURN_IF_ERROR(Decompress(body, static_cast<size_t>(h.uncompressed_page_size), &data));
  }
  const size_t n = static_cast<size_t>(num_values);
  Status s = DecodeValues(field_.leaf, kEncPlain, data, n, &values_);
  if (!s.ok()) return Error(fmt::format("dictionary page: {}", s.message()));
  dict_.Clear();
  for (size_t i = 0; i < n; ++i) {
    Status c = AppendConverted(field_.leaf, values_, i, &dict_);
    if (!c.ok()) return Error(fmt::format("dictionary page: {}", c.message()));
  }
  has_dict_ = true;
  return Status::OK();
}

Status ColumnChunkReader::DecodeDataPage(const PageHeader& h, std::string_view body) {
  const bool v2 = h.type == PageType::kDataPageV2;
  if (v2 ? !h.data_page_header_v2 : !h.data_page_header) {
    return Error("data page without a data page header");
  }
  const int32_t num_values = v2 ? h.data_page_header_v2->num_values
                                : h.data_page_header->num_values;
  const int32_t encoding = static_cast<int32_t>(v2 ? h.data_page_header_v2->encoding
                                                   : h.data_page_header->encoding);
  if (num_values < 0 || num_values > kMaxPageValues) {
    return Error(fmt::format("data page of {} values", num_values));
  }
  const size_t n = static_cast<size_t>(num_values);
  const bool optional = field_.leaf.max_def > 0;
  const bool repeated = field_.leaf.max_rep > 0;
  // The page is replaced below: nothing of the previous one may be returned any more.
  page_rows_ = 0;
  row_pos_ = 0;
  value_pos_ = 0;
  has_levels_ = false;
  if (optional) levels_.resize(n);
  std::string_view values;
  LD_RETURN_IF_ERROR(v2 ? DecodeLevelsV2(h, body, n, &values)
                        : DecodeLevelsV1(h, body, n, &values));
  size_t nn = n;
  if (optional) {
    nn = 0;
    for (size_t i = 0; i < n; ++i) nn += levels_[i];
    has_levels_ = nn != n;
  }
  if (repeated && n > 0 && rows_in_pages_ == 0 && rep_levels_[0] != 0) {
    return Error("the column chunk's first value has a repetition level above 0");
  }
  const bool dictionary = encoding == kEncRleDictionary || encoding == kEncPlainDictionary;
  LD_RETURN_IF_ERROR(dictionary ? DecodeDictionaryIndices(values, nn)
                                : DecodePageValues(encoding, values, nn));
  page_rows_ = n;
  rows_in_pages_ += static_cast<int64_t>(n);
  return Status::OK();
}

Status ColumnChunkReader::TakeV1Levels(int32_t encoding, const char* what,
                                       std::string_view* data, std::string_view* levels) {
  if (encoding != kEncRle) {
    return Status::Unimplemented(
        fmt::format("{}: {} level encoding {} is not supported", context_, what, encoding));
  }
  uint32_t len;
  if (data->size() < 4) return Error(fmt::format("data page too short for its {} levels", what));
  std::memcpy(&len, data->data(), 4);
  if (len > data->size() - 4) return Error(fmt::format("{} levels run past the page", what));
  *levels = data->substr(4, len);
  *data = data->substr(4 + len);
  return Status::OK();
}

Status ColumnChunkReader::DecodeLevelsV1(const PageHeader& h, std::string_view body, size_t n,
                                         std::string_view* values) {
  std::string_view data = body;
  if (codec_ != nullptr) {
    LD_RETURN_IF_ERROR(Decompress(body, static_cast<size_t>(h.uncompressed_page_size), &data));
  }
  // Levels: repetition (lists), then definition, each RLE with a 4-byte length.
  const DataPageHeader& d1 = *h.data_page_header;
  std::string_view levels;
  if (field_.leaf.max_rep > 0) {
    LD_RETURN_IF_ERROR(TakeV1Levels(static_cast<int32_t>(d1.repetition_level_encoding),
                                    "repetition", &data, &levels));
    LD_RETURN_IF_ERROR(DecodeLevels(levels, n,
                                    BitWidth(static_cast<uint64_t>(field_.leaf.max_rep)),
                                    field_.leaf.max_rep, "repetition", &rep_levels_));
    LD_RETURN_IF_ERROR(TakeV1Levels(static_cast<int32_t>(d1.definition_level_encoding),
                                    "definition", &data, &levels));
    LD_RETURN_IF_ERROR(DecodeLevels(levels, n,
                                    BitWidth(static_cast<uint64_t>(field_.leaf.max_def)),
                                    field_.leaf.max_def, "definition", &def_levels_));
    for (size_t i = 0; i < n; ++i) levels_[i] = def_levels_[i] == field_.leaf.max_def;
  } else if (field_.leaf.max_def > 0) {
    LD_RETURN_IF_ERROR(TakeV1Levels(static_cast<int32_t>(d1.definition_level_encoding),
                                    "definition", &data, &levels));
    RleDecoder dec(levels, 1);
    Status s = dec.Get(n, levels_.data());
    if (!s.ok()) return Error(fmt::format("definition levels: {}", s.message()));
  }
  *values = data;
  return Status::OK();
}

Status ColumnChunkReader::DecodeLevelsV2(const PageHeader& h, std::string_view body, size_t n,
                                         std::string_view* values) {
  const DataPageHeaderV2& d2 = *h.data_page_header_v2;
  const int64_t rep = d2.repetition_levels_byte_length, def = d2.definition_levels_byte_length;
  if (rep < 0 || def < 0 || rep + def > static_cast<int64_t>(body.size()) ||
      rep + def > h.uncompressed_page_size) {
    return Error("data page v2 level lengths do not fit the page");
  }
  const std::string_view def_bytes =
      body.substr(static_cast<size_t>(rep), static_cast<size_t>(def));
  if (field_.leaf.max_rep > 0) {
    LD_RETURN_IF_ERROR(DecodeLevels(body.substr(0, static_cast<size_t>(rep)), n,
                                    BitWidth(static_cast<uint64_t>(field_.leaf.max_rep)),
                                    field_.leaf.max_rep, "repetition", &rep_levels_));
    LD_RETURN_IF_ERROR(DecodeLevels(def_bytes, n,
                                    BitWidth(static_cast<uint64_t>(field_.leaf.max_def)),
                                    field_.leaf.max_def, "definition", &def_levels_));
    for (size_t i = 0; i < n; ++i) levels_[i] = def_levels_[i] == field_.leaf.max_def;
  } else if (field_.leaf.max_def > 0) {
    RleDecoder dec(def_bytes, 1);
    Status s = dec.Get(n, levels_.data());
    if (!s.ok()) return Error(fmt::format("definition levels: {}", s.message()));
  }
  *values = body.substr(static_cast<size_t>(rep + def));
  if (codec_ != nullptr && d2.is_compressed) {
    LD_RETURN_IF_ERROR(Decompress(
        *values, static_cast<size_t>(h.uncompressed_page_size - rep - def), values));
  }
  return Status::OK();
}

Status ColumnChunkReader::DecodeDictionaryIndices(std::string_view values, size_t nn) {
  if (!has_dict_) return Error("dictionary-encoded page without a dictionary page");
  indices_.resize(nn);
  if (nn > 0) {
    if (values.empty()) return Error("dictionary-encoded page without index data");
    const int bw = static_cast<uint8_t>(values[0]);
    if (bw > 32) return Error(fmt::format("dictionary index bit width {}", bw));
    RleDecoder dec(values.substr(1), bw);
    Status s = dec.Get(nn, indices_.data());
    if (!s.ok()) return Error(fmt::format("dictionary indices: {}", s.message()));
  }
  uint32_t max_idx = 0;
  for (size_t i = 0; i < nn; ++i) max_idx = std::max(max_idx, indices_[i]);
  const size_t dict_size = dict_.size();
  if (nn > 0 && max_idx >= dict_size) {
    return Error(fmt::format("dictionary index {} out of range (dictionary has {} values)",
                             max_idx, dict_size));
  }
  source_ = Source::kDictionary;
  return Status::OK();
}

Status ColumnChunkReader::DecodePageValues(int32_t encoding, std::string_view values, size_t nn) {
  Status s = DecodeValues(field_.leaf, encoding, values, nn, &values_);
  if (s.code() == Code::kUnimplemented) {
    return Status::Unimplemented(fmt::format("{}: {}", context_, s.message()));
  }
  if (!s.ok()) return Error(s.message());
  if (IsDirect(field_.leaf.conv)) {
    source_ = Source::kPhysical;
    if (FixedWidth(value_type_.id) == 0 && values_.var.size() < nn) {
      return Error("fewer values than the page's rows");
    }
  } else {
    conv_.Clear();
    for (size_t k = 0; k < nn; ++k) {
      Status c = AppendConverted(field_.leaf, values_, k, &conv_);
      if (!c.ok()) return Error(c.message());
    }
    source_ = Source::kConverted;
  }
  return Status::OK();
}

}  // namespace lakedump::parquet
