// Parsing and printing of sizes and durations as users write them.
// Stateless functions; thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace lakedump {

// "16MiB", "8MB", "1.5GiB", "4096", "64k" -> bytes. Binary (KiB, MiB, GiB, TiB, and the
// single letters K, M, G, T) are powers of 1024; decimal (KB, MB, GB, TB) powers of 1000.
// Errors name the text: `invalid size "12XB": unknown unit "XB"`.
Result<uint64_t> ParseSize(std::string_view text);

// "30s", "1h", "15m", "500ms", "2d" -> duration.
Result<std::chrono::milliseconds> ParseDuration(std::string_view text);

// 1536 -> "1.5 KiB".
std::string FormatBytes(uint64_t bytes);
// 1234567 -> "1.23 M".
std::string FormatCount(double count);
// 3723.5s -> "1h02m03s"; under a minute "12.3s".
std::string FormatSeconds(double seconds);

}  // namespace lakedump
