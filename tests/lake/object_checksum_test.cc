// HashingReader: a file read in any order is checked against its XXH64 with no
// second read of what went by in order, and a changed byte anywhere is caught.
#include "lake/object_checksum.h"

#include <gtest/gtest.h>

#include <string>

#include "base/checksum.h"

namespace lakedump {
namespace {

// An in-memory object that counts the bytes handed out.
class CountingReader final : public ObjectReader {
 public:
  explicit CountingReader(std::string data) : data_(std::move(data)) {}
  uint64_t size() const override { return data_.size(); }
  Status ReadAt(uint64_t offset, uint64_t length, std::string* out) override {
    if (offset + length > data_.size()) return Status::Corruption("past the end");
    out->assign(data_, offset, length);
    bytes_read += length;
    return Status::OK();
  }
  std::string data_;
  uint64_t bytes_read = 0;
};

std::string Data(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131) ^ (i >> 7));
  return s;
}

TEST(HashingReaderTest, FooterFirstThenInOrderReadsEachByteOnceMoreAtMostForTheFooter) {
  const std::string data = Data(3 << 20);
  CountingReader inner(data);
  HashingReader reader(&inner);
  std::string out;
  ASSERT_TRUE(reader.ReadAt(data.size() - 1000, 1000, &out).ok());  // the footer, first
  for (uint64_t off = 4; off < data.size() - 1000; off += 100000) {  // chunks, skipping "PAR1"
    const uint64_t n = std::min<uint64_t>(100000, data.size() - 1000 - off);
    ASSERT_TRUE(reader.ReadAt(off, n, &out).ok());
    EXPECT_EQ(out, data.substr(off, n));
  }
  EXPECT_TRUE(reader.Verify(Xxh64Hex(data), "f.parquet").ok());
  EXPECT_EQ(inner.bytes_read, data.size() + 1000);  // the footer twice, the rest once
}

TEST(HashingReaderTest, OutOfOrderReadsAreStillFullyChecked) {
  const std::string data = Data(5 << 20);
  CountingReader inner(data);
  HashingReader reader(&inner);
  std::string out;
  ASSERT_TRUE(reader.ReadAt(4 << 20, 1000, &out).ok());  // far ahead: not hashed on the way
  ASSERT_TRUE(reader.ReadAt(0, 1000, &out).ok());
  EXPECT_TRUE(reader.Verify(Xxh64Hex(data), "f.parquet").ok());
}

TEST(HashingReaderTest, AChangedByteIsCorruptionNamingTheFileAndBothDigests) {
  std::string data = Data(1 << 20);
  const std::string recorded = Xxh64Hex(data);
  data[data.size() / 2] ^= 1;
  CountingReader inner(data);
  HashingReader reader(&inner);
  std::string out;
  ASSERT_TRUE(reader.ReadAt(0, data.size(), &out).ok());
  Status s = reader.Verify(recorded, "t/part-0.parquet");
  EXPECT_EQ(s.code(), Code::kCorruption);
  EXPECT_NE(s.message().find("t/part-0.parquet"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(recorded), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(Xxh64Hex(data)), std::string::npos) << s.message();
}

}  // namespace
}  // namespace lakedump
