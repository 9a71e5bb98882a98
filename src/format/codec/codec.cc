// The five Parquet page codecs. Each call owns its own library context, so a
// Codec object is stateless and thread-safe.
//   snappy: raw snappy block.  zstd: one zstd frame.  gzip: RFC 1952 member
//   (zlib windowBits 31).  lz4_raw: LZ4 block format, no framing.
#include "format/codec/codec.h"

#include <lz4.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <fmt/format.h>

namespace lakedump {
namespace {

class NoneCodec final : public Codec {
 public:
  CodecKind kind() const override { return CodecKind::kNone; }
  Status Compress(std::string_view input, std::string* out) const override {
    out->append(input);
    return Status::OK();
  }
  Status Decompress(std::string_view input, size_t size, std::string* out) const override {
    if (input.size() != size) {
      return Status::Corruption(fmt::format("uncompressed page has {} bytes, expected {}",
                                            input.size(), size));
    }
    out->append(input);
    return Status::OK();
  }
};

class SnappyCodec final : public Codec {
 public:
  CodecKind kind() const override { return CodecKind::kSnappy; }
  Status Compress(std::string_view input, std::string* out) const override {
    const size_t at = out->size();
    out->resize(at + snappy::MaxCompressedLength(input.size()));
    size_t n = 0;
    snappy::RawCompress(input.data(), input.size(), out->data() + at, &n);
    out->resize(at + n);
    return Status::OK();
  }
  Status Decompress(std::string_view input, size_t size, std::string* out) const override {
    size_t actual = 0;
    if (!snappy::GetUncompressedLength(input.data(), input.size(), &actual) || actual != size) {
      return Status::Corruption("snappy: bad uncompressed length");
    }
    const size_t at = out->size();
    out->resize(at + size);
    if (!snappy::RawUncompress(input.data(), input.size(), out->data() + at)) {
      out->resize(at);
      return Status::Corruption("snappy: corrupt input");
    }
    return Status::OK();
  }
};

class ZstdCodec final : public Codec {
 public:
  explicit ZstdCodec(int level) : level_(level == 0 ? 3 : level) {}
  CodecKind kind() const override { return CodecKind::kZstd; }
  Status Compress(std::string_view input, std::string* out) const override {
    const size_t at = out->size();
    out->resize(at + ZSTD_compressBound(input.size()));
    // A context per thread: creating one per call costs more than small pages.
    thread_local std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> ctx(ZSTD_createCCtx(),
                                                                         ZSTD_freeCCtx);
    size_t n = ZSTD_compressCCtx(ctx.get(), out->data() + at, out->size() - at, input.data(),
                                 input.size(), level_);
    if (ZSTD_isError(n)) {
      out->resize(at);
      return Status::Internal(std::string("zstd: ") + ZSTD_getErrorName(n));
    }
    out->resize(at + n);
    return Status::OK();
  }
  Status Decompress(std::string_view input, size_t size, std::string* out) const override {
    const size_t at = out->size();
    out->resize(at + size);
    size_t n = ZSTD_decompress(out->data() + at, size, input.data(), input.size());
    if (ZSTD_isError(n) || n != size) {
      out->resize(at);
      return Status::Corruption("zstd: corrupt input or wrong size");
    }
    return Status::OK();
  }

 private:
  int level_;
};

class GzipCodec final : public Codec {
 public:
  explicit GzipCodec(int level) : level_(level == 0 ? 6 : level) {}
  CodecKind kind() const override { return CodecKind::kGzip; }
  Status Compress(std::string_view input, std::string* out) const override {
    z_stream zs{};
    if (deflateInit2(&zs, level_, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      return Status::Internal("gzip: deflateInit2 failed");
    }
    const size_t at = out->size();
    out->resize(at + deflateBound(&zs, input.size()) + 32);
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
    zs.avail_in = static_cast<uInt>(input.size());
    zs.next_out = reinterpret_cast<Bytef*>(out->data() + at);
    zs.avail_out = static_cast<uInt>(out->size() - at);
    int rc = deflate(&zs, Z_FINISH);
    size_t n = zs.total_out;
    deflateEnd(&zs);
    if (rc != Z_STREAM_END) {
      out->resize(at);
      return Status::Internal("gzip: deflate failed");
    }
    out->resize(at + n);
    return Status::OK();
  }
  Status Decompress(std::string_view input, size_t size, std::string* out) const override {
    z_stream zs{};
    if (inflateInit2(&zs, 31) != Z_OK) return Status::Internal("gzip: inflateInit2 failed");
    const size_t at = out->size();
    out->resize(at + size);
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
    zs.avail_in = static_cast<uInt>(input.size());
    zs.next_out = reinterpret_cast<Bytef*>(out->data() + at);
    zs.avail_out = static_cast<uInt>(size);
    int rc = inflate(&zs, Z_FINISH);
    size_t n = zs.total_out;
    inflateEnd(&zs);
    if (rc != Z_STREAM_END || n != size) {
      out->resize(at);
      return Status::Corruption("gzip: corrupt input or wrong size");
    }
    return Status::OK();
  }

 private:
  int level_;
};

class Lz4RawCodec final : public Codec {
 public:
  CodecKind kind() const override { return CodecKind::kLz4Raw; }
  Status Compress(std::string_view input, std::string* out) const override {
    if (input.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
      return Status::InvalidArgument("lz4_raw: page too large");
    }
    const size_t at = out->size();
    out->resize(at + LZ4_compressBound(static_cast<int>(input.size())));
    int n = LZ4_compress_default(input.data(), out->data() + at, static_cast<int>(input.size()),
                                 static_cast<int>(out->size() - at));
    if (n <= 0 && !input.empty()) {
      out->resize(at);
      return Status::Internal("lz4_raw: compression failed");
    }
    out->resize(at + static_cast<size_t>(n));
    return Status::OK();
  }
  Status Decompress(std::string_view input, size_t size, std::string* out) const override {
    const size_t at = out->size();
    out->resize(at + size);
    int n = LZ4_decompress_safe(input.data(), out->data() + at, static_cast<int>(input.size()),
                                static_cast<int>(size));
    if (n < 0 || static_cast<size_t>(n) != size) {
      out->resize(at);
      return Status::Corruption("lz4_raw: corrupt input or wrong size");
    }
    return Status::OK();
  }
};

}  // namespace

Result<CodecKind> ParseCodec(std::string_view name) {
  if (name == "none" || name == "uncompressed") return CodecKind::kNone;
  if (name == "snappy") return CodecKind::kSnappy;
  if (name == "zstd") return CodecKind::kZstd;
  if (name == "gzip") return CodecKind::kGzip;
  if (name == "lz4_raw" || name == "lz4") return CodecKind::kLz4Raw;
  return Status::InvalidArgument(fmt::format(
      "unknown codec \"{}\": use none, snappy, zstd, gzip or lz4_raw", name));
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

Result<std::unique_ptr<Codec>> MakeCodec(CodecKind kind, int level) {
  switch (kind) {
    case CodecKind::kNone: return std::unique_ptr<Codec>(new NoneCodec());
    case CodecKind::kSnappy: return std::unique_ptr<Codec>(new SnappyCodec());
    case CodecKind::kZstd: return std::unique_ptr<Codec>(new ZstdCodec(level));
    case CodecKind::kGzip: return std::unique_ptr<Codec>(new GzipCodec(level));
    case CodecKind::kLz4Raw: return std::unique_ptr<Codec>(new Lz4RawCodec());
  }
  return Status::InvalidArgument("unknown codec");
}

}  // namespace lakedump
