// Reading Avro containers back (what lakedump's writer wrote, split into records by the
// writer's schema), and hostile containers refused as Corruption: cut anywhere, a wrong sync
// marker, a codec lakedump does not write, a union branch or a length out of range.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "format/avro/avro_encoding.h"
#include "format/avro/avro_file_writer.h"
#include "format/avro/avro_reader.h"

namespace lakedump::avro {
namespace {

// A record of every kind of field lakedump's manifests use.
constexpr const char* kSchema = R"({"type":"record","name":"r","fields":[
  {"name":"i","type":"int"},
  {"name":"o","type":["null","long"]},
  {"name":"s","type":"string"},
  {"name":"f","type":{"type":"fixed","name":"f16","size":3}},
  {"name":"again","type":"f16"},
  {"name":"d","type":"double"},
  {"name":"b","type":"boolean"},
  {"name":"m","type":["null",{"type":"array","logicalType":"map","items":{"type":"record",
     "name":"k1_v2","fields":[{"name":"key","type":"int"},{"name":"value","type":"bytes"}]}}]},
  {"name":"t","type":{"type":"map","values":"long"}}]})";

std::string Record(int i, bool with_map) {
  std::string r;
  AppendInt(i, &r);
  if (i % 2 == 0) {
    AppendUnionBranch(0, &r);
  } else {
    AppendUnionBranch(1, &r);
    AppendLong(int64_t{1} << 40, &r);
  }
  AppendString("value " + std::to_string(i), &r);
  AppendFixed("abc", &r);
  AppendFixed("xyz", &r);
  AppendDouble(0.5, &r);
  AppendBoolean(true, &r);
  if (with_map) {
    AppendUnionBranch(1, &r);
    AppendBlockStart(2, &r);
    for (int k = 0; k < 2; ++k) {
      AppendInt(k, &r);
      AppendBytes("vv", &r);
    }
    AppendBlockEnd(&r);
  } else {
    AppendUnionBranch(0, &r);
  }
  AppendBlockStart(1, &r);
  AppendString("key", &r);
  AppendLong(-7, &r);
  AppendBlockEnd(&r);
  return r;
}

std::string File(const std::vector<std::string>& records, size_t block_bytes = 64 << 10) {
  StringSink sink;
  AvroFileOptions o;
  o.sync = RandomSyncMarker();
  o.block_bytes = block_bytes;
  AvroFileWriter w(kSchema, {{"k", "v"}}, o, &sink);
  for (const std::string& r : records) EXPECT_TRUE(w.Append(r).ok());
  EXPECT_TRUE(w.Close().ok());
  return sink.str();
}

TEST(AvroReaderTest, SplitsTheWritersRecords) {
  std::vector<std::string> records;
  for (int i = 0; i < 50; ++i) records.push_back(Record(i, i % 3 == 0));
  for (size_t block : {size_t{64} << 10, size_t{40}}) {  // one block, then many
    const std::string file = File(records, block);
    auto c = ReadAvroContainer(file, 1000);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    EXPECT_EQ(c->metadata.at("k"), "v");
    EXPECT_EQ(c->metadata.at("avro.codec"), "null");
    EXPECT_EQ(c->schema["name"], "r");
    ASSERT_EQ(c->records.size(), records.size());
    for (size_t i = 0; i < records.size(); ++i) EXPECT_EQ(c->records[i], records[i]) << i;
    EXPECT_EQ(ReadAvroContainer(file, 49).status().code(), Code::kCorruption);
  }
  auto empty = ReadAvroContainer(File({}), 10);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->records.empty());
}

TEST(AvroReaderTest, HostileContainersAreCorruption) {
  const std::string file = File({Record(1, true), Record(2, false)});
  // Cut anywhere: never read past the end (cut right after the header, it is a container
  // of no records: Avro has no trailer).
  for (size_t n = 0; n < file.size(); ++n) {
    auto c = ReadAvroContainer(std::string_view(file).substr(0, n), 1000);
    if (c.ok()) {
      EXPECT_TRUE(c->records.empty()) << n;
    } else {
      EXPECT_EQ(c.status().code(), Code::kCorruption) << n;
    }
  }
  std::string bad_sync = file;
  bad_sync.back() = static_cast<char>(bad_sync.back() ^ 1);
  EXPECT_EQ(ReadAvroContainer(bad_sync, 1000).status().code(), Code::kCorruption);
  // A union branch out of range in the first record (its "o" field, after "i").
  std::string record = Record(1, false);
  record[1] = 0x08;  // branch 4
  EXPECT_EQ(ReadAvroContainer(File({record}), 1000).status().code(), Code::kCorruption);
  // Deflated blocks are not read (lakedump writes none).
  StringSink sink;
  AvroFileOptions o;
  o.codec = AvroCodec::kDeflate;
  AvroFileWriter w(kSchema, {}, o, &sink);
  ASSERT_TRUE(w.Append(Record(1, false)).ok());
  ASSERT_TRUE(w.Close().ok());
  auto deflated = ReadAvroContainer(sink.str(), 1000);
  ASSERT_FALSE(deflated.ok());
  EXPECT_NE(deflated.status().message().find("codec deflate"), std::string::npos);
  EXPECT_EQ(ReadAvroContainer("Obj\x02", 10).status().code(), Code::kCorruption);
}

TEST(AvroReaderTest, DecoderChecksLengths) {
  std::string s;
  AppendLong(1000, &s);  // a length beyond the bytes
  s += "abc";
  AvroDecoder d(s);
  EXPECT_EQ(d.ReadBytes().status().code(), Code::kCorruption);
  const std::string eleven(11, '\xff');  // a varint that never ends
  AvroDecoder v(eleven);
  EXPECT_EQ(v.ReadLong().status().code(), Code::kCorruption);
}

}  // namespace
}  // namespace lakedump::avro
