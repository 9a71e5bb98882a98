#include "base/clock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "fakes/fake_clock.h"

namespace lakedump {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(FakeClockTest, TimeMovesOnlyWithAdvance) {
  FakeClock clock;
  const Clock::TimePoint t0 = clock.Now();
  const Clock::WallTime w0 = clock.WallNow();
  EXPECT_EQ(clock.Now(), t0);
  clock.Advance(seconds(90));
  EXPECT_EQ(clock.Now() - t0, seconds(90));
  EXPECT_EQ(clock.WallNow() - w0, seconds(90));
  EXPECT_DOUBLE_EQ(clock.SecondsSince(t0), 90.0);
}

TEST(FakeClockTest, WakesASleeperWhenTheFakeTimePassesItsDeadline) {
  FakeClock clock;
  const Clock::TimePoint t0 = clock.Now();
  std::atomic<bool> woke{false};
  std::future<bool> slept = std::async(std::launch::async, [&] {
    const bool reached = clock.SleepFor(seconds(10), {});
    woke = true;
    return reached;
  });
  clock.WaitForSleepers(1);
  clock.Advance(seconds(9));
  // Still ahead of it: the sleeper still counts (it woke for nothing, or not at all).
  clock.WaitForSleepers(1);
  EXPECT_FALSE(woke.load());
  clock.Advance(seconds(1));
  EXPECT_TRUE(slept.get());
  EXPECT_TRUE(woke.load());
  EXPECT_EQ(clock.Now() - t0, seconds(10));
  EXPECT_EQ(clock.sleepers(), 0u);
  EXPECT_EQ(clock.sleeps(), 1u);
}

TEST(FakeClockTest, WakesEachSleeperAtItsOwnDeadline) {
  FakeClock clock;
  std::future<bool> early =
      std::async(std::launch::async, [&] { return clock.SleepFor(seconds(1), {}); });
  std::future<bool> late =
      std::async(std::launch::async, [&] { return clock.SleepFor(seconds(5), {}); });
  clock.WaitForSleepers(2);
  clock.Advance(seconds(2));
  EXPECT_TRUE(early.get());
  EXPECT_EQ(clock.sleepers(), 1u);  // the late one's deadline is still ahead
  clock.Advance(seconds(3));
  EXPECT_TRUE(late.get());
}

TEST(FakeClockTest, AStopTokenCancelsTheWait) {
  FakeClock clock;
  std::stop_source stop;
  std::future<bool> slept = std::async(
      std::launch::async, [&] { return clock.SleepFor(seconds(3600), stop.get_token()); });
  clock.WaitForSleepers(1);
  stop.request_stop();
  EXPECT_FALSE(slept.get());  // cancelled, with no time passing
  EXPECT_EQ(clock.sleepers(), 0u);
  // A stopped token returns at once, even for a deadline that has passed.
  EXPECT_FALSE(clock.SleepFor(seconds(1), stop.get_token()));
  EXPECT_FALSE(clock.SleepFor(seconds(0), stop.get_token()));
  EXPECT_TRUE(clock.SleepFor(seconds(0), {}));
}

TEST(FakeClockTest, AdvanceRoundWaitsForAPeriodicSleeperToSleepAgain) {
  FakeClock clock;
  std::stop_source stop;
  std::atomic<int> ticks{0};
  std::thread ticker([&] {
    while (clock.SleepFor(milliseconds(100), stop.get_token())) ++ticks;
  });
  for (int i = 1; i <= 5; ++i) {
    clock.AdvanceRound(milliseconds(100), 1);
    EXPECT_EQ(ticks.load(), i);
  }
  stop.request_stop();
  ticker.join();
  EXPECT_EQ(ticks.load(), 5);
}

TEST(SystemClockTest, IsMonotonicAndOneProcessWideInstance) {
  Clock& clock = SystemClock();
  EXPECT_EQ(&clock, &SystemClock());
  Clock::TimePoint last = clock.Now();
  for (int i = 0; i < 1000; ++i) {
    const Clock::TimePoint now = clock.Now();
    EXPECT_GE(now, last);
    last = now;
  }
  EXPECT_GT(clock.WallNow().time_since_epoch().count(), 0);
}

TEST(SystemClockTest, AStopTokenCancelsALongSleep) {
  std::stop_source stop;
  std::future<bool> slept = std::async(std::launch::async, [&] {
    return SystemClock().SleepFor(std::chrono::hours(1), stop.get_token());
  });
  stop.request_stop();
  EXPECT_FALSE(slept.get());  // returns on the stop, not after an hour
  EXPECT_FALSE(SystemClock().SleepFor(seconds(0), stop.get_token()));
  EXPECT_TRUE(SystemClock().SleepFor(seconds(0), {}));
}

}  // namespace
}  // namespace lakedump
