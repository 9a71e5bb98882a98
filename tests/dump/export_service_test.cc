#include "dump/export_service.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <fmt/format.h>

#include <atomic>
#include <set>
#include <thread>

#include "lake/object_keys.h"
#include "fakes/fake_database.h"
#include "fakes/small_dump_options.h"
#include "fakes/fault_injection_store.h"
#include "fakes/sync.h"
#include "store/memory/memory_store.h"
#include "store/object_key.h"

namespace lakedump {
namespace {

DumpOptions SmallOptions() { return SmallDumpOptions(3); }

FakeDatabase Tables(uint64_t rows = 3000) {
  FakeDatabase db;
  db.AddTable(FakeTable{TableRef{"main", "a"}, rows});
  db.AddTable(FakeTable{TableRef{"main", "b"}, rows / 2});
  db.AddTable(FakeTable{TableRef{"main", "c"}, 0});
  return db;
}

bool HasKey(const MemoryStore& s, std::string_view key) {
  for (const auto& k : s.Keys()) {
    if (k == key) return true;
  }
  return false;
}

// Every file of the manifest exists with its size and XXH64; returns total rows.
uint64_t CheckDump(MemoryStore& store) {
  auto m = ReadDumpManifest(store);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  if (!m.ok()) return 0;
  std::set<std::string> referenced = {std::string(kManifestKey)};
  uint64_t rows = 0;
  for (const TableSummary& ts : m->tables) {
    referenced.insert(ts.key);
    auto t = ReadTableManifest(store, ts.key);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    if (!t.ok()) continue;
    EXPECT_EQ(t->rows, ts.rows);
    for (const DataFile& f : t->files) {
      referenced.insert(f.key);
      auto data = store.GetObject(f.key);
      EXPECT_TRUE(data.ok()) << f.key;
      if (!data.ok()) continue;
      EXPECT_EQ(data->size(), f.bytes);
      EXPECT_EQ(fmt::format("{:016x}", XXH64(data->data(), data->size(), 0)), f.xxh64);
      EXPECT_EQ(data->substr(0, 4), "PAR1");
    }
    rows += t->rows;
  }
  EXPECT_EQ(rows, m->total_rows);
  const auto keys = store.Keys();
  EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()), referenced);
  return rows;
}

TEST(ExportServiceTest, DumpsEveryTableAndCommitsManifestLast) {
  FakeDatabase db = Tables();
  MemoryStore store("t1");
  ExportService service(&db, &store, SmallOptions());
  auto r = service.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->manifest.tables.size(), 3u);
  EXPECT_EQ(CheckDump(store), 4500u);
  EXPECT_EQ(service.progress().rows.load(), 4500u);
  EXPECT_EQ(service.progress().tables_done.load(), 3u);
  // The empty table still has one (empty) file holding its schema.
  auto c = ReadTableManifest(store, "main/c/_table.json");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->files.size(), 1u);
  EXPECT_EQ(c->rows, 0u);
  EXPECT_EQ(c->primary_key, std::vector<std::string>{"id"});
  EXPECT_EQ(c->schema.column(0).source_type, "INTEGER");
  // Credentials in the source description never reach the manifest.
  auto text = store.GetObject(kManifestKey);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->find("hunter2"), std::string::npos);
  EXPECT_NE(text->find("fake://user@localhost"), std::string::npos);
}

TEST(ExportServiceTest, EmptyDatabaseIsAValidEmptyDump) {
  FakeDatabase db;
  MemoryStore store("t-empty");
  ExportService service(&db, &store, SmallOptions());
  auto r = service.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(CheckDump(store), 0u);
  EXPECT_EQ(store.Keys(), std::vector<std::string>{"_manifest.json"});
}

TEST(ExportServiceTest, FileSizeRollsFilesAndUnitsSplitTables) {
  FakeDatabase db;
  db.AddTable(FakeTable{TableRef{"main", "a"}, 20000, -1, {}, 3});
  MemoryStore store("t2");
  DumpOptions o = SmallOptions();
  o.file_size = 20000;
  ExportService service(&db, &store, o);
  auto r = service.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(CheckDump(store), 20000u);
  EXPECT_GT(r->manifest.tables[0].files, 3u);
}

// --file-size is the size on disk: compressed files come close to it, where an
// uncompressed estimate made them a few times smaller (issue 17).
TEST(ExportServiceTest, FileSizeIsTheCompressedSizeOnDisk) {
  FakeDatabase db;
  db.AddTable(FakeTable{TableRef{"main", "a"}, 400000});
  MemoryStore store("t2b");
  DumpOptions o = SmallOptions();
  o.parquet.row_group_rows = 20000;
  o.parquet.codec = CodecKind::kZstd;
  o.file_size = 256 * 1024;
  auto r = ExportService(&db, &store, o).Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(CheckDump(store), 400000u);
  auto t = ReadTableManifest(store, r->manifest.tables[0].key);
  ASSERT_TRUE(t.ok());
  ASSERT_GE(t->files.size(), 3u);
  for (size_t i = 0; i + 1 < t->files.size(); ++i) {
    EXPECT_GE(t->files[i].bytes, o.file_size * 6 / 10) << t->files[i].key;
    EXPECT_LE(t->files[i].bytes, o.file_size * 2) << t->files[i].key;
  }
}

TEST(ExportServiceTest, PartitionByWritesHiveFolders) {
  FakeDatabase db;
  FakeTable t{TableRef{"main", "p"}, 1000};
  t.partition_values = "ab/";
  db.AddTable(t);
  MemoryStore store("t3");
  DumpOptions o = SmallOptions();
  o.partition_by = "name";
  ExportService service(&db, &store, o);
  auto r = service.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(CheckDump(store), 1000u);
  auto tm = ReadTableManifest(store, "main/p/_table.json");
  ASSERT_TRUE(tm.ok());
  std::map<std::string, uint64_t> rows;
  for (const auto& f : tm->files) rows[f.partition] += f.rows;
  EXPECT_EQ(rows["name=a"], 334u);
  EXPECT_EQ(rows["name=b"], 333u);
  EXPECT_EQ(rows["name=%2F"], 333u);
  // Too many distinct values is a clear error.
  MemoryStore store2("t3b");
  o.partition_by = "id";
  o.max_open_partitions = 10;
  ExportService s2(&db, &store2, o);
  auto r2 = s2.Run();
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.status().message().find("more than 10 distinct values"), std::string::npos);
  o.partition_by = "nope";
  ExportService s3(&db, &store2, o);
  EXPECT_FALSE(s3.Run().ok());
}

TEST(ExportServiceTest, WeirdTableNamesStayInTheirFolders) {
  FakeDatabase db;
  const std::vector<std::string> names = {"a/b", "..", ".", "x\"y'z", "sp ace", "ünï 表", "%41"};
  for (const auto& n : names) db.AddTable(FakeTable{TableRef{"main", n}, 10});
  MemoryStore store("t4");
  ExportService service(&db, &store, SmallOptions());
  auto r = service.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(CheckDump(store), 70u);
  for (const auto& k : store.Keys()) {
    EXPECT_TRUE(ValidateObjectKey(k).ok()) << k;
    if (k != kManifestKey) {
      EXPECT_EQ(k.rfind("main/", 0), 0u) << k;
    }
  }
  std::set<std::string> tables;
  for (const auto& t : r->manifest.tables) tables.insert(t.table.name);
  EXPECT_EQ(tables, std::set<std::string>(names.begin(), names.end()));
}

TEST(ExportServiceTest, FailedAppendLeavesNoManifestAndNoOpenWriter) {
  for (FaultPoint point : {FaultPoint::kAppend, FaultPoint::kClose, FaultPoint::kNewWriter}) {
    FakeDatabase db = Tables();
    MemoryStore memory("t5");
    FaultInjectionStore store(&memory);
    // The 1st write is the lease, the 2nd the run journal's first batch (the plan).
    store.FailNth(point, 3, Status::IOError("injected"));
    ExportService service(&db, &store, SmallOptions());
    auto r = service.Run();
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Code::kIOError) << r.status().ToString();
    EXPECT_NE(r.status().message().find("injected"), std::string::npos);
    EXPECT_NE(r.status().message().find("table main."), std::string::npos)
        << r.status().message();
    EXPECT_FALSE(HasKey(memory, kManifestKey));
    EXPECT_EQ(memory.open_writers(), 0);
    if (point != FaultPoint::kNewWriter) {
      EXPECT_GE(store.aborted_writers(), 1);
    }
  }
}

TEST(ExportServiceTest, FailedManifestWriteLeavesNoManifest) {
  FakeDatabase db = Tables();
  MemoryStore memory("t5b");
  FaultInjectionStore store(&memory);
  // The lease, 3 data files + 3 _table.json, then the manifest: the 8th writer.
  store.FailNth(FaultPoint::kNewWriter, 8, Status::IOError("injected manifest failure"));
  ExportService service(&db, &store, SmallOptions());
  auto r = service.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_FALSE(HasKey(memory, kManifestKey));
}

TEST(ExportServiceTest, FirstFailureCancelsOtherTables) {
  FakeDatabase db;
  // slow's read is under way (its second batch waits until bad reads, and fails) when bad
  // fails: the failure stops it long before its 1M rows (2000 batches).
  Gate bad_reads;
  std::atomic<uint64_t> slow_read{0};
  FakeTable slow{TableRef{"main", "slow"}, 1000000};
  slow.before_batch = [&](uint64_t row) {
    if (row > 0) bad_reads.Wait();
    slow_read = row;
  };
  db.AddTable(slow);
  FakeTable bad{TableRef{"main", "bad"}, 100};
  bad.fail_at_row = 50;
  bad.before_batch = [&](uint64_t) { bad_reads.Open(); };
  db.AddTable(bad);
  MemoryStore store("t6");
  ExportService service(&db, &store, SmallOptions());
  auto r = service.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("fake read failure at row 50"), std::string::npos);
  EXPECT_LT(slow_read.load(), 900000u);  // cancelled, not read to its end
  EXPECT_FALSE(HasKey(store, kManifestKey));
  EXPECT_EQ(store.open_writers(), 0);
}

TEST(ExportServiceTest, StopTokenCancels) {
  FakeDatabase db;
  std::stop_source stop;
  std::atomic<uint64_t> slow_read{0};
  FakeTable slow{TableRef{"main", "slow"}, 1000000};
  slow.before_batch = [&](uint64_t row) {
    slow_read = row;
    if (row == 1000) stop.request_stop();  // the stop comes in the middle of the read
  };
  db.AddTable(slow);
  MemoryStore store("t7");
  ExportService service(&db, &store, SmallOptions());
  auto r = service.Run(stop.get_token());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kCancelled);
  EXPECT_LT(slow_read.load(), 900000u);  // not read to its end
  EXPECT_FALSE(HasKey(store, kManifestKey));
  EXPECT_EQ(store.open_writers(), 0);
}

TEST(ExportServiceTest, IfExistsFailRefusesADestinationInUse) {
  FakeDatabase db = Tables(100);
  MemoryStore store("t8");
  ASSERT_TRUE(ExportService(&db, &store, SmallOptions()).Run().ok());
  auto again = ExportService(&db, &store, SmallOptions()).Run();
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), Code::kAlreadyExists);
  EXPECT_NE(again.status().message().find("already holds a dump (use --if-exists overwrite or "
                                          "resume)"),
            std::string::npos);
  MemoryStore other("t8b");
  ASSERT_TRUE(other.PutObject("unrelated.txt", "x").ok());
  auto r = ExportService(&db, &other, SmallOptions()).Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("is not empty"), std::string::npos);
}

TEST(ExportServiceTest, OverwriteReplacesTheOldDump) {
  FakeDatabase db = Tables(100);
  MemoryStore store("t9");
  ASSERT_TRUE(ExportService(&db, &store, SmallOptions()).Run().ok());
  FakeDatabase db2;
  db2.AddTable(FakeTable{TableRef{"main", "z"}, 42});
  DumpOptions o = SmallOptions();
  o.if_exists = IfExists::kOverwrite;
  auto r = ExportService(&db2, &store, o).Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(CheckDump(store), 42u);  // also: no object of the old dump is left
}

TEST(ExportServiceTest, ResumeReusesVerifiedTablesAndRedoesTheRest) {
  FakeDatabase failing;
  failing.AddTable(FakeTable{TableRef{"main", "good"}, 2000});
  FakeTable bad{TableRef{"main", "bad"}, 1500};
  bad.fail_at_row = 1200;
  failing.AddTable(bad);
  MemoryStore store("t10");
  DumpOptions o = SmallOptions();
  o.table_parallelism = 1;  // "good" (largest) commits before "bad" fails
  ASSERT_FALSE(ExportService(&failing, &store, o).Run().ok());
  EXPECT_TRUE(HasKey(store, "main/good/_table.json"));
  EXPECT_FALSE(HasKey(store, kManifestKey));

  FakeDatabase fixed;
  fixed.AddTable(FakeTable{TableRef{"main", "good"}, 2000});
  fixed.AddTable(FakeTable{TableRef{"main", "bad"}, 1500});
  o.if_exists = IfExists::kResume;
  auto r = ExportService(&fixed, &store, o).Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->reused_tables, 1u);
  EXPECT_EQ(CheckDump(store), 3500u);

  // A committed file that no longer matches its checksum is redone.
  auto good = ReadTableManifest(store, "main/good/_table.json");
  ASSERT_TRUE(good.ok());
  auto bytes = store.GetObject(good->files[0].key);
  ASSERT_TRUE(bytes.ok());
  (*bytes)[bytes->size() / 2] ^= 1;
  ASSERT_TRUE(store.PutObject(good->files[0].key, *bytes).ok());
  auto r2 = ExportService(&fixed, &store, o).Run();
  ASSERT_TRUE(r2.ok()) << r2.status().ToString();
  EXPECT_EQ(r2->reused_tables, 1u);  // "bad" (now good) reused, "good" redone
  EXPECT_EQ(CheckDump(store), 3500u);
}

TEST(ExportServiceTest, TraceHasOneSpanPerTableAndFile) {
  FakeDatabase db = Tables(100);
  MemoryStore store("t11");
  TraceRecorder trace;
  ExportService service(&db, &store, SmallOptions());
  service.set_trace(&trace);
  ASSERT_TRUE(service.Run().ok());
  const nlohmann::json j = trace.ToJson();
  int tables = 0, files = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] != "X") continue;
    EXPECT_TRUE(e.contains("ts") && e.contains("dur") && e.contains("tid"));
    if (e["cat"] == "table") ++tables;
    if (e["cat"] == "file") ++files;
  }
  EXPECT_EQ(tables, 3);
  EXPECT_EQ(files, 3);
}

}  // namespace
}  // namespace lakedump
