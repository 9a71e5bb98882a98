#include "base/crc32c.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace lakedump {
namespace {

// RFC 3720, B.4 "CRC Examples", plus the classic check value.
TEST(Crc32cTest, KnownVectors) {
  const std::string zeros(32, '\0');
  const std::string ones(32, '\xff');
  std::string incrementing, decrementing;
  for (int i = 0; i < 32; ++i) {
    incrementing += static_cast<char>(i);
    decrementing += static_cast<char>(31 - i);
  }
  for (auto* fn : {&Crc32c, &Crc32cPortable}) {
    EXPECT_EQ(fn(zeros, 0), 0x8A9136AAu);
    EXPECT_EQ(fn(ones, 0), 0x62A8AB43u);
    EXPECT_EQ(fn(incrementing, 0), 0x46DD794Eu);
    EXPECT_EQ(fn(decrementing, 0), 0x113FDB5Cu);
    EXPECT_EQ(fn("123456789", 0), 0xE3069283u);
    EXPECT_EQ(fn("", 0), 0u);
  }
}

TEST(Crc32cTest, HardwareAndTableAgreeAtEveryLengthAndAlignment) {
  std::mt19937 rng(7);
  std::string data(4096 + 16, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  for (size_t offset = 0; offset < 8; ++offset) {
    for (size_t n : {0u, 1u, 7u, 8u, 9u, 63u, 64u, 65u, 1000u, 4096u}) {
      std::string_view v(data.data() + offset, n);
      ASSERT_EQ(Crc32c(v), Crc32cPortable(v)) << offset << " " << n;
    }
  }
}

TEST(Crc32cTest, ContinuesAcrossCalls) {
  const std::string text = "The quick brown fox jumps over the lazy dog";
  EXPECT_EQ(Crc32c(text.substr(10), Crc32c(text.substr(0, 10))), Crc32c(text));
  EXPECT_EQ(Crc32c(text), 0x22620404u);
}

TEST(Crc32cTest, Base64IsOfTheBigEndianBytes) {
  // 0xE3069283 = e3 06 92 83 -> "4waSgw==" (as `aws s3api put-object --checksum-algorithm
  // CRC32C` sends for "123456789").
  EXPECT_EQ(Crc32cBase64("123456789"), "4waSgw==");
  EXPECT_EQ(Crc32cBase64(""), "AAAAAA==");
}

}  // namespace
}  // namespace lakedump
