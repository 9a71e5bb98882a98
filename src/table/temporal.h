// Calendar arithmetic shared by sources, writers and tests: proleptic Gregorian
// civil dates <-> days since 1970-01-01 (Howard Hinnant's algorithms), and
// decimal text. Pure functions; thread-safe.
#pragma once

#include <cstdint>
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
// "YYYY-MM-DDTHH:MM:SS.ffffff"
std::string FormatTimestamp(int64_t micros);

// Unscaled decimal -> "-12.30" with exactly `scale` fraction digits.
std::string FormatDecimal(int128_t unscaled, int scale);
// "-12.3" -> unscaled value at `scale`; fails when digits are lost or it does not
// fit `precision`.
Result<int128_t> ParseDecimal(std::string_view text, int precision, int scale);
// 10^n for n in 0..38.
int128_t Pow10(int n);

}  // namespace lakedump
