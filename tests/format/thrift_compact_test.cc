#include "format/parquet/thrift_compact.h"

#include <gtest/gtest.h>

#include <random>

#include "format/parquet/parquet_metadata.h"

namespace lakedump {
namespace {

std::string Bytes(std::initializer_list<int> b) {
  std::string s;
  for (int x : b) s.push_back(static_cast<char>(x));
  return s;
}

TEST(ThriftWriterTest, FieldHeadersUseDeltasAndZigZag) {
  std::string out;
  ThriftWriter w(&out);
  w.FieldI32(1, 1);        // delta 1, i32: 0x15, zigzag(1) = 2
  w.FieldBinary(3, "ab");  // delta 2, binary: 0x28, len 2
  w.FieldI64(20, -1);      // delta 17 > 15: long form 0x06, zigzag(20) = 40, zigzag(-1) = 1
  w.FieldBool(21, true);   // delta 1, true: 0x11
  w.FieldBool(22, false);  // delta 1, false: 0x12
  w.FieldI32(23, -300);    // zigzag(-300) = 599 = 0xd7 0x04
  w.EndStruct();
  EXPECT_EQ(out, Bytes({0x15, 0x02, 0x28, 0x02, 'a', 'b', 0x06, 0x28, 0x01, 0x11, 0x12, 0x15,
                        0xd7, 0x04, 0x00}));
}

TEST(ThriftWriterTest, ListsAndNestedStructsRestartDeltas) {
  std::string out;
  ThriftWriter w(&out);
  w.FieldList(1, ThriftType::kI32, 3);  // 0x19, size 3 << 4 | i32 = 0x35
  w.I32(0);
  w.I32(-1);
  w.I32(64);  // zigzag 128 = 0x80 0x01
  w.FieldStruct(2);  // 0x1c
  w.FieldI32(1, 5);  // inner delta restarts: 0x15 0x0a
  w.EndStruct();     // 0x00
  w.FieldI32(3, 0);  // outer delta from 2: 0x15 0x00
  w.FieldList(4, ThriftType::kBinary, 15);  // long list form 0xf8, varint 15
  for (int i = 0; i < 15; ++i) w.Binary("");
  w.EndStruct();
  std::string expected = Bytes({0x19, 0x35, 0x00, 0x01, 0x80, 0x01, 0x1c, 0x15, 0x0a, 0x00, 0x15,
                                0x00, 0x19, 0xf8, 0x0f});
  expected += std::string(15, '\0');
  expected.push_back(0);
  EXPECT_EQ(out, expected);
}

TEST(ThriftWriterTest, PageHeaderGoldenBytes) {
  parquet::PageHeader h;
  h.type = parquet::PageType::kDataPage;
  h.uncompressed_page_size = 100;
  h.compressed_page_size = 50;
  auto& d = h.data_page_header.emplace();
  d.num_values = 10;
  d.encoding = parquet::Encoding::kPlain;
  std::string out;
  parquet::EncodePageHeader(h, &out);
  EXPECT_EQ(out, Bytes({0x15, 0x00, 0x15, 0xc8, 0x01, 0x15, 0x64, 0x2c, 0x15, 0x14, 0x15, 0x00,
                        0x15, 0x06, 0x15, 0x06, 0x00, 0x00}));
  size_t consumed = 0;
  auto back = parquet::DecodePageHeader(out + "trailing page data", &consumed);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, h);
  EXPECT_EQ(consumed, out.size());
}

// Data page v2 and dictionary headers go through the same (only) page-header decoder as v1.
TEST(ThriftWriterTest, PageHeaderV2AndDictionaryRoundTrip) {
  parquet::PageHeader h;
  h.type = parquet::PageType::kDataPageV2;
  h.uncompressed_page_size = 300;
  h.compressed_page_size = 200;
  h.crc = -5;
  auto& d = h.data_page_header_v2.emplace();
  d.num_values = 40;
  d.num_nulls = 3;
  d.num_rows = 40;
  d.encoding = parquet::Encoding::kRleDictionary;
  d.definition_levels_byte_length = 7;
  d.repetition_levels_byte_length = 0;
  d.is_compressed = false;
  std::string out;
  parquet::EncodePageHeader(h, &out);
  size_t consumed = 0;
  auto back = parquet::DecodePageHeader(out + "xyz", &consumed);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, h);
  EXPECT_EQ(consumed, out.size());

  parquet::PageHeader dict;
  dict.type = parquet::PageType::kDictionaryPage;
  dict.dictionary_page_header.emplace().num_values = 9;
  out.clear();
  parquet::EncodePageHeader(dict, &out);
  back = parquet::DecodePageHeader(out);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, dict);

  parquet::PageHeader negative = dict;
  negative.compressed_page_size = -1;
  out.clear();
  parquet::EncodePageHeader(negative, &out);
  back = parquet::DecodePageHeader(out);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find("negative page size"), std::string::npos);
}

parquet::FileMetaData SampleMetadata() {
  using namespace parquet;
  FileMetaData m;
  m.version = 1;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 2;
  SchemaElement a;
  a.name = "a";
  a.type = Type::kInt64;
  a.repetition = Repetition::kOptional;
  a.converted_type = ConvertedType::kInt64;
  LogicalType it;
  it.kind = LogicalType::kInteger;
  it.bit_width = 64;
  a.logical_type = it;
  SchemaElement b;
  b.name = "b\xC3\xA9";
  b.type = Type::kFixedLenByteArray;
  b.type_length = 16;
  b.repetition = Repetition::kRequired;
  b.converted_type = ConvertedType::kDecimal;
  b.scale = 10;
  b.precision = 38;
  LogicalType dec;
  dec.kind = LogicalType::kDecimal;
  dec.scale = 10;
  dec.precision = 38;
  b.logical_type = dec;
  SchemaElement t;
  t.name = "t";
  t.type = Type::kInt64;
  LogicalType ts;
  ts.kind = LogicalType::kTimestamp;
  ts.adjusted_to_utc = true;
  ts.unit = 2;
  t.logical_type = ts;
  m.schema = {root, a, b, t};
  m.num_rows = 1234567890123;
  for (int g = 0; g < 3; ++g) {
    RowGroup rg;
    rg.num_rows = 100 + g;
    rg.total_byte_size = 5000;
    rg.file_offset = 4;
    rg.total_compressed_size = 4000;
    rg.ordinal = static_cast<int16_t>(g);
    ColumnChunk cc;
    cc.file_offset = 4;
    ColumnMetaData md;
    md.type = Type::kInt64;
    md.encodings = {Encoding::kPlain, Encoding::kRle, Encoding::kRleDictionary};
    md.path_in_schema = {"a"};
    md.codec = Codec::kZstd;
    md.num_values = 100;
    md.total_uncompressed_size = 900;
    md.total_compressed_size = 800;
    md.data_page_offset = 60;
    md.dictionary_page_offset = 4;
    Statistics st;
    st.null_count = 3;
    st.min_value = std::string("\x01\0\0\0\0\0\0\0", 8);
    st.max_value = std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8);
    st.is_max_value_exact = true;
    st.is_min_value_exact = false;
    md.statistics = st;
    cc.meta_data = md;
    rg.columns = {cc, cc};
    m.row_groups.push_back(rg);
  }
  m.key_value_metadata = {{"k", std::string("v")}, {"only_key", std::nullopt}};
  m.created_by = "lakedump test";
  m.column_orders = {true, true, true};
  return m;
}

TEST(ThriftMetadataTest, FileMetaDataRoundTrips) {
  const parquet::FileMetaData m = SampleMetadata();
  std::string bytes;
  parquet::EncodeFileMetaData(m, &bytes);
  auto back = parquet::DecodeFileMetaData(bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, m);
}

TEST(ThriftMetadataTest, EveryTruncationFailsCleanly) {
  std::string bytes;
  parquet::EncodeFileMetaData(SampleMetadata(), &bytes);
  for (size_t n = 0; n < bytes.size(); ++n) {
    // A copy of exactly n bytes so ASan catches any read past the end.
    std::string prefix = bytes.substr(0, n);
    auto r = parquet::DecodeFileMetaData(prefix);
    ASSERT_FALSE(r.ok()) << "prefix of " << n << " bytes decoded";
    EXPECT_EQ(r.status().code(), Code::kCorruption);
  }
}

TEST(ThriftMetadataTest, MutatedAndRandomInputNeverCrashes) {
  std::string bytes;
  parquet::EncodeFileMetaData(SampleMetadata(), &bytes);
  std::mt19937_64 rng(42);
  for (int i = 0; i < 20000; ++i) {
    std::string m = bytes;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) m[rng() % m.size()] = static_cast<char>(rng());
    (void)parquet::DecodeFileMetaData(m);
  }
  for (int i = 0; i < 20000; ++i) {
    std::string g(rng() % 64, '\0');
    for (char& c : g) c = static_cast<char>(rng());
    (void)parquet::DecodeFileMetaData(g);
    (void)parquet::DecodePageHeader(g);
  }
}

TEST(ThriftMetadataTest, DeepNestingAndHugeListsAreCorruption) {
  std::string deep(10000, '\x1c');  // field 1, struct, nested forever
  auto r = parquet::DecodeFileMetaData(deep);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kCorruption);

  // schema list claiming 2^31 elements in a 10-byte input.
  std::string huge = Bytes({0x15, 0x02, 0x19, 0xfc, 0xff, 0xff, 0xff, 0xff, 0x07, 0x00});
  r = parquet::DecodeFileMetaData(huge);
  ASSERT_FALSE(r.ok());

  // An unknown field holding deeply nested lists is skipped only to a bounded depth.
  std::string lists = Bytes({0x09});
  for (int i = 0; i < 5000; ++i) lists.push_back(static_cast<char>(0x19));
  r = parquet::DecodeFileMetaData(lists);
  ASSERT_FALSE(r.ok());
}

TEST(ThriftMetadataTest, UnknownFieldsAreSkipped) {
  std::string bytes;
  ThriftWriter w(&bytes);
  w.FieldI32(1, 2);
  w.FieldList(2, ThriftType::kStruct, 1);
  w.BeginStruct();
  w.FieldBinary(4, "root");
  w.FieldStruct(99);  // unknown struct field
  w.FieldList(1, ThriftType::kI64, 2);
  w.I64(1);
  w.I64(2);
  w.FieldBool(2, true);
  w.EndStruct();
  w.EndStruct();
  w.FieldI64(3, 0);
  w.FieldList(4, ThriftType::kStruct, 0);
  w.FieldBinary(6, "me");
  w.FieldI32(50, 7);  // unknown
  w.EndStruct();
  auto m = parquet::DecodeFileMetaData(bytes);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->version, 2);
  ASSERT_EQ(m->schema.size(), 1u);
  EXPECT_EQ(m->schema[0].name, "root");
  EXPECT_EQ(m->created_by, "me");
}

TEST(ThriftMetadataTest, MissingRequiredFieldIsCorruption) {
  std::string bytes;
  ThriftWriter w(&bytes);
  w.FieldI32(1, 1);
  w.EndStruct();
  auto m = parquet::DecodeFileMetaData(bytes);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), Code::kCorruption);
}

}  // namespace
}  // namespace lakedump
