#include "store/s3/retry.h"

#include <algorithm>

namespace lakedump {

RetryPolicy::RetryPolicy(RetryOptions options) : options_(options), rng_(std::random_device{}()) {}

std::chrono::milliseconds RetryPolicy::Backoff(int attempt) {
  int shift = std::clamp(attempt - 2, 0, 30);
  int64_t cap = std::min<int64_t>(options_.max_delay.count(),
                                  options_.base_delay.count() * (int64_t{1} << shift));
  if (cap <= 0) return std::chrono::milliseconds(0);
  std::lock_guard<std::mutex> lock(mu_);
  std::uniform_int_distribution<int64_t> dist(cap / 2, std::max<int64_t>(cap / 2, cap - 1));
  return std::chrono::milliseconds(dist(rng_));
}

void RetryPolicy::OnSuccess() {
  std::lock_guard<std::mutex> lock(mu_);
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

Status RetryPolicy::Sleep(std::chrono::milliseconds delay, std::stop_token stop) const {
  return options_.clock->SleepFor(delay, stop) ? Status::OK() : Status::Cancelled("cancelled");
}

Status RetryState::Failed(const Status& last, bool throttled, std::stop_token stop) {
  if (!last.retryable()) return last;
  if (throttled) policy_->OnThrottled();
  LD_ASSIGN_OR_RETURN(std::chrono::milliseconds delay,
                      NextDelay(last, policy_->options().clock->Now()));
  ++attempt_;
  policy_->OnRetry();
  return policy_->Sleep(delay, stop);
}

Result<std::chrono::milliseconds> RetryState::NextDelay(const Status& last,
                                                        Clock::TimePoint now) {
  const RetryOptions& o = policy_->options();
  if (attempt_ == 1) first_failure_ = now;
  const bool contacted = policy_->contacted();
  if (attempt_ >= o.max_attempts) {
    return Status::Unavailable(last.message() + " (gave up after " + std::to_string(attempt_) +
                               " attempts; --s3-max-attempts)");
  }
  // Before the endpoint ever answered, the short first-contact budget, counted from the
  // request's start; after, the retry budget, counted from the first failure.
  const auto budget = contacted ? o.budget : std::min(o.budget, o.first_contact_budget);
  const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(
      now - (contacted ? first_failure_ : started_));
  std::chrono::milliseconds delay = policy_->Backoff(attempt_ + 1);
  if (spent + delay <= budget) return delay;
  // The last attempt goes at the end of the budget, not past it.
  delay = budget - spent;
  if (delay.count() > 0 && spent < budget) return delay;
  const std::string took =
      std::to_string(attempt_) + " attempts in " + std::to_string(spent.count() / 1000) + " s";
  if (!contacted) {
    return Status::Unavailable(last.message() + " (no answer from the endpoint after " + took +
                               ": check --endpoint and that the server is up)");
  }
  return Status::Unavailable(last.message() + " (gave up after " + took + "; --s3-retry-budget)");
}

}  // namespace lakedump
