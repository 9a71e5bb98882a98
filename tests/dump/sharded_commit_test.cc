// A sharded dump's commit in one process: the coordinator's ExportService hands its plan to a
// runner (set_remote_units) that runs every unit through a worker's ExportService::ExportUnits
// on the same store, as the worker processes would, then commits what they wrote.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "dump/export_service.h"
#include "dump/manifest.h"
#include "fakes/fake_database.h"
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

DumpOptions Options() {
  DumpOptions o;
  o.table_parallelism = 2;
  o.batch_rows = 500;
  o.parquet.row_group_rows = 1000;
  o.progress = ProgressMode::kNone;
  return o;
}

constexpr int kTables = 40;

void AddTables(FakeDatabase* db) {
  db->AddTable(FakeTable{TableRef{"main", "big"}, 3000, -1, {}, /*units=*/3});
  for (int i = 1; i < kTables; ++i) {
    db->AddTable(FakeTable{TableRef{"main", "t" + std::to_string(i)}, 10});
  }
}

// The runner of a coordinator: every unit of the plan run by one in-process worker reading
// `worker_db`; `after` runs once the worker has reported.
ExportService::RemoteUnitRunner InProcessWorker(FakeDatabase* worker_db, ObjectStore* store,
                                                std::function<void()> after = {}) {
  return [=](const DumpPlan& plan, std::stop_token stop) -> Result<std::vector<UnitOutput>> {
    std::vector<WorkUnit> units;
    for (const PlannedTable& t : plan.tables) {
      for (const WorkUnit& u : t.units) units.push_back(u);
    }
    ExportService worker(worker_db, store, Options());
    auto outputs = worker.ExportUnits(units, stop);
    if (after) after();
    return outputs;
  };
}

TEST(ShardedCommitTest, CoordinatorChecksTheSnapshotOnceBeforeItsTableCommitsNotPerTable) {
  MemoryStore store("sharded");
  CountingDatabase coordinator;
  AddTables(&coordinator);
  FakeDatabase worker;
  AddTables(&worker);
  ExportService service(&coordinator, &store, Options());
  service.set_remote_units(InProcessWorker(&worker, &store));
  auto r = service.Run();
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
  service.set_remote_units(
      InProcessWorker(&worker, &store, [&] { coordinator.set_snapshot_lost(true); }));
  auto r = service.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("fake snapshot holder is gone"), std::string::npos)
      << r.status().message();
  EXPECT_FALSE(store.Head(kManifestKey).ok());
  for (const std::string& k : store.Keys()) {
    EXPECT_FALSE(k.ends_with("_table.json")) << k << " committed after the holder was gone";
  }
}

}  // namespace
}  // namespace lakedump
