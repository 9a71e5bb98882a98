// Factories for the concrete codecs; MakeCodec() in codec.cc is the only caller.
// Each codec is immutable after construction; Compress/Decompress are thread-safe.
#pragma once

#include <memory>

#include "format/codec/codec.h"

namespace lakedump::codec_internal {

std::unique_ptr<Codec> MakeNoneCodec();
std::unique_ptr<Codec> MakeSnappyCodec();
std::unique_ptr<Codec> MakeZstdCodec(int level);  // REQUIRES: a valid zstd level, not 0
std::unique_ptr<Codec> MakeGzipCodec(int level);  // REQUIRES: 1..9
std::unique_ptr<Codec> MakeLz4RawCodec();

// "<codec>: <what>", as Corruption. Every codec reports damaged input through this.
Status CorruptInput(std::string_view codec, std::string_view what);

}  // namespace lakedump::codec_internal
