// Temporary stand-in (branch dump only) until src/format/codec/codec.cc lands.
#include "format/codec/codec.h"

namespace lakedump {

Result<CodecKind> ParseCodec(std::string_view name) {
  if (name == "none" || name == "uncompressed") return CodecKind::kNone;
  if (name == "snappy") return CodecKind::kSnappy;
  if (name == "zstd") return CodecKind::kZstd;
  if (name == "gzip") return CodecKind::kGzip;
  if (name == "lz4" || name == "lz4_raw") return CodecKind::kLz4Raw;
  return Status::InvalidArgument("unknown codec " + std::string(name));
}

std::string_view CodecName(CodecKind kind) {
  switch (kind) {
    case CodecKind::kNone: return "none";
    case CodecKind::kSnappy: return "snappy";
    case CodecKind::kZstd: return "zstd";
    case CodecKind::kGzip: return "gzip";
    case CodecKind::kLz4Raw: return "lz4_raw";
  }
  return "none";
}

Result<std::unique_ptr<Codec>> MakeCodec(CodecKind, int) {
  return Status::Unimplemented("codecs are not built in this branch yet");
}

}  // namespace lakedump
