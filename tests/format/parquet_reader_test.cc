// ParquetReader: round trips with our writer (every type, codec, null pattern,
// dictionary on/off, page and row-group boundaries), files written by other
// implementations (apache/parquet-testing, expected values dumped by DuckDB),
// and corrupt input (every truncation, byte flips, targeted header damage).
#include <gtest/gtest.h>

#include <zlib.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "format/parquet/parquet_footer.h"
#include "format/parquet/parquet_metadata.h"
#include "format/parquet/parquet_reader.h"
#include "format/parquet/parquet_writer.h"
#include "format/parquet/rle.h"
#include "parquet_reader_test_util.h"
#include "test_data.h"

namespace lakedump {
namespace {

using testing::NullPattern;

std::string WriteFileWith(const Schema& schema, NullPattern nulls, size_t rows,
                          const ParquetWriterOptions& options, std::string* rows_json,
                          size_t first_row = 0) {
  StringSink sink;
  ParquetWriter writer(schema, options, &sink);
  RowBatch batch(schema);
  for (size_t at = 0; at < rows; at += 700) {
    batch.Clear();
    const size_t n = std::min<size_t>(700, rows - at);
    testing::FillRows(schema, nulls, first_row + at, n, 7, &batch);
    if (rows_json != nullptr) testing::AppendCanonicalRows(schema, batch, rows_json);
    EXPECT_TRUE(writer.Write(batch).ok());
  }
  EXPECT_TRUE(writer.Close().ok());
  return sink.str();
}

struct RoundTrip {
  CodecKind codec;
  NullPattern nulls;
  bool dictionary;
};

class ParquetReaderRoundTripTest : public ::testing::TestWithParam<RoundTrip> {};

TEST_P(ParquetReaderRoundTripTest, ReadsBackEveryValue) {
  const RoundTrip p = GetParam();
  const Schema schema = testing::AllTypesSchema(p.nulls);
  ParquetWriterOptions o;
  o.codec = p.codec;
  o.dictionary = p.dictionary;
  o.row_group_rows = 1000;
  o.page_bytes = 4096;  // many pages per chunk
  std::string expected;
  const std::string file = WriteFileWith(schema, p.nulls, 2345, o, &expected);
  for (size_t batch_rows : {1ul, 333ul, 5000ul}) {
    Schema got_schema;
    std::string got;
    uint64_t rows = 0;
    Status s = testing::ReadAllCanonical(file, {}, batch_rows, &got_schema, &got, &rows);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(rows, 2345u);
    ASSERT_EQ(got_schema.num_columns(), schema.num_columns());
    for (size_t c = 0; c < schema.num_columns(); ++c) {
      EXPECT_EQ(got_schema.column(c).name, schema.column(c).name);
      EXPECT_EQ(got_schema.column(c).type, schema.column(c).type) << schema.column(c).name;
      EXPECT_EQ(got_schema.column(c).nullable, schema.column(c).nullable);
    }
    ASSERT_TRUE(got == expected) << "values differ, batch_rows " << batch_rows;
  }
}

std::vector<RoundTrip> RoundTrips() {
  std::vector<RoundTrip> v;
  for (CodecKind c : {CodecKind::kNone, CodecKind::kSnappy, CodecKind::kGzip, CodecKind::kZstd,
                      CodecKind::kLz4Raw}) {
    for (NullPattern n : {NullPattern::kNone, NullPattern::kSome, NullPattern::kAll}) {
      for (bool d : {true, false}) v.push_back({c, n, d});
    }
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(All, ParquetReaderRoundTripTest, ::testing::ValuesIn(RoundTrips()));

TEST(ParquetReaderTest, EmptyFileAndColumnSelection) {
  const Schema schema = testing::AllTypesSchema(NullPattern::kSome);
  const std::string empty = WriteFileWith(schema, NullPattern::kSome, 0, {}, nullptr);
  auto r = ParquetReader::OpenBuffer(empty);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  RowBatch b;
  ASSERT_TRUE((*r)->Next(100, &b).ok());
  EXPECT_EQ(b.num_rows(), 0u);
  EXPECT_EQ((*r)->schema().num_columns(), schema.num_columns());

  const std::string file = WriteFileWith(schema, NullPattern::kSome, 50, {}, nullptr);
  ParquetReaderOptions o;
  o.columns = {"c_string", "c_int64"};
  auto sel = ParquetReader::OpenBuffer(file, o);
  ASSERT_TRUE(sel.ok());
  ASSERT_EQ((*sel)->schema().num_columns(), 2u);
  EXPECT_EQ((*sel)->schema().column(0).name, "c_string");
  ASSERT_TRUE((*sel)->Next(100, &b).ok());
  EXPECT_EQ(b.num_rows(), 50u);
  o.columns = {"nope"};
  auto missing = ParquetReader::OpenBuffer(file, o);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("nope"), std::string::npos);
}

// ------------------------------------------------------------ parquet-testing

Status ReadAllForFuzz(std::string_view file) {
  Schema schema;
  uint64_t rows;
  Status s = testing::ReadAllCanonical(file, {}, 1024, &schema, nullptr, &rows);
  (void)parquet::DecodeFileMetaData(file);
  return s;
}

std::string TestingDir() { return std::string(LAKEDUMP_SOURCE_DIR) + "/tests/data/parquet-testing/"; }

// Compares our rows with DuckDB's (X.duckdb.json), only for `columns` if given.
void CheckAgainstDuckDb(const std::string& name, std::vector<std::string> columns = {}) {
  SCOPED_TRACE(name);
  const std::string file = testing::ReadFileBytes(TestingDir() + name + ".parquet");
  ASSERT_FALSE(file.empty());
  const nlohmann::json duck =
      nlohmann::json::parse(testing::ReadFileBytes(TestingDir() + name + ".duckdb.json"));
  ParquetReaderOptions o;
  o.columns = columns;
  o.name = name;
  Schema schema;
  std::string rows_json;
  uint64_t rows = 0;
  Status s = testing::ReadAllCanonical(file, o, 7, &schema, &rows_json, &rows);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const nlohmann::json ours = nlohmann::json::parse("[" + rows_json + "]");
  ASSERT_EQ(ours.size(), duck["rows"].size());
  std::vector<size_t> duck_cols;
  for (size_t c = 0; c < schema.num_columns(); ++c) {
    const auto& names = duck["columns"];
    size_t k = 0;
    while (k < names.size() && names[k] != schema.column(c).name) ++k;
    ASSERT_LT(k, names.size()) << schema.column(c).name;
    duck_cols.push_back(k);
  }
  for (size_t r = 0; r < ours.size(); ++r) {
    for (size_t c = 0; c < duck_cols.size(); ++c) {
      ASSERT_EQ(ours[r][c], duck["rows"][r][duck_cols[c]])
          << "row " << r << " column " << schema.column(c).name;
    }
  }
}

TEST(ParquetReaderTestingFiles, MatchDuckDb) {
  for (const char* name :
       {"alltypes_plain", "alltypes_plain.snappy", "alltypes_dictionary", "binary",
        "byte_array_decimal", "byte_stream_split.zstd", "concatenated_gzip_members",
        "dict-page-offset-zero", "fixed_length_decimal", "fixed_length_decimal_legacy",
        "int32_decimal", "int64_decimal", "lz4_raw_compressed", "nan_in_stats",
        "rle_boolean_encoding", "single_nan"}) {
    CheckAgainstDuckDb(name);
  }
}

TEST(ParquetReaderTestingFiles, DataPageV2FlatColumnsAndList) {
  CheckAgainstDuckDb("datapage_v2.snappy", {"a", "b", "c", "d"});
  // "e" is a list of int32 in data pages v2: DuckDB reads [1,2,3], null, null, [1,2,3], [1,2].
  const std::string file = testing::ReadFileBytes(TestingDir() + "datapage_v2.snappy.parquet");
  ParquetReaderOptions o;
  o.columns = {"e"};
  Schema schema;
  std::string rows_json;
  uint64_t rows = 0;
  Status s = testing::ReadAllCanonical(file, o, 2, &schema, &rows_json, &rows);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(schema.column(0).type.ToString(), "list<int32 not null>");  // 2-level
  EXPECT_EQ(nlohmann::json::parse("[" + rows_json + "]"),
            nlohmann::json::parse(R"([[["1","2","3"]],[null],[null],[["1","2","3"]],[["1","2"]]])"));
}

TEST(ParquetReaderTestingFiles, Int96Timestamps) {
  const std::string file = testing::ReadFileBytes(TestingDir() + "int96_from_spark.parquet");
  auto r = ParquetReader::OpenBuffer(file);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->schema().column(0).type.id, TypeId::kTimestamp);
  RowBatch b;
  ASSERT_TRUE((*r)->Next(100, &b).ok());
  ASSERT_EQ(b.num_rows(), 6u);
  EXPECT_EQ(FormatTimestamp(b.column(0).ValueAt<int64_t>(0)), "2024-01-01T20:34:56.123456");
  EXPECT_EQ(FormatTimestamp(b.column(0).ValueAt<int64_t>(2)), "9999-12-31T03:00:00.000000");
  EXPECT_TRUE(b.column(0).IsNull(4));
}

TEST(ParquetReaderTestingFiles, LegacyLz4IsUnimplemented) {
  for (const char* name : {"hadoop_lz4_compressed", "non_hadoop_lz4_compressed"}) {
    const std::string file = testing::ReadFileBytes(TestingDir() + name + ".parquet");
    Schema schema;
    uint64_t rows;
    Status s = testing::ReadAllCanonical(file, {}, 100, &schema, nullptr, &rows);
    EXPECT_EQ(s.code(), Code::kUnimplemented) << s.ToString();
    EXPECT_NE(s.message().find("LZ4"), std::string::npos) << s.ToString();
  }
}

TEST(ParquetReaderTestingFiles, NestedColumnNamed) {
  const std::string file = testing::ReadFileBytes(TestingDir() + "nulls.snappy.parquet");
  auto r = ParquetReader::OpenBuffer(file);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kUnimplemented) << r.status().ToString();
}

// ------------------------------------------------------------ DuckDB-written files

// tests/data/duckdb/: every lakedump type (and DuckDB's unsigned and ms/ns types) written by
// DuckDB with its default settings, PARQUET_VERSION V2 (DELTA encodings, page v2), zstd with
// small row groups, uncompressed, gzip and lz4_raw (tests/interop/make_duckdb_files.mjs).
TEST(ParquetReaderDuckDbFiles, MatchDuckDb) {
  const std::string dir = std::string(LAKEDUMP_SOURCE_DIR) + "/tests/data/duckdb/";
  const nlohmann::json duck =
      nlohmann::json::parse(testing::ReadFileBytes(dir + "expected.duckdb.json"));
  for (const char* name : {"duckdb_default", "duckdb_v2", "duckdb_zstd_small_groups",
                           "duckdb_uncompressed", "duckdb_gzip", "duckdb_lz4"}) {
    SCOPED_TRACE(name);
    const std::string file = testing::ReadFileBytes(dir + name + ".parquet");
    Schema schema;
    std::string rows_json;
    uint64_t rows = 0;
    Status s = testing::ReadAllCanonical(file, {}, 1000, &schema, &rows_json, &rows);
    ASSERT_TRUE(s.ok()) << s.ToString();
    const nlohmann::json ours = nlohmann::json::parse("[" + rows_json + "]");
    ASSERT_EQ(ours.size(), duck["rows"].size());
    ASSERT_EQ(schema.num_columns(), duck["columns"].size());
    for (size_t r = 0; r < ours.size(); ++r) {
      for (size_t c = 0; c < schema.num_columns(); ++c) {
        ASSERT_EQ(ours[r][c], duck["rows"][r][c]) << "row " << r << " column " << schema.column(c).name;
      }
    }
    // Our types for DuckDB's.
    EXPECT_EQ(schema.column(schema.FindColumn("c_tstz").value()).type.id, TypeId::kTimestampTz);
    EXPECT_EQ(schema.column(schema.FindColumn("c_ts").value()).type.id, TypeId::kTimestamp);
    EXPECT_EQ(schema.column(schema.FindColumn("c_uuid").value()).type.id, TypeId::kUuid);
    EXPECT_EQ(schema.column(schema.FindColumn("c_u64").value()).type, LogicalType::Decimal(20, 0));
    EXPECT_EQ(schema.column(schema.FindColumn("c_dec38").value()).type, LogicalType::Decimal(38, 10));
  }
}

// ------------------------------------------------------------ fuzz regressions

// Inputs that once crashed a fuzz target (tests/data/fuzz-regressions/) must now fail cleanly.
TEST(FuzzRegressionTest, ReplaysEveryInput) {
  const std::filesystem::path dir =
      std::filesystem::path(LAKEDUMP_SOURCE_DIR) / "tests" / "data" / "fuzz-regressions";
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().filename() == "README.md") continue;
    const std::string bytes = testing::ReadFileBytes(e.path().string());
    (void)ReadAllForFuzz(bytes);
    ++n;
  }
  SUCCEED() << n << " inputs replayed";
}

// ------------------------------------------------------------ corruption

std::string SmallFile(CodecKind codec) {
  const Schema schema = testing::AllTypesSchema(NullPattern::kSome);
  ParquetWriterOptions o;
  o.codec = codec;
  o.row_group_rows = 40;
  o.page_bytes = 256;
  // Past the edge rows (a 70 kB string would make every read slow).
  return WriteFileWith(schema, NullPattern::kSome, 100, o, nullptr, testing::EdgeRows());
}

Status ReadAll(std::string_view file) {
  Schema schema;
  uint64_t rows;
  return testing::ReadAllCanonical(file, {}, 64, &schema, nullptr, &rows);
}

TEST(ParquetReaderCorruptionTest, EveryTruncationFails) {
  const std::string file = SmallFile(CodecKind::kSnappy);
  ASSERT_TRUE(ReadAll(file).ok());
  for (size_t len = 0; len < file.size(); ++len) {
    const std::string cut = file.substr(0, len);  // own allocation: ASan sees overreads
    Status s = ReadAll(cut);
    ASSERT_FALSE(s.ok()) << len;
    ASSERT_EQ(s.code(), Code::kCorruption) << len << " " << s.ToString();
  }
}

TEST(ParquetReaderCorruptionTest, ByteFlipsNeverCrash) {
  for (CodecKind codec : {CodecKind::kNone, CodecKind::kSnappy, CodecKind::kZstd}) {
    const std::string file = SmallFile(codec);
    size_t failures = 0;
    for (size_t i = 0; i < file.size(); i += (codec == CodecKind::kNone ? 13 : 29)) {
      for (uint8_t mask : {0x01, 0xff}) {
        std::string bad = file;
        bad[i] = static_cast<char>(bad[i] ^ mask);
        Status s = ReadAll(bad);
        if (!s.ok()) {
          ++failures;
          EXPECT_TRUE(s.code() == Code::kCorruption || s.code() == Code::kUnimplemented ||
                      s.code() == Code::kNotFound)
              << i << " " << s.ToString();
        }
      }
    }
    EXPECT_GT(failures, 0u);
  }
}

TEST(ParquetReaderCorruptionTest, BadMagicAndFooterLength) {
  std::string file = SmallFile(CodecKind::kNone);
  std::string a = file;
  a[0] = 'X';
  EXPECT_NE(ReadAll(a).message().find("magic"), std::string::npos);
  std::string b = file;
  b[b.size() - 1] = 'X';
  EXPECT_NE(ReadAll(b).message().find("magic"), std::string::npos);
  std::string c = file;
  const uint32_t huge = static_cast<uint32_t>(file.size());
  std::memcpy(c.data() + c.size() - 8, &huge, 4);
  EXPECT_EQ(ReadAll(c).code(), Code::kCorruption);
  std::string d = file;  // garbage Thrift in the footer
  uint32_t len;
  std::memcpy(&len, d.data() + d.size() - 8, 4);
  for (size_t i = d.size() - 8 - len; i < d.size() - 8; ++i) d[i] = static_cast<char>(0xff);
  EXPECT_EQ(ReadAll(d).code(), Code::kCorruption);
}

// Rewrites the footer of `file` after `edit` changed its metadata.
template <typename Fn>
std::string EditFooter(const std::string& file, Fn&& edit) {
  auto meta = parquet::ReadParquetFooter(file);
  EXPECT_TRUE(meta.ok());
  parquet::FileMetaData m = *meta;
  edit(m);
  uint32_t len;
  std::memcpy(&len, file.data() + file.size() - 8, 4);
  std::string out = file.substr(0, file.size() - 8 - len);
  std::string footer;
  parquet::EncodeFileMetaData(m, &footer);
  out += footer;
  const uint32_t n = static_cast<uint32_t>(footer.size());
  out.append(reinterpret_cast<const char*>(&n), 4);
  out += "PAR1";
  return out;
}

TEST(ParquetReaderCorruptionTest, ChunkAndCodecDamage) {
  const std::string file = SmallFile(CodecKind::kSnappy);
  Status s = ReadAll(EditFooter(file, [](parquet::FileMetaData& m) {
    m.row_groups[0].columns[3].meta_data->total_compressed_size -= 5;
  }));
  EXPECT_EQ(s.code(), Code::kCorruption);
  EXPECT_NE(s.message().find("c_int32"), std::string::npos) << s.ToString();
  s = ReadAll(EditFooter(file, [](parquet::FileMetaData& m) {
    m.row_groups[0].columns[4].meta_data->codec = parquet::Codec::kGzip;
  }));
  EXPECT_EQ(s.code(), Code::kCorruption);
  EXPECT_NE(s.message().find("decompression"), std::string::npos) << s.ToString();
  s = ReadAll(EditFooter(file, [](parquet::FileMetaData& m) {
    m.row_groups[1].columns[2].meta_data->data_page_offset = 1 << 30;
    m.row_groups[1].columns[2].meta_data->dictionary_page_offset.reset();
  }));
  EXPECT_EQ(s.code(), Code::kCorruption);
  EXPECT_NE(s.message().find("outside"), std::string::npos) << s.ToString();
  s = ReadAll(EditFooter(file, [](parquet::FileMetaData& m) { m.row_groups[0].num_rows += 1; m.num_rows += 1; }));
  EXPECT_EQ(s.code(), Code::kCorruption) << s.ToString();
}

// A hand-built file: one required INT32 column "x", pages given by the caller.
std::string HandFile(const std::vector<std::pair<parquet::PageHeader, std::string>>& pages,
                     int64_t rows) {
  std::string out = "PAR1";
  parquet::ColumnMetaData cm;
  cm.type = parquet::Type::kInt32;
  cm.path_in_schema = {"x"};
  cm.encodings = {parquet::Encoding::kPlain};
  cm.num_values = rows;
  bool first = true;
  for (const auto& [h, body] : pages) {
    if (first && h.type == parquet::PageType::kDictionaryPage) cm.dictionary_page_offset = 4;
    if (h.type != parquet::PageType::kDictionaryPage && cm.data_page_offset == 0) {
      cm.data_page_offset = static_cast<int64_t>(out.size());
    }
    first = false;
    parquet::EncodePageHeader(h, &out);
    out += body;
  }
  cm.total_compressed_size = static_cast<int64_t>(out.size()) - 4;
  cm.total_uncompressed_size = cm.total_compressed_size;
  parquet::FileMetaData m;
  parquet::SchemaElement root;
  root.name = "schema";
  root.num_children = 1;
  parquet::SchemaElement x;
  x.name = "x";
  x.type = parquet::Type::kInt32;
  x.repetition = parquet::Repetition::kRequired;
  m.schema = {root, x};
  m.num_rows = rows;
  parquet::RowGroup rg;
  rg.num_rows = rows;
  parquet::ColumnChunk cc;
  cc.file_offset = 4;
  cc.meta_data = cm;
  rg.columns = {cc};
  m.row_groups = {rg};
  std::string footer;
  parquet::EncodeFileMetaData(m, &footer);
  out += footer;
  const uint32_t n = static_cast<uint32_t>(footer.size());
  out.append(reinterpret_cast<const char*>(&n), 4);
  out += "PAR1";
  return out;
}

std::pair<parquet::PageHeader, std::string> Page(parquet::PageType type, parquet::Encoding enc,
                                                 int32_t n, std::string body) {
  parquet::PageHeader h;
  h.type = type;
  h.uncompressed_page_size = static_cast<int32_t>(body.size());
  h.compressed_page_size = static_cast<int32_t>(body.size());
  if (type == parquet::PageType::kDictionaryPage) {
    h.dictionary_page_header.emplace().num_values = n;
  } else {
    auto& d = h.data_page_header.emplace();
    d.num_values = n;
    d.encoding = enc;
  }
  return {h, body};
}

std::string Int32s(std::initializer_list<int32_t> v) {
  return std::string(reinterpret_cast<const char*>(std::data(v)), v.size() * 4);
}

TEST(ParquetReaderCorruptionTest, DictionaryIndexOutOfRange) {
  std::string idx(1, '\x03');  // bit width 3
  const uint32_t indices[] = {0, 1, 5};
  parquet::RleEncode(indices, 3, 3, &idx);
  const std::string good_idx = [] {
    std::string s(1, '\x03');
    const uint32_t ok[] = {0, 1, 1};
    parquet::RleEncode(ok, 3, 3, &s);
    return s;
  }();
  auto dict = Page(parquet::PageType::kDictionaryPage, parquet::Encoding::kPlain, 2, Int32s({10, 20}));
  const std::string good = HandFile(
      {dict, Page(parquet::PageType::kDataPage, parquet::Encoding::kRleDictionary, 3, good_idx)}, 3);
  auto r = ParquetReader::OpenBuffer(good);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  RowBatch b;
  ASSERT_TRUE((*r)->Next(10, &b).ok());
  ASSERT_EQ(b.num_rows(), 3u);
  EXPECT_EQ(b.column(0).ValueAt<int32_t>(2), 20);

  const std::string bad = HandFile(
      {dict, Page(parquet::PageType::kDataPage, parquet::Encoding::kRleDictionary, 3, idx)}, 3);
  Status s = ReadAll(bad);
  EXPECT_EQ(s.code(), Code::kCorruption);
  EXPECT_NE(s.message().find("out of range"), std::string::npos) << s.ToString();

  const std::string no_dict = HandFile(
      {Page(parquet::PageType::kDataPage, parquet::Encoding::kRleDictionary, 3, good_idx)}, 3);
  EXPECT_EQ(ReadAll(no_dict).code(), Code::kCorruption);
}

TEST(ParquetReaderCorruptionTest, PageCrc) {
  auto page = Page(parquet::PageType::kDataPage, parquet::Encoding::kPlain, 3, Int32s({1, 2, 3}));
  const uint32_t crc = static_cast<uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(page.second.data()), 12));
  page.first.crc = static_cast<int32_t>(crc);
  EXPECT_TRUE(ReadAll(HandFile({page}, 3)).ok());
  page.first.crc = static_cast<int32_t>(crc ^ 1);
  Status s = ReadAll(HandFile({page}, 3));
  EXPECT_EQ(s.code(), Code::kCorruption);
  EXPECT_NE(s.message().find("CRC"), std::string::npos) << s.ToString();
  ParquetReaderOptions o;
  o.verify_crc = false;
  const std::string unchecked = HandFile({page}, 3);
  auto r = ParquetReader::OpenBuffer(unchecked, o);
  ASSERT_TRUE(r.ok());
  RowBatch b;
  EXPECT_TRUE((*r)->Next(10, &b).ok());
}

TEST(ParquetReaderCorruptionTest, TooFewValuesAndPagePastChunk) {
  auto page = Page(parquet::PageType::kDataPage, parquet::Encoding::kPlain, 3, Int32s({1, 2, 3}));
  Status s = ReadAll(HandFile({page}, 4));
  EXPECT_EQ(s.code(), Code::kCorruption);
  page.first.compressed_page_size = 1000;
  s = ReadAll(HandFile({page}, 3));
  EXPECT_EQ(s.code(), Code::kCorruption);
  EXPECT_NE(s.message().find("past the end"), std::string::npos) << s.ToString();
  auto short_page = Page(parquet::PageType::kDataPage, parquet::Encoding::kPlain, 4, Int32s({1, 2, 3}));
  EXPECT_EQ(ReadAll(HandFile({short_page}, 4)).code(), Code::kCorruption);
}

}  // namespace
}  // namespace lakedump
