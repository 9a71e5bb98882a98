#include "load/postgres/pg_append_together.h"

#include <gtest/gtest.h>

namespace lakedump {
namespace {

TEST(PgAppendTogetherTest, ParentsBeforeChildrenOriginalOrderOtherwise) {
  // 0 orders -> 1 customers, 2 lines -> 0 orders and 3 products; 4 alone.
  std::vector<size_t> cyclic;
  const std::vector<size_t> order =
      ForeignKeyOrder(5, {{1, 0}, {0, 2}, {3, 2}}, &cyclic);
  EXPECT_EQ(order, (std::vector<size_t>{1, 3, 4, 0, 2}));
  EXPECT_TRUE(cyclic.empty());
}

TEST(PgAppendTogetherTest, CyclesComeLastAndAreNamed) {
  std::vector<size_t> cyclic;
  // 0 <-> 1 a cycle, 2 references 0 (waits for the cycle), 3 alone; self-references ignored.
  const std::vector<size_t> order =
      ForeignKeyOrder(4, {{0, 1}, {1, 0}, {0, 2}, {3, 3}, {7, 1}}, &cyclic);
  EXPECT_EQ(order, (std::vector<size_t>{3, 0, 1, 2}));
  EXPECT_EQ(cyclic, (std::vector<size_t>{0, 1, 2}));
}

TEST(PgAppendTogetherTest, NoTablesNoOrder) {
  EXPECT_TRUE(ForeignKeyOrder(0, {}, nullptr).empty());
}

}  // namespace
}  // namespace lakedump
