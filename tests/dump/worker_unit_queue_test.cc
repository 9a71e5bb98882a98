// The order of a sharded dump's worker (dump/worker_unit_queue.h): one large unit at a time
// while small ones remain, the other threads on the small ones; every thread on large ones
// once the small ones are done. Also through ExportWorkerUnits, with two threads.
#include "dump/worker_unit_queue.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "dump/unit_exporter.h"
#include "fakes/fake_database.h"
#include "fakes/sync.h"
#include "lake/object_keys.h"
#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

constexpr uint64_t kLarge = WorkerUnitQueue<int>::kLargeUnitBytes;

WorkUnit Unit(const std::string& name, uint64_t table_bytes, int index = 0, int count = 1) {
  WorkUnit u;
  u.table.ref = TableRef{"main", name};
  u.table.estimated_bytes = table_bytes;
  u.index = index;
  u.count = count;
  return u;
}

std::string NameOf(const std::optional<WorkerUnitQueue<int>::Item>& item) {
  if (!item) return "none";
  return fmt::format("{}#{}", item->unit->table.ref.name, item->unit->index);
}

TEST(WorkerUnitQueueTest, OneLargeUnitAtATimeWhileSmallOnesRemain) {
  // A table of 4 ranges, each large, then three small tables (the plan's order).
  std::vector<WorkUnit> units;
  for (int i = 0; i < 4; ++i) units.push_back(Unit("big", 4 * kLarge, i, 4));
  for (const char* t : {"a", "b", "c"}) units.push_back(Unit(t, 1000));
  WorkerUnitQueue<int> queue;
  int state = 0;
  for (const WorkUnit& u : units) queue.Add(&state, u);
  EXPECT_EQ(queue.size(), 7u);

  auto big0 = queue.Next();
  EXPECT_EQ(NameOf(big0), "big#0");
  EXPECT_TRUE(big0->large);
  // Another thread, while big#0 runs: a small table, not the next range.
  auto a = queue.Next();
  EXPECT_EQ(NameOf(a), "a#0");
  EXPECT_FALSE(a->large);
  queue.Done(*a);
  EXPECT_EQ(NameOf(queue.Next()), "b#0");
  // big#0 done: its thread takes the next range.
  queue.Done(*big0);
  auto big1 = queue.Next();
  EXPECT_EQ(NameOf(big1), "big#1");
  EXPECT_EQ(NameOf(queue.Next()), "c#0");
  // No small unit left: every thread takes large ones.
  EXPECT_EQ(NameOf(queue.Next()), "big#2");
  EXPECT_EQ(NameOf(queue.Next()), "big#3");
  EXPECT_EQ(NameOf(queue.Next()), "none");
}

TEST(WorkerUnitQueueTest, OnlyOneKindRunsInOrder) {
  for (const uint64_t bytes : {uint64_t{1000}, 8 * kLarge}) {
    SCOPED_TRACE(bytes);
    std::vector<WorkUnit> units;
    for (const char* t : {"a", "b", "c"}) units.push_back(Unit(t, bytes));
    WorkerUnitQueue<int> queue;
    int state = 0;
    for (const WorkUnit& u : units) queue.Add(&state, u);
    // Three threads at once, none done yet.
    EXPECT_EQ(NameOf(queue.Next()), "a#0");
    EXPECT_EQ(NameOf(queue.Next()), "b#0");
    EXPECT_EQ(NameOf(queue.Next()), "c#0");
    EXPECT_EQ(NameOf(queue.Next()), "none");
  }
}

TEST(WorkerUnitQueueTest, LargeIsPerUnitNotPerTable) {
  // A table just over the bound split in 2: each range is under it, so small.
  WorkerUnitQueue<int> queue;
  int state = 0;
  std::vector<WorkUnit> units = {Unit("t", kLarge + 2, 0, 2), Unit("t", kLarge + 2, 1, 2),
                                 Unit("u", kLarge)};
  for (const WorkUnit& u : units) queue.Add(&state, u);
  auto first = queue.Next();
  EXPECT_EQ(NameOf(first), "u#0");
  EXPECT_TRUE(first->large);
  EXPECT_FALSE(queue.Next()->large);
}

TEST(WorkerUnitQueueTest, AWorkerWithTwoThreadsRunsASmallTableBesideTheFirstRange) {
  FakeDatabase db;
  // The first range reads while the small tables are opened beside it: its batches wait until
  // all three are.
  std::mutex mu;
  std::vector<std::string> opened;
  Event small_opened;
  const auto all_small = [&] {
    int n = 0;
    for (const std::string& u : opened) n += u[0] == 't';
    return n == 3;
  };
  db.AddTable(FakeTable{TableRef{"main", "big"}, 4000, -1,
                        [&](uint64_t) {
                          small_opened.WaitUntil([&] {
                            std::lock_guard<std::mutex> lock(mu);
                            return all_small();
                          });
                        },
                        4});
  for (int i = 1; i <= 3; ++i) db.AddTable(FakeTable{TableRef{"main", fmt::format("t{}", i)}, 10});
  std::vector<WorkUnit> units;
  for (int i = 0; i < 4; ++i) {
    WorkUnit u = Unit("big", 4 * kLarge, i, 4);
    units.push_back(u);
  }
  for (int i = 1; i <= 3; ++i) units.push_back(Unit(fmt::format("t{}", i), 320));
  // The ranges' predicates as the fake source splits them.
  const std::vector<WorkUnit> split = *db.Split(TableInfo{TableRef{"main", "big"}, 4000}, 0);
  ASSERT_EQ(split.size(), 4u);
  for (int i = 0; i < 4; ++i) units[i].range_predicate = split[i].range_predicate;

  db.set_on_open([&](const WorkUnit& u) {
    small_opened.Notify([&] {
      std::lock_guard<std::mutex> lock(mu);
      opened.push_back(fmt::format("{}#{}", u.table.ref.name, u.index));
    });
  });
  MemoryStore store("queue");
  DumpOptions o;
  o.table_parallelism = 2;
  o.batch_rows = 100;
  o.progress = ProgressMode::kNone;
  const UnitExporter worker(&db, &store, o, NewRunId());
  auto outputs = ExportWorkerUnits(worker, units, {}, {});
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  EXPECT_EQ(outputs->size(), 7u);
  uint64_t rows = 0;
  for (const UnitOutput& u : *outputs) {
    for (const DataFile& f : u.files) rows += f.rows;
  }
  EXPECT_EQ(rows, 4030u);
  // The first range (10 batches, held until the small tables open) and, beside it, the small
  // tables: never two
  // ranges read at once while they wait (all three are opened before the second range; the
  // two threads open their first units in either order).
  ASSERT_EQ(opened.size(), 7u);
  std::vector<std::string> first(opened.begin(), opened.begin() + 4);
  std::sort(first.begin(), first.end());
  EXPECT_EQ(first, (std::vector<std::string>{"big#0", "t1#0", "t2#0", "t3#0"}));
}

}  // namespace
}  // namespace lakedump
