// RFC 1952 gzip through zlib, as Parquet's GZIP. Decompression accepts several
// concatenated gzip members (some writers emit them) and, leniently, zlib streams.
#include <zlib.h>

#include <algorithm>
#include <climits>

#include "format/codec/codec_impls.h"

namespace lakedump::codec_internal {
namespace {

constexpr int kGzipWindowBits = 15 + 16;  // gzip wrapper
constexpr int kAutoWindowBits = 15 + 32;  // gzip or zlib, detected from the header
constexpr size_t kMaxChunk = UINT_MAX;    // zlib counts bytes in uInt

struct DeflateStream {
  z_stream z{};
  bool live = false;
  ~DeflateStream() {
    if (live) deflateEnd(&z);
  }
};

struct InflateStream {
  z_stream z{};
  bool live = false;
  ~InflateStream() {
    if (live) inflateEnd(&z);
  }
};

class GzipCodec final : public Codec {
 public:
  explicit GzipCodec(int level) : level_(level) {}
  CodecKind kind() const override { return CodecKind::kGzip; }

  Status Compress(std::string_view input, std::string* out) const override {
    DeflateStream s;
    if (deflateInit2(&s.z, level_, Z_DEFLATED, kGzipWindowBits, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      return Status::Internal("gzip: cannot initialize the compressor");
    }
    s.live = true;
    const size_t old = out->size();
    // deflateBound covers the whole input in one call; the gzip header and
    // trailer are included because the stream was set up as gzip.
    size_t cap = deflateBound(&s.z, static_cast<uLong>(std::min(input.size(), kMaxChunk)));
    if (input.size() > kMaxChunk) cap = input.size() + input.size() / 1000 + 1024;
    out->resize(old + cap);
    size_t in_pos = 0;
    size_t out_pos = old;
    int ret = Z_OK;
    while (ret != Z_STREAM_END) {
      const size_t in_chunk = std::min(input.size() - in_pos, kMaxChunk);
      s.z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data() + in_pos));
      s.z.avail_in = static_cast<uInt>(in_chunk);
      if (out_pos == out->size()) out->resize(out->size() + out->size() / 2 + 64);
      const size_t out_chunk = std::min(out->size() - out_pos, kMaxChunk);
      s.z.next_out = reinterpret_cast<Bytef*>(out->data() + out_pos);
      s.z.avail_out = static_cast<uInt>(out_chunk);
      const bool last = in_pos + in_chunk == input.size();
      ret = deflate(&s.z, last ? Z_FINISH : Z_NO_FLUSH);
      if (ret != Z_OK && ret != Z_STREAM_END && ret != Z_BUF_ERROR) {
        out->resize(old);
        return Status::Internal("gzip: compression failed (zlib error " + std::to_string(ret) +
                                ")");
      }
      in_pos += in_chunk - s.z.avail_in;
      out_pos += out_chunk - s.z.avail_out;
    }
    out->resize(out_pos);
    return Status::OK();
  }

  Status Decompress(std::string_view input, size_t uncompressed_size,
                    std::string* out) const override {
    const size_t old = out->size();
    out->resize(old + uncompressed_size);
    Status s = Inflate(input, out->data() + old, uncompressed_size);
    if (!s.ok()) out->resize(old);
    return s;
  }

 private:
  static Status Inflate(std::string_view input, char* dst, size_t dst_size) {
    if (input.empty()) return CorruptInput("gzip", "empty input");
    InflateStream s;
    if (inflateInit2(&s.z, kAutoWindowBits) != Z_OK) {
      return Status::Internal("gzip: cannot initialize the decompressor");
    }
    s.live = true;
    size_t in_pos = 0;
    size_t out_pos = 0;
    bool member_done = false;
    // A spare byte of output detects data longer than expected.
    char spare = 0;
    while (true) {
      if (member_done) {
        if (in_pos == input.size()) break;
        if (inflateReset(&s.z) != Z_OK) return Status::Internal("gzip: inflateReset failed");
        member_done = false;
      }
      const size_t in_chunk = std::min(input.size() - in_pos, kMaxChunk);
      s.z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data() + in_pos));
      s.z.avail_in = static_cast<uInt>(in_chunk);
      const bool into_spare = out_pos == dst_size;
      const size_t out_chunk = into_spare ? 1 : std::min(dst_size - out_pos, kMaxChunk);
      s.z.next_out = reinterpret_cast<Bytef*>(into_spare ? &spare : dst + out_pos);
      s.z.avail_out = static_cast<uInt>(out_chunk);
      const int ret = inflate(&s.z, Z_NO_FLUSH);
      const size_t consumed = in_chunk - s.z.avail_in;
      const size_t produced = out_chunk - s.z.avail_out;
      in_pos += consumed;
      if (into_spare && produced > 0) {
        return CorruptInput("gzip", "data decompresses to more than the expected " +
                                        std::to_string(dst_size) + " bytes");
      }
      out_pos += into_spare ? 0 : produced;
      if (ret == Z_STREAM_END) {
        member_done = true;
        continue;
      }
      if (ret == Z_NEED_DICT || ret == Z_DATA_ERROR) {
        return CorruptInput("gzip", s.z.msg != nullptr ? s.z.msg : "invalid deflate stream");
      }
      if (ret == Z_MEM_ERROR) return Status::Internal("gzip: out of memory");
      if (consumed == 0 && produced == 0) {
        // No progress: the input ended inside a member.
        return CorruptInput("gzip", "truncated stream");
      }
    }
    if (out_pos != dst_size) {
      return CorruptInput("gzip", "data decompresses to " + std::to_string(out_pos) +
                                      " bytes, expected " + std::to_string(dst_size));
    }
    return Status::OK();
  }

  const int level_;
};

}  // namespace

std::unique_ptr<Codec> MakeGzipCodec(int level) { return std::make_unique<GzipCodec>(level); }

}  // namespace lakedump::codec_internal
