// Calendar arithmetic shared by sources, writers and tests: proleptic Gregorian
// civil dates <-> days since 1970-01-01 (Howard Hinnant's algorithms), and
// decimal text. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "base/status.h"
#include "table/types.h"

namespace lakedump {

struct CivilDate {
  int64_t year;
  unsigned month;  // 1..12
  unsigned day;    // 1..31
};

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d);
CivilDate CivilFromDays(int64_t days);

// "YYYY-MM-DD" (years outside 0..9999 get a sign and as many digits as needed).
std::string FormatDate(int32_t days);
// "HH:MM:SS.ffffff"
std::string FormatTime(int64_t micros);
// "YYYY-MM-DDTHH:MM:SS.ffffff" (an escaped timestamp, below, as the time it stands for)
std::string FormatTimestamp(int64_t micros);

// Timestamps in a dump are int64 µs since 1970 (Parquet's TIMESTAMP(MICROS)), ±infinity
// INT64_MAX / -INT64_MAX (DuckDB's encoding). PostgreSQL's (µs since 2000) go on to
// 294276-12-31 23:59:59.999999, past what int64 µs since 1970 holds: from
// kPgTimestampEscapeFrom (whose µs since 1970 would be INT64_MAX, +infinity's encoding) on, a
// value is kept exactly in the escape range [INT64_MIN + 2, INT64_MIN + 2 + 945979145224193)
// (docs/type-mapping.md): INT64_MIN + 2 + its µs past kPgTimestampEscapeFrom. Real values
// never come near it (PostgreSQL's earliest, 4714-11-24 BC, is -2.1e17 µs).
inline constexpr int64_t kPgEpochMicros = 946684800000000LL;  // 2000-01-01 in µs since 1970
inline constexpr int64_t kPgTimestampEscapeFrom =
    std::numeric_limits<int64_t>::max() - kPgEpochMicros;  // µs since 2000
inline constexpr int64_t kPgTimestampEnd = 9223371331200000000LL;  // 294277-01-01, since 2000
inline constexpr int64_t kTimestampEscapeBase = std::numeric_limits<int64_t>::min() + 2;

inline bool IsTimestampEscape(int64_t micros) {
  return micros >= kTimestampEscapeBase &&
         micros - kTimestampEscapeBase < kPgTimestampEnd - kPgTimestampEscapeFrom;
}
// µs since 2000 of an escaped value. REQUIRES: IsTimestampEscape(micros).
inline int64_t PgMicrosOfEscape(int64_t micros) {
  return kPgTimestampEscapeFrom + (micros - kTimestampEscapeBase);
}
// The escape of µs since 2000 in [kPgTimestampEscapeFrom, kPgTimestampEnd).
inline int64_t EscapeOfPgMicros(int64_t pg_micros) {
  return kTimestampEscapeBase + (pg_micros - kPgTimestampEscapeFrom);
}
// A finite timestamp (escaped or not) as days since 1970 and µs into that day.
void SplitTimestamp(int64_t micros, int64_t* days, int64_t* micros_of_day);

// Unscaled decimal -> "-12.30" with exactly `scale` fraction digits.
std::string FormatDecimal(int128_t unscaled, int scale);
// FormatDecimal's text appended to *out (no temporary string).
void AppendDecimal(int128_t unscaled, int scale, std::string* out);
// "-12.3" -> unscaled value at `scale`; fails when digits are lost or it does not
// fit `precision`.
Result<int128_t> ParseDecimal(std::string_view text, int precision, int scale);
// 10^n for n in 0..38.
int128_t Pow10(int n);

}  // namespace lakedump
