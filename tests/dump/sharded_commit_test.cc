// A sharded dump's commit in one process: the coordinator's ExportService::RunSharded hands its
// plan to a runner that runs every unit through a worker's UnitExporter (ExportWorkerUnits) on
// the same store, as the worker processes would, then commits what they wrote. Also what
// the coordinator checks before its manifest (CheckBeforeCommit): one listing, and a read-back
// only of what the listing cannot confirm.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "dump/export_service.h"
#include "dump/unit_exporter.h"
#include "lake/manifest.h"
#include "fakes/fake_database.h"
#include "fakes/small_dump_options.h"
#include "lake/object_keys.h"
#include "store/forwarding_store.h"
#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

// Counts the checks of the snapshot's holder (the coordinator's round trips on its session).
class CountingDatabase : public FakeDatabase {
 public:
  Status CheckSnapshotHeld() override {
    checks_ += 1;
    return FakeDatabase::CheckSnapshotHeld();
  }
  int checks() const { return checks_.load(); }

 private:
  std::atomic<int> checks_{0};
};

DumpOptions Options() { return SmallDumpOptions(); }

constexpr int kTables = 40;

void AddTables(FakeDatabase* db) {
  db->AddTable(FakeTable{TableRef{"main", "big"}, 3000, -1, {}, /*units=*/3});
  for (int i = 1; i < kTables; ++i) {
    db->AddTable(FakeTable{TableRef{"main", "t" + std::to_string(i)}, 10});
  }
}

// What a worker on `db` writes for `units` into `store` (under a run id of its own).
Result<std::vector<UnitOutput>> WorkerExport(FakeDatabase* db, ObjectStore* store,
                                             const std::vector<WorkUnit>& units,
                                             std::stop_token stop) {
  const UnitExporter exporter(db, store, Options(), NewRunId());
  return ExportWorkerUnits(exporter, units, {}, stop);
}

// The runner of a coordinator: every unit of the plan run by one in-process worker reading
// `worker_db`; `after` runs once the worker has reported.
ExportService::RemoteUnitRunner InProcessWorker(FakeDatabase* worker_db, ObjectStore* store,
                                                std::function<void()> after = {}) {
  return [=](const DumpPlan& plan, const ExportService::RemoteUnitSink& sink,
             std::stop_token stop) -> Status {
    std::vector<WorkUnit> units;
    for (const PlannedTable& t : plan.tables) {
      for (const WorkUnit& u : t.units) units.push_back(u);
    }
    auto outputs = WorkerExport(worker_db, store, units, stop);
    if (after) after();
    if (!outputs.ok()) return outputs.status();
    return sink(std::move(*outputs));
  };
}

// The runner of a coordinator with two in-process shards reading `worker_db`: shard 0 runs
// every table but t1..t9 and the big table's unit 2; shard 1 the rest. Their outputs go to
// the sink one shard after the other; `between` runs after shard 0's have gone in (and may
// fail the runner, as a failed shard 1 would).
ExportService::RemoteUnitRunner TwoShards(FakeDatabase* worker_db, ObjectStore* store,
                                          std::function<Status()> between) {
  return [=](const DumpPlan& plan, const ExportService::RemoteUnitSink& sink,
             std::stop_token stop) -> Status {
    std::vector<WorkUnit> shard[2];
    for (const PlannedTable& t : plan.tables) {
      for (const WorkUnit& u : t.units) {
        const std::string& name = u.table.ref.name;
        const bool second = (name.size() == 2 && name[0] == 't') || (name == "big" && u.index == 2);
        shard[second ? 1 : 0].push_back(u);
      }
    }
    for (int i = 0; i < 2; ++i) {
      LD_ASSIGN_OR_RETURN(std::vector<UnitOutput> outputs,
                          WorkerExport(worker_db, store, shard[i], stop));
      LD_RETURN_IF_ERROR(sink(std::move(outputs)));
      if (i == 0) LD_RETURN_IF_ERROR(between());
    }
    return Status::OK();
  };
}

// Forwards to another store; counts the reads of _table.json objects and, with
// list_etags = false, lists no ETags (as a local folder lists). Thread-safe.
class TableJsonReadCounter final : public ForwardingStore {
 public:
  TableJsonReadCounter(ObjectStore* target, bool list_etags)
      : ForwardingStore(target), list_etags_(list_etags) {}
  Result<std::unique_ptr<ObjectReader>> NewReader(std::string_view key) override {
    Count(key);
    return target()->NewReader(key);
  }
  Result<WholeObject> ReadWhole(std::string_view key, std::optional<uint64_t> max_bytes) override {
    Count(key);
    return target()->ReadWhole(key, max_bytes);
  }
  Result<std::vector<ObjectInfo>> List(std::string_view prefix) override {
    LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> listed, target()->List(prefix));
    if (!list_etags_) {
      for (ObjectInfo& o : listed) o.etag.clear();
    }
    return listed;
  }
  Result<ObjectInfo> Head(std::string_view key) override {
    LD_ASSIGN_OR_RETURN(ObjectInfo info, target()->Head(key));
    if (!list_etags_) info.etag.clear();
    return info;
  }
  int table_json_reads() const { return reads_.load(); }

 private:
  void Count(std::string_view key) {
    if (key.ends_with("_table.json")) reads_ += 1;
  }
  const bool list_etags_;
  std::atomic<int> reads_{0};
};

// A coordinator (and its in-process worker) on `store`; `before_checks` runs just before the
// checks before the manifest, after every table commit.
Result<DumpResult> RunCoordinator(ObjectStore* store, std::function<void()> before_checks = {}) {
  FakeDatabase coordinator;
  AddTables(&coordinator);
  FakeDatabase worker;
  AddTables(&worker);
  ExportService service(&coordinator, store, Options());
  const ExportService::RemoteUnitRunner runner = InProcessWorker(&worker, store);
  if (before_checks) {
    service.set_manifest_hook([&](DumpManifest*) {
      before_checks();
      return Status::OK();
    });
  }
  return service.RunSharded(runner);
}

constexpr char kVictim[] = "main/t7/_table.json";

TEST(ShardedCommitTest, CoordinatorConfirmsItsTableCommitsByOneListingWithoutReadingThemBack) {
  MemoryStore memory("listing");
  TableJsonReadCounter store(&memory, /*list_etags=*/true);
  auto r = RunCoordinator(&store);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // Every _table.json is listed with the size and the MD5 ETag of what was written.
  EXPECT_EQ(store.table_json_reads(), 0);
  auto m = ReadDumpManifest(memory);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->tables.size(), static_cast<size_t>(kTables));
}

TEST(ShardedCommitTest, WithoutEtagsInTheListingEachTableJsonIsReadBack) {
  MemoryStore memory("no-etags");
  TableJsonReadCounter store(&memory, /*list_etags=*/false);
  auto r = RunCoordinator(&store);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // A size alone does not prove the bytes: each one is read and compared.
  EXPECT_EQ(store.table_json_reads(), kTables);
  EXPECT_TRUE(memory.Head(kManifestKey).ok());
}

TEST(ShardedCommitTest, ATableJsonGoneAfterItsCommitFailsTheCoordinatorAndCommitsNoManifest) {
  for (bool etags : {true, false}) {
    MemoryStore memory("gone");
    TableJsonReadCounter store(&memory, etags);
    auto r = RunCoordinator(&store, [&] {
      ASSERT_TRUE(memory.Delete(std::vector<std::string>{kVictim}).ok());
    });
    ASSERT_FALSE(r.ok()) << "etags " << etags;
    EXPECT_EQ(r.status().code(), Code::kCorruption);
    EXPECT_NE(r.status().message().find(std::string(kVictim) + " is gone"), std::string::npos)
        << r.status().message();
    EXPECT_FALSE(memory.Head(kManifestKey).ok()) << "etags " << etags;
  }
}

TEST(ShardedCommitTest, ATableJsonOfAnotherSizeAfterItsCommitFailsTheCoordinatorUnread) {
  for (bool etags : {true, false}) {
    MemoryStore memory("resized");
    TableJsonReadCounter store(&memory, etags);
    uint64_t written = 0;
    auto r = RunCoordinator(&store, [&] {
      // Still the same JSON with the same fields (the read-back's comparison would pass it),
      // but not the bytes this run wrote.
      auto text = memory.GetObject(kVictim);
      ASSERT_TRUE(text.ok());
      written = text->size();
      ASSERT_TRUE(memory.PutObject(kVictim, *text + " ").ok());
    });
    ASSERT_FALSE(r.ok()) << "etags " << etags;
    EXPECT_EQ(r.status().code(), Code::kCorruption);
    EXPECT_NE(r.status().message().find(fmt::format(
                  "{} was replaced (it now has {} bytes; this run wrote {})", kVictim,
                  written + 1, written)),
              std::string::npos)
        << r.status().message();
    EXPECT_FALSE(memory.Head(kManifestKey).ok()) << "etags " << etags;
    // Failed by its size, unread (with ETags nothing was read at all).
    if (etags) {
      EXPECT_EQ(store.table_json_reads(), 0);
    }
  }
}

TEST(ShardedCommitTest, ATableJsonOfTheSameSizeWithOtherBytesIsReadBackAndFailsTheCoordinator) {
  for (bool etags : {true, false}) {
    MemoryStore memory("same-size");
    TableJsonReadCounter store(&memory, etags);
    auto r = RunCoordinator(&store, [&] {
      // Another run's record of the same length: only the ETag (or the read) tells.
      auto text = memory.GetObject(kVictim);
      ASSERT_TRUE(text.ok());
      auto t = ReadTableManifest(memory, kVictim);
      ASSERT_TRUE(t.ok());
      // The top-level "run_id" (indented 2), one character changed.
      const std::string field = "\n  \"run_id\": \"" + t->run_id + "\"";
      std::string replaced = *text;
      const size_t at = replaced.find(field);
      ASSERT_NE(at, std::string::npos) << *text;
      char& last = replaced[at + field.size() - 2];
      last = last == 'x' ? 'y' : 'x';
      ASSERT_TRUE(memory.PutObject(kVictim, replaced).ok());
    });
    ASSERT_FALSE(r.ok()) << "etags " << etags;
    EXPECT_EQ(r.status().code(), Code::kCorruption);
    EXPECT_NE(r.status().message().find(std::string(kVictim) + " was replaced (it now holds run"),
              std::string::npos)
        << r.status().message();
    EXPECT_FALSE(memory.Head(kManifestKey).ok()) << "etags " << etags;
    // With ETags only the one whose tag differs was read.
    EXPECT_EQ(store.table_json_reads(), etags ? 1 : kTables) << "etags " << etags;
  }
}

TEST(ShardedCommitTest, AWorkersFileGoneBeforeTheManifestFailsTheCoordinator) {
  MemoryStore store("worker-file");
  std::string victim;
  auto r = RunCoordinator(&store, [&] {
    auto t = ReadTableManifest(store, "main/big/_table.json");
    ASSERT_TRUE(t.ok());
    ASSERT_FALSE(t->files.empty());
    victim = t->files.back().key;
    ASSERT_TRUE(store.Delete(std::vector<std::string>{victim}).ok());
  });
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("data file " + victim + " is gone"), std::string::npos)
      << r.status().message();
  EXPECT_FALSE(store.Head(kManifestKey).ok());
}

TEST(ShardedCommitTest, CoordinatorChecksTheSnapshotOnceBeforeItsTableCommitsNotPerTable) {
  MemoryStore store("sharded");
  CountingDatabase coordinator;
  AddTables(&coordinator);
  FakeDatabase worker;
  AddTables(&worker);
  ExportService service(&coordinator, &store, Options());
  const ExportService::RemoteUnitRunner runner = InProcessWorker(&worker, &store);
  auto r = service.RunSharded(runner);
  ASSERT_TRUE(r.ok()) << r.status().ToString();

  // One check before the table commits, one before the manifest: not one per table.
  EXPECT_EQ(coordinator.checks(), 2);
  auto m = ReadDumpManifest(store);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->tables.size(), static_cast<size_t>(kTables));
  EXPECT_EQ(m->total_rows, 3000u + 10u * (kTables - 1));
  for (const TableSummary& t : m->tables) {
    auto table = ReadTableManifest(store, t.key);
    ASSERT_TRUE(table.ok()) << t.key;
    EXPECT_EQ(table->rows, t.rows);
  }
}

TEST(ShardedCommitTest, OneMachineStillChecksTheSnapshotAfterEachTablesReads) {
  MemoryStore store("single");
  CountingDatabase db;
  AddTables(&db);
  auto r = ExportService(&db, &store, Options()).Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // Its tasks read while others commit: each table's commit checks, then the manifest.
  EXPECT_EQ(db.checks(), kTables + 1);
}

TEST(ShardedCommitTest, AHolderLostWhileTheWorkersReadCommitsNoTable) {
  MemoryStore store("lost");
  CountingDatabase coordinator;
  AddTables(&coordinator);
  FakeDatabase worker;
  AddTables(&worker);
  ExportService service(&coordinator, &store, Options());
  const ExportService::RemoteUnitRunner runner =
      InProcessWorker(&worker, &store, [&] { coordinator.set_snapshot_lost(true); });
  auto r = service.RunSharded(runner);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("fake snapshot holder is gone"), std::string::npos)
      << r.status().message();
  EXPECT_FALSE(store.Head(kManifestKey).ok());
  for (const std::string& k : store.Keys()) {
    EXPECT_FALSE(k.ends_with("_table.json")) << k << " committed after the holder was gone";
  }
}

TEST(ShardedCommitTest, AShardsTablesAreCommittedAsItsReportComesInWhileTheOthersRun) {
  MemoryStore store("arrive");
  FakeDatabase coordinator;
  AddTables(&coordinator);
  FakeDatabase worker;
  AddTables(&worker);
  ExportService service(&coordinator, &store, Options());
  std::vector<std::string> committed_between;
  const ExportService::RemoteUnitRunner runner = TwoShards(&worker, &store, [&] {
    for (const std::string& k : store.Keys()) {
      if (k.ends_with("_table.json")) committed_between.push_back(k);
    }
    return Status::OK();
  });
  auto r = service.RunSharded(runner);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // After shard 0's report: exactly its whole tables (t10..t39), neither the big table
  // (one of its ranges is shard 1's) nor shard 1's t1..t9.
  std::sort(committed_between.begin(), committed_between.end());
  ASSERT_EQ(committed_between.size(), static_cast<size_t>(kTables - 10));
  EXPECT_EQ(committed_between.front(), "main/t10/_table.json");
  for (const std::string& k : committed_between) {
    EXPECT_NE(k, "main/big/_table.json");
    EXPECT_FALSE(k.size() == std::string("main/t1/_table.json").size()) << k;
  }
  // The manifest names every table once, with all three ranges of the big one.
  ASSERT_EQ(r->manifest.tables.size(), static_cast<size_t>(kTables));
  EXPECT_EQ(r->manifest.total_rows, 3000u + 10u * (kTables - 1));
  auto big = store.GetObject("main/big/_table.json", 1 << 20);
  ASSERT_TRUE(big.ok());
  auto parsed = ParseTableManifest(*big, "main/big/_table.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->rows, 3000u);
}

TEST(ShardedCommitTest, AShardFailingAfterAnotherWasCommittedLeavesNoManifest) {
  MemoryStore store("arrive-fail");
  FakeDatabase coordinator;
  AddTables(&coordinator);
  FakeDatabase worker;
  AddTables(&worker);
  ExportService service(&coordinator, &store, Options());
  const ExportService::RemoteUnitRunner runner =
      TwoShards(&worker, &store, [] { return Status::IOError("shard 1 failed (attempt x)"); });
  auto r = service.RunSharded(runner);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("shard 1 failed"), std::string::npos)
      << r.status().message();
  EXPECT_FALSE(store.Head(kManifestKey).ok());
}

TEST(ShardedCommitTest, ARunnerThatEndsWithAPlannedUnitMissingCommitsNoManifest) {
  MemoryStore store("arrive-missing");
  FakeDatabase coordinator;
  AddTables(&coordinator);
  FakeDatabase worker;
  AddTables(&worker);
  ExportService service(&coordinator, &store, Options());
  const ExportService::RemoteUnitRunner runner = [&](const DumpPlan& plan,
                                                     const ExportService::RemoteUnitSink& sink,
                                                     std::stop_token stop) -> Status {
    std::vector<WorkUnit> units;
    for (const PlannedTable& t : plan.tables) {
      for (const WorkUnit& u : t.units) {
        if (!(t.info.ref.name == "big" && u.index == 1)) units.push_back(u);
      }
    }
    LD_ASSIGN_OR_RETURN(std::vector<UnitOutput> outputs, WorkerExport(&worker, &store, units, stop));
    return sink(std::move(outputs));
  };
  auto r = service.RunSharded(runner);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no shard reported 1 of the 3 units of table main.big"),
            std::string::npos)
      << r.status().message();
  EXPECT_FALSE(store.Head(kManifestKey).ok());
  EXPECT_FALSE(store.Head("main/big/_table.json").ok());
}

}  // namespace
}  // namespace lakedump
