// ColumnChunkReader: decodes one column chunk (one flat column of one row
// group) page by page into ColumnVectors. One reader serves one column for the
// whole file: Reset() starts the next row group's chunk, so its buffers (the
// chunk's bytes, the decompressed page, levels, indices, dictionary) are
// reused instead of allocated and first-touched per row group. A data page is
// decoded to its physical values (plain values are read in place, not
// copied) and converted straight into the caller's ColumnVector by Read():
// memory is bounded by one column chunk plus one page. Errors name the file,
// the column and the row group. Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "format/codec/codec.h"
#include "format/parquet/parquet_metadata.h"
#include "format/parquet/read_schema.h"
#include "format/parquet/value_decoder.h"
#include "table/row_batch.h"

namespace lakedump::parquet {

// Largest page accepted (uncompressed), and most values in one page: guards
// against absurd headers before allocating.
inline constexpr int64_t kMaxPageBytes = 256ll << 20;
inline constexpr int32_t kMaxPageValues = 1 << 24;
// A compressed page may declare up to this many uncompressed bytes whatever its ratio; above
// it the declared size must be within kMaxCompressionRatio(codec) of the compressed size. A
// small file cannot then make the reader allocate (and zero-fill) 512 MiB per column: memory
// per page is at most max(this, compressed bytes x ratio), and never over kMaxPageBytes.
inline constexpr int64_t kPageBytesWithoutRatioCheck = 8ll << 20;
// Highest ratio (uncompressed / compressed) accepted for pages over kPageBytesWithoutRatioCheck:
// snappy and LZ4 cannot exceed theirs (~22 and ~255), DEFLATE ~1032; zstd's reaches ~32000 on
// runs of one byte, which a real writer's large pages (dictionary- or delta-encoded) never hold.
int64_t MaxCompressionRatio(lakedump::CodecKind kind);
// The most a chunk's decompression buffer grows to: its total_uncompressed_size (which bounds
// each page's declared size; <= 0: unknown), never over kMaxPageBytes; 0 uncompressed (pages
// are read in place). ParquetReader reserves the sum over a row group's chunks from its
// memory budget before decompressing any.
uint64_t DecompressionBound(const lakedump::Codec* codec, int64_t chunk_uncompressed_bytes);

class ColumnChunkReader {
 public:
  // `field` is borrowed and must outlive the reader.
  ColumnChunkReader(const FieldInfo& field, bool verify_crc);
  // Convenience: constructs and Reset()s with `chunk`.
  ColumnChunkReader(const FieldInfo& field, std::string chunk, int64_t num_rows,
                    const lakedump::Codec* codec, std::string context, bool verify_crc);

  // The buffer the caller reads the next chunk's bytes into (before Reset()).
  // Keeping its size between chunks avoids zero-filling it again.
  std::string* chunk_buffer() { return &chunk_; }
  // Starts reading the chunk now in chunk_buffer(), of `num_rows` rows.
  // `codec` is borrowed (nullptr = uncompressed); `context` prefixes errors.
  // `chunk_uncompressed_bytes` (the chunk's total_uncompressed_size; <= 0: unknown) bounds
  // each page's declared uncompressed size.
  void Reset(int64_t num_rows, const lakedump::Codec* codec, std::string context,
             int64_t chunk_uncompressed_bytes = 0);

  // Appends exactly n rows to *out; Corruption if the chunk holds fewer. A list column's rows
  // are assembled from its repetition and definition levels, across pages.
  Status Read(size_t n, ColumnVector* out);
  // Rows not yet returned.
  int64_t rows_left() const { return rows_left_; }

 private:
  // Where the current page's non-null values come from.
  enum class Source : uint8_t {
    kDictionary,  // indices_ into dict_
    kPhysical,    // values_ (fixed in place, or var views), converted on the way out
    kConverted,   // conv_: already converted (conversions with checks or odd widths)
  };

  Status ReadList(size_t n, ColumnVector* out);
  // Closes the list row being assembled (ReadList), if any.
  void CloseListRow(ColumnVector* out);
  // Decodes n levels (RLE, `bit_width`) from `in` into *levels, each at most `max`.
  Status DecodeLevels(std::string_view in, size_t n, int bit_width, int max, const char* what,
                      std::vector<uint8_t>* levels);
  Status LoadNextPage();
  Status LoadDictionary(const PageHeader& h, std::string_view body);
  Status DecodeDataPage(const PageHeader& h, std::string_view body);
  // The steps of DecodeDataPage, each once per page. The DecodeLevels* functions decode
  // the page's levels (into levels_, rep_levels_, def_levels_) and set *values to its
  // (decompressed) value bytes.
  Status DecodeLevelsV1(const PageHeader& h, std::string_view body, size_t n,
                        std::string_view* values);
  Status DecodeLevelsV2(const PageHeader& h, std::string_view body, size_t n,
                        std::string_view* values);
  // Splits one RLE level run with its 4-byte length off the front of *data (page v1).
  Status TakeV1Levels(int32_t encoding, const char* what, std::string_view* data,
                      std::string_view* levels);
  // Decodes the nn dictionary indices of the page into indices_.
  Status DecodeDictionaryIndices(std::string_view values, size_t nn);
  // Decodes the nn values of a page not dictionary-encoded.
  Status DecodePageValues(int32_t encoding, std::string_view values, size_t nn);
  // Appends the current page's rows [row_pos_, row_pos_ + k) to out.
  void Emit(size_t k, ColumnVector* out);
  Status Error(const std::string& what) const;
  // Refuses a page whose declared uncompressed size is out of bounds, before allocating.
  Status CheckPageSize(const PageHeader& h, size_t compressed_size) const;
  // Decompresses a page into decompressed_; *out views its `size` bytes.
  Status Decompress(std::string_view in, size_t size, std::string_view* out);

  const FieldInfo& field_;
  const lakedump::LogicalType value_type_;  // the leaf's values: a list's element type
  bool verify_crc_;
  std::string chunk_;
  size_t pos_ = 0;
  int64_t rows_left_ = 0;
  int64_t rows_in_pages_ = 0;  // rows in pages loaded so far
  const lakedump::Codec* codec_ = nullptr;
  std::string context_;
  int64_t chunk_uncompressed_bytes_ = 0;
  size_t largest_page_ = 0;  // largest page decompressed since the last Reset()

  bool has_dict_ = false;
  ColumnVector dict_;  // converted dictionary values (no nulls)
  ColumnVector conv_;  // Source::kConverted: the page's converted non-null values

  // The current data page.
  Source source_ = Source::kPhysical;
  size_t page_rows_ = 0;
  size_t row_pos_ = 0;    // rows of the page returned
  size_t value_pos_ = 0;  // non-null values of the page returned
  bool has_levels_ = false;
  // Lists: the page's levels, and the row being assembled.
  std::vector<uint8_t> rep_levels_;
  std::vector<uint8_t> def_levels_;
  enum class ListRow : uint8_t { kNone, kNull, kOpen };
  ListRow list_row_ = ListRow::kNone;

  // Scratch, reused.
  std::string decompressed_;
  PhysicalValues values_;
  std::vector<uint8_t> levels_;
  std::vector<uint32_t> indices_;
  std::vector<std::string_view> views_;
};

}  // namespace lakedump::parquet
