// Helpers for column statistics: truncation of long byte-array min/max values
// (never splitting a UTF-8 character for text) and the sort-order comparisons
// Parquet defines per type. Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace lakedump::parquet {

// Longest min/max value written to statistics.
inline constexpr size_t kMaxStatBytes = 64;

// A lower bound of `v` at most `limit` bytes long: a prefix. *exact tells
// whether it equals v.
std::string TruncateMin(std::string_view v, size_t limit, bool utf8, bool* exact);
// An upper bound of `v` at most about `limit` bytes long: a prefix whose last
// character (utf8) or byte is incremented; nullopt when no bound exists (all 0xff).
std::optional<std::string> TruncateMax(std::string_view v, size_t limit, bool utf8, bool* exact);

// Length of the longest prefix of s[0..limit) that ends on a UTF-8 character boundary.
size_t Utf8PrefixLength(std::string_view s, size_t limit);

}  // namespace lakedump::parquet
