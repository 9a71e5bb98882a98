#include "format/parquet/dictionary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace lakedump::parquet {
namespace {

TEST(DictionaryTest, NumbersKeepFirstSeenOrderAcrossRehashAndClear) {
  Dictionary<int64_t> d;
  for (int round = 0; round < 2; ++round) {  // the second round reuses the grown table
    d.Clear();
    for (int64_t i = 0; i < 5000; ++i) {
      bool inserted = false;
      const int64_t v = (i * 7919) % 3000 - 1500;  // 3000 distinct values, repeated
      const uint32_t k = d.Insert(v, &inserted);
      ASSERT_LT(k, d.size());
      EXPECT_EQ(d.values()[k], v);
      EXPECT_EQ(inserted, i < 3000) << i;
    }
    EXPECT_EQ(d.size(), 3000u);
    EXPECT_EQ(d.values()[0], -1500);
    EXPECT_EQ(d.values()[1], (7919 % 3000) - 1500);
  }
}

TEST(DictionaryTest, FloatsCompareByBits) {
  Dictionary<double> d;
  bool inserted = false;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(d.Insert(0.0, &inserted), 0u);
  EXPECT_EQ(d.Insert(-0.0, &inserted), 1u) << "-0.0 is its own entry";
  EXPECT_TRUE(inserted);
  EXPECT_EQ(d.Insert(nan, &inserted), 2u);
  EXPECT_EQ(d.Insert(nan, &inserted), 2u) << "the same NaN bits are one entry";
  EXPECT_FALSE(inserted);
  Dictionary<float> f;
  EXPECT_EQ(f.Insert(1.5f, &inserted), 0u);
  EXPECT_EQ(f.Insert(-1.5f, &inserted), 1u);
  EXPECT_EQ(f.Insert(1.5f, &inserted), 0u);
  EXPECT_EQ(f.size(), 2u);
}

TEST(DictionaryTest, StringsWithEqualPrefixesAreDistinct) {
  std::vector<std::string> owned;
  for (int i = 0; i < 4000; ++i) owned.push_back("key-" + std::to_string(i % 2500));
  owned.push_back("");
  Dictionary<std::string_view> d;
  for (const std::string& s : owned) {
    bool inserted = false;
    const uint32_t k = d.Insert(s, &inserted);
    EXPECT_EQ(d.values()[k], s);
  }
  EXPECT_EQ(d.size(), 2501u);
  EXPECT_GT(d.CapacityBytes(), 2501u * sizeof(std::string_view));
}

}  // namespace
}  // namespace lakedump::parquet
