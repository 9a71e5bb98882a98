// Retry policy for S3 requests: exponential backoff with jitter, bounded by a
// maximum number of attempts and by a time budget per request (the time spent
// failing, counted from the request's first failure, so that a long transfer
// that succeeds slowly does not eat it), and a store-wide throttle delay that
// SlowDown raises for every request of the store. Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <random>
#include <stop_token>

#include "base/clock.h"
#include "base/status.h"

namespace lakedump {

struct RetryOptions {
  int max_attempts = 20;                      // first try included (--s3-max-attempts)
  std::chrono::milliseconds budget{60000};    // per request, from its first failure
  // Until the endpoint has answered once (any HTTP reply, RetryPolicy::OnContact), a request
  // gives up this long after it started instead: a wrong or unreachable endpoint fails fast,
  // and the budget above covers outages of an endpoint known to work.
  std::chrono::milliseconds first_contact_budget{5000};
  std::chrono::milliseconds base_delay{200};  // backoff before attempt 2 is in [base/2, base)
  std::chrono::milliseconds max_delay{5000};  // backoff cap
  // SlowDown / 429 / 503: every request of the store waits this long, doubled
  // on each throttle up to max_throttle, halved on each success.
  std::chrono::milliseconds throttle_step{50};
  std::chrono::milliseconds max_throttle{5000};
  // Backoff sleeps and the budget read this clock (borrowed; it outlives every policy).
  Clock* clock = &SystemClock();
};

class RetryPolicy {
 public:
  explicit RetryPolicy(RetryOptions options = {});

  const RetryOptions& options() const { return options_; }

  // The backoff before attempt number `attempt` (2, 3...): "equal jitter",
  // uniform in [cap/2, cap) with cap = min(max_delay, base_delay * 2^(attempt-2)),
  // so that retries spread out yet keep covering an outage.
  std::chrono::milliseconds Backoff(int attempt);

  // The endpoint answered (an HTTP reply of any status): from now on failures get the whole
  // budget. contacted() says whether it did.
  void OnContact() { contacted_.store(true); }
  bool contacted() const { return contacted_.load(); }

  // Counts a retry (for Stats()).
  void OnRetry() { retries_.fetch_add(1); }
  void OnSuccess();
  void OnThrottled();
  std::chrono::milliseconds throttle_delay() const;

  // Sleeps on options().clock, waking early (Cancelled) when stop fires.
  Status Sleep(std::chrono::milliseconds delay, std::stop_token stop) const;

  uint64_t retries() const { return retries_.load(); }
  uint64_t throttles() const { return throttles_.load(); }

 private:
  const RetryOptions options_;
  mutable std::mutex mu_;
  std::mt19937_64 rng_;                    // GUARDED_BY(mu_)
  std::chrono::milliseconds throttle_{0};  // GUARDED_BY(mu_)
  std::atomic<uint64_t> retries_{0};
  std::atomic<uint64_t> throttles_{0};
  std::atomic<bool> contacted_{false};
};

// The retry loop of one request, shared by every S3 operation: call Failed()
// after each failed attempt; it sleeps the backoff and returns OK when another
// attempt may be made, or the final error (naming why it gave up). Construct it right before
// the first attempt: before first contact, its time counts from then.
// Not thread-safe (one per request).
class RetryState {
 public:
  explicit RetryState(RetryPolicy* policy)
      : policy_(policy), started_(policy->options().clock->Now()) {}
  Status Failed(const Status& last, bool throttled, std::stop_token stop);
  int attempts() const { return attempt_; }

 private:
  // The wait before the next attempt, or the final error.
  Result<std::chrono::milliseconds> NextDelay(const Status& last, Clock::TimePoint now);

  RetryPolicy* const policy_;
  const Clock::TimePoint started_;
  int attempt_ = 1;
  Clock::TimePoint first_failure_{};
};

}  // namespace lakedump
