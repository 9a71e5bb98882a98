#include "source/sqlite/sqlite_text.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "base/hex.h"
#include "table/temporal.h"

namespace lakedump {
namespace {

constexpr int64_t kMicrosPerSecond = 1000000;
constexpr int64_t kMicrosPerDay = 86400 * kMicrosPerSecond;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Reads exactly n digits at s[*pos]; advances *pos.
bool Digits(std::string_view s, size_t* pos, int n, int* out) {
  if (*pos + n > s.size()) return false;
  int v = 0;
  for (int i = 0; i < n; ++i) {
    const char c = s[*pos + i];
    if (!IsDigit(c)) return false;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  *out = v;
  return true;
}

bool IsLeap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// YYYY-MM-DD at s[*pos]: fixed positions, no loop (a hot path of the SQLite
// source: every DATE and TIMESTAMP value goes through it).
bool DatePart(std::string_view s, size_t* pos, int32_t* days) {
  if (s.size() - *pos < 10) return false;
  const char* p = s.data() + *pos;
  if (p[4] != '-' || p[7] != '-') return false;
  unsigned v[10];
  for (int i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    v[i] = static_cast<unsigned>(static_cast<unsigned char>(p[i])) - '0';
    if (v[i] > 9) return false;
  }
  const int y = static_cast<int>(v[0] * 1000 + v[1] * 100 + v[2] * 10 + v[3]);
  const int m = static_cast<int>(v[5] * 10 + v[6]);
  const int d = static_cast<int>(v[8] * 10 + v[9]);
  if (m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, m)) return false;
  *days = static_cast<int32_t>(DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d)));
  *pos += 10;
  return true;
}

// HH:MM[:SS[.f{1,9}]]
bool TimePart(std::string_view s, size_t* pos, int64_t* micros) {
  int h, mi, sec = 0;
  if (!Digits(s, pos, 2, &h) || *pos >= s.size() || s[(*pos)++] != ':') return false;
  if (!Digits(s, pos, 2, &mi)) return false;
  int64_t frac = 0;
  if (*pos < s.size() && s[*pos] == ':') {
    ++*pos;
    if (!Digits(s, pos, 2, &sec)) return false;
    if (*pos < s.size() && s[*pos] == '.') {
      ++*pos;
      int n = 0;
      while (*pos < s.size() && IsDigit(s[*pos])) {
        const int digit = s[*pos] - '0';
        if (n < 6) {
          frac = frac * 10 + digit;
        } else if (digit != 0) {
          return false;  // finer than a microsecond: would be lost
        }
        ++n;
        ++*pos;
      }
      if (n == 0 || n > 9) return false;
      for (int i = n; i < 6; ++i) frac *= 10;
    }
  }
  if (h > 23 || mi > 59 || sec > 59) return false;
  *micros = ((static_cast<int64_t>(h) * 60 + mi) * 60 + sec) * kMicrosPerSecond + frac;
  return true;
}


}  // namespace

std::optional<int32_t> ParseSqliteDate(std::string_view text) {
  size_t pos = 0;
  int32_t days;
  if (!DatePart(text, &pos, &days) || pos != text.size()) return std::nullopt;
  return days;
}

std::optional<int64_t> ParseSqliteTime(std::string_view text) {
  size_t pos = 0;
  int64_t micros;
  if (!TimePart(text, &pos, &micros) || pos != text.size()) return std::nullopt;
  return micros;
}

std::optional<ParsedTimestamp> ParseSqliteTimestamp(std::string_view text) {
  size_t pos = 0;
  int32_t days;
  if (!DatePart(text, &pos, &days)) return std::nullopt;
  int64_t micros = static_cast<int64_t>(days) * kMicrosPerDay;
  if (pos == text.size()) return ParsedTimestamp{micros, false};
  if (text[pos] != ' ' && text[pos] != 'T' && text[pos] != 't') return std::nullopt;
  ++pos;
  int64_t time;
  if (!TimePart(text, &pos, &time)) return std::nullopt;
  micros += time;
  if (pos == text.size()) return ParsedTimestamp{micros, false};
  if ((text[pos] == 'Z' || text[pos] == 'z') && pos + 1 == text.size()) {
    return ParsedTimestamp{micros, true};
  }
  if (text[pos] != '+' && text[pos] != '-') return std::nullopt;
  const int sign = text[pos] == '-' ? -1 : 1;
  ++pos;
  int oh, om = 0;
  if (!Digits(text, &pos, 2, &oh)) return std::nullopt;
  if (pos < text.size()) {
    if (text[pos] == ':') ++pos;
    if (!Digits(text, &pos, 2, &om)) return std::nullopt;
  }
  if (pos != text.size() || oh > 23 || om > 59) return std::nullopt;
  // Local time = UTC + offset, so UTC = local - offset.
  micros -= sign * (static_cast<int64_t>(oh) * 60 + om) * 60 * kMicrosPerSecond;
  return ParsedTimestamp{micros, true};
}

std::optional<Uuid> ParseUuidText(std::string_view text) {
  if (text.size() >= 2 && text.front() == '{' && text.back() == '}') {
    text = text.substr(1, text.size() - 2);
  }
  const bool hyphens = text.size() == 36;
  if (!hyphens && text.size() != 32) return std::nullopt;
  Uuid u;
  size_t pos = 0;
  for (int i = 0; i < 16; ++i) {
    if (hyphens && (pos == 8 || pos == 13 || pos == 18 || pos == 23)) {
      if (text[pos] != '-') return std::nullopt;
      ++pos;
    }
    const int hi = HexDigitValue(text[pos]), lo = HexDigitValue(text[pos + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    u.bytes[i] = static_cast<uint8_t>(hi * 16 + lo);
    pos += 2;
  }
  return u;
}

std::string_view DoubleToSqliteText(double v, char* buf) {
  if (std::isinf(v)) {
    const char* t = v < 0 ? "-Inf" : "Inf";
    std::memcpy(buf, t, std::strlen(t));
    return std::string_view(buf, std::strlen(t));
  }
  auto r = std::to_chars(buf, buf + kDoubleTextSize - 3, v);
  std::string_view out(buf, static_cast<size_t>(r.ptr - buf));
  if (out.find_first_of(".eEn") == std::string_view::npos) {
    // SQLite shows a REAL with an integral value as "2.0", not "2".
    *r.ptr++ = '.';
    *r.ptr++ = '0';
    out = std::string_view(buf, static_cast<size_t>(r.ptr - buf));
  }
  return out;
}

std::string_view DoubleToFixedText(double v, char* buf) {
  auto r = std::to_chars(buf, buf + kFixedDoubleTextSize, v, std::chars_format::fixed);
  if (r.ec != std::errc()) return std::string_view();
  return std::string_view(buf, static_cast<size_t>(r.ptr - buf));
}

namespace {

void AppendFraction(std::string* out, int64_t micros) {
  if (micros == 0) return;
  char buf[8];
  fmt::format_to_n(buf, sizeof(buf), "{:06}", micros);
  int n = 6;
  while (n > 0 && buf[n - 1] == '0') --n;
  out->push_back('.');
  out->append(buf, static_cast<size_t>(n));
}

}  // namespace

std::string SqliteTimeText(int64_t micros) {
  const int64_t s = micros / 1000000;
  std::string out = fmt::format("{:02}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
  AppendFraction(&out, micros % 1000000);
  return out;
}

std::string SqliteTimestampText(int64_t micros, bool utc) {
  int64_t days = 0, rem = 0;
  SplitTimestamp(micros, &days, &rem);  // an escaped value as the time it stands for
  std::string out = FormatDate(static_cast<int32_t>(days));
  out.push_back(utc ? 'T' : ' ');
  out += SqliteTimeText(rem);
  if (utc) out.push_back('Z');
  return out;
}

double FloatForSqlite(float f) {
  double d = f;
  if (std::isfinite(f)) {
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof(buf), f);
    double parsed;
    // Near FLT_MAX the shortest text can exceed it; the source would refuse that.
    if (std::from_chars(buf, r.ptr, parsed).ec == std::errc() &&
        static_cast<float>(parsed) == f &&
        std::fabs(parsed) <= std::numeric_limits<float>::max()) {
      d = parsed;
    }
  }
  return d;
}

}  // namespace lakedump
