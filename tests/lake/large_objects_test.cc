// The manifest's large objects read as hostile input, and their files checked as they stream.
#include "lake/large_objects.h"

#include <gtest/gtest.h>

#include <string>

#include "base/checksum.h"
#include "lake/run_journal.h"
#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

constexpr const char* kRun = "20261205T120000Z-1a2b3c4d";

nlohmann::json Entry(uint32_t oid, const std::string& data) {
  LargeObjectEntry e;
  e.meta.oid = oid;
  e.meta.owner = "alice";
  e.meta.has_acl = true;
  e.meta.acl = {{"alice", "SELECT", false}, {"", "UPDATE", false}, {"bob", "SELECT", true}};
  e.meta.has_comment = true;
  e.meta.comment = "it's";
  e.key = LargeObjectKey(oid, kRun);
  e.bytes = data.size();
  e.xxh64 = Xxh64Hex(data);
  return LargeObjectJson(e);
}

nlohmann::json Schema(nlohmann::json entries) { return {{"large_objects", std::move(entries)}}; }

TEST(LargeObjectsTest, KeysNameTheirOidAndRunInTheirFolder) {
  EXPECT_EQ(LargeObjectKey(16401, kRun), std::string("_large_objects/16401-") + kRun + ".bin");
  EXPECT_TRUE(IsLargeObjectKey(LargeObjectKey(16401, kRun), kRun));
  EXPECT_TRUE(IsLargeObjectKey(LargeObjectKey(16401, kRun), ""));
  EXPECT_FALSE(IsLargeObjectKey(LargeObjectKey(16401, kRun), "20261205T120000Z-00000000"));
  for (const char* bad : {"_large_objects/x-r.bin", "_large_objects/-r.bin", "_large_objects/1-.bin",
                          "_large_objects/1-r/../x.bin", "_large_objects/1-r.dump",
                          "large_objects/1-r.bin", "_large_objects/12345678901-r.bin"}) {
    EXPECT_FALSE(IsLargeObjectKey(bad, "")) << bad;
  }
}

TEST(LargeObjectsTest, ARunClaimsItsOwnFilesOnly) {
  // A failed run's files are deleted by its journal, never another run's.
  EXPECT_TRUE(ClaimableByRun(LargeObjectKey(16401, kRun), kRun));
  EXPECT_FALSE(ClaimableByRun(LargeObjectKey(16401, kRun), "20261205T120000Z-00000000"));
  const nlohmann::json schema = Schema({Entry(7, "abc"), nlohmann::json{{"key", "../x"}}});
  EXPECT_EQ(LargeObjectKeys(schema), std::vector<std::string>{LargeObjectKey(7, kRun)});
}

TEST(LargeObjectsTest, RoundTripsThroughTheManifest) {
  auto parsed = ParseLargeObjects(Schema({Entry(7, "abc"), Entry(4294967295u, "")}));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_EQ(parsed->size(), 2u);
  const LargeObjectEntry& e = (*parsed)[0];
  EXPECT_EQ(e.meta.oid, 7u);
  EXPECT_EQ(e.meta.owner, "alice");
  EXPECT_TRUE(e.meta.has_acl);
  ASSERT_EQ(e.meta.acl.size(), 3u);
  EXPECT_EQ(e.meta.acl[1], (LargeObjectGrant{"", "UPDATE", false}));
  EXPECT_TRUE(e.meta.acl[2].grantable);
  EXPECT_EQ(e.meta.comment, "it's");
  EXPECT_EQ(e.bytes, 3u);
  EXPECT_EQ((*parsed)[1].meta.oid, 4294967295u);
  // The default privileges are null, and no comment is no field.
  nlohmann::json plain = Entry(8, "x");
  plain["acl"] = nullptr;
  plain.erase("comment");
  auto p2 = ParseLargeObjects(Schema({plain}));
  ASSERT_TRUE(p2.ok());
  EXPECT_FALSE((*p2)[0].meta.has_acl);
  EXPECT_FALSE((*p2)[0].meta.has_comment);
  // An older dump's count, or none: nothing to restore.
  EXPECT_TRUE(ParseLargeObjects(Schema(2))->empty());
  EXPECT_TRUE(ParseLargeObjects(nlohmann::json::object())->empty());
  EXPECT_NE(UnheldLargeObjectsWarning(Schema(2)).find("held 2 large object(s)"),
            std::string::npos);
  EXPECT_EQ(UnheldLargeObjectsWarning(Schema({Entry(7, "abc")})), "");
}

TEST(LargeObjectsTest, AHostileEntryIsRefusedInOneLine) {
  const nlohmann::json good = Entry(7, "abc");
  const std::vector<std::pair<std::string, nlohmann::json>> edits = {
      {"oid", "7"},          {"oid", -7},  {"oid", 0},        {"oid", 4294967296ull},
      {"oid", 7.5},          {"owner", ""}, {"owner", 3},     {"acl", "alice=r/alice"},
      {"key", "../../etc/passwd"},          {"key", "_large_objects/8-r.bin"},
      {"key", "t/part-0000-00000-r.parquet"}, {"bytes", -1},  {"xxh64", "ABCDEF0123456789"},
      {"xxh64", "abc"},      {"comment", 5}, {"sha256", "00"}};
  for (const auto& [field, value] : edits) {
    nlohmann::json e = good;
    e[field] = value;
    auto parsed = ParseLargeObjects(Schema({e}));
    ASSERT_FALSE(parsed.ok()) << field << "=" << value.dump();
    EXPECT_EQ(parsed.status().code(), Code::kInvalidArgument);
    EXPECT_NE(parsed.status().message().find("schema.large_objects[0]"), std::string::npos)
        << parsed.status().message();
  }
  for (const nlohmann::json& grant :
       {nlohmann::json{{"grantee", "bob"}, {"privilege", "DELETE"}},
        nlohmann::json{{"grantee", "bob"}, {"privilege", "SELECT; DROP TABLE t"}},
        nlohmann::json{{"privilege", "SELECT"}},
        nlohmann::json{{"grantee", "bob"}, {"privilege", "SELECT"}, {"grantable", "yes"}}}) {
    nlohmann::json e = good;
    e["acl"] = nlohmann::json::array({grant});
    EXPECT_FALSE(ParseLargeObjects(Schema({e})).ok()) << grant.dump();
  }
  EXPECT_FALSE(ParseLargeObjects(Schema({good, good})).ok());  // one OID twice
  EXPECT_FALSE(ParseLargeObjects(Schema("many")).ok());
  EXPECT_FALSE(ParseLargeObjects(Schema({"x"})).ok());
}

TEST(LargeObjectsTest, ReadingChecksSizeAndChecksumInChunks) {
  MemoryStore store;
  const std::string data(3 * kLargeObjectChunkBytes + 7, 'z');
  auto parsed = ParseLargeObjects(Schema({Entry(7, data)}));
  ASSERT_TRUE(parsed.ok());
  const LargeObjectEntry& e = (*parsed)[0];
  ASSERT_TRUE(store.PutObject(e.key, data).ok());
  std::string got;
  size_t chunks = 0, largest = 0;
  ASSERT_TRUE(ReadLargeObjectChecked(store, e, [&](std::string_view c) {
                got.append(c);
                ++chunks;
                largest = std::max(largest, c.size());
                return Status::OK();
              }).ok());
  EXPECT_EQ(got, data);
  EXPECT_EQ(chunks, 4u);
  EXPECT_EQ(largest, kLargeObjectChunkBytes);
  const auto ignore = [](std::string_view) { return Status::OK(); };
  // The same size, other bytes; another size; missing: each refused naming the key.
  std::string altered = data;
  altered[kLargeObjectChunkBytes + 1] = 'y';
  ASSERT_TRUE(store.PutObject(e.key, altered).ok());
  Status s = ReadLargeObjectChecked(store, e, ignore);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find(e.key + ": XXH64 is"), std::string::npos) << s.message();
  ASSERT_TRUE(store.PutObject(e.key, data + "!").ok());
  s = ReadLargeObjectChecked(store, e, ignore);
  EXPECT_NE(s.message().find("bytes but _manifest.json says"), std::string::npos) << s.message();
  ASSERT_TRUE(store.Delete(std::vector<std::string>{e.key}).ok());
  s = ReadLargeObjectChecked(store, e, ignore);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("missing"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace lakedump
