#include "format/parquet/column_reader.h"

#include <zlib.h>

#include <cstring>

#include <fmt/format.h>

#include "format/parquet/rle_decoder.h"

namespace lakedump::parquet {
namespace {

enum : int32_t {
  kPageData = 0, kPageIndex = 1, kPageDictionary = 2, kPageDataV2 = 3,
  kEncPlain = 0, kEncPlainDictionary = 2, kEncRle = 3, kEncBitPacked = 4, kEncRleDictionary = 8,
};

}  // namespace

ColumnChunkReader::ColumnChunkReader(const FieldInfo& field, std::string chunk, int64_t num_rows,
                                     const lakedump::Codec* codec, std::string context,
                                     bool verify_crc)
    : field_(field),
      chunk_(std::move(chunk)),
      rows_left_(num_rows),
      codec_(codec),
      context_(std::move(context)),
      verify_crc_(verify_crc),
      page_(std::make_unique<ColumnVector>(field.column.type, true)) {}

Status ColumnChunkReader::Error(const std::string& what) const {
  return Status::Corruption(fmt::format("{}: {}", context_, what));
}

Status ColumnChunkReader::Decompress(std::string_view in, size_t size, std::string* out) const {
  out->clear();
  Status s = codec_->Decompress(in, size, out);
  if (!s.ok()) return Error(fmt::format("page decompression failed: {}", s.message()));
  if (out->size() != size) return Error("page decompressed to the wrong size");
  return Status::OK();
}

Status ColumnChunkReader::Read(size_t n, ColumnVector* out) {
  while (n > 0) {
    if (page_pos_ >= page_->size()) {
      LD_RETURN_IF_ERROR(LoadNextPage());
      continue;
    }
    const size_t k = std::min(n, page_->size() - page_pos_);
    CopyRows(*page_, page_pos_, k, out);
    page_pos_ += k;
    n -= k;
    rows_left_ -= static_cast<int64_t>(k);
  }
  return Status::OK();
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
    if (h.uncompressed_page_size > kMaxPageBytes) {
      return Error(fmt::format("page of {} bytes is too large", h.uncompressed_page_size));
    }
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
    LD_RETURN_IF_ERROR(Decompress(body, static_cast<size_t>(h.uncompressed_page_size),
                                  &decompressed_));
    data = decompressed_;
  }
  const size_t n = static_cast<size_t>(num_values);
  Status s = DecodeValues(field_.leaf, kEncPlain, data, n, &values_);
  if (!s.ok()) return Error(fmt::format("dictionary page: {}", s.message()));
  dict_ = std::make_unique<ColumnVector>(field_.column.type, false);
  for (size_t i = 0; i < n; ++i) {
    Status c = AppendConverted(field_.leaf, values_, i, dict_.get());
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
  levels_.assign(n, 1);
  std::string_view values;
  if (!v2) {
    std::string_view data = body;
    if (codec_ != nullptr) {
      LD_RETURN_IF_ERROR(Decompress(body, static_cast<size_t>(h.uncompressed_page_size),
                                    &decompressed_));
      data = decompressed_;
    }
    if (optional) {
      const int32_t def_encoding =
          static_cast<int32_t>(h.data_page_header->definition_level_encoding);
      if (def_encoding != kEncRle) {
        return Status::Unimplemented(fmt::format(
            "{}: definition level encoding {} is not supported", context_, def_encoding));
      }
      uint32_t len;
      if (data.size() < 4) return Error("data page too short for its definition levels");
      std::memcpy(&len, data.data(), 4);
      if (len > data.size() - 4) return Error("definition levels run past the page");
      RleDecoder dec(data.substr(4, len), 1);
      Status s = dec.Get(n, levels_.data());
      if (!s.ok()) return Error(fmt::format("definition levels: {}", s.message()));
      data = data.substr(4 + len);
    }
    values = data;
  } else {
    const DataPageHeaderV2& d2 = *h.data_page_header_v2;
    const int64_t rep = d2.repetition_levels_byte_length, def = d2.definition_levels_byte_length;
    if (rep < 0 || def < 0 || rep + def > static_cast<int64_t>(body.size()) ||
        rep + def > h.uncompressed_page_size) {
      return Error("data page v2 level lengths do not fit the page");
    }
    if (optional) {
      RleDecoder dec(body.substr(static_cast<size_t>(rep), static_cast<size_t>(def)), 1);
      Status s = dec.Get(n, levels_.data());
      if (!s.ok()) return Error(fmt::format("definition levels: {}", s.message()));
    }
    values = body.substr(static_cast<size_t>(rep + def));
    if (codec_ != nullptr && d2.is_compressed) {
      LD_RETURN_IF_ERROR(Decompress(
          values, static_cast<size_t>(h.uncompressed_page_size - rep - def), &decompressed_));
      values = decompressed_;
    }
  }
  size_t nn = n;
  if (optional) {
    nn = 0;
    for (uint8_t l : levels_) nn += l;
  }
  page_->Clear();
  page_pos_ = 0;
  const bool dictionary = encoding == kEncRleDictionary || encoding == kEncPlainDictionary;
  if (dictionary) {
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
    const size_t dict_size = dict_->size();
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!levels_[i]) {
        page_->AppendNull();
        continue;
      }
      const uint32_t idx = indices_[k++];
      if (idx >= dict_size) {
        return Error(fmt::format("dictionary index {} out of range (dictionary has {} values)",
                                 idx, dict_size));
      }
      CopyRows(*dict_, idx, 1, page_.get());
    }
  } else {
    Status s = DecodeValues(field_.leaf, encoding, values, nn, &values_);
    if (s.code() == Code::kUnimplemented) {
      return Status::Unimplemented(fmt::format("{}: {}", context_, s.message()));
    }
    if (!s.ok()) return Error(s.message());
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!levels_[i]) {
        page_->AppendNull();
        continue;
      }
      Status c = AppendConverted(field_.leaf, values_, k++, page_.get());
      if (!c.ok()) return Error(c.message());
    }
  }
  rows_in_pages_ += static_cast<int64_t>(n);
  return Status::OK();
}

}  // namespace lakedump::parquet
