#include "lake/table_selection.h"

#include <gtest/gtest.h>

namespace lakedump {
namespace {

TEST(TableSelectionTest, PatternMatchesQualifiedOrPlainName) {
  const TableRef t{"public", "orders"};
  EXPECT_TRUE(TablePatternMatches("public.orders", t));
  EXPECT_TRUE(TablePatternMatches("orders", t));
  EXPECT_TRUE(TablePatternMatches("ord*", t));
  EXPECT_TRUE(TablePatternMatches("*.orders", t));
  EXPECT_TRUE(TablePatternMatches("public.ord?rs", t));
  EXPECT_TRUE(TablePatternMatches("public.[no]rders", t));
  EXPECT_FALSE(TablePatternMatches("other.orders", t));
  EXPECT_FALSE(TablePatternMatches("order", t));
  EXPECT_FALSE(TablePatternMatches("public", t));
}

TEST(TableSelectionTest, StarAlsoMatchesTheDot) {
  const TableRef t{"sales", "q1"};
  EXPECT_TRUE(TablePatternMatches("*", t));
  EXPECT_TRUE(TablePatternMatches("sal*1", t));
}

TEST(TableSelectionTest, AnyPatternAndGlobs) {
  const TableRef t{"public", "orders"};
  EXPECT_FALSE(AnyTablePatternMatches({}, t));
  EXPECT_FALSE(AnyTablePatternMatches({"a", "b"}, t));
  EXPECT_TRUE(AnyTablePatternMatches({"a", "orders"}, t));
  EXPECT_TRUE(IsTableGlob("a*"));
  EXPECT_TRUE(IsTableGlob("a?"));
  EXPECT_TRUE(IsTableGlob("[ab]"));
  EXPECT_FALSE(IsTableGlob("public.orders"));
}

}  // namespace
}  // namespace lakedump
