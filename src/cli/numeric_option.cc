#include "cli/numeric_option.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <map>
#include <mutex>

#include <CLI/CLI.hpp>

#include "base/units.h"

namespace lakedump::cli {
namespace {

std::mutex& RangesMutex() {
  static std::mutex mu;
  return mu;
}
// Keyed by "command --option": every definition of the CLI (main's, the tests', the docs
// generator's) gives an option the same range, so entries never go stale.
std::map<std::string, NumericRange>& Ranges() {
  static std::map<std::string, NumericRange> ranges;
  return ranges;
}

std::string KeyOf(const CLI::App* app, const CLI::Option* option) {
  return app->get_name() + " " + option->get_name();
}

void Record(const CLI::App* app, const CLI::Option* option, const NumericRange& range) {
  std::lock_guard<std::mutex> lock(RangesMutex());
  Ranges().insert_or_assign(KeyOf(app, option), range);
}

// 5242880 -> "5MiB"; sizes that are not whole binary units stay in bytes.
std::string SizeText(int64_t bytes) {
  static constexpr std::pair<int64_t, const char*> kUnits[] = {
      {kTiB, "TiB"}, {kGiB, "GiB"}, {kMiB, "MiB"}, {kKiB, "KiB"}};
  for (const auto& [unit, name] : kUnits) {
    if (bytes >= unit && bytes % unit == 0) return fmt::format("{}{}", bytes / unit, name);
  }
  return fmt::format("{}B", bytes);
}

// 3600000 -> "1h".
std::string DurationText(int64_t ms) {
  static constexpr std::pair<int64_t, const char*> kUnits[] = {
      {86'400'000, "d"}, {3'600'000, "h"}, {60'000, "m"}, {1000, "s"}};
  for (const auto& [unit, name] : kUnits) {
    if (ms >= unit && ms % unit == 0) return fmt::format("{}{}", ms / unit, name);
  }
  return ms == 0 ? "0s" : fmt::format("{}ms", ms);
}

// Plain decimal digits with an optional leading '-': "1e3", "+5", " 5", "0x10" are refused.
Result<int64_t> ParseInteger(std::string_view text) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  int64_t value = 0;
  const auto [stop, ec] = std::from_chars(begin, end, value);
  const bool digits_only = !text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) ||
                                             (text[0] == '-' && text.size() > 1));
  if (ec == std::errc::result_out_of_range && stop == end) {
    return Status::InvalidArgument(fmt::format("\"{}\" is out of range", text));
  }
  if (ec != std::errc() || stop != end || !digits_only) {
    return Status::InvalidArgument(fmt::format("\"{}\" is not a whole number", text));
  }
  return value;
}

}  // namespace

std::string NumericRange::Describe() const {
  std::string lo, hi;
  switch (kind) {
    case Kind::kInteger:
      lo = std::to_string(min), hi = std::to_string(max);
      break;
    case Kind::kSize:
      lo = SizeText(min), hi = SizeText(max);
      if (per_second) lo += "/s", hi += "/s";
      break;
    case Kind::kDuration:
      lo = DurationText(min), hi = DurationText(max);
      break;
  }
  std::string out;
  if (!keyword.empty()) out = keyword + (zero_means.empty() ? " or " : ", ");
  if (!zero_means.empty()) out += fmt::format("0 ({}) or ", zero_means);
  return out + lo + " to " + hi;
}

Status NumericRange::Check(std::string_view text) const {
  if (!keyword.empty() && text == keyword) return Status::OK();
  const std::string expected = "; accepted: " + Describe();
  int64_t value = 0;
  if (kind == Kind::kInteger) {
    auto parsed = ParseInteger(text);
    if (!parsed.ok()) return Status::InvalidArgument(parsed.status().message() + expected);
    value = *parsed;
  } else {
    uint64_t parsed = 0;
    if (kind == Kind::kSize) {
      std::string_view number = text;
      if (per_second && number.ends_with("/s")) number.remove_suffix(2);
      auto size = ParseSize(number);
      if (!size.ok()) return Status::InvalidArgument(size.status().message() + expected);
      parsed = *size;
    } else {
      auto duration = ParseDuration(text);
      if (!duration.ok()) return Status::InvalidArgument(duration.status().message() + expected);
      parsed = static_cast<uint64_t>(duration->count());
    }
    if (parsed > static_cast<uint64_t>(INT64_MAX)) {
      return Status::InvalidArgument(fmt::format("\"{}\" is out of range{}", text, expected));
    }
    value = static_cast<int64_t>(parsed);
    if (value == 0 && !zero_means.empty()) return Status::OK();
  }
  if (value < min || value > max) {
    return Status::InvalidArgument(fmt::format("\"{}\" is out of range{}", text, expected));
  }
  return Status::OK();
}

namespace {

// Makes CLI11 check every value of `option` against `range` while parsing (a refusal is a
// CLI::ValidationError: "--name: <message>") and records the range.
CLI::Option* Checked(CLI::App* app, CLI::Option* option, const NumericRange& range) {
  option->check(CLI::Validator(
      [range](std::string& text) {
        Status s = range.Check(text);
        return s.ok() ? std::string() : s.message();
      },
      "", "range"));
  Record(app, option, range);
  return option;
}

}  // namespace

CLI::Option* AddIntOptionWith(CLI::App* app, const std::string& name,
                              std::function<void(int64_t)> store, std::string default_text,
                              int64_t min, int64_t max, const std::string& description) {
  NumericRange range;
  range.kind = NumericRange::Kind::kInteger;
  range.min = min;
  range.max = max;
  CLI::Option* option = app->add_option_function<std::string>(
      name,
      [store = std::move(store)](const std::string& text) {
        // Checked by the validator below, which CLI11 runs first.
        if (auto value = ParseInteger(text); value.ok()) store(*value);
      },
      fmt::format("{} [{}]", description, range.Describe()));
  option->type_name(min < 0 ? "INT" : "N");
  option->default_str(std::move(default_text));
  return Checked(app, option, range);
}

CLI::Option* AddSizeOption(CLI::App* app, const std::string& name, std::string* target,
                           NumericRange range, const std::string& description) {
  CLI::Option* option = app->add_option(
      name, *target, fmt::format("{} [{}]", description, range.Describe()));
  option->type_name(range.kind == NumericRange::Kind::kDuration ? "DURATION"
                    : range.per_second                               ? "RATE"
                                                                     : "SIZE");
  option->default_str(*target);
  return Checked(app, option, range);
}

const NumericRange* NumericRangeOf(const CLI::App* command, const CLI::Option* option) {
  std::lock_guard<std::mutex> lock(RangesMutex());
  auto it = Ranges().find(KeyOf(command, option));
  return it == Ranges().end() ? nullptr : &it->second;
}

}  // namespace lakedump::cli
