#include "format/codec/codec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <string>
#include <thread>
#include <vector>

namespace lakedump {
namespace {

using ::testing::HasSubstr;

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

std::string Repetitive(size_t n) {
  std::string s;
  s.reserve(n);
  const std::string unit = "store_orders_fact,2024-01-01,42,";
  while (s.size() < n) s.append(unit, 0, std::min(unit.size(), n - s.size()));
  return s;
}

std::unique_ptr<Codec> Make(CodecKind kind, int level = 0) {
  auto codec = MakeCodec(kind, level);
  EXPECT_TRUE(codec.ok()) << codec.status().ToString();
  return std::move(codec).value();
}

class CodecRoundTripTest : public ::testing::TestWithParam<CodecKind> {};

TEST_P(CodecRoundTripTest, RoundTripsInputsOfEveryShape) {
  auto codec = Make(GetParam());
  ASSERT_EQ(codec->kind(), GetParam());
  const std::vector<std::string> inputs = {"", "x", RandomBytes(1 << 20, 7),
                                           Repetitive(1 << 20), RandomBytes(1000, 3)};
  for (const std::string& input : inputs) {
    std::string compressed = "prefix";  // both calls append
    ASSERT_TRUE(codec->Compress(input, &compressed).ok());
    ASSERT_EQ(compressed.substr(0, 6), "prefix");
    std::string_view body = std::string_view(compressed).substr(6);
    std::string round = "head";
    Status s = codec->Decompress(body, input.size(), &round);
    ASSERT_TRUE(s.ok()) << CodecName(GetParam()) << " size " << input.size() << ": "
                        << s.ToString();
    EXPECT_EQ(round.substr(0, 4), "head");
    EXPECT_TRUE(round.substr(4) == input) << "size " << input.size();
  }
}

TEST_P(CodecRoundTripTest, CompressIntoMatchesCompressWithinItsBound) {
  auto codec = Make(GetParam());
  // Random data is the worst case for the bound; the buffer is reused dirty.
  std::vector<char> buf;
  for (const std::string& input : {std::string(), std::string("x"), RandomBytes(1 << 20, 9),
                                   Repetitive(300000), RandomBytes(777, 4)}) {
    const size_t bound = codec->MaxCompressedLength(input.size());
    ASSERT_GE(bound, 1u);
    buf.assign(bound, '\x5a');
    Result<size_t> n = codec->CompressInto(input, buf.data(), buf.size());
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    ASSERT_LE(*n, bound);
    std::string round;
    Status s = codec->Decompress(std::string_view(buf.data(), *n), input.size(), &round);
    ASSERT_TRUE(s.ok()) << CodecName(GetParam()) << " size " << input.size() << ": "
                        << s.ToString();
    EXPECT_TRUE(round == input) << "size " << input.size();
    std::string appended;
    ASSERT_TRUE(codec->Compress(input, &appended).ok());
    EXPECT_EQ(appended.size(), *n) << "same bytes either way";
  }
}

// The codecs that compress (every one but none, whose own behaviour is tested below).
class CompressingCodecTest : public CodecRoundTripTest {};

TEST_P(CompressingCodecTest, CompressesRepetitiveData) {
  auto codec = Make(GetParam());
  const std::string input = Repetitive(1 << 20);
  std::string compressed;
  ASSERT_TRUE(codec->Compress(input, &compressed).ok());
  EXPECT_LT(compressed.size(), input.size() / 10);
}

TEST_P(CodecRoundTripTest, GarbageInputIsCorruptionNotACrash) {
  auto codec = Make(GetParam());
  for (uint32_t seed = 0; seed < 200; ++seed) {
    const std::string garbage = RandomBytes(1 + seed * 7, seed);
    for (size_t expected : {size_t{0}, size_t{1}, size_t{100}, size_t{65536}}) {
      std::string out = "keep";
      Status s = codec->Decompress(garbage, expected, &out);
      if (s.ok()) {
        // Random bytes may by chance be a valid stream; it must then honour the size.
        EXPECT_EQ(out.size(), 4 + expected);
        continue;
      }
      EXPECT_EQ(s.code(), Code::kCorruption) << s.ToString();
      EXPECT_THAT(s.message(), HasSubstr(std::string(CodecName(GetParam()))));
      EXPECT_EQ(out, "keep") << "failed decompression must leave the output as it was";
    }
  }
}

TEST_P(CompressingCodecTest, TruncatedInputIsCorruption) {
  auto codec = Make(GetParam());
  const std::string input = RandomBytes(100000, 11) + Repetitive(100000);
  std::string compressed;
  ASSERT_TRUE(codec->Compress(input, &compressed).ok());
  for (size_t cut : {size_t{0}, size_t{1}, compressed.size() / 2, compressed.size() - 1}) {
    std::string out;
    Status s = codec->Decompress(std::string_view(compressed).substr(0, cut), input.size(), &out);
    EXPECT_EQ(s.code(), Code::kCorruption) << "cut at " << cut << ": " << s.ToString();
    EXPECT_TRUE(out.empty());
  }
}

TEST_P(CodecRoundTripTest, WrongExpectedSizeIsCorruption) {
  auto codec = Make(GetParam());
  const std::string input = Repetitive(5000);
  std::string compressed;
  ASSERT_TRUE(codec->Compress(input, &compressed).ok());
  for (size_t expected : {input.size() - 1, input.size() + 1, size_t{0}}) {
    std::string out;
    Status s = codec->Decompress(compressed, expected, &out);
    EXPECT_EQ(s.code(), Code::kCorruption) << "expected " << expected;
    EXPECT_TRUE(out.empty());
  }
}

TEST_P(CodecRoundTripTest, ConcurrentCallsAreIndependent) {
  auto codec = Make(GetParam());
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        const std::string input = RandomBytes(5000, t * 100 + i) + Repetitive(5000 + i);
        std::string c, d;
        if (!codec->Compress(input, &c).ok()) return;
        if (!codec->Decompress(c, input.size(), &d).ok() || d != input) return;
      }
      ok[t] = 1;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_THAT(ok, ::testing::Each(1));
}

INSTANTIATE_TEST_SUITE_P(AllCodecs, CodecRoundTripTest,
                         ::testing::Values(CodecKind::kNone, CodecKind::kSnappy, CodecKind::kZstd,
                                           CodecKind::kGzip, CodecKind::kLz4Raw),
                         [](const auto& info) { return std::string(CodecName(info.param)); });
INSTANTIATE_TEST_SUITE_P(Compressing, CompressingCodecTest,
                         ::testing::Values(CodecKind::kSnappy, CodecKind::kZstd, CodecKind::kGzip,
                                           CodecKind::kLz4Raw),
                         [](const auto& info) { return std::string(CodecName(info.param)); });

TEST(NoneCodecTest, StoresBytesAsTheyAreAndTruncationIsCorruption) {
  auto codec = Make(CodecKind::kNone);
  const std::string input = Repetitive(100000);
  std::string stored;
  ASSERT_TRUE(codec->Compress(input, &stored).ok());
  EXPECT_EQ(stored, input);
  std::string out;
  Status s = codec->Decompress(std::string_view(stored).substr(0, 500), input.size(), &out);
  EXPECT_EQ(s.code(), Code::kCorruption) << s.ToString();
  EXPECT_TRUE(out.empty());
}

// Compresses with zlib directly into one gzip member.
std::string GzipMember(std::string_view data) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, data.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

TEST(GzipCodecTest, DecompressesConcatenatedMembers) {
  auto codec = Make(CodecKind::kGzip);
  const std::string a = Repetitive(70000), b = RandomBytes(30000, 5);
  const std::string both = GzipMember(a) + GzipMember(b) + GzipMember("");
  std::string out;
  Status s = codec->Decompress(both, a.size() + b.size(), &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(out == a + b);
  // The second member alone is too short for the total.
  std::string partial;
  EXPECT_EQ(codec->Decompress(GzipMember(a), a.size() + b.size(), &partial).code(),
            Code::kCorruption);
}

TEST(GzipCodecTest, OutputIsAGzipMember) {
  auto codec = Make(CodecKind::kGzip);
  std::string c;
  ASSERT_TRUE(codec->Compress("hello", &c).ok());
  ASSERT_GE(c.size(), 18u);
  EXPECT_EQ(static_cast<uint8_t>(c[0]), 0x1f);
  EXPECT_EQ(static_cast<uint8_t>(c[1]), 0x8b);
}

TEST(GzipCodecTest, TrailingGarbageAfterMemberIsCorruption) {
  auto codec = Make(CodecKind::kGzip);
  std::string data = GzipMember("hello") + "junk";
  std::string out;
  EXPECT_EQ(codec->Decompress(data, 5, &out).code(), Code::kCorruption);
}

TEST(CodecTest, LevelsAreValidated) {
  EXPECT_TRUE(MakeCodec(CodecKind::kZstd, 19).ok());
  EXPECT_TRUE(MakeCodec(CodecKind::kZstd, -5).ok());
  EXPECT_EQ(MakeCodec(CodecKind::kZstd, 1000).status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(MakeCodec(CodecKind::kGzip, 9).ok());
  auto bad = MakeCodec(CodecKind::kGzip, 10);
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("1..9"));
  // Levels differ in output, and both decode.
  const std::string input = Repetitive(200000) + RandomBytes(2000, 1);
  std::string fast, strong;
  ASSERT_TRUE(Make(CodecKind::kZstd, 1)->Compress(input, &fast).ok());
  ASSERT_TRUE(Make(CodecKind::kZstd, 19)->Compress(input, &strong).ok());
  EXPECT_NE(fast, strong);
  std::string out;
  ASSERT_TRUE(Make(CodecKind::kZstd)->Decompress(strong, input.size(), &out).ok());
  EXPECT_TRUE(out == input);
}

TEST(CodecTest, ParsesNamesAndAliases) {
  EXPECT_EQ(*ParseCodec("none"), CodecKind::kNone);
  EXPECT_EQ(*ParseCodec("uncompressed"), CodecKind::kNone);
  EXPECT_EQ(*ParseCodec("SNAPPY"), CodecKind::kSnappy);
  EXPECT_EQ(*ParseCodec("zstd"), CodecKind::kZstd);
  EXPECT_EQ(*ParseCodec("Gzip"), CodecKind::kGzip);
  EXPECT_EQ(*ParseCodec("lz4_raw"), CodecKind::kLz4Raw);
  EXPECT_EQ(*ParseCodec("lz4"), CodecKind::kLz4Raw);
  for (CodecKind k : {CodecKind::kNone, CodecKind::kSnappy, CodecKind::kZstd, CodecKind::kGzip,
                      CodecKind::kLz4Raw}) {
    EXPECT_EQ(*ParseCodec(CodecName(k)), k);
  }
}

TEST(CodecTest, BadNameListsTheValidOnes) {
  for (const char* name : {"brotli", "", "zstd ", "lzo"}) {
    auto r = ParseCodec(name);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
    EXPECT_THAT(r.status().message(), HasSubstr(std::string("'") + name + "'"));
    EXPECT_THAT(r.status().message(), HasSubstr("none, snappy, zstd, gzip, lz4_raw"));
  }
}

}  // namespace
}  // namespace lakedump
