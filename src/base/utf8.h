// UTF-8 validation shared by sources, the Parquet writer and object keys.
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string_view>

namespace lakedump {

// Index of the first byte of the first invalid sequence (overlongs, surrogates and code points
// past U+10FFFF are invalid), or std::string_view::npos when `s` is well-formed.
size_t FirstInvalidUtf8(std::string_view s);
inline bool IsValidUtf8(std::string_view s) { return FirstInvalidUtf8(s) == std::string_view::npos; }

}  // namespace lakedump
