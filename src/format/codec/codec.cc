#include "format/codec/codec.h"

#include <cstring>

#include <zstd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>

#include "base/ascii.h"
#include "format/codec/codec_impls.h"

namespace lakedump {
namespace {

constexpr std::string_view kValidNames = "none, snappy, zstd, gzip, lz4_raw";

// Copies bytes through unchanged; Parquet's UNCOMPRESSED.
class NoneCodec final : public Codec {
 public:
  CodecKind kind() const override { return CodecKind::kNone; }
  Status Compress(std::string_view input, std::string* out) const override {
    out->append(input);
    return Status::OK();
  }
  Status Decompress(std::string_view input, size_t uncompressed_size,
                    std::string* out) const override {
    if (input.size() != uncompressed_size) {
      return codec_internal::CorruptInput(
          "none", "page holds " + std::to_string(input.size()) + " bytes, expected " +
                      std::to_string(uncompressed_size));
    }
    out->append(input);
    return Status::OK();
  }
};

}  // namespace

Status Codec::DecompressTo(std::string_view input, size_t uncompressed_size, char* out) const {
  std::string tmp;
  LD_RETURN_IF_ERROR(Decompress(input, uncompressed_size, &tmp));
  if (!tmp.empty()) std::memcpy(out, tmp.data(), tmp.size());
  return Status::OK();
}

Status Codec::AppendViaDecompressTo(std::string_view input, size_t uncompressed_size,
                                    std::string* out) const {
  const size_t old = out->size();
  out->resize(old + uncompressed_size);
  Status s = DecompressTo(input, uncompressed_size, out->data() + old);
  if (!s.ok()) out->resize(old);
  return s;
}

namespace codec_internal {

std::unique_ptr<Codec> MakeNoneCodec() { return std::make_unique<NoneCodec>(); }

Status CorruptInput(std::string_view codec, std::string_view what) {
  std::string msg(codec);
  msg.append(": corrupt compressed data: ").append(what);
  return Status::Corruption(std::move(msg));
}

}  // namespace codec_internal

Result<CodecKind> ParseCodec(std::string_view name) {
  const std::string n = AsciiLower(name);
  if (n == "none" || n == "uncompressed") return CodecKind::kNone;
  if (n == "snappy") return CodecKind::kSnappy;
  if (n == "zstd") return CodecKind::kZstd;
  if (n == "gzip") return CodecKind::kGzip;
  if (n == "lz4_raw" || n == "lz4") return CodecKind::kLz4Raw;
  return Status::InvalidArgument("unknown compression codec '" + std::string(name) +
                                 "'; valid codecs: " + std::string(kValidNames));
}

std::string_view CodecName(CodecKind kind) {
  switch (kind) {
    case CodecKind::kNone: return "none";
    case CodecKind::kSnappy: return "snappy";
    case CodecKind::kZstd: return "zstd";
    case CodecKind::kGzip: return "gzip";
    case CodecKind::kLz4Raw: return "lz4_raw";
  }
  return "unknown";
}

size_t Codec::MaxCompressedLength(size_t input_size) const {
  // Generous for every codec here: stored blocks add a few bytes per 64 KiB.
  return input_size + input_size / 8 + 1024;
}

Result<size_t> Codec::CompressInto(std::string_view input, char* dst, size_t capacity) const {
  std::string tmp;
  LD_RETURN_IF_ERROR(Compress(input, &tmp));
  if (tmp.size() > capacity) {
    return Status::Internal(std::string(CodecName(kind())) + ": compressed page of " +
                            std::to_string(tmp.size()) + " bytes exceeds its bound of " +
                            std::to_string(capacity));
  }
  std::memcpy(dst, tmp.data(), tmp.size());
  return tmp.size();
}

// Levels are ignored by codecs that have none (none, snappy, lz4_raw).
Result<std::unique_ptr<Codec>> MakeCodec(CodecKind kind, int level) {
  switch (kind) {
    case CodecKind::kNone: return codec_internal::MakeNoneCodec();
    case CodecKind::kSnappy: return codec_internal::MakeSnappyCodec();
    case CodecKind::kLz4Raw: return codec_internal::MakeLz4RawCodec();
    case CodecKind::kZstd: {
      // Default 1, not zstd's own 3: on the Parquet benchmark tables (bench/,
      // docs/performance.md) level 1 pages compress as small as level 3's or
      // smaller (dictionary indices and plain values leave zstd little that
      // level 3's longer searches find) for about 30% less CPU.
      if (level == 0) level = 1;
      if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) {
        return Status::InvalidArgument("zstd level " + std::to_string(level) +
                                       " is out of range; use " +
                                       std::to_string(ZSTD_minCLevel()) + ".." +
                                       std::to_string(ZSTD_maxCLevel()));
      }
      return codec_internal::MakeZstdCodec(level);
    }
    case CodecKind::kGzip: {
      if (level == 0) level = 6;
      if (level < 1 || level > 9) {
        return Status::InvalidArgument("gzip level " + std::to_string(level) +
                                       " is out of range; use 1..9");
      }
      return codec_internal::MakeGzipCodec(level);
    }
  }
  return Status::InvalidArgument("unknown codec kind " +
                                 std::to_string(static_cast<int>(kind)));
}

}  // namespace lakedump
