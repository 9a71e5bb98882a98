#include "store/s3/credentials/credential_provider.h"

#include <cctype>
#include <ctime>

namespace lakedump {
namespace {

// Reads exactly `n` digits at *pos.
bool Digits(std::string_view text, size_t* pos, size_t n, int* out) {
  if (*pos + n > text.size()) return false;
  int v = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = text[*pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  *out = v;
  return true;
}

bool Expect(std::string_view text, size_t* pos, char c) {
  if (*pos >= text.size() || std::toupper(static_cast<unsigned char>(text[*pos])) != c) {
    return false;
  }
  ++*pos;
  return true;
}

}  // namespace

std::optional<std::chrono::system_clock::time_point> ParseCredentialExpiration(
    std::string_view text) {
  std::tm tm{};
  size_t pos = 0;
  if (!Digits(text, &pos, 4, &tm.tm_year) || !Expect(text, &pos, '-') ||
      !Digits(text, &pos, 2, &tm.tm_mon) || !Expect(text, &pos, '-') ||
      !Digits(text, &pos, 2, &tm.tm_mday) || !Expect(text, &pos, 'T') ||
      !Digits(text, &pos, 2, &tm.tm_hour) || !Expect(text, &pos, ':') ||
      !Digits(text, &pos, 2, &tm.tm_min) || !Expect(text, &pos, ':') ||
      !Digits(text, &pos, 2, &tm.tm_sec)) {
    return std::nullopt;
  }
  if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
      tm.tm_min > 59 || tm.tm_sec > 60) {
    return std::nullopt;
  }
  if (pos < text.size() && text[pos] == '.') {  // fractional seconds: dropped (1 s is enough)
    ++pos;
    const size_t digits = pos;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
    if (pos == digits) return std::nullopt;
  }
  int offset_seconds = 0;
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    const int sign = text[pos++] == '+' ? 1 : -1;
    int hours = 0, minutes = 0;
    if (!Digits(text, &pos, 2, &hours) || !Expect(text, &pos, ':') ||
        !Digits(text, &pos, 2, &minutes) || hours > 23 || minutes > 59) {
      return std::nullopt;
    }
    offset_seconds = sign * (hours * 3600 + minutes * 60);
  } else {
    return std::nullopt;  // no zone: ambiguous, refused
  }
  if (pos != text.size()) return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  const std::time_t t = timegm(&tm);
  if (t == -1) return std::nullopt;
  return std::chrono::system_clock::from_time_t(t - offset_seconds);
}

}  // namespace lakedump
