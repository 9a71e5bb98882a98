// Clock: where lakedump reads the time and waits for it. Leases, retries,
// timeouts, pollers and progress take a Clock* (default: &SystemClock()), so
// that unit tests can run them on a FakeClock (tests/fakes/fake_clock.h) whose
// time moves only when the test says so: no test sleeps on the wall clock.
// Trace timestamps (base/trace.h) keep the real clock: they measure, they do
// not decide anything.
//
// Thread-safe: every method may be called from any thread. SystemClock() is
// process-wide and lives for the whole program.
#pragma once

#include <chrono>
#include <stop_token>

namespace lakedump {

class Clock {
 public:
  using Duration = std::chrono::steady_clock::duration;
  using TimePoint = std::chrono::steady_clock::time_point;
  using WallTime = std::chrono::system_clock::time_point;

  Clock() = default;
  virtual ~Clock() = default;
  Clock(const Clock&) = delete;
  Clock& operator=(const Clock&) = delete;

  // Monotonic time, for intervals, deadlines and timeouts.
  virtual TimePoint Now() = 0;
  // Calendar time, where a date is written or compared with one written
  // elsewhere (lease records, timestamps in documents).
  virtual WallTime WallNow() = 0;
  // Blocks until Now() >= deadline (true) or `stop` is requested (false, at
  // once: the wait is cancellable).
  virtual bool SleepUntil(TimePoint deadline, std::stop_token stop) = 0;

  // SleepUntil(Now() + d, stop). A non-positive `d` returns at once.
  bool SleepFor(Duration d, std::stop_token stop) {
    if (d <= Duration::zero()) return !stop.stop_requested();
    return SleepUntil(Now() + d, stop);
  }
  // Seconds since `start` (a Now() of this clock).
  double SecondsSince(TimePoint start) {
    return std::chrono::duration<double>(Now() - start).count();
  }
};

// The real clock: std::chrono::steady_clock and system_clock.
Clock& SystemClock();

}  // namespace lakedump
