#include "lake/dump_lease.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fmt/format.h>

#include <thread>

#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

using std::chrono::milliseconds;

LeaseOptions Fast() {
  LeaseOptions o;
  o.renew_interval = milliseconds(50);
  o.settle = milliseconds(20);
  return o;
}

// A lease file as another run (elsewhere) would leave it.
void PlantLease(MemoryStore& store, std::string run_id, int64_t renewed_ms_ago) {
  LeaseHolder h;
  h.run_id = std::move(run_id);
  h.host = "other-host";
  h.pid = 4242;
  h.started_at = "2026-12-01T00:00:00.000Z";
  h.renew_interval_ms = 10'000;
  h.renewed_unix_ms = std::chrono::duration_cast<milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count() -
                      renewed_ms_ago;
  ASSERT_TRUE(store.PutObject(kLeaseKey, ToJson(h).dump()).ok());
}

TEST(DumpLeaseTest, SecondRunRefusesNamingTheHolderAndTheLeaseGoesAtRelease) {
  MemoryStore store("lease1");
  auto first = DumpLease::Acquire(&store, "run-a", Fast());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto second = DumpLease::Acquire(&store, "run-b", Fast());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), Code::kAlreadyExists);
  const std::string msg(second.status().message());
  EXPECT_NE(msg.find("is being written by another lakedump: run run-a"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find(fmt::format("pid {}", ::getpid())), std::string::npos) << msg;
  EXPECT_NE(msg.find("--wait-for-lock"), std::string::npos) << msg;
  ASSERT_TRUE((*first)->Release().ok());
  EXPECT_FALSE(store.Head(kLeaseKey).ok());
  EXPECT_TRUE(DumpLease::Acquire(&store, "run-b", Fast()).ok());
}

TEST(DumpLeaseTest, WaitsForTheHolderToFinish) {
  MemoryStore store("lease2");
  auto first = DumpLease::Acquire(&store, "run-a", Fast());
  ASSERT_TRUE(first.ok());
  std::thread finisher([&] {
    std::this_thread::sleep_for(milliseconds(300));
    (*first)->Release().IgnoreError();
  });
  LeaseOptions o = Fast();
  o.wait = milliseconds(10'000);
  auto second = DumpLease::Acquire(&store, "run-b", o);
  finisher.join();
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_TRUE((*second)->CheckHeld().ok());
}

TEST(DumpLeaseTest, RenewsAndNoticesATakeover) {
  MemoryStore store("lease3");
  auto lease = DumpLease::Acquire(&store, "run-a", Fast());
  ASSERT_TRUE(lease.ok());
  auto before = ParseLease(*store.GetObject(kLeaseKey));
  std::this_thread::sleep_for(milliseconds(200));
  auto after = ParseLease(*store.GetObject(kLeaseKey));
  ASSERT_TRUE(before.ok() && after.ok());
  EXPECT_GT(after->renewed_unix_ms, before->renewed_unix_ms);
  EXPECT_TRUE((*lease)->CheckHeld().ok());
  // Another run takes the lease over. A renewal in flight (read, then write) can overwrite the
  // plant, as it can on S3, which has no compare-and-swap: plant again until the stored lease
  // stays the intruder's for a few renewal intervals (the renewer then has seen it and stopped).
  bool planted = false;
  for (int attempt = 0; attempt < 50 && !planted; ++attempt) {
    PlantLease(store, "run-intruder", 0);
    std::this_thread::sleep_for(Fast().renew_interval * 4);
    auto stored = store.GetObject(kLeaseKey);
    planted = stored.ok() && ParseLease(*stored).ok() &&
              ParseLease(*stored)->run_id == "run-intruder";
  }
  ASSERT_TRUE(planted);
  Status held = (*lease)->CheckHeld();
  EXPECT_EQ(held.code(), Code::kAlreadyExists);
  EXPECT_NE(held.message().find("run-intruder"), std::string::npos) << held.message();
  // Not ours any more: release leaves the other run's lease alone.
  EXPECT_TRUE((*lease)->Release().ok());
  auto left = store.GetObject(kLeaseKey);
  ASSERT_TRUE(left.ok()) << left.status().ToString();
  EXPECT_EQ(ParseLease(*left)->run_id, "run-intruder");
}

TEST(DumpLeaseTest, OnlyAResumeTakesOverAStaleLease) {
  MemoryStore store("lease4");
  PlantLease(store, "run-dead", 31'000);  // 3 x 10 s without renewal
  auto plain = DumpLease::Acquire(&store, "run-b", Fast());
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(plain.status().message().find("looks dead"), std::string::npos);
  EXPECT_NE(plain.status().message().find("--if-exists resume"), std::string::npos);
  LeaseOptions resume = Fast();
  resume.take_over_stale = true;
  auto taken = DumpLease::Acquire(&store, "run-b", resume);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  ASSERT_TRUE((*taken)->taken_over().has_value());
  EXPECT_EQ((*taken)->taken_over()->run_id, "run-dead");
  EXPECT_EQ(ParseLease(*store.GetObject(kLeaseKey))->run_id, "run-b");

  // A fresh lease is never taken over, not even by a resume.
  MemoryStore live("lease5");
  PlantLease(live, "run-live", 1'000);
  EXPECT_FALSE(DumpLease::Acquire(&live, "run-b", resume).ok());
}

TEST(DumpLeaseTest, ConcurrentAcquiresLetExactlyOneThrough) {
  for (int round = 0; round < 20; ++round) {
    MemoryStore store("lease6");
    std::atomic<int> won{0};
    std::vector<std::thread> threads;
    std::vector<std::unique_ptr<DumpLease>> held(4);
    for (int i = 0; i < 4; ++i) {
      threads.emplace_back([&, i] {
        auto l = DumpLease::Acquire(&store, "run-" + std::to_string(i), Fast());
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
