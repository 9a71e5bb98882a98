// The Parquet footer and page-header structures (parquet.thrift), as plain
// C++ values, with their Thrift compact encoding and decoding. Only the fields
// lakedump writes or needs to read are modelled; unknown fields are skipped.
// Values; thread-safe to read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace lakedump::parquet {

enum class Type : int32_t {
  kBoolean = 0, kInt32 = 1, kInt64 = 2, kInt96 = 3, kFloat = 4, kDouble = 5,
  kByteArray = 6, kFixedLenByteArray = 7,
};
enum class ConvertedType : int32_t {
  kUtf8 = 0, kList = 3, kDecimal = 5, kDate = 6, kTimeMicros = 8, kTimestampMicros = 10,
  kInt8 = 15, kInt16 = 16, kInt32 = 17, kInt64 = 18, kJson = 19,
};
enum class Repetition : int32_t { kRequired = 0, kOptional = 1, kRepeated = 2 };
enum class Encoding : int32_t {
  kPlain = 0, kPlainDictionary = 2, kRle = 3, kBitPacked = 4, kRleDictionary = 8,
};
enum class Codec : int32_t {
  kUncompressed = 0, kSnappy = 1, kGzip = 2, kLz4 = 5, kZstd = 6, kLz4Raw = 7,
};
enum class PageType : int32_t { kDataPage = 0, kIndexPage = 1, kDictionaryPage = 2, kDataPageV2 = 3 };

// The LogicalType union; `kind` is the union's field id (0 = absent).
struct LogicalType {
  enum Kind : int16_t {
    kNone = 0, kString = 1, kList = 3, kDecimal = 5, kDate = 6, kTime = 7, kTimestamp = 8, kInteger = 10,
    kJson = 12, kUuid = 14,
  };
  int16_t kind = kNone;        // may hold other ids when decoded
  int32_t scale = 0, precision = 0;   // kDecimal
  bool adjusted_to_utc = false;       // kTime, kTimestamp
  int16_t unit = 2;                   // kTime, kTimestamp: 1 MILLIS, 2 MICROS, 3 NANOS
  int8_t bit_width = 0;               // kInteger
  bool is_signed = true;              // kInteger
  bool operator==(const LogicalType&) const = default;
};

struct SchemaElement {
  std::optional<Type> type;
  std::optional<int32_t> type_length;
  std::optional<Repetition> repetition;
  std::string name;
  std::optional<int32_t> num_children;
  std::optional<ConvertedType> converted_type;
  std::optional<int32_t> scale, precision;
  std::optional<int32_t> field_id;
  std::optional<LogicalType> logical_type;
  bool operator==(const SchemaElement&) const = default;
};

struct Statistics {
  std::optional<std::string> max, min;  // legacy (fields 1, 2)
  std::optional<int64_t> null_count;
  std::optional<int64_t> distinct_count;
  std::optional<std::string> max_value, min_value;
  std::optional<bool> is_max_value_exact, is_min_value_exact;
  bool operator==(const Statistics&) const = default;
};

struct KeyValue {
  std::string key;
  std::optional<std::string> value;
  bool operator==(const KeyValue&) const = default;
};

struct ColumnMetaData {
  Type type = Type::kBoolean;
  std::vector<Encoding> encodings;
  std::vector<std::string> path_in_schema;
  Codec codec = Codec::kUncompressed;
  int64_t num_values = 0;
  int64_t total_uncompressed_size = 0;
  int64_t total_compressed_size = 0;
  int64_t data_page_offset = 0;
  std::optional<int64_t> dictionary_page_offset;
  std::optional<Statistics> statistics;
  bool operator==(const ColumnMetaData&) const = default;
};

struct ColumnChunk {
  std::optional<std::string> file_path;
  int64_t file_offset = 0;
  std::optional<ColumnMetaData> meta_data;
  bool operator==(const ColumnChunk&) const = default;
};

struct RowGroup {
  std::vector<ColumnChunk> columns;
  int64_t total_byte_size = 0;
  int64_t num_rows = 0;
  std::optional<int64_t> file_offset;
  std::optional<int64_t> total_compressed_size;
  std::optional<int16_t> ordinal;
  bool operator==(const RowGroup&) const = default;
};

struct FileMetaData {
  int32_t version = 1;
  std::vector<SchemaElement> schema;
  int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
  std::vector<KeyValue> key_value_metadata;
  std::optional<std::string> created_by;
  // One entry per leaf column; true = TypeDefinedOrder (the only kind defined).
  std::vector<bool> column_orders;
  bool operator==(const FileMetaData&) const = default;
};

struct DataPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  Encoding definition_level_encoding = Encoding::kRle;
  Encoding repetition_level_encoding = Encoding::kRle;
  std::optional<Statistics> statistics;
  bool operator==(const DataPageHeader&) const = default;
};

struct DictionaryPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  std::optional<bool> is_sorted;
  bool operator==(const DictionaryPageHeader&) const = default;
};

struct DataPageHeaderV2 {
  int32_t num_values = 0;
  int32_t num_nulls = 0;
  int32_t num_rows = 0;
  Encoding encoding = Encoding::kPlain;
  int32_t definition_levels_byte_length = 0;
  int32_t repetition_levels_byte_length = 0;
  bool is_compressed = true;  // optional in the format; absent means true
  std::optional<Statistics> statistics;
  bool operator==(const DataPageHeaderV2&) const = default;
};

// Decoded values of `type` and of the encodings may lie outside the enums (other writers'
// page kinds and encodings): readers compare them, never switch on them exhaustively.
struct PageHeader {
  PageType type = PageType::kDataPage;
  int32_t uncompressed_page_size = 0;
  int32_t compressed_page_size = 0;
  std::optional<int32_t> crc;
  std::optional<DataPageHeader> data_page_header;
  std::optional<DictionaryPageHeader> dictionary_page_header;
  std::optional<DataPageHeaderV2> data_page_header_v2;
  bool operator==(const PageHeader&) const = default;
};

// Where a column chunk's bytes start: its dictionary page when that comes before the data
// pages, else its first data page. Its bytes are [start, start + total_compressed_size).
inline int64_t ColumnChunkStart(const ColumnMetaData& m) {
  int64_t start = m.data_page_offset;
  if (m.dictionary_page_offset.has_value() && *m.dictionary_page_offset > 0 &&
      *m.dictionary_page_offset < start) {
    start = *m.dictionary_page_offset;
  }
  return start;
}

// Appends the compact encoding of the struct to *out.
void EncodeFileMetaData(const FileMetaData& m, std::string* out);
void EncodePageHeader(const PageHeader& h, std::string* out);

// Decodes one struct from the start of `in`; *consumed (if given) receives its length.
// Bounds-checked; malformed input is Corruption. DecodePageHeader also refuses negative page
// sizes. The one page-header decoder, for the reader and for tests of the writer.
Result<FileMetaData> DecodeFileMetaData(std::string_view in);
Result<PageHeader> DecodePageHeader(std::string_view in, size_t* consumed = nullptr);

}  // namespace lakedump::parquet
