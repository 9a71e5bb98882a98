// Lists in Parquet: the writer's 3-level LIST (schema, repetition and definition levels, pages
// on row boundaries, statistics) and its refusals. The independent readers read the same files
// in parquet_interop_test.cc.
#include <gtest/gtest.h>

#include <cstring>

#include <nlohmann/json.hpp>

#include "canonical_json.h"
#include "format/parquet/parquet_footer.h"
#include "format/parquet/parquet_reader.h"
#include "format/parquet/parquet_writer.h"
#include "format/parquet/rle.h"
#include "format/parquet/rle_decoder.h"
#include "list_craft.h"
#include "parquet_reader_test_util.h"
#include "test_data.h"

namespace lakedump {
namespace {

using testing::NullPattern;

// rows: [1,2], null, [], [null], [3]
RowBatch SmallLists(const Schema& schema) {
  RowBatch b(schema);
  ColumnVector& c = b.column(0);
  c.elements().Append<int32_t>(1);
  c.elements().Append<int32_t>(2);
  c.AppendList();
  c.AppendNull();
  c.AppendList();
  c.elements().AppendNull();
  c.AppendList();
  c.elements().Append<int32_t>(3);
  c.AppendList();
  return b;
}

std::string Write(const Schema& schema, const std::vector<RowBatch>& batches,
                  ParquetWriterOptions o) {
  StringSink sink;
  ParquetWriter w(schema, o, &sink);
  for (const RowBatch& b : batches) EXPECT_TRUE(w.Write(b).ok());
  Status s = w.Close();
  EXPECT_TRUE(s.ok()) << s.ToString();
  return sink.str();
}

struct Page {
  std::vector<uint8_t> rep, def;
  std::string_view values;
};

// The data pages of column chunk `col` of row group `group` (uncompressed, v1), levels decoded.
std::vector<Page> DataPages(const std::string& file, const parquet::FileMetaData& m, size_t group,
                            size_t col, int max_def) {
  std::vector<Page> pages;
  const auto& md = *m.row_groups[group].columns[col].meta_data;
  size_t pos = static_cast<size_t>(md.dictionary_page_offset.value_or(md.data_page_offset));
  const size_t end = pos + static_cast<size_t>(md.total_compressed_size);
  while (pos < end) {
    size_t hlen = 0;
    auto h = parquet::DecodePageHeader(std::string_view(file).substr(pos), &hlen);
    EXPECT_TRUE(h.ok());
    if (!h.ok()) return pages;
    std::string_view body = std::string_view(file).substr(pos + hlen, h->compressed_page_size);
    pos += hlen + h->compressed_page_size;
    if (h->type != parquet::PageType::kDataPage) continue;
    const size_t n = static_cast<size_t>(h->data_page_header->num_values);
    Page p;
    p.rep.resize(n);
    p.def.resize(n);
    for (auto [levels, bw] : {std::pair{&p.rep, 1}, std::pair{&p.def, max_def >= 2 ? 2 : 1}}) {
      uint32_t len;
      std::memcpy(&len, body.data(), 4);
      parquet::RleDecoder d(body.substr(4, len), bw);
      EXPECT_TRUE(d.Get(n, levels->data()).ok());
      body.remove_prefix(4 + len);
    }
    p.values = body;
    pages.push_back(std::move(p));
  }
  return pages;
}

TEST(ParquetListWriterTest, SchemaIsTheSpecsThreeLevelList) {
  const Schema schema({Column{"a", LogicalType::List(LogicalType::Of(TypeId::kInt32), true), true, ""},
                       Column{"b", LogicalType::List(LogicalType::Decimal(30, 2), false), false, ""},
                       Column{"x", LogicalType::Of(TypeId::kInt64), true, ""}});
  RowBatch batch(schema);
  batch.column(0).AppendNull();
  batch.column(1).elements().Append<int128_t>(5);
  batch.column(1).AppendList();
  batch.column(2).Append<int64_t>(1);
  const std::string file = Write(schema, {batch}, {});
  auto m = parquet::ReadParquetFooter(file);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ(m->schema.size(), 8u);
  EXPECT_EQ(m->schema[0].num_children, 3);
  const parquet::SchemaElement& a = m->schema[1];
  EXPECT_EQ(a.name, "a");
  EXPECT_EQ(a.repetition, parquet::Repetition::kOptional);
  EXPECT_EQ(a.num_children, 1);
  EXPECT_FALSE(a.type.has_value());
  EXPECT_EQ(a.converted_type, parquet::ConvertedType::kList);
  ASSERT_TRUE(a.logical_type.has_value());
  EXPECT_EQ(a.logical_type->kind, parquet::LogicalType::kList);
  EXPECT_EQ(m->schema[2].name, "list");
  EXPECT_EQ(m->schema[2].repetition, parquet::Repetition::kRepeated);
  EXPECT_EQ(m->schema[2].num_children, 1);
  EXPECT_EQ(m->schema[3].name, "element");
  EXPECT_EQ(m->schema[3].repetition, parquet::Repetition::kOptional);
  EXPECT_EQ(m->schema[3].type, parquet::Type::kInt32);
  EXPECT_EQ(m->schema[4].repetition, parquet::Repetition::kRequired);  // b: NOT NULL list
  EXPECT_EQ(m->schema[6].repetition, parquet::Repetition::kRequired);  // of NOT NULL elements
  EXPECT_EQ(m->schema[6].type, parquet::Type::kFixedLenByteArray);
  EXPECT_EQ(m->schema[7].name, "x");
  EXPECT_EQ(m->column_orders.size(), 3u);
  const auto& md = *m->row_groups[0].columns[0].meta_data;
  EXPECT_EQ(md.path_in_schema, (std::vector<std::string>{"a", "list", "element"}));
}

TEST(ParquetListWriterTest, LevelsOfNullAndEmptyListsAndNullElements) {
  const Schema schema({Column{"a", LogicalType::List(LogicalType::Of(TypeId::kInt32), true), true, ""}});
  for (bool dictionary : {false, true}) {
    ParquetWriterOptions o;
    o.codec = CodecKind::kNone;
    o.dictionary = dictionary;
    const std::string file = Write(schema, {SmallLists(schema)}, o);
    auto m = parquet::ReadParquetFooter(file);
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(m->num_rows, 5);
    EXPECT_EQ(m->row_groups[0].num_rows, 5);
    const auto& md = *m->row_groups[0].columns[0].meta_data;
    EXPECT_EQ(md.num_values, 6) << "one level entry per element, null and empty list";
    std::vector<Page> pages = DataPages(file, *m, 0, 0, 3);
    ASSERT_EQ(pages.size(), 1u);
    EXPECT_EQ(pages[0].rep, (std::vector<uint8_t>{0, 1, 0, 0, 0, 0}));
    EXPECT_EQ(pages[0].def, (std::vector<uint8_t>{3, 3, 0, 1, 2, 3}));
    if (!dictionary) {
      ASSERT_EQ(pages[0].values.size(), 12u) << "three values, PLAIN";
      int32_t v[3];
      std::memcpy(v, pages[0].values.data(), 12);
      EXPECT_EQ(v[0], 1);
      EXPECT_EQ(v[1], 2);
      EXPECT_EQ(v[2], 3);
    }
    // Statistics: the elements' min and max, no null count (slots without a value are not
    // all null values).
    ASSERT_TRUE(md.statistics.has_value());
    int32_t lo, hi;
    std::memcpy(&lo, md.statistics->min_value->data(), 4);
    std::memcpy(&hi, md.statistics->max_value->data(), 4);
    EXPECT_EQ(lo, 1);
    EXPECT_EQ(hi, 3);
    EXPECT_FALSE(md.statistics->null_count.has_value());
  }
}

TEST(ParquetListWriterTest, PagesAndDictionaryFallbackStartOnRowBoundaries) {
  const Schema schema({Column{"s", LogicalType::List(LogicalType::Of(TypeId::kString), true), true, ""}});
  RowBatch batch(schema);
  testing::FillRows(schema, NullPattern::kSome, 0, 3000, 9, &batch);
  ParquetWriterOptions o;
  o.codec = CodecKind::kNone;
  o.page_bytes = 100;
  o.dictionary_limit_bytes = 300;
  o.row_group_rows = 1000;
  const std::string file = Write(schema, {batch}, o);
  auto m = parquet::ReadParquetFooter(file);
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(m->row_groups.size(), 3u);
  size_t rows = 0, slots = 0;
  for (size_t g = 0; g < 3; ++g) {
    std::vector<Page> pages = DataPages(file, *m, g, 0, 3);
    EXPECT_GT(pages.size(), 10u);
    for (const Page& p : pages) {
      ASSERT_FALSE(p.rep.empty());
      EXPECT_EQ(p.rep[0], 0) << "a page starts a row";
      for (uint8_t r : p.rep) rows += r == 0;
      slots += p.rep.size();
    }
  }
  EXPECT_EQ(rows, 3000u);
  EXPECT_EQ(slots, batch.column(0).elements().size() +
                       [&] {
                         size_t empty = 0;
                         const ColumnVector& c = batch.column(0);
                         for (size_t i = 0; i < c.size(); ++i)
                           empty += c.IsNull(i) || c.offsets()[i] == c.offsets()[i + 1];
                         return empty;
                       }());
}

TEST(ParquetListWriterTest, RefusesBadElementsNamingRowAndElement) {
  {
    const Schema schema({Column{"a", LogicalType::List(LogicalType::Of(TypeId::kInt32), false), true, ""}});
    RowBatch b(schema);
    b.column(0).elements().Append<int32_t>(1);
    b.column(0).AppendList();
    b.column(0).elements().Append<int32_t>(1);
    b.column(0).elements().AppendNull();
    b.column(0).AppendList();
    StringSink sink;
    ParquetWriter w(schema, {}, &sink);
    Status s = w.Write(b);
    EXPECT_EQ(s.code(), Code::kInvalidArgument);
    EXPECT_NE(s.message().find("column \"a\", row 1: element 2 of the list: null in a NOT NULL column"),
              std::string::npos)
        << s.message();
  }
  {
    const Schema schema({Column{"s", LogicalType::List(LogicalType::Of(TypeId::kString), true), true, ""}});
    RowBatch b(schema);
    b.column(0).AppendNull();
    b.column(0).AppendList();
    b.column(0).elements().AppendBytes("ok");
    b.column(0).elements().AppendBytes("bad \xC3(");
    b.column(0).AppendList();
    StringSink sink;
    ParquetWriter w(schema, {}, &sink);
    Status s = w.Write(b);
    EXPECT_NE(s.message().find("column \"s\", row 2: element 2 of the list: invalid UTF-8"), std::string::npos)
        << s.message();
  }
  {
    const Schema schema({Column{"l", LogicalType::List(LogicalType::Of(TypeId::kInt32), true), false, ""}});
    RowBatch b(schema);
    b.column(0).AppendNull();
    StringSink sink;
    ParquetWriter w(schema, {}, &sink);
    Status s = w.Write(b);
    EXPECT_NE(s.message().find("column \"l\", row 0: null in a NOT NULL column"), std::string::npos)
        << s.message();
  }
}

TEST(ListTypeTest, ToStringAndParseRoundTrip) {
  for (const LogicalType& t :
       {LogicalType::List(LogicalType::Of(TypeId::kInt32), true),
        LogicalType::List(LogicalType::Decimal(12, 3), false),
        LogicalType::List(LogicalType::Of(TypeId::kTimestampTz), true)}) {
    auto back = LogicalType::Parse(t.ToString());
    ASSERT_TRUE(back.ok()) << t.ToString();
    EXPECT_EQ(*back, t) << t.ToString();
  }
  EXPECT_EQ(LogicalType::List(LogicalType::Decimal(12, 3), false).ToString(),
            "list<decimal(12,3) not null>");
  EXPECT_FALSE(LogicalType::Parse("list<list<int32>>").ok());
  EXPECT_FALSE(LogicalType::Parse("list<>").ok());
  EXPECT_FALSE(LogicalType::Parse("list<int32 not null").ok());
}

TEST(ListColumnTest, AppendFromAndCopyKeepElements) {
  RowBatch src = SmallLists(Schema({Column{"a", LogicalType::List(LogicalType::Of(TypeId::kInt32), true), true, ""}}));
  ColumnVector dst(src.column(0).type(), true);
  dst.AppendFrom(src.column(0), 1, 4);  // null, [], [null], [3]
  ASSERT_EQ(dst.size(), 4u);
  EXPECT_TRUE(dst.IsNull(0));
  EXPECT_EQ(dst.offsets()[1], dst.offsets()[2]);
  EXPECT_EQ(dst.elements().size(), 2u);
  EXPECT_TRUE(dst.elements().IsNull(0));
  EXPECT_EQ(dst.elements().ValueAt<int32_t>(1), 3);
  ColumnVector copy = dst;
  dst.Clear();
  EXPECT_EQ(dst.elements().size(), 0u);
  EXPECT_EQ(copy.elements().size(), 2u);
  EXPECT_EQ(copy.offsets()[4], 2u);
}

// ------------------------------------------------------------------ reader

struct ListRoundTrip {
  CodecKind codec;
  NullPattern nulls;
  bool dictionary;
  size_t page_bytes;
  size_t read_batch;
};

class ParquetListRoundTripTest : public ::testing::TestWithParam<ListRoundTrip> {};

// Every element type, null and empty lists, null elements; read back in batches that end
// inside pages and rows that span nothing (our pages start rows) but batches do.
TEST_P(ParquetListRoundTripTest, ReadsBackEveryList) {
  const ListRoundTrip p = GetParam();
  const Schema schema = testing::ListTypesSchema(p.nulls);
  ParquetWriterOptions o;
  o.codec = p.codec;
  o.dictionary = p.dictionary;
  o.page_bytes = p.page_bytes;
  o.row_group_rows = 700;
  StringSink sink;
  ParquetWriter w(schema, o, &sink);
  RowBatch batch(schema);
  std::string expected;
  for (size_t at = 0; at < 1600; at += 500) {
    batch.Clear();
    testing::FillRows(schema, p.nulls, at, std::min<size_t>(500, 1600 - at), 11, &batch);
    testing::AppendCanonicalRows(schema, batch, &expected);
    ASSERT_TRUE(w.Write(batch).ok());
  }
  ASSERT_TRUE(w.Close().ok());
  Schema read_schema;
  std::string got;
  uint64_t rows = 0;
  Status s = testing::ReadAllCanonical(sink.str(), {}, p.read_batch, &read_schema, &got, &rows);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(rows, 1600u);
  ASSERT_EQ(read_schema.num_columns(), schema.num_columns());
  for (size_t c = 0; c < schema.num_columns(); ++c) {
    EXPECT_EQ(read_schema.column(c).type, schema.column(c).type) << schema.column(c).name;
    EXPECT_EQ(read_schema.column(c).nullable, schema.column(c).nullable);
  }
  EXPECT_EQ(nlohmann::json::parse("[" + got + "]"), nlohmann::json::parse("[" + expected + "]"));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ParquetListRoundTripTest,
    ::testing::Values(ListRoundTrip{CodecKind::kNone, NullPattern::kSome, true, 1 << 20, 1000},
                      ListRoundTrip{CodecKind::kSnappy, NullPattern::kSome, false, 200, 7},
                      ListRoundTrip{CodecKind::kZstd, NullPattern::kNone, true, 300, 64},
                      ListRoundTrip{CodecKind::kGzip, NullPattern::kAll, true, 1 << 20, 100},
                      ListRoundTrip{CodecKind::kLz4Raw, NullPattern::kSome, true, 150, 1}));

TEST(ParquetListReaderTest, ReadsTheLegacyForms) {
  for (auto form : {testing::LegacyList::kTwoLevel, testing::LegacyList::kTwoLevelRequired,
                    testing::LegacyList::kRepeatedPrimitive}) {
    SCOPED_TRACE(static_cast<int>(form));
    Schema want;
    std::string want_rows;
    const std::string file = testing::LegacyListFile(form, &want, &want_rows);
    ASSERT_FALSE(file.empty());
    for (size_t batch : {1, 2, 100}) {
      Schema schema;
      std::string rows_json;
      uint64_t rows = 0;
      Status s = testing::ReadAllCanonical(file, {}, batch, &schema, &rows_json, &rows);
      ASSERT_TRUE(s.ok()) << s.ToString();
      EXPECT_EQ(schema.column(0).type, want.column(0).type);
      EXPECT_EQ(schema.column(0).nullable, want.column(0).nullable);
      EXPECT_EQ(nlohmann::json::parse("[" + rows_json + "]"),
                nlohmann::json::parse("[" + want_rows + "]"));
    }
  }
}

// A row may span pages in files of other writers: the reader assembles it across them.
TEST(ParquetListReaderTest, RowsSpanningPages) {
  const Schema schema({Column{"a", LogicalType::List(LogicalType::Of(TypeId::kInt64), true), true, ""}});
  RowBatch b(schema);
  for (int64_t i = 0; i < 50; ++i) b.column(0).elements().Append<int64_t>(i);
  b.column(0).AppendList();
  b.column(0).elements().Append<int64_t>(7);
  b.column(0).AppendList();
  ParquetWriterOptions o;
  o.codec = CodecKind::kNone;
  o.dictionary = false;
  const std::string file = Write(schema, {b}, o);
  // Split the one data page of 51 slots into pages of 20, 20 and 11 slots, re-encoded from
  // the original page's levels and values: the first row runs over three pages.
  auto m = parquet::ReadParquetFooter(file);
  ASSERT_TRUE(m.ok());
  std::vector<Page> pages = DataPages(file, *m, 0, 0, 3);
  ASSERT_EQ(pages.size(), 1u);
  const Page& whole = pages[0];
  std::string out = "PAR1";
  parquet::ColumnMetaData& md = *m->row_groups[0].columns[0].meta_data;
  md.data_page_offset = 4;
  md.dictionary_page_offset.reset();
  int64_t total = 0;
  size_t value_at = 0;
  for (size_t from = 0; from < 51; from += 20) {
    const size_t to = std::min<size_t>(51, from + 20);
    std::string body;
    for (auto [levels, bw] : {std::pair{&whole.rep, 1}, std::pair{&whole.def, 2}}) {
      std::string enc;
      parquet::RleEncode(levels->data() + from, to - from, bw, &enc);
      const uint32_t len = static_cast<uint32_t>(enc.size());
      body.append(reinterpret_cast<const char*>(&len), 4);
      body += enc;
    }
    body.append(whole.values.substr(value_at * 8, (to - from) * 8));
    value_at += to - from;
    parquet::PageHeader h;
    h.type = parquet::PageType::kDataPage;
    h.uncompressed_page_size = h.compressed_page_size = static_cast<int32_t>(body.size());
    auto& d = h.data_page_header.emplace();
    d.num_values = static_cast<int32_t>(to - from);
    d.encoding = parquet::Encoding::kPlain;
    std::string header;
    parquet::EncodePageHeader(h, &header);
    out += header + body;
    total += static_cast<int64_t>(header.size() + body.size());
  }
  md.total_compressed_size = md.total_uncompressed_size = total;
  m->row_groups[0].columns[0].file_offset = 4;
  m->row_groups[0].total_compressed_size = total;
  std::string footer;
  parquet::EncodeFileMetaData(*m, &footer);
  const uint32_t n = static_cast<uint32_t>(footer.size());
  out += footer;
  out.append(reinterpret_cast<const char*>(&n), 4);
  out += "PAR1";
  for (size_t batch : {1, 2}) {
    Schema read_schema;
    std::string rows_json;
    uint64_t rows = 0;
    Status s = testing::ReadAllCanonical(out, {}, batch, &read_schema, &rows_json, &rows);
    ASSERT_TRUE(s.ok()) << s.ToString();
    nlohmann::json want = nlohmann::json::array();
    nlohmann::json first = nlohmann::json::array();
    for (int i = 0; i < 50; ++i) first.push_back(std::to_string(i));
    want.push_back(nlohmann::json::array({first}));
    want.push_back(nlohmann::json::array({nlohmann::json::array({"7"})}));
    EXPECT_EQ(nlohmann::json::parse("[" + rows_json + "]"), want);
  }
}

TEST(ParquetListReaderTest, RefusesListsOfListsAndStructsByName) {
  // list<list<int32>> as the 3-level form nests it, made from a list file's schema.
  const Schema schema({Column{"a", LogicalType::List(LogicalType::Of(TypeId::kInt32), true), true, ""}});
  const std::string file = Write(schema, {SmallLists(schema)}, {});
  const std::string nested = testing::RewriteParquet(
      file, [](size_t, parquet::PageHeader*, std::string*) {},
      [](parquet::FileMetaData* m) {
        parquet::SchemaElement inner_list = m->schema[1];
        inner_list.name = "element";
        m->schema = {m->schema[0], m->schema[1], m->schema[2], inner_list, m->schema[2],
                     m->schema[3]};
      });
  auto r = ParquetReader::OpenBuffer(nested);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("column \"a\": lists of lists"), std::string::npos)
      << r.status().ToString();
  // Definition levels above the column's maximum are corruption, named: the file's levels
  // go up to 3, the schema rewritten to required elements allows 2.
  const std::string bad = testing::RewriteParquet(
      file, [](size_t, parquet::PageHeader*, std::string*) {},
      [](parquet::FileMetaData* m) { m->schema[3].repetition = parquet::Repetition::kRequired; });
  auto r2 = ParquetReader::OpenBuffer(bad);
  ASSERT_TRUE(r2.ok()) << r2.status().ToString();
  RowBatch b;
  Status s = (*r2)->Next(100, &b);
  EXPECT_EQ(s.code(), Code::kCorruption) << s.ToString();
  EXPECT_NE(s.message().find("definition level 3 above the column's maximum of 2"),
            std::string::npos)
      << s.ToString();
}

}  // namespace
}  // namespace lakedump
