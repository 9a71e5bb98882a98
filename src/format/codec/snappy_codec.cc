// Snappy raw format (no framing), as Parquet's SNAPPY.
#include <snappy.h>

#include "format/codec/codec_impls.h"

namespace lakedump::codec_internal {
namespace {

class SnappyCodec final : public Codec {
 public:
  CodecKind kind() const override { return CodecKind::kSnappy; }

  Status Compress(std::string_view input, std::string* out) const override {
    const size_t old = out->size();
    out->resize(old + snappy::MaxCompressedLength(input.size()));
    size_t n = 0;
    snappy::RawCompress(input.data(), input.size(), out->data() + old, &n);
    out->resize(old + n);
    return Status::OK();
  }

  size_t MaxCompressedLength(size_t input_size) const override {
    return snappy::MaxCompressedLength(input_size);
  }

  Result<size_t> CompressInto(std::string_view input, char* dst, size_t capacity) const override {
    if (capacity < snappy::MaxCompressedLength(input.size())) {
      return Status::Internal("snappy: output buffer below MaxCompressedLength");
    }
    size_t n = 0;
    snappy::RawCompress(input.data(), input.size(), dst, &n);
    return n;
  }

  Status Decompress(std::string_view input, size_t uncompressed_size,
                    std::string* out) const override {
    return AppendViaDecompressTo(input, uncompressed_size, out);
  }

  Status DecompressTo(std::string_view input, size_t uncompressed_size,
                      char* out) const override {
    size_t declared = 0;
    if (!snappy::GetUncompressedLength(input.data(), input.size(), &declared)) {
      return CorruptInput("snappy", "bad length header");
    }
    if (declared != uncompressed_size) {
      return CorruptInput("snappy", "data decompresses to " + std::to_string(declared) +
                                        " bytes, expected " + std::to_string(uncompressed_size));
    }
    // RawUncompress validates every copy against the declared length, so garbage
    // input fails instead of writing out of bounds.
    if (!snappy::RawUncompress(input.data(), input.size(), out)) {
      return CorruptInput("snappy", "invalid compressed stream");
    }
    return Status::OK();
  }
};

}  // namespace

std::unique_ptr<Codec> MakeSnappyCodec() { return std::make_unique<SnappyCodec>(); }

}  // namespace lakedump::codec_internal
