// DumpProgress: counters the export tasks bump (atomics, thread-safe) and
// ProgressReporter: a thread that prints them to stderr: on a terminal a line
// redrawn every 0.5 s (tables done/total, rows, bytes, MB/s, ETA), otherwise a
// plain line every 5 s. The reporter owns its thread; Stop() joins it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>

#include <string_view>

#include "base/clock.h"
#include "base/status.h"

namespace lakedump {

// How long work shows progress: kAuto = a redrawn line on a terminal, plain lines otherwise.
enum class ProgressMode : uint8_t { kAuto, kPlain, kNone };
// "auto" | "plain" | "none" (InvalidArgument otherwise).
Result<ProgressMode> ParseProgressMode(std::string_view text);

struct DumpProgress {
  std::atomic<uint64_t> tables_total{0};
  std::atomic<uint64_t> tables_done{0};
  std::atomic<uint64_t> tables_reused{0};
  std::atomic<uint64_t> rows{0};
  std::atomic<uint64_t> bytes{0};            // encoded bytes handed to the store
  std::atomic<uint64_t> files{0};
  std::atomic<uint64_t> estimated_rows{0};   // sum of the planned tables' estimates
};

class ProgressReporter {
 public:
  // kAuto picks the terminal form when `out` is a TTY. The interval and the elapsed time are
  // read from `clock` (borrowed; it must outlive the reporter).
  ProgressReporter(const DumpProgress* progress, ProgressMode mode, std::FILE* out = stderr,
                   Clock* clock = &SystemClock());
  ~ProgressReporter();  // Stop()s
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;

  void Start();
  // Prints a final line (terminal form: ends the redrawn line) and joins.
  void Stop();
  // One status line for the current counters (for tests and the final line).
  std::string Line(double elapsed_seconds) const;

 private:
  void Loop();

  const DumpProgress* progress_;
  std::FILE* out_;
  bool enabled_;
  bool tty_;
  Clock* const clock_;
  std::chrono::milliseconds interval_;
  Clock::TimePoint start_;
  std::mutex mu_;
  bool stop_ = false;  // GUARDED_BY(mu_)
  std::stop_source stop_source_;  // Stop() wakes the loop's sleep on the clock
  std::thread thread_;
};

}  // namespace lakedump
