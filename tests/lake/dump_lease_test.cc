#include "lake/dump_lease.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <future>
#include <thread>

#include "fakes/fake_clock.h"
#include "fakes/fault_injection_store.h"
#include "store/forwarding_store.h"
#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

using std::chrono::milliseconds;

// The lease's renewals and waits run on `clock`: time passes only when a test advances it.
LeaseOptions Fast(FakeClock* clock) {
  LeaseOptions o;
  o.renew_interval = milliseconds(50);
  o.settle = milliseconds(20);
  o.clock = clock;
  return o;
}

// A lease file as another run (elsewhere) would leave it, `renewed_ms_ago` by `clock`.
void PlantLease(MemoryStore& store, Clock& clock, std::string run_id, int64_t renewed_ms_ago) {
  LeaseHolder h;
  h.run_id = std::move(run_id);
  h.host = "other-host";
  h.pid = 4242;
  h.started_at = "2026-12-01T00:00:00.000Z";
  h.renew_interval_ms = 10'000;
  h.renewed_unix_ms =
      std::chrono::duration_cast<milliseconds>(clock.WallNow().time_since_epoch()).count() -
      renewed_ms_ago;
  ASSERT_TRUE(store.PutObject(kLeaseKey, ToJson(h).dump()).ok());
}

TEST(DumpLeaseTest, SecondRunRefusesNamingTheHolderAndTheLeaseGoesAtRelease) {
  FakeClock clock;
  MemoryStore store("lease1");
  auto first = DumpLease::Acquire(&store, "run-a", Fast(&clock));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto second = DumpLease::Acquire(&store, "run-b", Fast(&clock));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), Code::kAlreadyExists);
  const std::string msg(second.status().message());
  EXPECT_NE(msg.find("is being written by another lakedump: run run-a"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find(fmt::format("pid {}", ::getpid())), std::string::npos) << msg;
  EXPECT_NE(msg.find("--wait-for-lock"), std::string::npos) << msg;
  ASSERT_TRUE((*first)->Release().ok());
  EXPECT_FALSE(store.Head(kLeaseKey).ok());
  EXPECT_TRUE(DumpLease::Acquire(&store, "run-b", Fast(&clock)).ok());
}

TEST(DumpLeaseTest, WaitsForTheHolderToFinish) {
  FakeClock clock;
  MemoryStore store("lease2");
  auto first = DumpLease::Acquire(&store, "run-a", Fast(&clock));
  ASSERT_TRUE(first.ok());
  LeaseOptions o = Fast(&clock);
  o.wait = milliseconds(10'000);
  auto second =
      std::async(std::launch::async, [&] { return DumpLease::Acquire(&store, "run-b", o); });
  // Sleeping: the first lease's renewer and the second run between its tries (every 500 ms).
  // Two rounds of tries find the lease held: the second run keeps waiting.
  for (int round = 0; round < 2; ++round) clock.AdvanceRound(milliseconds(500), 2);
  EXPECT_EQ(second.wait_for(std::chrono::seconds(0)), std::future_status::timeout);
  ASSERT_TRUE((*first)->Release().ok());
  clock.Advance(milliseconds(500));  // the next try takes it
  auto acquired = second.get();
  ASSERT_TRUE(acquired.ok()) << acquired.status().ToString();
  EXPECT_TRUE((*acquired)->CheckHeld().ok());
}

TEST(DumpLeaseTest, GivesUpWaitingAtTheLimit) {
  FakeClock clock;
  MemoryStore store("lease2b");
  auto first = DumpLease::Acquire(&store, "run-a", Fast(&clock));
  ASSERT_TRUE(first.ok());
  LeaseOptions o = Fast(&clock);
  o.wait = milliseconds(2'000);
  auto second =
      std::async(std::launch::async, [&] { return DumpLease::Acquire(&store, "run-b", o); });
  // Tries at 0, 0.5, 1, 1.5 and 2 s; the last one finds the limit passed.
  for (int round = 0; round < 3; ++round) clock.AdvanceRound(milliseconds(500), 2);
  EXPECT_EQ(second.wait_for(std::chrono::seconds(0)), std::future_status::timeout);
  clock.Advance(milliseconds(500));
  auto refused = second.get();
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kAlreadyExists);
  EXPECT_NE(refused.status().message().find("run run-a"), std::string::npos);
}

TEST(DumpLeaseTest, RenewsAndNoticesATakeover) {
  FakeClock clock;
  MemoryStore store("lease3");
  auto lease = DumpLease::Acquire(&store, "run-a", Fast(&clock));
  ASSERT_TRUE(lease.ok());
  auto before = ParseLease(*store.GetObject(kLeaseKey));
  // Four renewal intervals: the renewer renews once per interval.
  for (int round = 0; round < 4; ++round) clock.AdvanceRound(Fast(&clock).renew_interval, 1);
  auto after = ParseLease(*store.GetObject(kLeaseKey));
  ASSERT_TRUE(before.ok() && after.ok());
  EXPECT_EQ(after->renewed_unix_ms - before->renewed_unix_ms, 4 * 50);
  EXPECT_TRUE((*lease)->CheckHeld().ok());
  // Another run takes the lease over while the renewer sleeps (a renewal in flight could
  // overwrite the plant, as it can on S3, which has no compare-and-swap; the fake clock
  // rules that out here). At its next renewal the renewer sees it and stops.
  PlantLease(store, clock, "run-intruder", 0);
  clock.Advance(Fast(&clock).renew_interval);
  Status held = (*lease)->CheckHeld();
  EXPECT_EQ(held.code(), Code::kAlreadyExists);
  EXPECT_NE(held.message().find("run-intruder"), std::string::npos) << held.message();
  // Not ours any more: release leaves the other run's lease alone.
  EXPECT_TRUE((*lease)->Release().ok());
  auto left = store.GetObject(kLeaseKey);
  ASSERT_TRUE(left.ok()) << left.status().ToString();
  EXPECT_EQ(ParseLease(*left)->run_id, "run-intruder");
}

// A takeover that lands between a renewal's read and its write (on S3: the renewal of a run
// cut off from the store arrives late): the write is conditional on what was read, so it is
// refused, the takeover's lease stays, and the run knows it lost the lease.
class TakeoverBeforeWriteStore final : public ForwardingStore {
 public:
  TakeoverBeforeWriteStore(MemoryStore* target, Clock* clock)
      : ForwardingStore(target), memory_(target), clock_(clock) {}
  void Arm() { armed_ = true; }
  Result<std::unique_ptr<ObjectWriter>> NewWriter(std::string_view key,
                                                  WriteOptions options = {}) override {
    if (key == kLeaseKey && armed_.exchange(false)) PlantLease(*memory_, *clock_, "run-b", 0);
    return ForwardingStore::NewWriter(key, options);
  }

 private:
  MemoryStore* memory_;
  Clock* clock_;
  std::atomic<bool> armed_{false};
};

TEST(DumpLeaseTest, ARenewalLandingAfterATakeoverIsRefused) {
  FakeClock clock;
  MemoryStore store("lease-late-renewal");
  TakeoverBeforeWriteStore racing(&store, &clock);
  auto lease = DumpLease::Acquire(&racing, "run-a", Fast(&clock));
  ASSERT_TRUE(lease.ok());
  racing.Arm();
  clock.AdvanceRound(Fast(&clock).renew_interval, 1);
  auto left = store.GetObject(kLeaseKey);
  ASSERT_TRUE(left.ok());
  EXPECT_EQ(ParseLease(*left)->run_id, "run-b");
  Status held = (*lease)->CheckHeld();
  EXPECT_EQ(held.code(), Code::kAlreadyExists);
  EXPECT_NE(held.message().find("run-b"), std::string::npos) << held.message();
  EXPECT_TRUE((*lease)->Release().ok());
  EXPECT_EQ(ParseLease(*store.GetObject(kLeaseKey))->run_id, "run-b");
}

TEST(DumpLeaseTest, CheckHeldFailsOnceRenewalsFailedForTooLong) {
  FakeClock clock;
  MemoryStore memory("lease3b");
  FaultInjectionStore store(&memory);
  auto lease = DumpLease::Acquire(&store, "run-a", Fast(&clock));
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  store.FailWritesTo(std::string(kLeaseKey), Status::IOError("injected"));
  // Renewals fail for kStaleRenewals intervals: still held (a failed renewal is tried again).
  for (int round = 0; round < kStaleRenewals; ++round) {
    clock.AdvanceRound(Fast(&clock).renew_interval, 1);
  }
  EXPECT_TRUE((*lease)->CheckHeld().ok());
  // One more: the lease may have gone stale for the others.
  clock.AdvanceRound(Fast(&clock).renew_interval, 1);
  Status held = (*lease)->CheckHeld();
  EXPECT_EQ(held.code(), Code::kAlreadyExists) << held.ToString();
  EXPECT_NE(held.message().find("could not renew the lease"), std::string::npos) << held.message();
}

TEST(DumpLeaseTest, OnlyAResumeTakesOverAStaleLease) {
  FakeClock clock;
  MemoryStore store("lease4");
  PlantLease(store, clock, "run-dead", 31'000);  // 3 x 10 s without renewal
  auto plain = DumpLease::Acquire(&store, "run-b", Fast(&clock));
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(plain.status().message().find("looks dead"), std::string::npos);
  EXPECT_NE(plain.status().message().find("--if-exists resume"), std::string::npos);
  LeaseOptions resume = Fast(&clock);
  resume.take_over_stale = true;
  // A takeover waits `settle`, then reads the lease back.
  auto taking =
      std::async(std::launch::async, [&] { return DumpLease::Acquire(&store, "run-b", resume); });
  clock.WaitForSleepers(1);
  clock.Advance(resume.settle);
  auto taken = taking.get();
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  ASSERT_TRUE((*taken)->taken_over().has_value());
  EXPECT_EQ((*taken)->taken_over()->run_id, "run-dead");
  EXPECT_EQ(ParseLease(*store.GetObject(kLeaseKey))->run_id, "run-b");

  // A fresh lease is never taken over, not even by a resume.
  MemoryStore live("lease5");
  PlantLease(live, clock, "run-live", 1'000);
  EXPECT_FALSE(DumpLease::Acquire(&live, "run-b", resume).ok());
}

TEST(DumpLeaseTest, ConcurrentAcquiresLetExactlyOneThrough) {
  FakeClock clock;  // never advanced: the winner's renewer just sleeps
  for (int round = 0; round < 20; ++round) {
    MemoryStore store("lease6");
    std::atomic<int> won{0};
    std::vector<std::thread> threads;
    std::vector<std::unique_ptr<DumpLease>> held(4);
    for (int i = 0; i < 4; ++i) {
      threads.emplace_back([&, i] {
        auto l = DumpLease::Acquire(&store, "run-" + std::to_string(i), Fast(&clock));
        if (l.ok()) {
          ++won;
          held[static_cast<size_t>(i)] = std::move(*l);
        }
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(won.load(), 1) << "round " << round;
  }
}

}  // namespace
}  // namespace lakedump
