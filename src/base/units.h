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
// The number is plain digits with at most one '.' (no sign, exponent or hex); whole numbers
// are exact, fractions round to the nearest byte. Errors name the text: `invalid size "12XB":
// unknown unit "XB"`, `invalid size "-5": expected a number...`, `... too large` past 2^64-1.
Result<uint64_t> ParseSize(std::string_view text);

// "30s", "1h", "15m", "500ms", "2d" -> duration (same number rules as ParseSize; a bare
// number is seconds).
Result<std::chrono::milliseconds> ParseDuration(std::string_view text);

// 1536 -> "1.5 KiB".
std::string FormatBytes(uint64_t bytes);
// 1234567 -> "1.23 M".
std::string FormatCount(double count);
// 3723.5s -> "1h02m03s"; under a minute "12.3s".
std::string FormatSeconds(double seconds);

}  // namespace lakedump
