#include "base/checksum.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>

#include "fakes/temp_dir.h"

namespace lakedump {
namespace {

// i % 251 for i in [0, n): a pattern long enough to cross xxHash's 32-byte stripes.
std::string Pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(i % 251);
  return s;
}

// Vectors printed by `xxhsum` 0.8.1 (Debian 12 package xxhash; default XXH64).
TEST(ChecksumTest, MatchesXxhsumVectors) {
  EXPECT_EQ(Xxh64Hex(""), "ef46db3751d8e999");
  EXPECT_EQ(Xxh64Hex("a"), "d24ec4f1a98c6e5b");
  EXPECT_EQ(Xxh64Hex("abc"), "44bc2cf5ad770999");
  EXPECT_EQ(Xxh64Hex("The quick brown fox jumps over the lazy dog"), "0b242d361fda71bc");
  EXPECT_EQ(Xxh64Hex(Pattern(1000003)), "a72f178960c4e5bd");
  EXPECT_EQ(Xxh64(""), 0xef46db3751d8e999ULL);
}

TEST(ChecksumTest, FormatsSixteenLowercaseDigits) {
  EXPECT_EQ(FormatXxh64(0), "0000000000000000");
  EXPECT_EQ(FormatXxh64(0xABCULL), "0000000000000abc");
  EXPECT_EQ(FormatXxh64(~0ULL), "ffffffffffffffff");
}

TEST(ChecksumTest, StreamingEqualsOneShotForAnyChunking) {
  const std::string data = Pattern(100000);
  std::mt19937 rng(1);
  for (int round = 0; round < 20; ++round) {
    Xxh64Hasher h;
    size_t pos = 0;
    while (pos < data.size()) {
      const size_t n = std::min<size_t>(rng() % 100, data.size() - pos);
      h.Update(std::string_view(data).substr(pos, n));
      pos += n;
    }
    EXPECT_EQ(h.HexDigest(), Xxh64Hex(data));
  }
  Xxh64Hasher h;
  h.Update("abc");
  EXPECT_EQ(h.HexDigest(), "44bc2cf5ad770999");
  h.Reset();
  EXPECT_EQ(h.HexDigest(), "ef46db3751d8e999");
  Xxh64Hasher moved = std::move(h);
  moved.Update("a");
  EXPECT_EQ(moved.HexDigest(), "d24ec4f1a98c6e5b");
}

class FailingSink final : public ByteSink {
 public:
  Status Append(std::string_view data) override {
    if (++calls_ == 2) return Status::IOError("full");
    bytes_ += data.size();
    return Status::OK();
  }
  uint64_t bytes_written() const override { return bytes_; }

 private:
  int calls_ = 0;
  uint64_t bytes_ = 0;
};

TEST(ChecksumSinkTest, HashesWhatItForwards) {
  StringSink target;
  ChecksumSink sink(&target);
  ASSERT_TRUE(sink.Append("The quick brown fox ").ok());
  ASSERT_TRUE(sink.Append("jumps over the lazy dog").ok());
  EXPECT_EQ(target.str(), "The quick brown fox jumps over the lazy dog");
  EXPECT_EQ(sink.hex_digest(), "0b242d361fda71bc");
  EXPECT_EQ(sink.bytes_written(), 43u);
  EXPECT_EQ(sink.bytes_hashed(), 43u);
}

TEST(ChecksumSinkTest, RejectedBytesAreNotHashed) {
  FailingSink target;
  ChecksumSink sink(&target);
  ASSERT_TRUE(sink.Append("abc").ok());
  EXPECT_EQ(sink.Append("more").code(), Code::kIOError);
  EXPECT_EQ(sink.hex_digest(), "44bc2cf5ad770999");
  EXPECT_EQ(sink.bytes_hashed(), 3u);
}

// Cross-check against the real tool when it is installed (apt install xxhash).
TEST(ChecksumTest, AgreesWithXxhsumBinary) {
  if (std::system("command -v xxhsum >/dev/null 2>&1") != 0) GTEST_SKIP() << "no xxhsum";
  TempDir dir;
  std::mt19937 rng(9);
  std::string data(123457, '\0');
  for (auto& c : data) c = static_cast<char>(rng());
  std::ofstream(dir.Sub("f.bin"), std::ios::binary) << data;
  const std::string cmd = "xxhsum " + dir.Sub("f.bin");
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  char buf[256] = {};
  ASSERT_NE(std::fgets(buf, sizeof buf, p), nullptr);
  ::pclose(p);
  EXPECT_EQ(std::string(buf).substr(0, 16), Xxh64Hex(data));
}

}  // namespace
}  // namespace lakedump
