// Compression codecs for Parquet pages behind one interface.
// Codec objects are stateless or own per-call state only: Compress/Decompress
// are thread-safe (each call uses its own context).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace lakedump {

enum class CodecKind : uint8_t { kNone, kSnappy, kZstd, kGzip, kLz4Raw };

// "none"/"uncompressed", "snappy", "zstd", "gzip", "lz4_raw"/"lz4".
Result<CodecKind> ParseCodec(std::string_view name);
std::string_view CodecName(CodecKind kind);

class Codec {
 public:
  virtual ~Codec() = default;
  virtual CodecKind kind() const = 0;
  // Appends the compressed form of `input` to *out.
  virtual Status Compress(std::string_view input, std::string* out) const = 0;
  // Upper bound of the compressed size of `input_size` bytes (for CompressInto).
  virtual size_t MaxCompressedLength(size_t input_size) const;
  // Compresses into dst[0..capacity) (capacity >= MaxCompressedLength(input.size()))
  // and returns the compressed size. Lets a caller reuse one scratch buffer
  // without the zero-filling that growing a std::string costs. The default goes
  // through Compress() and copies.
  virtual Result<size_t> CompressInto(std::string_view input, char* dst, size_t capacity) const;
  // Appends exactly `uncompressed_size` bytes to *out, or fails with Corruption.
  virtual Status Decompress(std::string_view input, size_t uncompressed_size,
                            std::string* out) const = 0;
  // Writes exactly `uncompressed_size` bytes to out[0, uncompressed_size) (a buffer the
  // caller reuses: nothing is zero-filled first), or fails with Corruption (out's contents
  // are then unspecified). The default goes through Decompress and copies.
  virtual Status DecompressTo(std::string_view input, size_t uncompressed_size,
                              char* out) const;

 protected:
  // Decompress() for codecs whose native form is DecompressTo(): grows *out by
  // `uncompressed_size`, decompresses into the new bytes, shrinks back on failure.
  Status AppendViaDecompressTo(std::string_view input, size_t uncompressed_size,
                               std::string* out) const;
};

// level 0 = the codec's default (zstd 1, gzip 6; see codec.cc for why zstd 1).
Result<std::unique_ptr<Codec>> MakeCodec(CodecKind kind, int level = 0);

// The decompressed size a zstd frame declares in its header, or Corruption when `input` does
// not start with a zstd frame that declares one (what a caller bounds before decompressing a
// document it did not write; the decompression itself then fails on any other size).
Result<uint64_t> ZstdDeclaredSize(std::string_view input);

}  // namespace lakedump
