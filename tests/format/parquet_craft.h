// Crafting hostile Parquet files for tests: take a file our writer made and rewrite its pages
// (headers and bodies) and footer, with every offset and size put back in place, so that the
// result is well-formed in every way except the one a test wants to break. Header-only; tests.
#pragma once

#include <zstd.h>

#include <cstring>
#include <functional>
#include <string>
#include <string_view>

#include "format/parquet/parquet_footer.h"
#include "format/parquet/parquet_metadata.h"

namespace lakedump::testing {

// Called for every page of every column chunk: may change the header and the body
// (compressed_page_size is set from the body afterwards). `column` is the leaf index.
using PageEdit = std::function<void(size_t column, parquet::PageHeader* header,
                                    std::string* body)>;
// Called last on the footer (offsets and chunk sizes already updated).
using FooterEdit = std::function<void(parquet::FileMetaData* meta)>;

// Rewrites `file` (a flat Parquet file); "" when it cannot be parsed.
inline std::string RewriteParquet(std::string_view file, const PageEdit& page_edit,
                                  const FooterEdit& footer_edit = {}) {
  auto parsed = parquet::ReadParquetFooter(file);
  if (!parsed.ok()) return "";
  parquet::FileMetaData meta = std::move(parsed).value();
  std::string out = "PAR1";
  for (parquet::RowGroup& rg : meta.row_groups) {
    for (size_t c = 0; c < rg.columns.size(); ++c) {
      parquet::ColumnMetaData& m = *rg.columns[c].meta_data;
      int64_t start = m.data_page_offset;
      if (m.dictionary_page_offset && *m.dictionary_page_offset > 0) {
        start = std::min(start, *m.dictionary_page_offset);
      }
      std::string_view chunk = file.substr(static_cast<size_t>(start),
                                           static_cast<size_t>(m.total_compressed_size));
      const int64_t new_start = static_cast<int64_t>(out.size());
      m.dictionary_page_offset.reset();
      m.data_page_offset = -1;
      int64_t uncompressed = 0;
      size_t pos = 0;
      while (pos < chunk.size()) {
        size_t used = 0;
        auto h = parquet::DecodePageHeader(chunk.substr(pos), &used);
        if (!h.ok()) return "";
        parquet::PageHeader header = *h;
        std::string body(chunk.substr(pos + used, static_cast<size_t>(header.compressed_page_size)));
        pos += used + body.size();
        page_edit(c, &header, &body);
        header.compressed_page_size = static_cast<int32_t>(body.size());
        header.crc.reset();
        const int64_t at = static_cast<int64_t>(out.size());
        if (header.type == parquet::PageType::kDictionaryPage) {
          m.dictionary_page_offset = at;
        } else if (m.data_page_offset < 0) {
          m.data_page_offset = at;
        }
        std::string encoded;
        parquet::EncodePageHeader(header, &encoded);
        uncompressed += static_cast<int64_t>(encoded.size()) + header.uncompressed_page_size;
        out += encoded;
        out += body;
      }
      m.total_compressed_size = static_cast<int64_t>(out.size()) - new_start;
      m.total_uncompressed_size = uncompressed;
      rg.columns[c].file_offset = new_start;
    }
  }
  if (footer_edit) footer_edit(&meta);
  std::string footer;
  parquet::EncodeFileMetaData(meta, &footer);
  out += footer;
  const uint32_t n = static_cast<uint32_t>(footer.size());
  char len[4];
  std::memcpy(len, &n, 4);
  out.append(len, 4);
  out += "PAR1";
  return out;
}

// A zstd frame that really decompresses to `bytes` zero bytes, compressed a MiB at a time
// (the test never holds the whole), without a content size in its header.
inline std::string ZstdZeroBomb(size_t bytes) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
  const std::string zeros(1 << 20, '\0');
  std::string out;
  std::string buf(ZSTD_CStreamOutSize(), '\0');
  for (size_t done = 0; done < bytes;) {
    const size_t n = std::min(zeros.size(), bytes - done);
    done += n;
    ZSTD_inBuffer in{zeros.data(), n, 0};
    const ZSTD_EndDirective mode = done == bytes ? ZSTD_e_end : ZSTD_e_continue;
    while (true) {
      ZSTD_outBuffer o{buf.data(), buf.size(), 0};
      const size_t left = ZSTD_compressStream2(cctx, &o, &in, mode);
      out.append(buf.data(), o.pos);
      if (mode == ZSTD_e_end ? left == 0 : in.pos == in.size) break;
    }
  }
  ZSTD_freeCCtx(cctx);
  return out;
}

}  // namespace lakedump::testing
