#include "format/parquet/parquet_writer.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "base/thread_pool.h"
#include "format/parquet/parquet_footer.h"
#include "format/parquet/statistics.h"
#include "test_data.h"

namespace lakedump {
namespace {

using testing::NullPattern;

std::string WriteAll(const Schema& schema, ParquetWriterOptions options, size_t rows,
                     size_t batch_rows = 1000, NullPattern nulls = NullPattern::kSome,
                     ParquetFileStats* stats = nullptr) {
  StringSink sink;
  ParquetWriter w(schema, options, &sink);
  RowBatch batch(schema);
  for (size_t at = 0; at < rows; at += batch_rows) {
    batch.Clear();
    testing::FillRows(schema, nulls, at, std::min(batch_rows, rows - at), 3, &batch);
    EXPECT_TRUE(w.Write(batch).ok());
  }
  Status s = w.Close();
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (stats) *stats = w.stats();
  return sink.str();
}

// Walks every page of every chunk, checking the layout invariants readers rely on.
void CheckLayout(const std::string& file, const parquet::FileMetaData& m) {
  ASSERT_EQ(file.substr(0, 4), "PAR1");
  int64_t rows = 0;
  int64_t expected_offset = 4;
  for (const auto& g : m.row_groups) {
    rows += g.num_rows;
    int64_t group_compressed = 0;
    for (const auto& cc : g.columns) {
      ASSERT_TRUE(cc.meta_data.has_value());
      const auto& md = *cc.meta_data;
      EXPECT_EQ(md.num_values, g.num_rows);
      const int64_t start = md.dictionary_page_offset.value_or(md.data_page_offset);
      EXPECT_EQ(start, expected_offset) << "chunks are contiguous and in order";
      EXPECT_EQ(cc.file_offset, start);
      ASSERT_LE(start + md.total_compressed_size, static_cast<int64_t>(file.size()));
      int64_t pos = start, compressed = 0, uncompressed = 0, values = 0;
      bool first = true;
      while (pos < start + md.total_compressed_size) {
        size_t hlen = 0;
        auto h = parquet::DecodePageHeader(std::string_view(file).substr(pos), &hlen);
        ASSERT_TRUE(h.ok()) << h.status().ToString();
        if (first && md.dictionary_page_offset) {
          EXPECT_EQ(h->type, parquet::PageType::kDictionaryPage);
        } else {
          EXPECT_EQ(h->type, parquet::PageType::kDataPage);
          if (first) {
            EXPECT_EQ(pos, md.data_page_offset);
          }
          values += h->data_page_header->num_values;
        }
        if (first && md.dictionary_page_offset) {
          // The first data page follows the dictionary page.
          EXPECT_EQ(md.data_page_offset, pos + static_cast<int64_t>(hlen) + h->compressed_page_size);
        }
        first = false;
        compressed += static_cast<int64_t>(hlen) + h->compressed_page_size;
        uncompressed += static_cast<int64_t>(hlen) + h->uncompressed_page_size;
        pos += static_cast<int64_t>(hlen) + h->compressed_page_size;
      }
      EXPECT_EQ(pos, start + md.total_compressed_size);
      EXPECT_EQ(compressed, md.total_compressed_size);
      EXPECT_EQ(uncompressed, md.total_uncompressed_size);
      EXPECT_EQ(values, md.num_values);
      group_compressed += md.total_compressed_size;
      expected_offset = start + md.total_compressed_size;
    }
    EXPECT_EQ(g.total_compressed_size.value_or(-1), group_compressed);
  }
  EXPECT_EQ(rows, m.num_rows);
  // Footer follows the last chunk.
  uint32_t len;
  std::memcpy(&len, file.data() + file.size() - 8, 4);
  EXPECT_EQ(static_cast<int64_t>(file.size()) - 8 - len, expected_offset);
}

TEST(ParquetWriterTest, FooterDescribesFileAndPagesAreConsistent) {
  const Schema schema = testing::AllTypesSchema(NullPattern::kSome);
  ParquetWriterOptions o;
  o.row_group_rows = 1000;
  o.page_bytes = 2048;
  o.key_value_metadata = {{"lakedump.table", "public.t"}};
  ParquetFileStats stats;
  const std::string file = WriteAll(schema, o, 3500, 700, NullPattern::kSome, &stats);
  auto m = parquet::ReadParquetFooter(file);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->num_rows, 3500);
  ASSERT_EQ(m->row_groups.size(), 4u);
  EXPECT_EQ(m->row_groups[3].num_rows, 500);
  EXPECT_EQ(stats.rows, 3500u);
  EXPECT_EQ(stats.row_groups, 4u);
  EXPECT_EQ(stats.bytes, file.size());
  ASSERT_EQ(m->schema.size(), schema.num_columns() + 1);
  EXPECT_EQ(m->schema[0].num_children, static_cast<int32_t>(schema.num_columns()));
  EXPECT_EQ(m->column_orders.size(), schema.num_columns());
  EXPECT_EQ(m->created_by, CreatedBy());
  ASSERT_EQ(m->key_value_metadata.size(), 1u);
  EXPECT_EQ(m->key_value_metadata[0].value, "public.t");
  CheckLayout(file, *m);
}

TEST(ParquetWriterTest, EveryCodecProducesAConsistentLayout) {
  const Schema schema = testing::AllTypesSchema(NullPattern::kNone);
  for (CodecKind codec : {CodecKind::kNone, CodecKind::kSnappy, CodecKind::kZstd,
                          CodecKind::kGzip, CodecKind::kLz4Raw}) {
    ParquetWriterOptions o;
    o.codec = codec;
    o.row_group_rows = 600;
    const std::string file = WriteAll(schema, o, 1300, 1000, NullPattern::kNone);
    auto m = parquet::ReadParquetFooter(file);
    ASSERT_TRUE(m.ok()) << CodecName(codec);
    CheckLayout(file, *m);
  }
}

TEST(ParquetWriterTest, EmptyFileHasAFooterAndNoRowGroups) {
  const Schema schema = testing::AllTypesSchema(NullPattern::kSome);
  const std::string file = WriteAll(schema, {}, 0);
  auto m = parquet::ReadParquetFooter(file);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->num_rows, 0);
  EXPECT_TRUE(m->row_groups.empty());
}

TEST(ParquetWriterTest, RowGroupBytesLimitSplitsGroups) {
  const Schema schema({Column{"s", LogicalType::Of(TypeId::kString), false, ""}});
  ParquetWriterOptions o;
  o.row_group_bytes = 64 << 10;
  StringSink sink;
  ParquetWriter w(schema, o, &sink);
  RowBatch b(schema);
  for (int i = 0; i < 2000; ++i) b.column(0).AppendBytes(std::string(100, 'a' + i % 26));
  ASSERT_TRUE(w.Write(b).ok());
  ASSERT_TRUE(w.Close().ok());
  auto m = parquet::ReadParquetFooter(sink.str());
  ASSERT_TRUE(m.ok());
  EXPECT_GE(m->row_groups.size(), 3u);
  CheckLayout(sink.str(), *m);
}

// dictionary_columns: only the columns named try a dictionary; the others are PLAIN even when
// a dictionary would be smaller.
TEST(ParquetWriterTest, OnlyTheDictionaryColumnsNamedGetADictionary) {
  const Schema schema({Column{"a", LogicalType::Of(TypeId::kInt64), false, ""},
                       Column{"b", LogicalType::Of(TypeId::kInt64), false, ""},
                       Column{"c", LogicalType::Of(TypeId::kString), false, ""}});
  RowBatch batch(schema);
  for (int i = 0; i < 5000; ++i) {
    batch.column(0).Append<int64_t>(i % 3);
    batch.column(1).Append<int64_t>(i % 3);
    batch.column(2).AppendBytes(i % 2 == 0 ? "x" : "y");
  }
  for (const std::vector<std::string>& only :
       {std::vector<std::string>{}, std::vector<std::string>{"b", "c"}}) {
    ParquetWriterOptions o;
    o.dictionary_columns = only;
    StringSink sink;
    ParquetWriter w(schema, o, &sink);
    ASSERT_TRUE(w.Write(batch).ok());
    ASSERT_TRUE(w.Close().ok());
    auto m = parquet::ReadParquetFooter(sink.str());
    ASSERT_TRUE(m.ok());
    ASSERT_EQ(m->row_groups.size(), 1u);
    const auto& chunks = m->row_groups[0].columns;
    EXPECT_EQ(chunks[0].meta_data->dictionary_page_offset.has_value(), only.empty());
    EXPECT_TRUE(chunks[1].meta_data->dictionary_page_offset.has_value());
    EXPECT_TRUE(chunks[2].meta_data->dictionary_page_offset.has_value());
    CheckLayout(sink.str(), *m);
  }
}

TEST(ParquetWriterTest, DictionaryFallbackKeepsDictionaryPageFirst) {
  const Schema schema({Column{"s", LogicalType::Of(TypeId::kString), true, ""}});
  ParquetWriterOptions o;
  o.dictionary_limit_bytes = 1000;
  o.page_bytes = 1000;
  StringSink sink;
  ParquetWriter w(schema, o, &sink);
  RowBatch b(schema);
  for (int i = 0; i < 3000; ++i) b.column(0).AppendBytes("value-" + std::to_string(i % 1500));
  ASSERT_TRUE(w.Write(b).ok());
  ASSERT_TRUE(w.Close().ok());
  auto m = parquet::ReadParquetFooter(sink.str());
  ASSERT_TRUE(m.ok());
  const auto& md = *m->row_groups[0].columns[0].meta_data;
  ASSERT_TRUE(md.dictionary_page_offset.has_value());
  EXPECT_EQ(md.encodings, (std::vector<parquet::Encoding>{
                              parquet::Encoding::kPlain, parquet::Encoding::kRle,
                              parquet::Encoding::kRleDictionary}));
  CheckLayout(sink.str(), *m);
  EXPECT_EQ(md.statistics->min_value, "value-0");
  EXPECT_EQ(md.statistics->max_value, "value-999");
}

TEST(ParquetWriterTest, ParallelEncodingWritesIdenticalBytes) {
  const Schema schema = testing::AllTypesSchema(NullPattern::kSome);
  ParquetWriterOptions o;
  o.row_group_rows = 500;
  o.codec = CodecKind::kZstd;
  const std::string serial = WriteAll(schema, o, 5321, 333);
  ThreadPool pool(3);
  o.threads = 3;
  o.pool = &pool;
  const std::string parallel = WriteAll(schema, o, 5321, 333);
  EXPECT_EQ(serial, parallel);
}

// Writers recycle their buffers, encoders and dictionaries through a
// process-wide pool: concurrent writers of different schemas, serial and
// parallel, some abandoned before Close(), must still write exactly the bytes
// a fresh writer writes.
TEST(ParquetWriterTest, WritersSharingPooledBuffersWriteIdenticalBytes) {
  const Schema some = testing::AllTypesSchema(NullPattern::kSome);
  const Schema none = testing::AllTypesSchema(NullPattern::kNone);
  ParquetWriterOptions o;
  o.row_group_rows = 700;
  o.codec = CodecKind::kZstd;
  const std::string ref_some = WriteAll(some, o, 3001, 250, NullPattern::kSome);
  const std::string ref_none = WriteAll(none, o, 1234, 1000, NullPattern::kNone);
  ThreadPool pool(2);
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 3; ++i) {
        ParquetWriterOptions p = o;
        if ((t + i) % 2 == 0) {
          p.threads = 2;
          p.pool = &pool;
        }
        {  // abandoned mid-file: its jobs go back to the pool
          StringSink sink;
          ParquetWriter w(some, p, &sink);
          RowBatch b(some);
          testing::FillRows(some, NullPattern::kSome, 0, 1500, 3, &b);
          EXPECT_TRUE(w.Write(b).ok());
        }
        if ((t + i) % 3 == 0) {
          mismatches[t] += WriteAll(none, p, 1234, 1000, NullPattern::kNone) != ref_none;
        } else {
          mismatches[t] += WriteAll(some, p, 3001, 250, NullPattern::kSome) != ref_some;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

TEST(ParquetWriterTest, DestroyingWithRowGroupsInFlightIsSafe) {
  const Schema schema = testing::AllTypesSchema(NullPattern::kSome);
  ThreadPool pool(2);
  ParquetWriterOptions o;
  o.row_group_rows = 100;
  o.threads = 2;
  o.pool = &pool;
  StringSink sink;
  {
    ParquetWriter w(schema, o, &sink);
    RowBatch b(schema);
    testing::FillRows(schema, NullPattern::kSome, 0, 1000, 1, &b);
    ASSERT_TRUE(w.Write(b).ok());
  }  // no Close
  EXPECT_FALSE(parquet::ReadParquetFooter(sink.str()).ok()) << "no footer without Close()";
}

TEST(ParquetWriterTest, StatisticsFollowSortOrders) {
  const Schema schema({Column{"d", LogicalType::Of(TypeId::kDouble), true, ""},
                       Column{"dec", LogicalType::Decimal(30, 2), true, ""},
                       Column{"b", LogicalType::Of(TypeId::kBinary), true, ""},
                       Column{"n", LogicalType::Of(TypeId::kDouble), true, ""}});
  StringSink sink;
  ParquetWriterOptions o;
  ParquetWriter w(schema, o, &sink);
  RowBatch b(schema);
  for (double v : {0.0, std::nan(""), 2.5, -0.0}) b.column(0).Append<double>(v);
  for (int128_t v : {int128_t{-5}, int128_t{3}, int128_t{-100}, int128_t{7}}) b.column(1).Append(v);
  for (const char* v : {"\x80", "\x01", "a", "\xff"}) b.column(2).AppendBytes(v);
  for (int i = 0; i < 4; ++i) b.column(3).Append<double>(std::nan(""));
  ASSERT_TRUE(w.Write(b).ok());
  ASSERT_TRUE(w.Close().ok());
  auto m = parquet::ReadParquetFooter(sink.str());
  ASSERT_TRUE(m.ok());
  auto stat = [&](int c) { return *m->row_groups[0].columns[c].meta_data->statistics; };
  double mn, mx;
  std::memcpy(&mn, stat(0).min_value->data(), 8);
  std::memcpy(&mx, stat(0).max_value->data(), 8);
  EXPECT_EQ(mn, 0.0);
  EXPECT_TRUE(std::signbit(mn)) << "min of zeros is -0.0";
  EXPECT_EQ(mx, 2.5);
  // decimal(30,2) is a 13-byte FLBA; -100 is the signed minimum.
  EXPECT_EQ(stat(1).min_value->size(), 13u);
  EXPECT_EQ(static_cast<uint8_t>((*stat(1).min_value)[12]), 0x9c);  // -100 low byte
  EXPECT_EQ(static_cast<uint8_t>((*stat(1).max_value)[12]), 7);
  EXPECT_EQ(*stat(2).min_value, "\x01");  // unsigned byte order
  EXPECT_EQ(*stat(2).max_value, "\xff");
  EXPECT_FALSE(stat(3).min_value.has_value()) << "all NaN: no min/max";
  EXPECT_EQ(stat(3).null_count, 0);
}

TEST(StatisticsTest, TruncationKeepsBoundsAndCharacters) {
  bool exact;
  std::string s = std::string(63, 'a') + "\xC3\xA9" + "zzz";  // é straddles byte 64
  EXPECT_EQ(parquet::TruncateMin(s, 64, true, &exact), std::string(63, 'a'));
  EXPECT_FALSE(exact);
  auto mx = parquet::TruncateMax(s, 64, true, &exact);
  ASSERT_TRUE(mx.has_value());
  EXPECT_EQ(*mx, std::string(62, 'a') + "b");
  EXPECT_GT(*mx, s);
  EXPECT_FALSE(parquet::TruncateMax(std::string(100, '\xff'), 64, false, &exact).has_value());
  EXPECT_EQ(*parquet::TruncateMax("short", 64, true, &exact), "short");
  EXPECT_TRUE(exact);
  // A 2-byte character is incremented as a character, staying valid UTF-8.
  std::string greek;
  for (int i = 0; i < 40; ++i) greek += "\xCE\xB1";  // α
  mx = parquet::TruncateMax(greek, 64, true, &exact);
  ASSERT_TRUE(mx.has_value());
  EXPECT_EQ(mx->substr(mx->size() - 2), "\xCE\xB2");  // β
  EXPECT_GT(*mx, greek);
}

// ------------------------------------------------------------- bad input

struct BadCase {
  Schema schema;
  std::function<void(RowBatch*)> fill;
  std::string expect_in_message;
};

void ExpectRejected(const BadCase& c) {
  StringSink sink;
  ParquetWriter w(c.schema, {}, &sink);
  RowBatch good(c.schema);
  // A valid batch first, so the error names a file row past it.
  for (size_t i = 0; i < c.schema.num_columns(); ++i) {
    auto& col = good.column(i);
    switch (c.schema.column(i).type.id) {
      case TypeId::kString: col.AppendBytes("ok"); break;
      case TypeId::kDecimal: col.Append<int128_t>(1); break;
      case TypeId::kTime: col.Append<int64_t>(1); break;
      case TypeId::kInt32: col.Append<int32_t>(1); break;
      default: FAIL();
    }
  }
  ASSERT_TRUE(w.Write(good).ok());
  RowBatch bad(c.schema);
  c.fill(&bad);
  Status s = w.Write(bad);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find(c.expect_in_message), std::string::npos) << s.message();
  const size_t before = sink.str().size();
  EXPECT_FALSE(w.Write(good).ok()) << "the writer stays unusable";
  EXPECT_FALSE(w.Close().ok());
  EXPECT_EQ(sink.str().size(), before) << "nothing is written after the error";
}

TEST(ParquetWriterBadInputTest, InvalidUtf8NamesColumnAndRow) {
  ExpectRejected({Schema({Column{"name", LogicalType::Of(TypeId::kString), true, ""}}),
                  [](RowBatch* b) {
                    b->column(0).AppendBytes("fine");
                    b->column(0).AppendBytes("bad \xC3(");
                  },
                  "column \"name\", row 2: invalid UTF-8"});
  // A character split across two values is caught too.
  ExpectRejected({Schema({Column{"s", LogicalType::Of(TypeId::kString), true, ""}}),
                  [](RowBatch* b) {
                    b->column(0).AppendBytes("\xC3");
                    b->column(0).AppendBytes("\xA9");
                  },
                  "column \"s\", row"});
  // Overlong encodings and surrogates.
  for (const char* bad : {"\xC0\x80", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xFF"}) {
    ExpectRejected({Schema({Column{"s", LogicalType::Of(TypeId::kString), true, ""}}),
                    [bad](RowBatch* b) { b->column(0).AppendBytes(bad); }, "invalid UTF-8"});
  }
}

TEST(ParquetWriterBadInputTest, DecimalOutsidePrecision) {
  ExpectRejected({Schema({Column{"price", LogicalType::Decimal(5, 2), true, ""}}),
                  [](RowBatch* b) {
                    b->column(0).Append<int128_t>(99999);
                    b->column(0).Append<int128_t>(-100000);
                  },
                  "column \"price\", row 2: decimal value -1000.00 does not fit decimal(5,2)"});
}

TEST(ParquetWriterBadInputTest, NullInRequiredColumn) {
  ExpectRejected({Schema({Column{"id", LogicalType::Of(TypeId::kInt32), false, ""}}),
                  [](RowBatch* b) {
                    b->column(0).Append<int32_t>(5);
                    b->column(0).AppendNull();
                  },
                  "column \"id\", row 2: null in a NOT NULL column"});
}

TEST(ParquetWriterBadInputTest, TimeOutsideDay) {
  ExpectRejected({Schema({Column{"t", LogicalType::Of(TypeId::kTime), true, ""}}),
                  [](RowBatch* b) { b->column(0).Append<int64_t>(86400000001LL); },  // past 24:00:00
                  "column \"t\", row 1: time"});
  ExpectRejected({Schema({Column{"t", LogicalType::Of(TypeId::kTime), true, ""}}),
                  [](RowBatch* b) { b->column(0).Append<int64_t>(-1); }, "row 1"});
}

TEST(ParquetWriterBadInputTest, BatchNotMatchingSchema) {
  const Schema schema({Column{"a", LogicalType::Of(TypeId::kInt32), true, ""}});
  StringSink sink;
  ParquetWriter w(schema, {}, &sink);
  RowBatch other(Schema({Column{"a", LogicalType::Of(TypeId::kInt64), true, ""}}));
  other.column(0).Append<int64_t>(1);
  Status s = w.Write(other);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("\"a\""), std::string::npos) << s.message();
  EXPECT_FALSE(w.Close().ok());
  EXPECT_TRUE(sink.str().empty());
}

TEST(ParquetFooterTest, RejectsNonParquetInput) {
  EXPECT_EQ(parquet::ReadParquetFooter("").status().code(), Code::kCorruption);
  EXPECT_EQ(parquet::ReadParquetFooter("PAR1garbagegarbagePAR1").status().code(), Code::kCorruption);
  std::string bad_len = "PAR1" + std::string(8, 'x') + "\xff\xff\xff\x7fPAR1";
  EXPECT_EQ(parquet::ReadParquetFooter(bad_len).status().code(), Code::kCorruption);
  // Every truncation of a real file fails cleanly.
  const Schema schema = testing::AllTypesSchema(NullPattern::kSome);
  const std::string file = WriteAll(schema, {}, 10);
  for (size_t n = 0; n < file.size(); n += 7) {
    EXPECT_FALSE(parquet::ReadParquetFooter(file.substr(0, n)).ok());
  }
}

}  // namespace
}  // namespace lakedump
