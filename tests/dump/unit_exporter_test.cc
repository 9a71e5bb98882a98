// UnitExporter on its own: one unit in, its closed data files out, nothing committed; and a
// sharded dump's worker runner (ExportWorkerUnits).
#include "dump/unit_exporter.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "fakes/fake_database.h"
#include "fakes/small_dump_options.h"
#include "lake/object_keys.h"
#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

DumpOptions Options() { return SmallDumpOptions(2, 100); }

WorkUnit UnitOf(const TableRef& ref, uint64_t rows, int index = 0, int count = 1) {
  WorkUnit u;
  u.table = TableInfo{ref, rows, rows * 32, ""};
  u.index = index;
  u.count = count;
  return u;
}

uint64_t RowsOf(const UnitOutput& u) {
  uint64_t rows = 0;
  for (const DataFile& f : u.files) rows += f.rows;
  return rows;
}

TEST(UnitExporterTest, WritesTheUnitsRowsIntoFilesNamedWithTheRunAndCommitsNothing) {
  FakeDatabase db;
  const TableRef ref{"main", "t"};
  db.AddTable(FakeTable{ref, 1234});
  MemoryStore store("unit");
  const std::string run_id = NewRunId();
  const UnitExporter exporter(&db, &store, Options(), run_id);

  auto out = exporter.Export(UnitOf(ref, 1234), nullptr, {});

  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->table, ref);
  EXPECT_EQ(out->unit, 0);
  EXPECT_EQ(out->schema.num_columns(), FakeDatabase::TableSchema().num_columns());
  EXPECT_EQ(RowsOf(*out), 1234u);
  ASSERT_FALSE(out->files.empty());
  for (const DataFile& f : out->files) {
    EXPECT_NE(f.key.find(run_id), std::string::npos) << f.key;
    EXPECT_TRUE(store.Head(f.key).ok()) << f.key << " not closed";
  }
  // No _table.json, no manifest: the data files only.
  EXPECT_EQ(store.Keys().size(), out->files.size());
}

TEST(UnitExporterTest, AnEmptyFirstUnitStillWritesOneFile) {
  FakeDatabase db;
  const TableRef ref{"main", "empty"};
  db.AddTable(FakeTable{ref, 0});
  MemoryStore store("empty");
  const UnitExporter exporter(&db, &store, Options(), NewRunId());

  auto first = exporter.Export(UnitOf(ref, 0), nullptr, {});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->files.size(), 1u);  // the table's schema is on record
}

TEST(UnitExporterTest, PartitionByAColumnTheTableLacksIsInvalidArgument) {
  FakeDatabase db;
  const TableRef ref{"main", "t"};
  db.AddTable(FakeTable{ref, 10});
  MemoryStore store("partition");
  DumpOptions o = Options();
  o.partition_by = "nope";
  const UnitExporter exporter(&db, &store, o, NewRunId());

  auto out = exporter.Export(UnitOf(ref, 10), nullptr, {});

  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kInvalidArgument);
  EXPECT_NE(out.status().message().find("table main.t has no column nope"), std::string::npos)
      << out.status().message();
  EXPECT_TRUE(store.Keys().empty());
}

TEST(UnitExporterTest, AStopRequestedCancels) {
  FakeDatabase db;
  const TableRef ref{"main", "t"};
  db.AddTable(FakeTable{ref, 1000});
  MemoryStore store("stop");
  const UnitExporter exporter(&db, &store, Options(), NewRunId());
  std::stop_source stop;
  stop.request_stop();

  auto out = exporter.Export(UnitOf(ref, 1000), nullptr, stop.get_token());

  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kCancelled);
}

TEST(ExportWorkerUnitsTest, ReturnsEveryUnitAndReportsEachOnceAsItFinishes) {
  FakeDatabase db;
  const TableRef big{"main", "big"};
  db.AddTable(FakeTable{big, 900, -1, {}, /*units=*/3});
  db.AddTable(FakeTable{TableRef{"main", "small"}, 10});
  auto split = db.Split(TableInfo{big, 900}, 0);
  ASSERT_TRUE(split.ok());
  std::vector<WorkUnit> units = *split;
  units.push_back(UnitOf(TableRef{"main", "small"}, 10));
  MemoryStore store("worker");
  const UnitExporter exporter(&db, &store, Options(), NewRunId());
  std::atomic<int> done{0};

  auto outputs = ExportWorkerUnits(
      exporter, units, [&](const UnitOutput&) { done += 1; }, {});

  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  EXPECT_EQ(outputs->size(), 4u);
  EXPECT_EQ(done.load(), 4);
  uint64_t rows = 0;
  for (const UnitOutput& u : *outputs) rows += RowsOf(u);
  EXPECT_EQ(rows, 910u);
}

TEST(ExportWorkerUnitsTest, AFailingUnitNamesItsTable) {
  FakeDatabase db;
  const TableRef ref{"main", "bad"};
  db.AddTable(FakeTable{ref, 500, /*fail_at_row=*/250});
  MemoryStore store("fail");
  const UnitExporter exporter(&db, &store, Options(), NewRunId());

  auto outputs = ExportWorkerUnits(exporter, {UnitOf(ref, 500)}, {}, {});

  ASSERT_FALSE(outputs.ok());
  EXPECT_NE(outputs.status().message().find("table main.bad"), std::string::npos)
      << outputs.status().message();
}

TEST(ExportWorkerUnitsTest, NoTableParallelismIsInvalidArgument) {
  FakeDatabase db;
  MemoryStore store("zero");
  DumpOptions o = Options();
  o.table_parallelism = 0;
  const UnitExporter exporter(&db, &store, o, NewRunId());
  auto outputs = ExportWorkerUnits(exporter, {}, {}, {});
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace lakedump
