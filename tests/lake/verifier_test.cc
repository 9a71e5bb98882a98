#include "lake/verifier.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "dump/export_service.h"
#include "lake/manifest.h"
#include "lake/object_keys.h"
#include "fakes/fake_database.h"
#include "format/parquet/parquet_reader.h"
#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

// A committed dump of three tables (a: 3 files, b: 1 file, c: empty) in a memory store.
class VerifierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FakeDatabase db;
    db.AddTable(FakeTable{TableRef{"main", "a"}, 3000, -1, {}, 3});
    db.AddTable(FakeTable{TableRef{"main", "b"}, 1500});
    db.AddTable(FakeTable{TableRef{"main", "c"}, 0});
    DumpOptions o;
    o.table_parallelism = 2;
    o.batch_rows = 500;
    o.parquet.row_group_rows = 400;
    o.progress = ProgressMode::kNone;
    ExportService service(&db, &store_, o);
    auto r = service.Run();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    auto t = ReadTableManifest(store_, TableManifestKey(TableRef{"main", "a"}));
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    ASSERT_GE(t->files.size(), 2u);
    a_ = *t;
  }

  VerifyReport Run(bool deep = false) {
    VerifyOptions o;
    o.deep = deep;
    o.parallelism = 3;
    o.batch_rows = 333;
    auto r = Verify(store_, o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : VerifyReport{};
  }

  std::string Get(const std::string& key) {
    auto s = store_.GetObject(key);
    EXPECT_TRUE(s.ok()) << key;
    return s.ok() ? *s : std::string();
  }
  void Put(const std::string& key, const std::string& data) {
    ASSERT_TRUE(store_.PutObject(key, data).ok());
  }
  void Remove(const std::string& key) { ASSERT_TRUE(store_.Delete({&key, 1}).ok()); }

  // Each problem as "kind key", for order-independent assertions.
  static std::vector<std::string> Kinds(const VerifyReport& r) {
    std::vector<std::string> out;
    for (const VerifyProblem& p : r.problems) out.push_back(p.kind + " " + p.key);
    return out;
  }
  static const VerifyProblem* Find(const VerifyReport& r, const std::string& kind,
                                   const std::string& key) {
    for (const VerifyProblem& p : r.problems) {
      if (p.kind == kind && p.key == key) return &p;
    }
    return nullptr;
  }
  static std::string Describe(const VerifyReport& r) {
    std::string out;
    for (const VerifyProblem& p : r.problems) out += p.kind + ": " + p.ToString() + "\n";
    return out;
  }

  MemoryStore store_{"verify"};
  TableManifest a_;
};

TEST_F(VerifierTest, GoodDumpVerifies) {
  for (bool deep : {false, true}) {
    VerifyReport r = Run(deep);
    EXPECT_TRUE(r.ok()) << Describe(r);
    EXPECT_EQ(r.tables, 3u);
    auto m = ReadDumpManifest(store_);
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(r.files, m->total_files);
    EXPECT_EQ(r.files, a_.files.size() + 2);  // b: one file; c: one file without rows
    EXPECT_EQ(r.rows, 4500u);
    EXPECT_GT(r.bytes, 0u);
    EXPECT_FALSE(r.dump_id.empty());
    const nlohmann::json j = ToJson(r);
    EXPECT_EQ(j["status"], "ok");
    EXPECT_EQ(j["problems"].size(), 0u);
  }
}

TEST_F(VerifierTest, MissingFile) {
  Remove(a_.files[1].key);
  VerifyReport r = Run();
  ASSERT_EQ(r.problems.size(), 1u) << Describe(r);
  EXPECT_EQ(r.problems[0].kind, "missing");
  EXPECT_EQ(r.problems[0].key, a_.files[1].key);
  EXPECT_NE(r.problems[0].ToString().find("not in the store"), std::string::npos);
}

TEST_F(VerifierTest, TruncatedFile) {
  const std::string key = a_.files[0].key;
  const std::string data = Get(key);
  Put(key, data.substr(0, data.size() - 100));
  VerifyReport r = Run();
  const VerifyProblem* p = Find(r, "size", key);
  ASSERT_NE(p, nullptr) << Describe(r);
  EXPECT_EQ(p->expected, fmt::format("{} bytes", data.size()));
  EXPECT_EQ(p->found, fmt::format("{} bytes", data.size() - 100));
  EXPECT_NE(p->message.find("truncated"), std::string::npos);
  // The footer is gone with the tail: reported too, and nothing about other files.
  EXPECT_NE(Find(r, "footer", key), nullptr) << Describe(r);
  for (const VerifyProblem& q : r.problems) EXPECT_EQ(q.key, key) << Describe(r);
}

// A byte flipped in a data page: same size, the checksum differs; the footer still reads;
// --deep decodes the pages and finds the damage.
TEST_F(VerifierTest, FlippedByteInAPage) {
  const std::string key = a_.files[0].key;
  std::string data = Get(key);
  auto pr = ParquetReader::OpenBuffer(data);
  ASSERT_TRUE(pr.ok());
  const auto& cm = *(*pr)->metadata().row_groups[0].columns[0].meta_data;
  // The first byte of the first data page's header: its type field.
  const size_t at = static_cast<size_t>(cm.data_page_offset);
  pr->reset();
  data[at] = static_cast<char>(data[at] ^ 0xff);
  Put(key, data);

  VerifyReport shallow = Run(false);
  ASSERT_EQ(Kinds(shallow), std::vector<std::string>{"checksum " + key}) << Describe(shallow);
  EXPECT_EQ(shallow.problems[0].expected, a_.files[0].xxh64);
  EXPECT_NE(shallow.problems[0].found, a_.files[0].xxh64);
  EXPECT_EQ(shallow.problems[0].found.size(), 16u);

  VerifyReport deep = Run(true);
  EXPECT_NE(Find(deep, "checksum", key), nullptr) << Describe(deep);
  const VerifyProblem* d = Find(deep, "data", key);
  ASSERT_NE(d, nullptr) << Describe(deep);
  EXPECT_NE(d->message.find(key), std::string::npos) << d->message;
}

TEST_F(VerifierTest, StrayFile) {
  Put("main/a/part-9-0-stale.parquet", "junk");
  Put("notes.txt", "hello");
  VerifyReport r = Run();
  EXPECT_EQ(Kinds(r), (std::vector<std::string>{"stray main/a/part-9-0-stale.parquet",
                                                "stray notes.txt"}))
      << Describe(r);
  EXPECT_EQ(r.problems[0].found, "4 bytes");
}

TEST_F(VerifierTest, ManifestWithWrongSize) {
  nlohmann::json t = ToJson(a_);
  t["files"][0]["bytes"] = a_.files[0].bytes + 7;
  t["bytes"] = a_.bytes + 7;
  Put(TableManifestKey(a_.table), t.dump());
  VerifyReport r = Run();
  const VerifyProblem* p = Find(r, "size", a_.files[0].key);
  ASSERT_NE(p, nullptr) << Describe(r);
  EXPECT_EQ(p->expected, fmt::format("{} bytes", a_.files[0].bytes + 7));
  EXPECT_EQ(p->found, fmt::format("{} bytes", a_.files[0].bytes));
  // The table's bytes no longer match _manifest.json's summary either.
  EXPECT_NE(Find(r, "table-manifest", TableManifestKey(a_.table)), nullptr) << Describe(r);
}

TEST_F(VerifierTest, ManifestWithWrongRowCount) {
  nlohmann::json t = ToJson(a_);
  t["files"][1]["rows"] = a_.files[1].rows + 1;
  t["files"][0]["rows"] = a_.files[0].rows - 1;  // table total unchanged
  Put(TableManifestKey(a_.table), t.dump());
  VerifyReport r = Run();
  EXPECT_EQ(Kinds(r), (std::vector<std::string>{"rows " + a_.files[0].key,
                                                "rows " + a_.files[1].key}))
      << Describe(r);
}

TEST_F(VerifierTest, SchemaDiffersFromRecorded) {
  nlohmann::json t = ToJson(a_);
  t["columns"][1]["type"] = "int32";
  Put(TableManifestKey(a_.table), t.dump());
  VerifyReport r = Run();
  ASSERT_EQ(r.problems.size(), a_.files.size()) << Describe(r);
  for (const VerifyProblem& p : r.problems) {
    EXPECT_EQ(p.kind, "schema");
    EXPECT_NE(p.expected.find("int32"), std::string::npos) << p.ToString();
    EXPECT_NE(p.found.find("string"), std::string::npos) << p.ToString();
  }
}

TEST_F(VerifierTest, TableManifestMissing) {
  const std::string key = TableManifestKey(TableRef{"main", "b"});
  Remove(key);
  VerifyReport r = Run();
  const VerifyProblem* p = Find(r, "table-manifest", key);
  ASSERT_NE(p, nullptr) << Describe(r);
  EXPECT_NE(p->message.find("main.b"), std::string::npos);
  EXPECT_NE(p->message.find("missing"), std::string::npos);
  // Its data file is no longer claimed by anything.
  ASSERT_EQ(r.problems.size(), 2u) << Describe(r);
  const VerifyProblem& stray = r.problems[0].kind == "stray" ? r.problems[0] : r.problems[1];
  EXPECT_EQ(stray.kind, "stray");
  EXPECT_EQ(stray.key.rfind("main/b/part-", 0), 0u) << stray.key;
  EXPECT_EQ(r.tables, 2u);
}

// A manifest whose table key would leave the dump: reported, not followed, not fatal.
TEST_F(VerifierTest, UnsafeTableKeyIsAProblem) {
  nlohmann::json m = nlohmann::json::parse(Get("_manifest.json"));
  m["tables"][2]["key"] = "../outside/_table.json";
  Put("_manifest.json", m.dump());
  VerifyReport r = Run();
  EXPECT_NE(Find(r, "table-manifest", "../outside/_table.json"), nullptr) << Describe(r);
  EXPECT_NE(Find(r, "stray", TableManifestKey(TableRef{"main", "c"})), nullptr) << Describe(r);
  EXPECT_EQ(r.tables, 2u);
}

TEST_F(VerifierTest, ManifestNotJson) {
  Put("_manifest.json", "{\"format\": \"lakedump-dump\", ");
  VerifyReport r = Run();
  ASSERT_EQ(Kinds(r), std::vector<std::string>{"manifest _manifest.json"}) << Describe(r);
  EXPECT_NE(r.problems[0].message.find("not valid JSON"), std::string::npos);
  EXPECT_TRUE(r.dump_id.empty());
}

TEST_F(VerifierTest, ManifestMissing) {
  Remove("_manifest.json");
  VerifyReport r = Run();
  ASSERT_EQ(Kinds(r), std::vector<std::string>{"manifest _manifest.json"}) << Describe(r);
  EXPECT_NE(r.problems[0].message.find("not a committed dump"), std::string::npos);
}

TEST_F(VerifierTest, NewerFormatVersion) {
  nlohmann::json m = nlohmann::json::parse(Get("_manifest.json"));
  m["format_version"] = kDumpFormatVersion + 1;
  Put("_manifest.json", m.dump());
  VerifyReport r = Run();
  ASSERT_EQ(Kinds(r), std::vector<std::string>{"manifest _manifest.json"}) << Describe(r);
  EXPECT_NE(r.problems[0].message.find("version 2 is not supported"), std::string::npos)
      << r.problems[0].message;
}

TEST_F(VerifierTest, NewerTableFormatVersionAndWrongTotals) {
  nlohmann::json t = ToJson(a_);
  t["format_version"] = kDumpFormatVersion + 1;
  Put(TableManifestKey(a_.table), t.dump());
  nlohmann::json m = nlohmann::json::parse(Get("_manifest.json"));
  m["totals"]["rows"] = 1;
  Put("_manifest.json", m.dump());
  VerifyReport r = Run();
  EXPECT_NE(Find(r, "manifest", "_manifest.json"), nullptr) << Describe(r);
  const VerifyProblem* p = Find(r, "table-manifest", TableManifestKey(a_.table));
  ASSERT_NE(p, nullptr) << Describe(r);
  EXPECT_NE(p->message.find("not supported"), std::string::npos);
}

TEST_F(VerifierTest, ReportsEveryProblemNotJustTheFirst) {
  Remove(a_.files[0].key);
  std::string data = Get(a_.files[1].key);
  Put(a_.files[1].key, data.substr(0, data.size() / 2));
  Put("main/c/extra.parquet", "x");
  VerifyReport r = Run(true);
  EXPECT_NE(Find(r, "missing", a_.files[0].key), nullptr) << Describe(r);
  EXPECT_NE(Find(r, "size", a_.files[1].key), nullptr) << Describe(r);
  EXPECT_NE(Find(r, "stray", "main/c/extra.parquet"), nullptr) << Describe(r);
  EXPECT_FALSE(r.ok());
  const nlohmann::json j = ToJson(r);
  EXPECT_EQ(j["status"], "problems");
  EXPECT_EQ(j["problems"].size(), r.problems.size());
}

TEST_F(VerifierTest, CancelledBeforeStart) {
  std::stop_source stop;
  stop.request_stop();
  VerifyOptions o;
  o.stop = stop.get_token();
  auto r = Verify(store_, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kCancelled);
}

}  // namespace
}  // namespace lakedump
