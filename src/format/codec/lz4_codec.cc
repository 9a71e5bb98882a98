// LZ4 block format without a frame, as Parquet's LZ4_RAW.
#include <lz4.h>

#include <algorithm>

#include "format/codec/codec_impls.h"

namespace lakedump::codec_internal {
namespace {

class Lz4RawCodec final : public Codec {
 public:
  CodecKind kind() const override { return CodecKind::kLz4Raw; }

  Status Compress(std::string_view input, std::string* out) const override {
    if (input.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
      return Status::InvalidArgument("lz4_raw: page of " + std::to_string(input.size()) +
                                     " bytes exceeds the LZ4 block limit of " +
                                     std::to_string(LZ4_MAX_INPUT_SIZE) + " bytes");
    }
    const int src_size = static_cast<int>(input.size());
    const int bound = LZ4_compressBound(src_size);
    const size_t old = out->size();
    out->resize(old + static_cast<size_t>(bound));
    const int n = LZ4_compress_default(input.data(), out->data() + old, src_size, bound);
    if (n <= 0) {
      out->resize(old);
      return Status::Internal("lz4_raw: compression failed");
    }
    out->resize(old + static_cast<size_t>(n));
    return Status::OK();
  }

  size_t MaxCompressedLength(size_t input_size) const override {
    if (input_size > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) return input_size + 1024;
    return static_cast<size_t>(LZ4_compressBound(static_cast<int>(input_size)));
  }

  Result<size_t> CompressInto(std::string_view input, char* dst, size_t capacity) const override {
    if (input.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
      return Status::InvalidArgument("lz4_raw: page of " + std::to_string(input.size()) +
                                     " bytes exceeds the LZ4 block limit of " +
                                     std::to_string(LZ4_MAX_INPUT_SIZE) + " bytes");
    }
    const int cap = static_cast<int>(std::min<size_t>(capacity, INT32_MAX));
    const int n = LZ4_compress_default(input.data(), dst, static_cast<int>(input.size()), cap);
    if (n <= 0) return Status::Internal("lz4_raw: compression failed");
    return static_cast<size_t>(n);
  }

  Status Decompress(std::string_view input, size_t uncompressed_size,
                    std::string* out) const override {
    if (input.size() > static_cast<size_t>(INT32_MAX) ||
        uncompressed_size >= static_cast<size_t>(INT32_MAX)) {
      return CorruptInput("lz4_raw", "block larger than 2 GiB");
    }
    const size_t old = out->size();
    // One spare byte so that an empty expected output still has a valid pointer
    // and a stream that would produce more than expected is caught below.
    out->resize(old + uncompressed_size + 1);
    const int n = LZ4_decompress_safe(input.data(), out->data() + old,
                                      static_cast<int>(input.size()),
                                      static_cast<int>(uncompressed_size + 1));
    if (n < 0) {
      out->resize(old);
      return CorruptInput("lz4_raw", "invalid block");
    }
    if (static_cast<size_t>(n) != uncompressed_size) {
      out->resize(old);
      return CorruptInput("lz4_raw", "data decompresses to " + std::to_string(n) +
                                         (static_cast<size_t>(n) > uncompressed_size ? "+" : "") +
                                         " bytes, expected " +
                                         std::to_string(uncompressed_size));
    }
    out->resize(old + uncompressed_size);
    return Status::OK();
  }
};

}  // namespace

std::unique_ptr<Codec> MakeLz4RawCodec() { return std::make_unique<Lz4RawCodec>(); }

}  // namespace lakedump::codec_internal
