#include "format/parquet/rle.h"

#include <gtest/gtest.h>

#include <random>

namespace lakedump::parquet {
namespace {

std::string Bytes(std::initializer_list<int> b) {
  std::string s;
  for (int x : b) s.push_back(static_cast<char>(x));
  return s;
}

TEST(RleTest, RepeatsBecomeRleRuns) {
  std::vector<uint32_t> v(100, 5);
  std::string out;
  RleEncode(v.data(), v.size(), 3, &out);
  // header = 100 << 1 = 200 = varint 0xc8 0x01; value 5 in one byte.
  EXPECT_EQ(out, Bytes({0xc8, 0x01, 0x05}));
}

TEST(RleTest, SpecExampleBitPacked) {
  // Encodings.md: values 0..7 at bit width 3 pack to 0x88 0xc6 0xfa.
  std::vector<uint32_t> v = {0, 1, 2, 3, 4, 5, 6, 7};
  std::string out;
  RleEncode(v.data(), v.size(), 3, &out);
  EXPECT_EQ(out, Bytes({0x03, 0x88, 0xc6, 0xfa}));
}

TEST(RleTest, MixedRunsAndPaddedTail) {
  // 8 ones (RLE), then 0,1,0 (bit-packed, padded to a group of 8).
  std::vector<uint8_t> v = {1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0};
  std::string out;
  RleEncode(v.data(), v.size(), 1, &out);
  EXPECT_EQ(out, Bytes({0x10, 0x01, 0x03, 0x02}));
}

TEST(RleTest, WideValuesUseSeveralBytes) {
  std::vector<uint32_t> v(9, 0x123456);
  std::string out;
  RleEncode(v.data(), v.size(), 21, &out);
  EXPECT_EQ(out, Bytes({0x12, 0x56, 0x34, 0x12}));
}

TEST(RleTest, RoundTripsRandomDataAtEveryWidth) {
  std::mt19937 rng(7);
  for (int bw = 1; bw <= 32; ++bw) {
    for (size_t n : {1u, 7u, 8u, 9u, 100u, 1000u}) {
      std::vector<uint32_t> v(n);
      const uint64_t mask = bw == 32 ? 0xffffffffull : (1ull << bw) - 1;
      for (size_t i = 0; i < n; ++i) {
        // Mix of runs and noise.
        v[i] = (i / 13) % 3 == 0 ? static_cast<uint32_t>(mask) : static_cast<uint32_t>(rng() & mask);
      }
      std::string out;
      RleEncode(v.data(), n, bw, &out);
      std::vector<uint32_t> back;
      ASSERT_TRUE(RleDecode(out, bw, n, &back).ok()) << bw << " " << n;
      EXPECT_EQ(back, v) << "bit width " << bw << ", n " << n;
    }
  }
}

TEST(RleTest, DecoderRejectsTruncatedInput) {
  std::vector<uint32_t> v = {0, 1, 2, 3, 4, 5, 6, 7, 1, 2};
  std::string out;
  RleEncode(v.data(), v.size(), 3, &out);
  std::vector<uint32_t> back;
  for (size_t n = 0; n < out.size(); ++n) {
    EXPECT_FALSE(RleDecode(out.substr(0, n), 3, v.size(), &back).ok()) << n;
  }
}

TEST(RleTest, BitWidth) {
  EXPECT_EQ(BitWidth(0), 0);
  EXPECT_EQ(BitWidth(1), 1);
  EXPECT_EQ(BitWidth(2), 2);
  EXPECT_EQ(BitWidth(255), 8);
  EXPECT_EQ(BitWidth(256), 9);
}

}  // namespace
}  // namespace lakedump::parquet
