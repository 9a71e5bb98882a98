// Text forms SQLite databases use for values SQLite has no storage class for
// (dates, times, timestamps, UUIDs), and the number-to-text renderings the
// SQLite source needs. Strict parsers: a value either parses completely and
// losslessly or is rejected. Pure functions; thread-safe.
#pragma once

#include "base/utf8.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "table/types.h"

namespace lakedump {

// "YYYY-MM-DD" (exactly four year digits) -> days since 1970-01-01.
std::optional<int32_t> ParseSqliteDate(std::string_view text);

// "HH:MM", "HH:MM:SS" or "HH:MM:SS.f" (1..9 fraction digits; digits past the
// sixth must be zero) -> microseconds since midnight.
std::optional<int64_t> ParseSqliteTime(std::string_view text);

struct ParsedTimestamp {
  int64_t micros;   // since 1970-01-01 00:00:00, already shifted to UTC when has_offset
  bool has_offset;  // the text ended in Z or +HH:MM / -HH:MM / +HHMM / +HH
};
// "YYYY-MM-DD", "YYYY-MM-DD HH:MM[:SS[.f]]" or the same with 'T' between date
// and time, optionally followed by "Z" or a UTC offset.
std::optional<ParsedTimestamp> ParseSqliteTimestamp(std::string_view text);

// "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" or 32 hex digits, either case,
// optionally in braces.
std::optional<Uuid> ParseUuidText(std::string_view text);


// Shortest text that reads back as the same double ("1.5", "1e+300"); "1.0"
// for integral values the way SQLite renders them; "Inf"/"-Inf" as SQLite does.
// Writes into buf (at least kDoubleTextSize bytes) and returns the view.
inline constexpr size_t kDoubleTextSize = 64;
std::string_view DoubleToSqliteText(double v, char* buf);

// The shortest round-trip text of v in plain positional notation (no
// exponent), for decimal conversion. buf needs kFixedDoubleTextSize bytes.
inline constexpr size_t kFixedDoubleTextSize = 400;
std::string_view DoubleToFixedText(double v, char* buf);

// The text forms `load` writes into SQLite (and the SQLite source reads back as the same
// value): "YYYY-MM-DD HH:MM:SS[.ffffff]" (fraction without trailing zeros; 'T' and a
// trailing 'Z' when utc), "HH:MM:SS[.f]".
std::string SqliteTimestampText(int64_t micros, bool utc);
std::string SqliteTimeText(int64_t micros);

// The double whose shortest text is the float's (0.1f -> 0.1, not 0.100000001490116): reads
// back as the same float, and looks like it. REQUIRES: f is not NaN.
double FloatForSqlite(float f);

}  // namespace lakedump
