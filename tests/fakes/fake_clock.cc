#include "fakes/fake_clock.h"

namespace lakedump {
namespace {

// 2026-12-01T00:00:00Z: far from the epoch, so that "N seconds ago" never underflows.
constexpr std::chrono::seconds kWallStart{1'796'083'200};

}  // namespace

FakeClock::FakeClock(Mode mode) : mode_(mode) {}

Clock::TimePoint FakeClock::Now() {
  std::lock_guard<std::mutex> lock(mu_);
  return TimePoint(offset_);
}

Clock::WallTime FakeClock::WallNow() {
  std::lock_guard<std::mutex> lock(mu_);
  return WallTime(std::chrono::duration_cast<WallTime::duration>(kWallStart + offset_));
}

size_t FakeClock::PendingLocked() const {
  const TimePoint now(offset_);
  size_t n = 0;
  for (auto it = sleeping_.upper_bound(now); it != sleeping_.end(); ++it) ++n;
  return n;
}

bool FakeClock::SleepUntil(TimePoint deadline, std::stop_token stop) {
  std::unique_lock<std::mutex> lock(mu_);
  ++sleeps_;
  if (mode_ == kAutoAdvance && !stop.stop_requested() && deadline > TimePoint(offset_)) {
    offset_ = deadline.time_since_epoch();
  }
  auto entry = sleeping_.emplace(deadline, 0);
  cv_.notify_all();  // WaitForSleepers
  const bool reached = cv_.wait(lock, stop, [&] { return TimePoint(offset_) >= deadline; });
  sleeping_.erase(entry);
  cv_.notify_all();
  return reached && !stop.stop_requested();
}

void FakeClock::Advance(Duration d) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    offset_ += d;
  }
  cv_.notify_all();
}

void FakeClock::WaitForSleepers(size_t n) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return PendingLocked() >= n; });
}

bool FakeClock::WaitForSleepers(size_t n, std::stop_token stop) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait(lock, stop, [&] { return PendingLocked() >= n; });
}

void FakeClock::AdvanceRound(Duration d, size_t n) {
  WaitForSleepers(n);
  Advance(d);
  WaitForSleepers(n);
}

size_t FakeClock::sleepers() {
  std::lock_guard<std::mutex> lock(mu_);
  return PendingLocked();
}

size_t FakeClock::sleeps() {
  std::lock_guard<std::mutex> lock(mu_);
  return sleeps_;
}

}  // namespace lakedump
