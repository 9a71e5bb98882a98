#include "dump/planner.h"

#include <gtest/gtest.h>

#include "fakes/fake_database.h"

namespace lakedump {
namespace {

FakeDatabase ThreeTables() {
  FakeDatabase db;
  db.AddTable(FakeTable{TableRef{"main", "small"}, 10});
  db.AddTable(FakeTable{TableRef{"main", "big"}, 1000});
  db.AddTable(FakeTable{TableRef{"main", "store_orders"}, 100, -1, {}, 3});
  return db;
}

std::vector<std::string> Names(const DumpPlan& p) {
  std::vector<std::string> out;
  for (const auto& t : p.tables) out.push_back(t.info.ref.name);
  return out;
}

TEST(PlannerTest, LargestFirstWithUnits) {
  FakeDatabase db = ThreeTables();
  auto plan = PlanDump(db, DumpOptions{});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(Names(*plan), (std::vector<std::string>{"big", "store_orders", "small"}));
  EXPECT_EQ(plan->tables[1].units.size(), 3u);
}

TEST(PlannerTest, GlobsIncludeAndExclude) {
  FakeDatabase db = ThreeTables();
  DumpOptions o;
  o.include = {"s*"};
  o.exclude = {"main.small"};
  auto plan = PlanDump(db, o);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(Names(*plan), (std::vector<std::string>{"store_orders"}));
}

TEST(PlannerTest, UnknownTableAndEmptyGlobAreErrors) {
  FakeDatabase db = ThreeTables();
  DumpOptions o;
  o.include = {"nope"};
  auto a = PlanDump(db, o);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), Code::kInvalidArgument);
  EXPECT_NE(a.status().message().find("unknown table nope"), std::string::npos);
  o.include = {"x*"};
  auto b = PlanDump(db, o);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("--tables pattern \"x*\" matches no table"),
            std::string::npos);
}

TEST(PlannerTest, QueriesAreValidatedUpFront) {
  FakeDatabase db = ThreeTables();
  DumpOptions o;
  o.queries = {NamedQuery{"q", "SELECT * FROM small"}};
  auto plan = PlanDump(db, o);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->tables.size(), 4u);
  o.queries = {NamedQuery{"q", "SELEC nonsense"}};
  auto bad = PlanDump(db, o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--query q"), std::string::npos);
  o.queries = {NamedQuery{"q", "SELECT * FROM small"}, NamedQuery{"q", "SELECT * FROM big"}};
  EXPECT_FALSE(PlanDump(db, o).ok());
}

TEST(PlannerTest, EmptyDatabaseGivesEmptyPlan) {
  FakeDatabase db;
  auto plan = PlanDump(db, DumpOptions{});
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->tables.empty());
}

TEST(PlannerTest, ShardedAutoSplitIsAShareOfTheDump) {
  constexpr uint64_t kMiB = 1ull << 20;
  std::vector<TableInfo> tables(2);
  tables[0].estimated_bytes = 350 * kMiB;
  tables[1].estimated_bytes = 10 * kMiB;
  DumpOptions o;
  o.split_bytes = 256 * kMiB;
  o.split_bytes_auto = true;
  EXPECT_EQ(ShardSplitBytes(o, tables), 256 * kMiB);  // not sharded: unchanged
  o.shards = 4;
  EXPECT_EQ(ShardSplitBytes(o, tables), 45 * kMiB);  // 360 MiB / 8
  o.shards = 1;
  EXPECT_EQ(ShardSplitBytes(o, tables), 180 * kMiB);
  o.shards = 64;
  EXPECT_EQ(ShardSplitBytes(o, tables), 32 * kMiB);  // the floor
  o.shards = 4;
  o.split_bytes_auto = false;  // an explicit --split-size is kept
  EXPECT_EQ(ShardSplitBytes(o, tables), 256 * kMiB);
  o.split_bytes_auto = true;
  o.split_bytes = 0;  // --split-size never
  EXPECT_EQ(ShardSplitBytes(o, tables), 0u);
}

}  // namespace
}  // namespace lakedump
