#include "base/units.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "base/ascii.h"

namespace lakedump {
namespace {

// Splits "1.5GiB" into its number and "GiB". The number is digits with at most one '.'
// inside (no sign, no exponent, no hex): `whole` holds the digits before the '.', exactly
// (false on overflow), `number` the value as a double. Returns false when there is no number.
bool SplitNumber(std::string_view text, double* number, std::string_view* unit, uint64_t* whole,
                 bool* has_fraction) {
  size_t i = 0;
  int dots = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) {
    if (text[i] == '.') ++dots;
    ++i;
  }
  const std::string_view digits = text.substr(0, i);
  if (digits.empty() || dots > 1 || digits.front() == '.' || digits.back() == '.') return false;
  const size_t dot = digits.find('.');
  *has_fraction = dot != std::string_view::npos;
  const std::string_view int_part = digits.substr(0, dot);
  const auto [end, ec] = std::from_chars(int_part.data(), int_part.data() + int_part.size(), *whole);
  if (ec == std::errc::result_out_of_range) return false;
  if (ec != std::errc() || end != int_part.data() + int_part.size()) return false;
  *number = std::strtod(std::string(digits).c_str(), nullptr);
  *unit = text.substr(i);
  while (!unit->empty() && unit->front() == ' ') unit->remove_prefix(1);
  return true;
}

bool TooManyDigits(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  uint64_t ignored = 0;
  return i > 0 && std::from_chars(text.data(), text.data() + i, ignored).ec ==
                      std::errc::result_out_of_range;
}

}  // namespace

Result<uint64_t> ParseSize(std::string_view text) {
  double number = 0;
  std::string_view unit;
  uint64_t whole = 0;
  bool fraction = false;
  if (!SplitNumber(text, &number, &unit, &whole, &fraction)) {
    if (TooManyDigits(text)) {
      return Status::InvalidArgument(fmt::format("invalid size \"{}\": too large", text));
    }
    return Status::InvalidArgument(fmt::format("invalid size \"{}\": expected a number and a unit "
                                               "such as 16MiB",
                                               text));
  }
  const std::string u = AsciiLower(unit);
  uint64_t mult = 0;
  if (u.empty() || u == "b") mult = 1;
  else if (u == "k" || u == "kib") mult = 1ull << 10;
  else if (u == "m" || u == "mib") mult = 1ull << 20;
  else if (u == "g" || u == "gib") mult = 1ull << 30;
  else if (u == "t" || u == "tib") mult = 1ull << 40;
  else if (u == "kb") mult = 1000;
  else if (u == "mb") mult = 1000'000;
  else if (u == "gb") mult = 1000'000'000;
  else if (u == "tb") mult = 1000'000'000'000;
  else {
    return Status::InvalidArgument(fmt::format(
        "invalid size \"{}\": unknown unit \"{}\" (use B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)", text,
        unit));
  }
  const Status too_large =
      Status::InvalidArgument(fmt::format("invalid size \"{}\": too large", text));
  if (!fraction) {  // exact: no detour through a double
    if (whole > std::numeric_limits<uint64_t>::max() / mult) return too_large;
    return whole * mult;
  }
  const double bytes = number * static_cast<double>(mult);
  // 2^63: every double below it converts to uint64 exactly enough, and llround stays defined.
  if (!(bytes < 9.2e18)) return too_large;
  return static_cast<uint64_t>(std::llround(bytes));
}

Result<std::chrono::milliseconds> ParseDuration(std::string_view text) {
  double number = 0;
  std::string_view unit;
  uint64_t whole = 0;
  bool fraction = false;
  if (!SplitNumber(text, &number, &unit, &whole, &fraction)) {
    if (TooManyDigits(text)) {
      return Status::InvalidArgument(fmt::format("invalid duration \"{}\": too long", text));
    }
    return Status::InvalidArgument(
        fmt::format("invalid duration \"{}\": expected a number and a unit such as 30s or 1h", text));
  }
  const std::string u = AsciiLower(unit);
  double ms = 0;
  if (u == "ms") ms = number;
  else if (u == "s" || u.empty()) ms = number * 1e3;
  else if (u == "m" || u == "min") ms = number * 60e3;
  else if (u == "h") ms = number * 3600e3;
  else if (u == "d") ms = number * 86400e3;
  else {
    return Status::InvalidArgument(
        fmt::format("invalid duration \"{}\": unknown unit \"{}\" (use ms, s, m, h, d)", text, unit));
  }
  // About 292 million years: past this the milliseconds no longer fit in an int64.
  if (!(ms < 9.2e18)) {
    return Status::InvalidArgument(fmt::format("invalid duration \"{}\": too long", text));
  }
  return std::chrono::milliseconds(static_cast<int64_t>(std::llround(ms)));
}

std::string FormatBytes(uint64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  if (u == 0) return fmt::format("{} B", bytes);
  return fmt::format("{:.{}f} {}", v, v < 10 ? 2 : (v < 100 ? 1 : 0), kUnits[u]);
}

std::string FormatCount(double count) {
  if (count < 1e3) return fmt::format("{:.0f}", count);
  if (count < 1e6) return fmt::format("{:.1f} k", count / 1e3);
  if (count < 1e9) return fmt::format("{:.2f} M", count / 1e6);
  return fmt::format("{:.2f} G", count / 1e9);
}

std::string FormatSeconds(double seconds) {
  if (seconds < 60) return fmt::format("{:.1f}s", seconds);
  const int64_t s = static_cast<int64_t>(seconds);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m{:02}s", s / 3600, (s / 60) % 60, s % 60);
}

}  // namespace lakedump
