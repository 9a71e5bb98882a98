#include "source/sqlite/sqlite_text.h"

#include <gtest/gtest.h>

#include "table/temporal.h"

namespace lakedump {
namespace {

TEST(SqliteTextTest, DatesParseExactlyAndRejectEverythingElse) {
  EXPECT_EQ(ParseSqliteDate("1970-01-01"), 0);
  EXPECT_EQ(ParseSqliteDate("2000-02-29"), DaysFromCivil(2000, 2, 29));
  EXPECT_EQ(ParseSqliteDate("0001-01-01"), DaysFromCivil(1, 1, 1));
  EXPECT_EQ(ParseSqliteDate("9999-12-31"), DaysFromCivil(9999, 12, 31));
  for (const char* bad : {"1900-02-29", "2023-02-29", "2024-13-01", "2024-00-10", "2024-04-31",
                          "2024-01-00", "2024-1-01", "2024/01/01", "2024-01-1", "24-01-01",
                          "2024-01-01 ", "x024-01-01", "2024-0a-01", "", "2024-01-",
                          "2024-01-01T"}) {
    EXPECT_FALSE(ParseSqliteDate(bad).has_value()) << bad;
  }
}

TEST(SqliteTextTest, TimestampsUseTheSameDatePart) {
  auto ts = ParseSqliteTimestamp("2024-03-01 12:34:56.5");
  ASSERT_TRUE(ts.has_value());
  EXPECT_EQ(ts->micros, (DaysFromCivil(2024, 3, 1) * 86400 + 12 * 3600 + 34 * 60 + 56) *
                                1'000'000LL + 500'000);
  EXPECT_FALSE(ts->has_offset);
  auto day = ParseSqliteTimestamp("2024-03-01");
  ASSERT_TRUE(day.has_value());
  EXPECT_EQ(day->micros, DaysFromCivil(2024, 3, 1) * 86400 * 1'000'000LL);
  auto z = ParseSqliteTimestamp("1970-01-01T01:00Z");
  ASSERT_TRUE(z.has_value());
  EXPECT_EQ(z->micros, 3600 * 1'000'000LL);
  EXPECT_TRUE(z->has_offset);
  for (const char* bad : {"2024-02-30 00:00", "2024-03-01X00:00", "2024-03-0", "2024-03-01 24:00"}) {
    EXPECT_FALSE(ParseSqliteTimestamp(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace lakedump
