// Avro encoding and container bytes checked against values worked out by hand
// from the Avro 1.11 specification.
#include <gtest/gtest.h>
#include <zlib.h>

#include "format/avro/avro_encoding.h"
#include "format/avro/avro_file_writer.h"

namespace lakedump::avro {
namespace {

std::string Hex(std::string_view s) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    if (!out.empty()) out += ' ';
    out += d[c >> 4];
    out += d[c & 15];
  }
  return out;
}

std::string Long(int64_t v) {
  std::string s;
  AppendLong(v, &s);
  return Hex(s);
}

TEST(AvroEncodingTest, LongsAreZigZagVarints) {
  // The spec's table: 0 -> 00, -1 -> 01, 1 -> 02, -2 -> 03, 2 -> 04, -64 -> 7f, 64 -> 80 01.
  EXPECT_EQ(Long(0), "00");
  EXPECT_EQ(Long(-1), "01");
  EXPECT_EQ(Long(1), "02");
  EXPECT_EQ(Long(-2), "03");
  EXPECT_EQ(Long(2), "04");
  EXPECT_EQ(Long(-64), "7f");
  EXPECT_EQ(Long(64), "80 01");
  EXPECT_EQ(Long(300), "d8 04");  // 600 = 0b100_1011000
  EXPECT_EQ(Long(INT64_MAX), "fe ff ff ff ff ff ff ff ff 01");
  EXPECT_EQ(Long(INT64_MIN), "ff ff ff ff ff ff ff ff ff 01");
}

TEST(AvroEncodingTest, SpecRecordExample) {
  // {"a": 27 (long), "b": "foo" (string)} -> 36 06 66 6f 6f
  std::string s;
  AppendLong(27, &s);
  AppendString("foo", &s);
  EXPECT_EQ(Hex(s), "36 06 66 6f 6f");
}

TEST(AvroEncodingTest, SpecArrayAndUnionExamples) {
  // array of longs {3, 27} -> 04 06 36 00
  std::string a;
  AppendBlockStart(2, &a);
  AppendLong(3, &a);
  AppendLong(27, &a);
  AppendBlockEnd(&a);
  EXPECT_EQ(Hex(a), "04 06 36 00");
  // ["null","string"]: null -> 00; "a" -> 02 02 61
  std::string u;
  AppendUnionBranch(0, &u);
  AppendUnionBranch(1, &u);
  AppendString("a", &u);
  EXPECT_EQ(Hex(u), "00 02 02 61");
  std::string e;  // empty array: just the end marker
  AppendBlockStart(0, &e);
  AppendBlockEnd(&e);
  EXPECT_EQ(Hex(e), "00");
}

TEST(AvroEncodingTest, FloatsBooleansFixed) {
  std::string s;
  AppendBoolean(true, &s);
  AppendBoolean(false, &s);
  AppendFloat(1.0f, &s);    // 0x3f800000 little-endian
  AppendDouble(-2.0, &s);   // 0xc000000000000000 little-endian
  AppendFixed(std::string("\x01\x02", 2), &s);
  EXPECT_EQ(Hex(s), "01 00 00 00 80 3f 00 00 00 00 00 00 00 c0 01 02");
}

SyncMarker CountingSync() {
  SyncMarker m;
  for (size_t i = 0; i < m.size(); ++i) m[i] = static_cast<uint8_t>(i);
  return m;
}

TEST(AvroFileWriterTest, HeaderAndOneBlockByteForByte) {
  StringSink sink;
  AvroFileOptions o;
  o.sync = CountingSync();
  AvroFileWriter w(R"("long")", {{"k", "v"}}, o, &sink);
  std::string rec;
  AppendLong(1, &rec);
  ASSERT_TRUE(w.Append(rec).ok());
  AppendLong(-1, &rec);
  ASSERT_TRUE(w.Append(std::string_view(rec).substr(1)).ok());
  ASSERT_TRUE(w.Close().ok());
  const std::string sync = "00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f";
  const std::string expected =
      "4f 62 6a 01 "                                  // magic "Obj" 1
      "06 "                                           // map block of 3 entries
      "16 61 76 72 6f 2e 73 63 68 65 6d 61 "          // "avro.schema"
      "0c 22 6c 6f 6e 67 22 "                         // "\"long\"" (6 bytes)
      "14 61 76 72 6f 2e 63 6f 64 65 63 "             // "avro.codec"
      "08 6e 75 6c 6c "                               // "null"
      "02 6b 02 76 "                                  // "k" -> "v"
      "00 " +                                         // end of map
      sync + " 04 04 02 01 " + sync;                  // block: 2 records, 2 bytes, 02 01
  EXPECT_EQ(Hex(sink.str()), expected);
}

TEST(AvroFileWriterTest, EmptyFileIsHeaderOnly) {
  StringSink sink;
  AvroFileOptions o;
  o.sync = CountingSync();
  AvroFileWriter w(R"("int")", {}, o, &sink);
  ASSERT_TRUE(w.Close().ok());
  EXPECT_EQ(sink.str().size(), 4u + 1 + 12 + 6 + 11 + 5 + 1 + 16);
  EXPECT_EQ(sink.str().substr(sink.str().size() - 17, 1), std::string(1, '\0'));
}

TEST(AvroFileWriterTest, DeflateBlocksInflateBack) {
  StringSink sink;
  AvroFileOptions o;
  o.sync = CountingSync();
  o.codec = AvroCodec::kDeflate;
  o.block_bytes = 1 << 20;
  AvroFileWriter w(R"("string")", {}, o, &sink);
  std::string all;
  for (int i = 0; i < 100; ++i) {
    std::string rec;
    AppendString("hello hello hello", &rec);
    all += rec;
    ASSERT_TRUE(w.Append(rec).ok());
  }
  ASSERT_TRUE(w.Close().ok());
  const std::string& f = sink.str();
  const std::string codec_entry = std::string("\x14") + "avro.codec" + "\x0e" + "deflate";
  ASSERT_NE(f.find(codec_entry), std::string::npos);
  // The block follows the header's sync: count 100 (c8 01), then the size.
  const size_t header_end = f.find(std::string(reinterpret_cast<const char*>(o.sync.data()), 16)) + 16;
  ASSERT_EQ(Hex(f.substr(header_end, 2)), "c8 01");
  size_t pos = header_end + 2;
  uint64_t size = 0;
  int shift = 0;
  for (;;) {
    const uint8_t b = static_cast<uint8_t>(f[pos++]);
    size |= static_cast<uint64_t>(b & 0x7f) << shift;
    shift += 7;
    if (!(b & 0x80)) break;
  }
  size >>= 1;  // zig-zag of a positive value
  std::string compressed = f.substr(pos, size);
  std::string out(all.size(), '\0');
  z_stream z{};
  ASSERT_EQ(inflateInit2(&z, -15), Z_OK);
  z.next_in = reinterpret_cast<Bytef*>(compressed.data());
  z.avail_in = static_cast<uInt>(compressed.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
  inflateEnd(&z);
  EXPECT_EQ(out, all);
  EXPECT_EQ(f.substr(pos + size), std::string(reinterpret_cast<const char*>(o.sync.data()), 16));
}

TEST(AvroFileWriterTest, RandomSyncMarkersDiffer) {
  EXPECT_NE(RandomSyncMarker(), RandomSyncMarker());
}

}  // namespace
}  // namespace lakedump::avro
