#include "base/units.h"

#include <gtest/gtest.h>

namespace lakedump {
namespace {

TEST(ParseSizeTest, UnitsAndExactWholeNumbers) {
  EXPECT_EQ(*ParseSize("0"), 0u);
  EXPECT_EQ(*ParseSize("4096"), 4096u);
  EXPECT_EQ(*ParseSize("16MiB"), 16ull << 20);
  EXPECT_EQ(*ParseSize("16 MiB"), 16ull << 20);
  EXPECT_EQ(*ParseSize("64k"), 64ull << 10);
  EXPECT_EQ(*ParseSize("8MB"), 8'000'000u);
  EXPECT_EQ(*ParseSize("1.5GiB"), 3ull << 29);
  EXPECT_EQ(*ParseSize("18446744073709551615"), UINT64_MAX);  // exact, no double on the way
  EXPECT_EQ(*ParseSize("9007199254740993"), 9007199254740993u);
  EXPECT_EQ(*ParseSize("16777215TiB"), 16777215ull << 40);
}

TEST(ParseSizeTest, RefusesOverflow) {
  for (const char* text : {"18446744073709551616", "99999999999999999999999", "16777216TiB",
                           "20000000TB", "9999999999.5TiB"}) {
    auto r = ParseSize(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.status().message().find("too large"), std::string::npos) << r.status().message();
  }
}

TEST(ParseSizeTest, RefusesJunk) {
  for (const char* text : {"", "abc", "-5", "-5MiB", "+5", " 5", "1e3", "10XB", "0x10", ".5",
                           "5.", "1.2.3", "5 MiB x", "MiB"}) {
    auto r = ParseSize(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.status().message().find(std::string("\"") + text + "\""), std::string::npos)
        << r.status().message();
  }
}

TEST(ParseDurationTest, UnitsJunkAndOverflow) {
  EXPECT_EQ(ParseDuration("1h")->count(), 3'600'000);
  EXPECT_EQ(ParseDuration("0s")->count(), 0);
  EXPECT_EQ(ParseDuration("500ms")->count(), 500);
  EXPECT_EQ(ParseDuration("30")->count(), 30'000);
  for (const char* text : {"-5s", "abc", "1e3", "10XB", "", "99999999999999999999999d",
                           "9999999999999d"}) {
    EXPECT_FALSE(ParseDuration(text).ok()) << text;
  }
}

}  // namespace
}  // namespace lakedump
