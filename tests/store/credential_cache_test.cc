#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "fakes/fake_clock.h"
#include "fakes/sync.h"
#include "store/s3/credentials/credential_provider.h"

namespace lakedump {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

// Hands out numbered credentials ("KEY1", "KEY2"...) valid for `lifetime` from the fake clock's
// wall time; a fetch can be held at a gate, or made to fail.
class FakeProvider final : public CredentialProvider {
 public:
  FakeProvider(FakeClock* clock, Clock::Duration lifetime) : clock_(clock), lifetime_(lifetime) {}

  std::string Describe() const override { return "fake"; }
  Result<ExpiringCredentials> Fetch(std::stop_token) override {
    const int n = ++fetches_;
    started_.Notify([this] { ++started_count_; });
    if (hold_) gate_.Wait();
    if (!fail_.ok()) return fail_;
    return Issue(n);
  }

  ExpiringCredentials Issue(int n) {
    return {{"KEY" + std::to_string(n), "secret" + std::to_string(n), "token", "fake"},
            clock_->WallNow() + lifetime_};
  }

  FakeClock* clock_;
  Clock::Duration lifetime_;
  std::atomic<int> fetches_{0};
  bool hold_ = false;
  Gate gate_;
  Event started_;
  int started_count_ = 0;
  Status fail_;
};

// The cache's waiting count moves without an event to wait on: polled, yielding, up to a guard.
bool WaitForWaiters(const CredentialCache& cache, size_t n) {
  for (long i = 0; i < 50'000'000; ++i) {
    if (cache.waiting() == n) return true;
    std::this_thread::yield();
  }
  return false;
}

struct Fixture {
  FakeClock clock;
  FakeProvider* provider = nullptr;  // owned by the cache
  std::unique_ptr<CredentialCache> cache;

  // The first credentials live 10 minutes: refreshed from minute 5 on, expired at minute 10.
  Fixture() {
    auto p = std::make_unique<FakeProvider>(&clock, hours(1));
    provider = p.get();
    ExpiringCredentials first{{"KEY0", "secret0", "token", "fake"}, clock.WallNow() + minutes(10)};
    cache = std::make_unique<CredentialCache>(std::move(p), first, &clock);
  }
  std::string Key() {
    Result<Credentials> c = cache->Current();
    return c.ok() ? c->access_key_id : c.status().ToString();
  }
};

TEST(CredentialCacheTest, ServesCachedUntilRefreshAheadThenFetchesOnce) {
  Fixture f;
  EXPECT_EQ(f.Key(), "KEY0");
  f.clock.Advance(minutes(4));
  EXPECT_EQ(f.Key(), "KEY0");
  EXPECT_EQ(f.provider->fetches_.load(), 0);
  f.clock.Advance(minutes(2));  // 4 minutes before expiry: inside the 5 minutes ahead
  EXPECT_EQ(f.Key(), "KEY1");
  EXPECT_EQ(f.Key(), "KEY1");
  EXPECT_EQ(f.provider->fetches_.load(), 1);
  EXPECT_EQ(f.cache->fetches(), 1u);
}

TEST(CredentialCacheTest, StaticCredentialsNeverFetchNorInvalidate) {
  FakeClock clock;
  auto p = std::make_unique<FakeProvider>(&clock, hours(1));
  FakeProvider* provider = p.get();
  CredentialCache cache(std::move(p), {{"STATIC", "s", "", "env"}, std::nullopt}, &clock);
  clock.Advance(hours(24 * 365));
  ASSERT_TRUE(cache.Current().ok());
  EXPECT_EQ(cache.Current()->access_key_id, "STATIC");
  EXPECT_FALSE(cache.Refreshable());
  EXPECT_FALSE(cache.Invalidate({"STATIC", "s", "", "env"}));
  EXPECT_EQ(cache.Current()->access_key_id, "STATIC");
  EXPECT_EQ(provider->fetches_.load(), 0);
}

TEST(CredentialCacheTest, FailedRefreshKeepsServingUnexpiredThenFails) {
  Fixture f;
  f.provider->fail_ = Status::Unavailable("sts: connection refused");
  f.clock.Advance(minutes(6));
  EXPECT_EQ(f.Key(), "KEY0");  // refresh failed, the cached ones still work
  EXPECT_EQ(f.provider->fetches_.load(), 1);
  EXPECT_EQ(f.Key(), "KEY0");  // not asked again before kMinFetchInterval
  EXPECT_EQ(f.provider->fetches_.load(), 1);
  f.clock.Advance(CredentialCache::kMinFetchInterval);
  EXPECT_EQ(f.Key(), "KEY0");
  EXPECT_EQ(f.provider->fetches_.load(), 2);
  f.clock.Advance(minutes(4));  // past the expiration: the failure is the answer
  Result<Credentials> c = f.cache->Current();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kUnavailable);
  EXPECT_NE(c.status().message().find("refreshing S3 credentials (fake)"), std::string::npos)
      << c.status().ToString();
  f.provider->fail_ = Status::OK();
  EXPECT_EQ(f.Key(), "KEY4");  // expired: fetched at once, without waiting the interval
}

TEST(CredentialCacheTest, InvalidateRefreshesOnceForTheSameCredentials) {
  Fixture f;
  Result<Credentials> used = f.cache->Current();
  ASSERT_TRUE(used.ok());
  EXPECT_TRUE(f.cache->Invalidate(*used));
  EXPECT_TRUE(f.cache->Invalidate(*used));  // a second thread reports the same 403
  EXPECT_EQ(f.Key(), "KEY1");
  EXPECT_EQ(f.Key(), "KEY1");
  EXPECT_EQ(f.provider->fetches_.load(), 1);
  // A late report about the old credentials: the retry uses the new ones, no new fetch.
  EXPECT_TRUE(f.cache->Invalidate(*used));
  EXPECT_EQ(f.Key(), "KEY1");
  EXPECT_EQ(f.provider->fetches_.load(), 1);
}

TEST(CredentialCacheTest, InvalidatedAndRefreshFailsIsAnError) {
  Fixture f;
  Result<Credentials> used = f.cache->Current();
  ASSERT_TRUE(used.ok());
  f.provider->fail_ = Status::PermissionDenied("sts: AccessDenied");
  ASSERT_TRUE(f.cache->Invalidate(*used));
  Result<Credentials> c = f.cache->Current();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kPermissionDenied);
}

// Every thread of a run asks at once for credentials that have expired: one fetch serves them
// all, the others wait for it (none fetches on its own, none gets the expired ones).
TEST(CredentialCacheTest, ManyThreadsAfterExpiryShareExactlyOneFetch) {
  Fixture f;
  f.provider->hold_ = true;
  f.clock.Advance(minutes(11));
  constexpr int kThreads = 16;
  std::vector<std::string> got(kThreads);
  std::vector<std::jthread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&f, &got, i] { got[i] = f.Key(); });
  }
  ASSERT_TRUE(f.provider->started_.WaitUntil([&] { return f.provider->started_count_ == 1; }));
  // Every other thread is blocked on that fetch before it ends.
  ASSERT_TRUE(WaitForWaiters(*f.cache, kThreads - 1));
  f.provider->gate_.Open();
  threads.clear();
  EXPECT_EQ(f.provider->fetches_.load(), 1);
  for (const std::string& key : got) EXPECT_EQ(key, "KEY1");
}

// Ahead of expiry, the threads that find a refresh running sign with the still-valid cached
// credentials instead of blocking on it; still exactly one fetch.
TEST(CredentialCacheTest, ManyThreadsAheadOfExpiryDoNotWaitForTheRefresh) {
  Fixture f;
  f.provider->hold_ = true;
  f.clock.Advance(minutes(6));
  std::jthread refresher([&f] { EXPECT_EQ(f.Key(), "KEY1"); });
  ASSERT_TRUE(f.provider->started_.WaitUntil([&] { return f.provider->started_count_ == 1; }));
  std::vector<std::string> got(8);
  {
    std::vector<std::jthread> threads;
    for (size_t i = 0; i < got.size(); ++i) {
      threads.emplace_back([&f, &got, i] { got[i] = f.Key(); });
    }
  }  // all returned while the fetch is still held
  for (const std::string& key : got) EXPECT_EQ(key, "KEY0");
  f.provider->gate_.Open();
  refresher.join();
  EXPECT_EQ(f.Key(), "KEY1");
  EXPECT_EQ(f.provider->fetches_.load(), 1);
}

// A failed fetch after expiry is the answer of every thread that waited for it: they do not
// each ask the failing endpoint again.
TEST(CredentialCacheTest, WaitersShareAFailedFetch) {
  Fixture f;
  f.provider->hold_ = true;
  f.provider->fail_ = Status::Unavailable("imds: timeout");
  f.clock.Advance(minutes(11));
  constexpr int kThreads = 6;
  std::vector<Status> got(kThreads);
  std::vector<std::jthread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&f, &got, i] { got[i] = f.cache->Current().status(); });
  }
  ASSERT_TRUE(f.provider->started_.WaitUntil([&] { return f.provider->started_count_ == 1; }));
  ASSERT_TRUE(WaitForWaiters(*f.cache, kThreads - 1));
  f.provider->gate_.Open();
  threads.clear();
  EXPECT_EQ(f.provider->fetches_.load(), 1);
  for (const Status& s : got) EXPECT_EQ(s.code(), Code::kUnavailable) << s.ToString();
}

TEST(CredentialCacheTest, WaiterStopsWhenCancelled) {
  Fixture f;
  f.provider->hold_ = true;
  f.clock.Advance(minutes(11));
  std::jthread fetcher([&f] { EXPECT_EQ(f.Key(), "KEY1"); });
  ASSERT_TRUE(f.provider->started_.WaitUntil([&] { return f.provider->started_count_ == 1; }));
  std::stop_source stop;
  Status waited;
  std::jthread waiter([&] { waited = f.cache->Current(stop.get_token()).status(); });
  ASSERT_TRUE(WaitForWaiters(*f.cache, 1));
  stop.request_stop();
  waiter.join();
  EXPECT_EQ(waited.code(), Code::kCancelled);
  f.provider->gate_.Open();
}

TEST(CredentialExpirationTest, ParsesRfc3339) {
  using std::chrono::system_clock;
  const auto base = ParseCredentialExpiration("2026-12-01T01:00:00Z");
  ASSERT_TRUE(base.has_value());
  EXPECT_EQ(system_clock::to_time_t(*base), 1796086800);
  EXPECT_EQ(ParseCredentialExpiration("2026-12-01T01:00:00.123456Z"), base);
  EXPECT_EQ(ParseCredentialExpiration("2026-12-01T03:00:00+02:00"), base);
  EXPECT_EQ(ParseCredentialExpiration("2026-11-30T23:30:00-01:30"), base);
  for (const char* bad : {"", "2026-12-01", "2026-12-01T01:00:00", "2026-13-01T01:00:00Z",
                          "2026-12-01T01:00:00Zjunk", "2026-12-01 01:00:00Z", "tomorrow",
                          "2026-12-01T01:00:00.Z", "2026-12-01T01:00:00+0200"}) {
    EXPECT_FALSE(ParseCredentialExpiration(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace lakedump
