// What a sharded dump's coordinator accepts from its workers' reports before it commits
// (UnitOutputGatherer, GatherUnitOutputs), and the bounded metadata fan-out it commits with.
#include "dump/remote_units.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "fakes/sync.h"
#include "lake/metadata_io.h"

namespace lakedump {
namespace {

Schema Columns(std::string second = "name", TypeId type = TypeId::kString) {
  return Schema({Column{"id", LogicalType::Of(TypeId::kInt64)},
                 Column{std::move(second), LogicalType::Of(type)}});
}

PlannedTable Planned(std::string name, int units) {
  PlannedTable t;
  t.info.ref = TableRef{"public", std::move(name)};
  for (int i = 0; i < units; ++i) t.units.push_back(WorkUnit{t.info, i, units, ""});
  return t;
}

UnitOutput Output(std::string table, int unit, Schema schema = Columns()) {
  UnitOutput out;
  out.table = TableRef{"public", table};
  out.unit = unit;
  out.schema = std::move(schema);
  out.files.push_back(DataFile{fmt::format("public/{}/part-{}.parquet", table, unit), 10, 100});
  return out;
}

class GatherUnitOutputsTest : public ::testing::Test {
 protected:
  std::vector<PlannedTable> tables_ = {Planned("big", 3), Planned("small", 1)};
  std::vector<const PlannedTable*> planned_ = {&tables_[0], &tables_[1]};
};

TEST_F(GatherUnitOutputsTest, GathersEveryUnitsFilesPerTableInPlanOrder) {
  auto r = GatherUnitOutputs(
      planned_, {Output("big", 2), Output("small", 0), Output("big", 0), Output("big", 1)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].files.size(), 3u);
  EXPECT_EQ((*r)[0].files[0].key, "public/big/part-2.parquet");
  EXPECT_EQ((*r)[0].schema.num_columns(), 2u);
  ASSERT_EQ((*r)[1].files.size(), 1u);
  EXPECT_EQ((*r)[1].files[0].key, "public/small/part-0.parquet");
}

TEST_F(GatherUnitOutputsTest, RefusesAUnitThePlanDoesNotHave) {
  for (const UnitOutput& bad : {Output("other", 0), Output("small", 1), Output("big", -1),
                                Output("big", 3)}) {
    auto r = GatherUnitOutputs(planned_, {bad, Output("small", 0), Output("big", 0),
                                          Output("big", 1), Output("big", 2)});
    ASSERT_FALSE(r.ok()) << bad.table.name << " " << bad.unit;
    EXPECT_EQ(r.status().code(), Code::kCorruption);
    EXPECT_NE(r.status().message().find("which the plan does not give it"), std::string::npos)
        << r.status().message();
  }
}

TEST_F(GatherUnitOutputsTest, RefusesAUnitReportedTwice) {
  auto r = GatherUnitOutputs(planned_, {Output("big", 0), Output("big", 0), Output("big", 1),
                                        Output("big", 2), Output("small", 0)});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("unit 0 of table public.big"), std::string::npos)
      << r.status().message();
}

TEST_F(GatherUnitOutputsTest, RefusesUnitsOfOneTableWithOtherColumns) {
  for (const Schema& other : {Columns("label"), Columns("name", TypeId::kInt32),
                              Schema({Column{"id", LogicalType::Of(TypeId::kInt64)}})}) {
    auto r = GatherUnitOutputs(planned_, {Output("big", 0), Output("big", 1, other),
                                          Output("big", 2), Output("small", 0)});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("read table public.big with different columns"),
              std::string::npos)
        << r.status().message();
  }
}

TEST_F(GatherUnitOutputsTest, RefusesAPlannedUnitNobodyReported) {
  auto r = GatherUnitOutputs(planned_, {Output("big", 0), Output("big", 2), Output("small", 0)});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no shard reported 1 of the 3 units of table public.big"),
            std::string::npos)
      << r.status().message();
}

TEST_F(GatherUnitOutputsTest, ATableIsReadyWhenItsLastUnitComesInWhicheverReportBringsIt) {
  UnitOutputGatherer gatherer(planned_);
  // The first shard's report: the small table whole, one range of the big one.
  auto first = gatherer.Add({Output("big", 1), Output("small", 0)});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(*first, std::vector<size_t>{1});
  const GatheredTable small = gatherer.Take(1);
  ASSERT_EQ(small.files.size(), 1u);
  EXPECT_EQ(small.files[0].key, "public/small/part-0.parquet");
  EXPECT_FALSE(gatherer.CheckAllReported().ok());
  // The second brings the big table's other ranges.
  auto second = gatherer.Add({Output("big", 0), Output("big", 2)});
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(*second, std::vector<size_t>{0});
  EXPECT_EQ(gatherer.Take(0).files.size(), 3u);
  EXPECT_TRUE(gatherer.CheckAllReported().ok());
}

TEST_F(GatherUnitOutputsTest, AUnitReportedAgainByALaterReportIsRefusedAndSoIsWhatFollows) {
  UnitOutputGatherer gatherer(planned_);
  ASSERT_TRUE(gatherer.Add({Output("big", 0)}).ok());
  auto again = gatherer.Add({Output("big", 0), Output("small", 0)});
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), Code::kCorruption);
  // Once refused, nothing more is taken: no table can become ready after it.
  EXPECT_FALSE(gatherer.Add({Output("big", 1), Output("big", 2)}).ok());
  EXPECT_FALSE(gatherer.CheckAllReported().ok());
}

TEST(MetadataIoTest, WidthIsPerTaskClampedToItsBounds) {
  EXPECT_EQ(MetadataIoWidth(1), 8u);
  EXPECT_EQ(MetadataIoWidth(2), 8u);
  EXPECT_EQ(MetadataIoWidth(3), 12u);
  EXPECT_EQ(MetadataIoWidth(64), kMaxMetadataIoWidth);
  EXPECT_EQ(MetadataIoWidth(0), 8u);
  // The Iceberg writer group's: twice the table tasks, 4 to 32.
  EXPECT_EQ(MetadataIoWidth(1, 2, 4), 4u);
  EXPECT_EQ(MetadataIoWidth(5, 2, 4), 10u);
  EXPECT_EQ(MetadataIoWidth(40, 2, 4), kMaxMetadataIoWidth);
}

TEST(MetadataIoTest, RunsEveryCallAtMostWidthAtOnce) {
  std::atomic<int> running{0}, most{0}, calls{0};
  Rendezvous width(4);  // the calls wait until 4 of them run at once
  Status s = ForEachMetadataIo(50, 4, [&](size_t) {
    const int now = ++running;
    for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
    }
    width.Arrive();
    --running;
    ++calls;
    return Status::OK();
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(calls.load(), 50);
  EXPECT_EQ(most.load(), 4);
}

TEST(MetadataIoTest, TheFirstErrorStopsTheCallsNotStarted) {
  std::atomic<int> calls{0};
  Status s = ForEachMetadataIo(1000, 2, [&](size_t i) {
    ++calls;
    return i == 3 ? Status::IOError("injected") : Status::OK();
  });
  EXPECT_EQ(s.code(), Code::kIOError);
  EXPECT_LT(calls.load(), 1000);
}

}  // namespace
}  // namespace lakedump
