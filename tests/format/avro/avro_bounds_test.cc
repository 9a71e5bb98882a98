// The Avro reader's bounds (issue 29), tried as an attacker who writes manifests into the
// bucket would: a schema that fans out through named types, recurses, nests, or defines too
// much is refused when the header is read, before any record; records that visit too many
// values (zero-byte array items) are refused by the per-record and per-file budgets; a block
// of zero-byte records and a header of too many keys are refused. Each with one line, as
// Corruption. The inputs of tests/data/fuzz-regressions/avro fail the same way.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "format/avro/avro_encoding.h"
#include "format/avro/avro_file_writer.h"
#include "format/avro/avro_reader.h"
#include "format/avro/avro_schema.h"
#include "format/iceberg/removed_files.h"

namespace lakedump::avro {
namespace {

using json = nlohmann::json;

// A record type `name` of `fan` fields: the first of type `inner` (a definition), the others
// referring to it by `inner_name`.
json FanOut(const std::string& name, const json& inner, const std::string& inner_name, int fan) {
  json fields = json::array({{{"name", "f0"}, {"type", inner}}});
  for (int i = 1; i < fan; ++i) {
    fields.push_back({{"name", "f" + std::to_string(i)}, {"type", inner_name}});
  }
  return {{"type", "record"}, {"name", name}, {"fields", fields}};
}

// `levels` levels of FanOut over null.
json FannedOut(int levels, int fan) {
  json t = "null";
  std::string t_name = "null";
  for (int l = levels - 1; l >= 0; --l) {
    t = FanOut("t" + std::to_string(l), t, t_name, fan);
    t_name = "t" + std::to_string(l);
  }
  return t;
}

std::string File(const std::string& schema, const std::vector<std::string>& records) {
  StringSink sink;
  AvroFileOptions o;
  o.sync = RandomSyncMarker();
  AvroFileWriter w(schema, {}, o, &sink);
  for (const std::string& r : records) EXPECT_TRUE(w.Append(r).ok());
  EXPECT_TRUE(w.Close().ok());
  return sink.str();
}

void ExpectRefused(const Result<AvroContainer>& c, std::string_view why) {
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kCorruption);
  EXPECT_NE(c.status().message().find(why), std::string::npos) << c.status().ToString();
  EXPECT_EQ(c.status().message().find('\n'), std::string::npos);
}

TEST(AvroSchemaTest, AFannedOutSchemaIsRefusedBeforeAnyRecord) {
  // 4^12 values a record of zero bytes: what took 2.8 s a record.
  const std::string schema = FannedOut(12, 4).dump();
  auto compiled = AvroSchema::Parse(schema);
  ASSERT_FALSE(compiled.ok());
  EXPECT_NE(compiled.status().message().find("the schema expands to more than 1048576 values"),
            std::string::npos) << compiled.status().ToString();
  ExpectRefused(ReadAvroContainer(File(schema, {}), 1000), "expands to more than");
  // Fanned out only as far as the bound: compiled, each named type one node.
  auto small = AvroSchema::Compile(FannedOut(8, 4));  // 4^8 = 65536 leaves
  ASSERT_TRUE(small.ok()) << small.status().ToString();
  EXPECT_GT(small->node(small->root()).expansion, 65536u);
}

TEST(AvroSchemaTest, RecursiveDeepLargeOrOverDefinedSchemasAreRefused) {
  const json recursive = {{"type", "record"}, {"name", "node"}, {"fields", json::array(
      {{{"name", "next"}, {"type", json::array({"null", "node"})}}})}};
  ExpectRefused(ReadAvroContainer(File(recursive.dump(), {}), 10), "the recursive type node");
  // Deep by nesting, and deep by a chain of references each defined at the top level.
  json deep = "long";
  for (int i = 0; i < 40; ++i) deep = json::array({"null", deep});
  ExpectRefused(ReadAvroContainer(File(deep.dump(), {}), 10), "nests more than 32 types deep");
  json fields = json::array();
  std::string prev = "long";
  for (int i = 0; i < 40; ++i) {
    const std::string name = "c" + std::to_string(i);
    fields.push_back({{"name", name}, {"type", {{"type", "record"}, {"name", name},
                      {"fields", json::array({{{"name", "x"}, {"type", prev}}})}}}});
    prev = name;
  }
  const json chain = {{"type", "record"}, {"name", "r"}, {"fields", fields}};
  ExpectRefused(ReadAvroContainer(File(chain.dump(), {}), 10), "nests more than 32 types deep");
  // Too many named types, nodes, references; text too large or nested.
  json many = json::array();
  for (int i = 0; i < 1001; ++i) {
    many.push_back({{"type", "enum"}, {"name", "e" + std::to_string(i)},
                    {"symbols", json::array({"a"})}});
  }
  ExpectRefused(ReadAvroContainer(File(many.dump(), {}), 10), "more than 1000 named types");
  ExpectRefused(ReadAvroContainer(File(json(std::vector<json>(10'001, "int")).dump(), {}), 10),
                "more than 10000 types");
  json outer = json::array({{{"name", "f"}, {"type", {{"type", "fixed"}, {"name", "f"},
                                                      {"size", 1}}}}});
  for (int i = 0; i < 101; ++i) {
    json inner = json::array();
    for (int k = 0; k < 100; ++k) inner.push_back({{"name", "x" + std::to_string(k)}, {"type", "f"}});
    outer.push_back({{"name", "r" + std::to_string(i)}, {"type", {{"type", "record"},
                     {"name", "r" + std::to_string(i)}, {"fields", inner}}}});
  }
  const json refs = {{"type", "record"}, {"name", "refs"}, {"fields", outer}};
  ExpectRefused(ReadAvroContainer(File(refs.dump(), {}), 10), "more than 10000 times");
  ExpectRefused(ReadAvroContainer(File(std::string(200, '[') + std::string(200, ']'), {}), 10),
                "avro.schema nests more than 128 levels deep");
  const std::string huge = R"({"type":"string","doc":")" + std::string(1 << 20, 'x') + "\"}";
  ExpectRefused(ReadAvroContainer(File(huge, {}), 10), "avro.schema is larger than");
}

// A record type "wide" of 100 nulls, and "wider" of 100 wide: 10101 values, zero bytes.
json Wider() { return FanOut("wider", FanOut("wide", "null", "null", 100), "wide", 100); }

TEST(AvroBudgetTest, ARecordOfZeroByteItemsIsRefused) {
  // An array of 200 zero-byte items of 10101 values each: 2M values in a 300-byte record.
  const json schema = {{"type", "record"}, {"name", "r"}, {"fields", json::array({
      {{"name", "a"}, {"type", {{"type", "array"}, {"items", Wider()}}}},
      {{"name", "pad"}, {"type", "bytes"}}})}};
  std::string record;
  AppendBlockStart(200, &record);
  AppendBlockEnd(&record);
  AppendBytes(std::string(300, 'p'), &record);
  ExpectRefused(ReadAvroContainer(File(schema.dump(), {record}), 10),
                "a record visits more values than its budget");
  // 50 items are within it.
  std::string fifty;
  AppendBlockStart(50, &fifty);
  AppendBlockEnd(&fifty);
  AppendBytes(std::string(300, 'p'), &fifty);
  EXPECT_TRUE(ReadAvroContainer(File(schema.dump(), {fifty}), 10).ok());
}

TEST(AvroBudgetTest, AFileOfManySmallCostlyRecordsIsRefused) {
  // One byte and 10103 values a record: within a record's budget, not the file's (64 a byte).
  const json schema = {{"type", "record"}, {"name", "r"}, {"fields", json::array({
      {{"name", "i"}, {"type", "int"}}, {{"name", "w"}, {"type", Wider()}}})}};
  std::string one;
  AppendInt(1, &one);
  ExpectRefused(ReadAvroContainer(File(schema.dump(), std::vector<std::string>(300, one)), 1000),
                "a record visits more values than its budget");
  EXPECT_TRUE(ReadAvroContainer(File(schema.dump(), std::vector<std::string>(20, one)), 1000).ok());
}

TEST(AvroBudgetTest, ZeroByteRecordsAndLargeHeadersAreRefused) {
  // A block claiming a million zero-byte records of a null schema: 16 MB of views before.
  std::string file = File("\"null\"", {});
  const std::string sync = file.substr(file.size() - 16);
  AppendLong(1'000'000, &file);
  AppendLong(0, &file);
  file += sync;
  ExpectRefused(ReadAvroContainer(file, iceberg::kMaxManifestRecords),
                "a block of 1000000 records in 0 bytes");
  std::vector<std::pair<std::string, std::string>> keys;
  for (int i = 0; i < 300; ++i) keys.emplace_back("k" + std::to_string(i), "v");
  StringSink sink;
  AvroFileWriter w("\"int\"", keys, AvroFileOptions{}, &sink);
  ASSERT_TRUE(w.Close().ok());
  ExpectRefused(ReadAvroContainer(sink.str(), 10), "the header has more than 256 keys");
}

std::string ReadBytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The inputs avro_fuzz found or issue 29 reported: each refused, by the reader and by the
// Iceberg manifest readers over it.
TEST(AvroFuzzRegressionTest, ReplaysEveryInput) {
  const auto dir =
      std::filesystem::path(LAKEDUMP_SOURCE_DIR) / "tests" / "data" / "fuzz-regressions" / "avro";
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".avro") continue;
    SCOPED_TRACE(e.path().filename().string());
    const std::string bytes = ReadBytes(e.path());
    auto c = ReadAvroContainer(bytes, iceberg::kMaxManifestRecords);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().code(), Code::kCorruption);
    EXPECT_NE(c.status().message().find("expands to more than"), std::string::npos);
    auto list = iceberg::ReadManifestList(bytes);
    ASSERT_FALSE(list.ok());
    EXPECT_EQ(list.status().code(), Code::kCorruption);
    ++n;
  }
  EXPECT_GE(n, 3u);
}

}  // namespace
}  // namespace lakedump::avro
