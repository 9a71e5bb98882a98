#include <condition_variable>
#include <mutex>
#include <utility>

#include "store/s3/credentials/credential_provider.h"

namespace lakedump {
namespace {

bool SameCredentials(const Credentials& a, const Credentials& b) {
  return a.access_key_id == b.access_key_id && a.secret_access_key == b.secret_access_key &&
         a.session_token == b.session_token;
}

}  // namespace

struct CredentialCache::State {
  std::unique_ptr<CredentialProvider> provider;
  Clock* clock;
  std::chrono::seconds refresh_ahead;
  std::string description;  // the provider's, taken once: Describe() needs no lock

  mutable std::mutex mu;
  std::condition_variable_any cv;  // a fetch ended
  ExpiringCredentials current;     // GUARDED_BY(mu)
  bool fetching = false;           // GUARDED_BY(mu): one thread is in provider->Fetch
  bool invalidated = false;        // GUARDED_BY(mu): `current` was refused as expired
  uint64_t fetches = 0;            // GUARDED_BY(mu): fetches ended (success or not)
  Status last_failure;             // GUARDED_BY(mu): of the fetch numbered `fetches`
  Clock::WallTime next_fetch{};    // GUARDED_BY(mu): no refresh ahead of expiry before
  size_t waiting = 0;              // GUARDED_BY(mu)

  // `current` must not be used any more: refused, or past its expiration.
  bool UnusableLocked(Clock::WallTime now) const {
    return invalidated || (current.expiration && *current.expiration <= now);
  }
  bool DueLocked(Clock::WallTime now) const {
    if (UnusableLocked(now)) return true;
    return current.expiration && now >= *current.expiration - refresh_ahead && now >= next_fetch;
  }

  // Runs the fetch outside the lock (the others keep reading `current`), then publishes it.
  // Returns the credentials the calling thread signs with, or the failure.
  Result<Credentials> FetchLocked(std::unique_lock<std::mutex>& lock, std::stop_token stop) {
    fetching = true;
    lock.unlock();
    Result<ExpiringCredentials> got = provider->Fetch(stop);
    lock.lock();
    fetching = false;
    ++fetches;
    const Clock::WallTime now = clock->WallNow();
    next_fetch = now + kMinFetchInterval;
    cv.notify_all();
    if (got.ok()) {
      current = std::move(*got);
      invalidated = false;
      last_failure = Status::OK();
      // Used even when they look expired already (a clock ahead of the issuer's): the
      // server decides, and a refusal comes back through Invalidate().
      return current.credentials;
    }
    last_failure = got.status().code() == Code::kCancelled
                       ? got.status()
                       : got.status().WithContext("refreshing S3 credentials (" +
                                                  description + ")");
    if (!UnusableLocked(now)) return current.credentials;  // tried again after next_fetch
    return last_failure;
  }
};

CredentialCache::CredentialCache(std::unique_ptr<CredentialProvider> provider,
                                 ExpiringCredentials first, Clock* clock,
                                 std::chrono::seconds refresh_ahead)
    : state_(std::make_unique<State>()) {
  state_->description = provider->Describe();
  state_->provider = std::move(provider);
  state_->clock = clock;
  state_->refresh_ahead = refresh_ahead;
  state_->current = std::move(first);
}

CredentialCache::~CredentialCache() = default;

Result<Credentials> CredentialCache::Current(std::stop_token stop) {
  State& s = *state_;
  std::unique_lock<std::mutex> lock(s.mu);
  for (;;) {
    const Clock::WallTime now = s.clock->WallNow();
    if (!s.DueLocked(now)) return s.current.credentials;
    if (!s.fetching) return s.FetchLocked(lock, stop);
    if (!s.UnusableLocked(now)) return s.current.credentials;  // the refresher will swap them
    const uint64_t awaited = s.fetches + 1;
    ++s.waiting;
    const bool ended = s.cv.wait(lock, stop, [&s, awaited] { return s.fetches >= awaited; });
    --s.waiting;
    if (!ended) return Status::Cancelled("cancelled while waiting for S3 credentials");
    // The fetch waited for failed and left nothing usable: its failure is ours too (asking
    // again at once would only multiply the calls to a failing endpoint). A cancelled fetch
    // was the other thread's stop, not ours: the loop fetches again.
    if (s.fetches == awaited && !s.last_failure.ok() &&
        s.last_failure.code() != Code::kCancelled && s.UnusableLocked(s.clock->WallNow())) {
      return s.last_failure;
    }
  }
}

bool CredentialCache::Invalidate(const Credentials& used) {
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.current.expiration) return false;  // static keys: nothing to refresh
  // Credentials replaced since `used` was signed with: the retry signs with the new ones.
  if (SameCredentials(used, s.current.credentials)) s.invalidated = true;
  return true;
}

std::string CredentialCache::Describe() const { return state_->description; }

bool CredentialCache::Refreshable() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->current.expiration.has_value();
}

uint64_t CredentialCache::fetches() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->fetches;
}

size_t CredentialCache::waiting() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->waiting;
}

}  // namespace lakedump
