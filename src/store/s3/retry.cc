#include "store/s3/retry.h"

#include <algorithm>
#include <condition_variable>

namespace lakedump {

RetryPolicy::RetryPolicy(RetryOptions options)
    : options_(options), rng_(std::random_device{}()), tokens_(options.budget_capacity) {}

std::chrono::milliseconds RetryPolicy::Backoff(int attempt) {
  int shift = std::clamp(attempt - 2, 0, 30);
  int64_t cap = std::min<int64_t>(options_.max_delay.count(),
                                  options_.base_delay.count() * (int64_t{1} << shift));
  if (cap <= 0) return std::chrono::milliseconds(0);
  std::lock_guard<std::mutex> lock(mu_);
  std::uniform_int_distribution<int64_t> dist(0, cap - 1);
  return std::chrono::milliseconds(dist(rng_));
}

bool RetryPolicy::TryAcquireRetry() {
  std::lock_guard<std::mutex> lock(mu_);
  if (tokens_ < options_.retry_cost) return false;
  tokens_ -= options_.retry_cost;
  retries_.fetch_add(1);
  return true;
}

void RetryPolicy::OnSuccess() {
  std::lock_guard<std::mutex> lock(mu_);
  tokens_ = std::min(options_.budget_capacity, tokens_ + options_.success_refund);
  throttle_ /= 2;
  if (throttle_ < std::chrono::milliseconds(5)) throttle_ = std::chrono::milliseconds(0);
}

void RetryPolicy::OnThrottled() {
  throttles_.fetch_add(1);
  std::lock_guard<std::mutex> lock(mu_);
  throttle_ = std::min(options_.max_throttle, std::max(options_.throttle_step, throttle_ * 2));
}

std::chrono::milliseconds RetryPolicy::throttle_delay() const {
  std::lock_guard<std::mutex> lock(mu_);
  return throttle_;
}

int RetryPolicy::budget_tokens() const {
  std::lock_guard<std::mutex> lock(mu_);
  return tokens_;
}

Status RetryPolicy::Sleep(std::chrono::milliseconds delay, std::stop_token stop) {
  if (delay.count() <= 0)
    return stop.stop_requested() ? Status::Cancelled("cancelled") : Status::OK();
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock<std::mutex> lock(mu);
  cv.wait_for(lock, stop, delay, [] { return false; });
  return stop.stop_requested() ? Status::Cancelled("cancelled") : Status::OK();
}

}  // namespace lakedump
