// Numeric command-line options, each defined once with the range it accepts.
//
// Add*Option binds an option of a CLI11 app to a variable and checks the text while CLI11
// parses: a refused value ends the parse with a CLI::ValidationError whose message is one line,
// "--name: <why>; accepted: <range>", which main() prints and turns into exit 2. Each option's
// range is also recorded, so that tests and the generated docs enumerate every numeric option
// from the CLI definition (NumericRangeOf) instead of from a hand-kept list.
//
// Thread-safety: the record of ranges is process-wide and locked; options are defined on the
// main thread before parsing in practice.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "cli/cli11_fwd.h"

namespace lakedump::cli {

// What a numeric option accepts. Sizes are bytes written like 16MiB (base/units.h),
// durations milliseconds written like 30s or 1h; integers are plain decimal digits.
struct NumericRange {
  enum class Kind { kInteger, kSize, kDuration };
  Kind kind = Kind::kInteger;
  int64_t min = 0;
  int64_t max = 0;
  // Sizes: when non-empty, 0 is accepted below `min` and means this ("default", "never").
  std::string zero_means;
  // When non-empty, this word is accepted too (e.g. "auto").
  std::string keyword;
  // Sizes only: a rate in bytes per second, written with or without "/s" (1KiB/s).
  bool per_second = false;

  // "1 to 256", "0 (default) or 5MiB to 5GiB", "auto, 0 (never) or 1MiB to 1TiB".
  std::string Describe() const;
  // OK when `text` is a value in range; otherwise InvalidArgument naming the text and the range.
  Status Check(std::string_view text) const;
};

// Defines an integer option; `store` receives the checked value. Use AddIntOption.
CLI::Option* AddIntOptionWith(CLI::App* app, const std::string& name,
                              std::function<void(int64_t)> store, std::string default_text,
                              int64_t min, int64_t max, const std::string& description);

// An integer option (plain decimal, optional '-' when min < 0) in [min, max], stored in
// *target (whose current value is shown as the default). REQUIRES: min..max fit in T.
template <std::integral T>
CLI::Option* AddIntOption(CLI::App* app, const std::string& name, T* target, int64_t min,
                          int64_t max, const std::string& description) {
  return AddIntOptionWith(
      app, name, [target](int64_t v) { *target = static_cast<T>(v); }, std::to_string(*target),
      min, max, description);
}

// A size or duration option: the checked text is kept in *target (parse it with ParseSize /
// ParseDuration, which then cannot fail). `range.kind` says which.
CLI::Option* AddSizeOption(CLI::App* app, const std::string& name, std::string* target,
                           NumericRange range, const std::string& description);

// The range option `option` of `command` was defined with, or null when it is not a numeric
// option. The pointer stays valid for the process's life.
const NumericRange* NumericRangeOf(const CLI::App* command, const CLI::Option* option);

// Size helpers for ranges.
inline constexpr int64_t kKiB = 1LL << 10, kMiB = 1LL << 20, kGiB = 1LL << 30, kTiB = 1LL << 40;
// The most threads (or connections per pool) any option may ask for: past this a 2-socket
// server is oversubscribed and memory (buffers per thread) runs out before throughput grows.
inline constexpr int64_t kMaxThreads = 256;
// A batch of rows is one allocation per column: past this it no longer fits in cache or RAM.
inline constexpr int64_t kMaxBatchRows = 1 << 20;

}  // namespace lakedump::cli
