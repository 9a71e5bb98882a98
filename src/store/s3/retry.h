// Retry policy for S3 requests: exponential backoff with full jitter, a
// maximum number of attempts, a store-wide retry budget (token bucket) so a
// sick server is not hammered, and a store-wide throttle delay that SlowDown
// raises for every request of the store. Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <random>
#include <stop_token>

#include "base/status.h"

namespace lakedump {

struct RetryOptions {
  int max_attempts = 8;                        // first try included
  std::chrono::milliseconds base_delay{100};   // backoff before attempt 2 is in [0, base)
  std::chrono::milliseconds max_delay{10000};  // backoff cap
  // Token bucket: a retry costs retry_cost tokens, a success gives back
  // success_refund (up to capacity). Empty bucket = no more retries.
  int budget_capacity = 500;
  int retry_cost = 5;
  int success_refund = 1;
  // SlowDown / 429 / 503: every request of the store waits this long, doubled
  // on each throttle up to max_throttle, halved on each success.
  std::chrono::milliseconds throttle_step{50};
  std::chrono::milliseconds max_throttle{5000};
};

class RetryPolicy {
 public:
  explicit RetryPolicy(RetryOptions options = {});

  const RetryOptions& options() const { return options_; }

  // The backoff before attempt number `attempt` (2, 3...): uniform in
  // [0, min(max_delay, base_delay * 2^(attempt-2))).
  std::chrono::milliseconds Backoff(int attempt);

  // Takes a retry's tokens; false when the budget is exhausted.
  bool TryAcquireRetry();
  void OnSuccess();
  void OnThrottled();
  std::chrono::milliseconds throttle_delay() const;

  // Sleeps, waking early (Cancelled) when stop fires.
  static Status Sleep(std::chrono::milliseconds delay, std::stop_token stop);

  uint64_t retries() const { return retries_.load(); }
  uint64_t throttles() const { return throttles_.load(); }
  int budget_tokens() const;

 private:
  const RetryOptions options_;
  mutable std::mutex mu_;
  std::mt19937_64 rng_;                    // GUARDED_BY(mu_)
  int tokens_;                             // GUARDED_BY(mu_)
  std::chrono::milliseconds throttle_{0};  // GUARDED_BY(mu_)
  std::atomic<uint64_t> retries_{0};
  std::atomic<uint64_t> throttles_{0};
};

}  // namespace lakedump
