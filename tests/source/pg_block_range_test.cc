// The block-range predicates of PostgreSQL work units, and the check a shard worker applies to
// the ones a plan on the store gives it.
#include "source/postgres/pg_block_range.h"

#include <gtest/gtest.h>

#include <random>
#include <regex>
#include <string>

namespace lakedump {
namespace {

TEST(PgBlockRangeTest, MakesHalfOpenRanges) {
  EXPECT_EQ(BlockRangePredicate(0, 128, true, false), "ctid < '(128,0)'::pg_catalog.tid");
  EXPECT_EQ(BlockRangePredicate(128, 256, false, false),
            "ctid >= '(128,0)'::pg_catalog.tid AND ctid < '(256,0)'::pg_catalog.tid");
  EXPECT_EQ(BlockRangePredicate(256, 384, false, true), "ctid >= '(256,0)'::pg_catalog.tid");
}

TEST(PgBlockRangeTest, AcceptsWhatItMakes) {
  for (uint64_t lo : {0ULL, 1ULL, 4294967295ULL, 9999999999ULL}) {
    for (bool below : {false, true}) {
      for (bool above : {false, true}) {
        if (below && above) continue;
        const std::string p = BlockRangePredicate(lo, lo, below, above);
        EXPECT_TRUE(IsBlockRangePredicate(p)) << p;
      }
    }
  }
}

TEST(PgBlockRangeTest, RefusesAnythingElse) {
  for (const char* p : {
           "",
           "true",
           "ctid < '(1,0)'::pg_catalog.tid OR true",
           "ctid < '(1,0)'::pg_catalog.tid; DROP TABLE t",
           "ctid < '(1,0)'::pg_catalog.tid AND ctid >= '(0,0)'::pg_catalog.tid",  // order
           "ctid >= '(1,0)'::pg_catalog.tid AND ctid >= '(2,0)'::pg_catalog.tid",
           "ctid <= '(1,0)'::pg_catalog.tid",
           "ctid < '(,0)'::pg_catalog.tid",
           "ctid < '(12345678901,0)'::pg_catalog.tid",  // 11 digits
           "ctid < '(-1,0)'::pg_catalog.tid",
           "ctid < '(1,1)'::pg_catalog.tid",
           "ctid < '(1,0)'::tid",
           " ctid < '(1,0)'::pg_catalog.tid",
           "ctid < '(1,0)'::pg_catalog.tid ",
           "ctid >= '(1,0)'::pg_catalog.tid AND ",
           "CTID < '(1,0)'::pg_catalog.tid",
       }) {
    EXPECT_FALSE(IsBlockRangePredicate(p)) << p;
  }
}

// Random text built from the predicate's pieces: the same verdict as the regular expression
// the check replaces.
TEST(PgBlockRangeTest, AgreesWithTheRegularExpression) {
  static const std::regex kRange(
      R"(^(ctid >= '\(\d{1,10},0\)'::pg_catalog\.tid( AND ctid < '\(\d{1,10},0\)'::pg_catalog\.tid)?|ctid < '\(\d{1,10},0\)'::pg_catalog\.tid)$)");
  static const char* const kPieces[] = {
      "ctid >= '(", "ctid < '(", ",0)'::pg_catalog.tid", " AND ", "0", "7", "12345", "99999",
      "x",          " ",         ",1)'::pg_catalog.tid", "ctid ",  "'(", ""};
  std::mt19937 rng(14);
  std::uniform_int_distribution<size_t> piece(0, std::size(kPieces) - 1), length(1, 8);
  int accepted = 0;
  for (int n = 0; n < 50000; ++n) {
    std::string text;
    for (size_t k = length(rng); k > 0; --k) text += kPieces[piece(rng)];
    const bool expected = std::regex_match(text, kRange);
    accepted += expected;
    ASSERT_EQ(IsBlockRangePredicate(text), expected) << "text: [" << text << "]";
  }
  EXPECT_GT(accepted, 0);  // the generator does reach valid predicates
}

}  // namespace
}  // namespace lakedump
