#include "load/load_service.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>

#include <nlohmann/json.hpp>
#include <thread>

#include "dump/export_service.h"
#include "lake/object_keys.h"
#include "fakes/fake_database.h"
#include "fakes/fake_target_database.h"
#include "fakes/fault_injection_store.h"
#include "fakes/sync.h"
#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

using json = nlohmann::json;

// A dump of three fake tables in memory: main.a (3000 rows in 3 files),
// main.b (1500 rows in 2 files), main.c (empty).
class LoadServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FakeDatabase db;
    db.AddTable(FakeTable{TableRef{"main", "a"}, 3000, -1, {}, 3});
    db.AddTable(FakeTable{TableRef{"main", "b"}, 1500, -1, {}, 2});
    db.AddTable(FakeTable{TableRef{"main", "c"}, 0});
    DumpOptions o;
    o.table_parallelism = 2;
    o.batch_rows = 500;
    o.parquet.row_group_rows = 400;
    o.progress = ProgressMode::kNone;
    ExportService dump(&db, &store_, o);
    auto r = dump.Run();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  LoadOptions Options() {
    LoadOptions o;
    o.table_parallelism = 2;
    o.file_parallelism = 2;
    o.batch_rows = 300;
    return o;
  }

  Result<LoadResult> Load(TargetDatabase* target, LoadOptions o) {
    LoadService service(&store_, target, std::move(o));
    return service.Run();
  }

  json ReadJson(const std::string& key) {
    auto text = store_.GetObject(key);
    EXPECT_TRUE(text.ok()) << key;
    return json::parse(text.ok() ? *text : "{}");
  }
  void WriteJson(const std::string& key, const json& j) {
    ASSERT_TRUE(store_.PutObject(key, j.dump()).ok());
  }
  std::string TableKey(const std::string& name) { return TableManifestKey(TableRef{"main", name}); }

  MemoryStore store_;
};

TEST_F(LoadServiceTest, LoadsEveryTableWithItsRows) {
  FakeTargetDatabase target(/*max_sinks=*/4);
  auto r = Load(&target, Options());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows, 4500u);
  uint64_t files = 0;
  for (const char* t : {"a", "b", "c"}) files += ReadJson(TableKey(t))["files"].size();
  EXPECT_GE(files, 5u);  // a: 3 units, b: 2 (c, empty, may have one empty file)
  EXPECT_EQ(r->files, files);
  EXPECT_GT(r->bytes, 0u);
  ASSERT_EQ(r->tables.size(), 3u);
  const std::map<std::string, uint64_t> expected = {
      {"main.a", 3000}, {"main.b", 1500}, {"main.c", 0}};
  EXPECT_EQ(target.Visible(), expected);
  for (const auto& [name, rows] : expected) {
    auto t = target.Table(name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_TRUE(t->committed) << name;
    EXPECT_FALSE(t->aborted) << name;
    // One sink per stream (at most --file-parallelism), none for a table without rows.
    EXPECT_GE(t->sinks_opened, rows > 0 ? 1 : 0) << name;
    EXPECT_LE(t->sinks_opened, 2) << name;
    EXPECT_EQ(t->sinks_finished, t->sinks_opened) << name;
    EXPECT_LE(t->max_open_sinks, 2) << name;  // --file-parallelism
    // Every row exactly once, whichever stream took it.
    std::vector<int64_t> ids = t->ids;
    std::sort(ids.begin(), ids.end());
    ASSERT_EQ(ids.size(), rows) << name;
    for (size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(ids[i], static_cast<int64_t>(i)) << name;
    EXPECT_EQ(t->plan.rows, rows);
    EXPECT_EQ(t->plan.source_kind, "fake");
    EXPECT_EQ(t->plan.definition.schema.num_columns(), FakeDatabase::TableSchema().num_columns());
  }
}

TEST_F(LoadServiceTest, OneSinkAtATimeWhenTheTargetSaysSo) {
  FakeTargetDatabase target(/*max_sinks=*/1);
  LoadOptions o = Options();
  o.file_parallelism = 8;
  auto r = Load(&target, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(target.Table("main.a")->max_open_sinks, 1);
  EXPECT_EQ(target.Table("main.a")->committed_rows, 3000u);
}

// One stream per table: every file goes through one sink, which is told so (PostgreSQL then
// loads with COPY FREEZE in the transaction that empties the staging table).
TEST_F(LoadServiceTest, OneStreamLoadsEveryFileThroughOneSink) {
  FakeTargetDatabase target(/*max_sinks=*/4);
  LoadOptions o = Options();
  o.file_parallelism = 1;
  auto r = Load(&target, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (const char* name : {"main.a", "main.b"}) {
    auto t = target.Table(name);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->sinks_opened, 1) << name;
    EXPECT_EQ(t->sinks_finished, 1) << name;
    EXPECT_TRUE(t->single_sink) << name;
    EXPECT_TRUE(t->committed) << name;
  }
  EXPECT_EQ(target.Table("main.a")->committed_rows, 3000u);
  EXPECT_EQ(r->files, 6u);  // a: 3, b: 2, c: 1 (empty)
}

// Few files for the streams: they share the files' row groups, each row exactly once.
TEST_F(LoadServiceTest, FewFilesAreSplitIntoRowGroupsAcrossStreams) {
  FakeTargetDatabase target(/*max_sinks=*/4);
  // Both streams get work: main.a's appends wait until two streams append to it at once.
  Rendezvous two_streams(2);
  target.set_before_append([&](const std::string& table) {
    if (table == "main.a") two_streams.Arrive();
  });
  LoadOptions o = Options();
  o.file_parallelism = 3;  // main.a: 3 files < 4 per stream: its 9 row groups are the units
  auto r = Load(&target, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto a = target.Table("main.a");
  EXPECT_GE(a->sinks_opened, 2);
  EXPECT_LE(a->max_open_sinks, 3);
  EXPECT_FALSE(a->single_sink);
  std::vector<int64_t> ids = a->ids;
  std::sort(ids.begin(), ids.end());
  ASSERT_EQ(ids.size(), 3000u);
  for (size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(ids[i], static_cast<int64_t>(i));
  EXPECT_EQ(r->files, 6u);
}

TEST_F(LoadServiceTest, TablesAndExcludeSelect) {
  FakeTargetDatabase target;
  LoadOptions o = Options();
  o.include = {"main.*"};
  o.exclude = {"b"};
  auto r = Load(&target, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::map<std::string, uint64_t> expected = {{"main.a", 3000}, {"main.c", 0}};
  EXPECT_EQ(target.Visible(), expected);
  EXPECT_EQ(target.Table("main.b"), nullptr);
}

TEST_F(LoadServiceTest, UnknownTableIsBadUsage) {
  FakeTargetDatabase target;
  LoadOptions o = Options();
  o.include = {"nope"};
  auto r = Load(&target, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find("unknown table nope"), std::string::npos);
  o.include = {"zz*"};
  r = Load(&target, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("\"zz*\" matches no table"), std::string::npos);
  EXPECT_TRUE(target.Calls().empty());
}

TEST_F(LoadServiceTest, SchemaMapRenamesTargetSchema) {
  FakeTargetDatabase target;
  LoadOptions o = Options();
  o.schema_map = {{"other", "x"}, {"main", "restored"}};
  auto r = Load(&target, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::map<std::string, uint64_t> expected = {
      {"restored.a", 3000}, {"restored.b", 1500}, {"restored.c", 0}};
  EXPECT_EQ(target.Visible(), expected);
  EXPECT_EQ(target.Table("restored.a")->plan.source.QualifiedName(), "main.a");
  EXPECT_EQ(r->tables[0].target.schema, "restored");
}

TEST_F(LoadServiceTest, FirstFailureCancelsTheRestAndAbortsTheTable) {
  FakeTargetDatabase target;
  target.FailAppend("main.a", 3, Status::IOError("injected disk full"));
  LoadOptions o = Options();
  o.table_parallelism = 1;  // a runs first (manifest order), b and c never start
  auto r = Load(&target, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("main.a"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("injected disk full"), std::string::npos);
  auto a = target.Table("main.a");
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(a->aborted);
  EXPECT_FALSE(a->committed);
  EXPECT_EQ(a->open_sinks, 0);
  EXPECT_EQ(target.Table("main.b"), nullptr);
  EXPECT_EQ(target.Table("main.c"), nullptr);
  EXPECT_TRUE(target.Visible().empty());
}

TEST_F(LoadServiceTest, FailureInParallelAbortsEveryUncommittedTable) {
  FakeTargetDatabase target;
  target.FailAppend("main.b", 2, Status::IOError("injected"));
  auto r = Load(&target, Options());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("main.b"), std::string::npos) << r.status().ToString();
  for (const std::string name : {"main.a", "main.b", "main.c"}) {
    auto t = target.Table(name);
    if (t == nullptr) continue;                   // never started
    EXPECT_NE(t->committed, t->aborted) << name;  // exactly one of them
    EXPECT_EQ(t->open_sinks, 0) << name;
  }
  EXPECT_TRUE(target.Table("main.b")->aborted);
}

TEST_F(LoadServiceTest, ExistingTableFailsReplaceAndAppendWork) {
  FakeTargetDatabase target;
  target.AddExisting("main.b", 7);
  LoadOptions o = Options();
  o.table_parallelism = 1;
  auto r = Load(&target, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kAlreadyExists);
  EXPECT_NE(r.status().message().find("main.b"), std::string::npos);
  EXPECT_TRUE(target.Table("main.b")->aborted);

  FakeTargetDatabase replace;
  replace.AddExisting("main.b", 7);
  o.if_exists = LoadIfExists::kReplace;
  ASSERT_TRUE(Load(&replace, o).ok());
  EXPECT_EQ(replace.Visible()["main.b"], 1500u);

  FakeTargetDatabase append;
  append.AddExisting("main.b", 7);
  o.if_exists = LoadIfExists::kAppend;
  ASSERT_TRUE(Load(&append, o).ok());
  EXPECT_EQ(append.Visible()["main.b"], 1507u);
  EXPECT_EQ(append.Table("main.b")->plan.if_exists, LoadIfExists::kAppend);
}

TEST_F(LoadServiceTest, RowCountMismatchNamesTheFile) {
  json t = ReadJson(TableKey("b"));
  t["files"][1]["rows"] = t["files"][1]["rows"].get<uint64_t>() + 1;
  t["rows"] = 1501;
  WriteJson(TableKey("b"), t);
  json m = ReadJson("_manifest.json");
  for (json& e : m["tables"]) {
    if (e["table"] == "b") e["rows"] = 1501;
  }
  WriteJson("_manifest.json", m);
  const std::string file = t["files"][1]["key"];

  FakeTargetDatabase target;
  auto r = Load(&target, Options());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kCorruption);
  EXPECT_NE(r.status().message().find(file), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("rows"), std::string::npos);
  EXPECT_TRUE(target.Table("main.b")->aborted);
  EXPECT_FALSE(target.Table("main.b")->committed);
}

// A file that still decodes but is not the one the dump wrote (here: its recorded
// checksum changed, as if its bytes had) fails its table before the commit.
TEST_F(LoadServiceTest, ChecksumMismatchFailsTheTableBeforeItsCommit) {
  json t = ReadJson(TableKey("b"));
  const std::string file = t["files"][1]["key"];
  t["files"][1]["xxh64"] = "0123456789abcdef";
  // As a dump from before format 1.1 (no row-group checksums): the whole file's XXH64 is the
  // check (row_group_checksum_test.cc covers the newer one).
  for (json& f : t["files"]) {
    f.erase("row_groups");
    f.erase("footer");
  }
  WriteJson(TableKey("b"), t);
  FakeTargetDatabase target;
  auto r = Load(&target, Options());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kCorruption);
  EXPECT_NE(r.status().message().find("data file " + file + " does not match its recorded "
                                      "checksum (expected xxh64 0123456789abcdef"),
            std::string::npos)
      << r.status().ToString();
  EXPECT_TRUE(target.Table("main.b")->aborted);
  EXPECT_FALSE(target.Table("main.b")->committed);
}

TEST_F(LoadServiceTest, ManifestAndTableRowsDisagree) {
  json m = ReadJson("_manifest.json");
  m["tables"][0]["rows"] = 12;
  WriteJson("_manifest.json", m);
  FakeTargetDatabase target;
  auto r = Load(&target, Options());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kCorruption);
  EXPECT_NE(r.status().message().find("12 rows"), std::string::npos) << r.status().ToString();
  EXPECT_TRUE(target.Calls().empty());  // checked before anything is loaded
}

TEST_F(LoadServiceTest, SchemaMismatchNamesFileAndColumn) {
  json t = ReadJson(TableKey("a"));
  ASSERT_EQ(t["columns"][2]["name"], "amount");
  t["columns"][2]["type"] = "int64";
  WriteJson(TableKey("a"), t);
  FakeTargetDatabase target;
  auto r = Load(&target, Options());
  ASSERT_FALSE(r.ok());
  const std::string& msg = r.status().message();
  EXPECT_NE(msg.find("main/a/part-"), std::string::npos) << msg;
  EXPECT_NE(msg.find("\"amount\" is double but _table.json says int64"), std::string::npos) << msg;
  EXPECT_TRUE(target.Table("main.a")->aborted);
}

TEST_F(LoadServiceTest, RenamedColumnIsASchemaMismatch) {
  json t = ReadJson(TableKey("b"));
  t["columns"][1]["name"] = "title";
  WriteJson(TableKey("b"), t);
  FakeTargetDatabase target;
  auto r = Load(&target, Options());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("\"name\" but _table.json says \"title\""), std::string::npos)
      << r.status().ToString();
}

TEST_F(LoadServiceTest, MissingDataFileNamesIt) {
  json t = ReadJson(TableKey("a"));
  const std::string key = t["files"][2]["key"];
  ASSERT_TRUE(store_.Delete(std::vector<std::string>{key}).ok());
  FakeTargetDatabase target;
  auto r = Load(&target, Options());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(key), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("missing"), std::string::npos);
}

TEST_F(LoadServiceTest, FailedReadAbortsTheTable) {
  FaultInjectionStore faulty(&store_);
  faulty.FailFrom(FaultPoint::kRead, 10, Status::IOError("injected read error"));
  FakeTargetDatabase target;
  LoadOptions o = Options();
  o.table_parallelism = 1;
  LoadService service(&faulty, &target, o);
  auto r = service.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("injected read error"), std::string::npos);
  EXPECT_TRUE(target.Visible().empty());
  for (const std::string& call : target.Calls()) EXPECT_NE(call.rfind("commit", 0), 0u) << call;
}

TEST(LoadServiceErrors, NoManifest) {
  MemoryStore store;
  FakeTargetDatabase target;
  LoadService service(&store, &target, LoadOptions{});
  auto r = service.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kNotFound);
  EXPECT_NE(r.status().message().find("no dump at memory://memory (no _manifest.json)"),
            std::string::npos)
      << r.status().ToString();
}

TEST(LoadServiceErrors, ManifestNotJson) {
  MemoryStore store;
  ASSERT_TRUE(store.PutObject("_manifest.json", "this is not { json").ok());
  FakeTargetDatabase target;
  LoadService service(&store, &target, LoadOptions{});
  auto r = service.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kCorruption) << r.status().ToString();
  EXPECT_NE(r.status().message().find("_manifest.json"), std::string::npos);
}

TEST_F(LoadServiceTest, NewerFormatVersionIsRefused) {
  json m = ReadJson("_manifest.json");
  m["format_version"] = 99;
  WriteJson("_manifest.json", m);
  FakeTargetDatabase target;
  auto r = Load(&target, Options());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("99"), std::string::npos) << r.status().ToString();
  EXPECT_TRUE(target.Calls().empty());
}

TEST_F(LoadServiceTest, StopBeforeStartLoadsNothing) {
  FakeTargetDatabase target;
  std::stop_source stop;
  stop.request_stop();
  LoadService service(&store_, &target, Options());
  auto r = service.Run(stop.get_token());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kCancelled);
  EXPECT_TRUE(target.Visible().empty());
}

TEST_F(LoadServiceTest, StopMidwayAbortsTablesInFlight) {
  FakeTargetDatabase target;
  std::stop_source stop;
  // Stop once table a has rows staged: at its second append (the first one's rows are staged).
  std::atomic<int> a_appends{0};
  target.set_before_append([&](const std::string& table) {
    if (table == "main.a" && ++a_appends == 2) stop.request_stop();
  });
  LoadService service(&store_, &target, Options());
  auto r = service.Run(stop.get_token());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kCancelled) << r.status().ToString();
  auto a = target.Table("main.a");
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(a->aborted);
  EXPECT_FALSE(a->committed);
}

TEST(MapTargetTableTest, FirstMatchingMappingWins) {
  const std::vector<std::pair<std::string, std::string>> m = {{"public", "staging"}, {"main", "x"}};
  EXPECT_EQ(MapTargetTable(TableRef{"public", "t"}, m).QualifiedName(), "staging.t");
  EXPECT_EQ(MapTargetTable(TableRef{"other", "t"}, m).QualifiedName(), "other.t");
}

TEST(LoadOptionsTest, Parse) {
  EXPECT_EQ(*ParseLoadIfExists("append"), LoadIfExists::kAppend);
  EXPECT_FALSE(ParseLoadIfExists("skip").ok());
  EXPECT_EQ(ParseSchemaMapping("a=b")->second, "b");
  EXPECT_FALSE(ParseSchemaMapping("a").ok());
  EXPECT_FALSE(ParseSchemaMapping("=b").ok());
  EXPECT_FALSE(ParseSchemaMapping("a=b=c").ok());
}

}  // namespace
}  // namespace lakedump
