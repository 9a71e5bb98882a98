#include "base/units.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <string>

namespace lakedump {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Splits "1.5GiB" into 1.5 and "GiB". Returns false when there is no number.
bool SplitNumber(std::string_view text, double* number, std::string_view* unit) {
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
    ++i;
  if (i == 0) return false;
  try {
    size_t used = 0;
    *number = std::stod(std::string(text.substr(0, i)), &used);
    if (used != i) return false;
  } catch (...) {
    return false;
  }
  *unit = text.substr(i);
  while (!unit->empty() && unit->front() == ' ') unit->remove_prefix(1);
  return true;
}

}  // namespace

Result<uint64_t> ParseSize(std::string_view text) {
  double number = 0;
  std::string_view unit;
  if (!SplitNumber(text, &number, &unit)) {
    return Status::InvalidArgument(fmt::format("invalid size \"{}\": expected a number and a unit "
                                               "such as 16MiB",
                                               text));
  }
  const std::string u = Lower(unit);
  double mult = 0;
  if (u.empty() || u == "b") mult = 1;
  else if (u == "k" || u == "kib") mult = 1024.0;
  else if (u == "m" || u == "mib") mult = 1024.0 * 1024;
  else if (u == "g" || u == "gib") mult = 1024.0 * 1024 * 1024;
  else if (u == "t" || u == "tib") mult = 1024.0 * 1024 * 1024 * 1024;
  else if (u == "kb") mult = 1e3;
  else if (u == "mb") mult = 1e6;
  else if (u == "gb") mult = 1e9;
  else if (u == "tb") mult = 1e12;
  else {
    return Status::InvalidArgument(fmt::format(
        "invalid size \"{}\": unknown unit \"{}\" (use B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)", text,
        unit));
  }
  const double bytes = number * mult;
  if (!(bytes < 1.8e19)) return Status::InvalidArgument(fmt::format("invalid size \"{}\": too large", text));
  return static_cast<uint64_t>(std::llround(bytes));
}

Result<std::chrono::milliseconds> ParseDuration(std::string_view text) {
  double number = 0;
  std::string_view unit;
  if (!SplitNumber(text, &number, &unit)) {
    return Status::InvalidArgument(
        fmt::format("invalid duration \"{}\": expected a number and a unit such as 30s or 1h", text));
  }
  const std::string u = Lower(unit);
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
