#include "table/temporal.h"

#include <fmt/format.h>

#include <algorithm>

namespace lakedump {

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

CivilDate CivilFromDays(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return CivilDate{y + (m <= 2), m, d};
}

static std::string FormatYear(int64_t y) {
  if (y >= 0 && y <= 9999) return fmt::format("{:04}", y);
  if (y < 0) return fmt::format("-{:04}", -y);
  return fmt::format("+{}", y);
}

std::string FormatDate(int32_t days) {
  const CivilDate c = CivilFromDays(days);
  return fmt::format("{}-{:02}-{:02}", FormatYear(c.year), c.month, c.day);
}

std::string FormatTime(int64_t micros) {
  const int64_t s = micros / 1000000, us = micros % 1000000;
  return fmt::format("{:02}:{:02}:{:02}.{:06}", s / 3600, (s / 60) % 60, s % 60, us);
}

void SplitTimestamp(int64_t micros, int64_t* days, int64_t* micros_of_day) {
  constexpr int64_t kDay = 86400000000LL;
  if (IsTimestampEscape(micros)) {  // past int64 µs since 1970: from PostgreSQL's epoch
    const int64_t pg = PgMicrosOfEscape(micros);
    *days = pg / kDay + kPgEpochMicros / kDay;
    *micros_of_day = pg % kDay;
    return;
  }
  *days = micros / kDay;
  *micros_of_day = micros % kDay;
  if (*micros_of_day < 0) {
    *micros_of_day += kDay;
    --*days;
  }
}

std::string FormatTimestamp(int64_t micros) {
  int64_t days = 0, rem = 0;
  SplitTimestamp(micros, &days, &rem);
  return FormatDate(static_cast<int32_t>(days)) + "T" + FormatTime(rem);
}

int128_t Pow10(int n) {
  int128_t v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

void AppendDecimal(int128_t unscaled, int scale, std::string* out) {
  const bool neg = unscaled < 0;
  unsigned __int128 mag = neg ? -static_cast<unsigned __int128>(unscaled)
                              : static_cast<unsigned __int128>(unscaled);
  char buf[40];  // 2^127 has 39 digits
  char* const end = buf + sizeof(buf);
  char* p = end;
  do {
    *--p = static_cast<char>('0' + static_cast<int>(mag % 10));
    mag /= 10;
  } while (mag != 0);
  const size_t n = static_cast<size_t>(end - p);
  const size_t frac = scale > 0 ? static_cast<size_t>(scale) : 0;
  if (neg) out->push_back('-');
  if (n <= frac) {  // "0.00ddd"
    out->append("0.");
    out->append(frac - n, '0');
    out->append(p, n);
    return;
  }
  out->append(p, n - frac);
  if (frac > 0) {
    out->push_back('.');
    out->append(end - frac, frac);
  }
}

std::string FormatDecimal(int128_t unscaled, int scale) {
  std::string out;
  AppendDecimal(unscaled, scale, &out);
  return out;
}

Result<int128_t> ParseDecimal(std::string_view text, int precision, int scale) {
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument(
        fmt::format("\"{}\" is not a valid decimal({},{}): {}", text, precision, scale, why));
  };
  std::string_view s = text;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return bad("no digits");
  int128_t v = 0;
  int digits = 0, frac = 0;
  bool point = false, any_digit = false;
  for (char c : s) {
    if (c == '.') {
      if (point) return bad("two decimal points");
      point = true;
      continue;
    }
    if (c < '0' || c > '9') return bad("not a number");
    any_digit = true;
    if (point) {
      if (frac == scale) {
        if (c != '0') return bad("too many fraction digits");
        continue;
      }
      ++frac;
    }
    if (v != 0 || c != '0') ++digits;
    if (digits > kMaxDecimalPrecision) return bad("too many digits");
    v = v * 10 + (c - '0');
  }
  if (!any_digit) return bad("no digits");  // "." alone is no number (SQLite keeps it as text)
  v *= Pow10(scale - frac);
  if (v >= Pow10(precision)) return bad("does not fit the precision");
  return neg ? -v : v;
}

}  // namespace lakedump
