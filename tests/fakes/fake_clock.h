// FakeClock: a Clock whose time moves only when the test calls Advance().
// Threads in SleepUntil() wake when the fake time reaches their deadline (or
// their stop_token fires); WaitForSleepers(n) lets a test wait, on an event and
// not on the wall clock, until n threads sleep on the clock, so that it knows
// the code under test is idle before it advances the time. The wall time starts
// at a fixed date (2026-12-01T00:00:00Z) and moves with Advance() too.
//
// kAutoAdvance: a sleep moves the time to its deadline at once, as if the test
// advanced it. For code that sleeps with nobody to advance the clock (a retry
// loop's backoff): it runs without waiting, and the fake time it took is exact.
// Thread-safe.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

#include "base/clock.h"

namespace lakedump {

class FakeClock final : public Clock {
 public:
  enum Mode : uint8_t { kManual, kAutoAdvance };
  explicit FakeClock(Mode mode = kManual);

  TimePoint Now() override;
  WallTime WallNow() override;
  bool SleepUntil(TimePoint deadline, std::stop_token stop) override;

  // Moves the time forward by `d` and wakes the sleepers it passes.
  void Advance(Duration d);
  // Blocks until at least `n` threads sleep on the clock with a deadline still ahead (a sleeper
  // whose deadline Advance() passed no longer counts, even before its thread runs).
  void WaitForSleepers(size_t n);
  // The same, or until `stop` is requested (false): for threads that may end instead of
  // sleeping again (request the stop when they end).
  bool WaitForSleepers(size_t n, std::stop_token stop);
  // Advance(d) after WaitForSleepers(n), then WaitForSleepers(n) again: one round of `n`
  // periodic sleepers (each sleeps again once its work is done).
  void AdvanceRound(Duration d, size_t n);
  // Threads sleeping now with a deadline ahead.
  size_t sleepers();
  // Sleeps begun since construction (a sleeper counts once per SleepUntil call).
  size_t sleeps();

 private:
  size_t PendingLocked() const;

  const Mode mode_;
  std::mutex mu_;
  std::condition_variable_any cv_;             // time moved, or a sleeper came or went
  Duration offset_{0};                         // GUARDED_BY(mu_): fake time since the start
  std::multimap<TimePoint, int> sleeping_;     // GUARDED_BY(mu_): deadline -> (unused)
  size_t sleeps_ = 0;                          // GUARDED_BY(mu_)
};

}  // namespace lakedump
