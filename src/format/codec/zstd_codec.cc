// Zstandard frames, as Parquet's ZSTD. One context per thread, reused across
// calls: creating a context costs more than compressing a small page.
#include <zstd.h>

#include <memory>

#include "format/codec/codec_impls.h"

namespace lakedump::codec_internal {
namespace {

struct CCtxDeleter {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct DCtxDeleter {
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

ZSTD_CCtx* ThreadCCtx() {
  thread_local std::unique_ptr<ZSTD_CCtx, CCtxDeleter> ctx(ZSTD_createCCtx());
  return ctx.get();
}

ZSTD_DCtx* ThreadDCtx() {
  thread_local std::unique_ptr<ZSTD_DCtx, DCtxDeleter> ctx(ZSTD_createDCtx());
  return ctx.get();
}

class ZstdCodec final : public Codec {
 public:
  explicit ZstdCodec(int level) : level_(level) {}
  CodecKind kind() const override { return CodecKind::kZstd; }

  Status Compress(std::string_view input, std::string* out) const override {
    ZSTD_CCtx* ctx = ThreadCCtx();
    if (ctx == nullptr) return Status::Internal("zstd: cannot allocate a compression context");
    const size_t old = out->size();
    out->resize(old + ZSTD_compressBound(input.size()));
    const size_t n = ZSTD_compressCCtx(ctx, out->data() + old, out->size() - old, input.data(),
                                       input.size(), level_);
    if (ZSTD_isError(n)) {
      out->resize(old);
      return Status::Internal(std::string("zstd: compression failed: ") + ZSTD_getErrorName(n));
    }
    out->resize(old + n);
    return Status::OK();
  }

  size_t MaxCompressedLength(size_t input_size) const override {
    return ZSTD_compressBound(input_size);
  }

  Result<size_t> CompressInto(std::string_view input, char* dst, size_t capacity) const override {
    ZSTD_CCtx* ctx = ThreadCCtx();
    if (ctx == nullptr) return Status::Internal("zstd: cannot allocate a compression context");
    const size_t n = ZSTD_compressCCtx(ctx, dst, capacity, input.data(), input.size(), level_);
    if (ZSTD_isError(n)) {
      return Status::Internal(std::string("zstd: compression failed: ") + ZSTD_getErrorName(n));
    }
    return n;
  }

  Status Decompress(std::string_view input, size_t uncompressed_size,
                    std::string* out) const override {
    return AppendViaDecompressTo(input, uncompressed_size, out);
  }

  Status DecompressTo(std::string_view input, size_t uncompressed_size,
                      char* out) const override {
    ZSTD_DCtx* ctx = ThreadDCtx();
    if (ctx == nullptr) return Status::Internal("zstd: cannot allocate a decompression context");
    // Decodes every frame in `input`; fails (dstSize_tooSmall) rather than writing
    // past uncompressed_size when the data claims more.
    const size_t n =
        ZSTD_decompressDCtx(ctx, out, uncompressed_size, input.data(), input.size());
    if (ZSTD_isError(n)) return CorruptInput("zstd", ZSTD_getErrorName(n));
    if (n != uncompressed_size) {
      return CorruptInput("zstd", "data decompresses to " + std::to_string(n) +
                                      " bytes, expected " + std::to_string(uncompressed_size));
    }
    return Status::OK();
  }

 private:
  const int level_;
};

}  // namespace

std::unique_ptr<Codec> MakeZstdCodec(int level) { return std::make_unique<ZstdCodec>(level); }

}  // namespace lakedump::codec_internal

namespace lakedump {

Result<uint64_t> ZstdDeclaredSize(std::string_view input) {
  const unsigned long long size = ZSTD_getFrameContentSize(input.data(), input.size());
  if (size == ZSTD_CONTENTSIZE_ERROR) return Status::Corruption("not zstd data");
  if (size == ZSTD_CONTENTSIZE_UNKNOWN) {
    return Status::Corruption("zstd data that does not declare its size");
  }
  return static_cast<uint64_t>(size);
}

}  // namespace lakedump
