// One source of AWS credentials in the chain (docs/s3.md, "Credentials"), and the cache that
// S3 requests read them from. Providers know how to obtain keys (a file, an environment
// variable, an HTTP endpoint, a process); none knows SigV4. The chain (credential_chain.h)
// tries them in the AWS SDKs' order; the first that applies wins.
//
// Ownership and threads: a provider is owned by the chain and called from one thread at a time
// (the cache serializes refreshes). CredentialCache is shared by every request of a run and is
// thread-safe: many threads call Current() at once, and one refresh serves them all.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/status.h"
#include "store/s3/credentials.h"

namespace lakedump {

// Credentials and when they stop working (nullopt: never, e.g. static keys).
struct ExpiringCredentials {
  Credentials credentials;
  std::optional<std::chrono::system_clock::time_point> expiration;
};

class CredentialProvider {
 public:
  virtual ~CredentialProvider() = default;

  // For messages and `-v`: "environment", "web identity, role arn:aws:iam::1:role/x",
  // "profile dev (credential_process)", "container", "instance metadata (IMDSv2)".
  // Never a secret.
  virtual std::string Describe() const = 0;

  // NotFound: this provider does not apply here (its variables or files are absent), the
  // chain moves on; the message names where it looked ("AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY"),
  // for the one line that lists every place when no provider applies. Any other error stops the chain with one line naming the provider and
  // what is wrong (never a secret). `stop` cancels a slow fetch (Cancelled).
  virtual Result<ExpiringCredentials> Fetch(std::stop_token stop) = 0;
};

// "2026-12-01T01:00:00Z", with fractional seconds or a "+02:00" offset (RFC 3339: what STS,
// the container endpoint, IMDS and credential_process write) -> time point; nullopt when
// malformed or out of range.
std::optional<std::chrono::system_clock::time_point> ParseCredentialExpiration(
    std::string_view text);

// Serves the credentials of one provider to every request of a run: fetched once, refreshed
// once for all threads when they are within `refresh_ahead` of their expiration (compared with
// clock->WallNow(): tests pass a FakeClock), and at once after Invalidate() (a 403 ExpiredToken).
//
// Who waits: while the cached credentials are still valid (not expired, not invalidated), a
// thread that finds another one refreshing keeps signing with them instead of blocking (as
// botocore's advisory refresh does), so a slow endpoint does not stall uploads whose keys work
// for minutes more. Once they have expired or were refused, every thread waits for the one
// fetch, and a failed fetch is the answer of all who waited for it. After a fetch, the next
// refresh ahead of expiry is tried no sooner than kMinFetchInterval later (a failing endpoint,
// or credentials that live shorter than refresh_ahead, are not asked at every request).
class CredentialCache {
 public:
  static constexpr std::chrono::minutes kRefreshAhead{5};
  static constexpr std::chrono::seconds kMinFetchInterval{10};

  CredentialCache(std::unique_ptr<CredentialProvider> provider, ExpiringCredentials first,
                  Clock* clock = &SystemClock(),
                  std::chrono::seconds refresh_ahead = kRefreshAhead);
  virtual ~CredentialCache();
  CredentialCache(const CredentialCache&) = delete;
  CredentialCache& operator=(const CredentialCache&) = delete;

  // The credentials to sign the next request with: the cached ones, or fresh ones when these
  // expire within refresh_ahead (one thread fetches; see "Who waits" above). When a refresh
  // fails and the cached ones have not expired yet, they are returned (and the refresh is
  // tried again kMinFetchInterval later); once expired, the refresh's error. Cancelled when
  // `stop` is requested while waiting for another thread's fetch.
  Result<Credentials> Current(std::stop_token stop = {});

  // The credentials `used` were refused as expired: the next Current() refreshes (once, however
  // many threads report the same credentials; credentials already replaced are not dropped
  // again). True: a retry with Current() may succeed. Static credentials cannot refresh: false.
  bool Invalidate(const Credentials& used);

  std::string Describe() const;
  // Whether these credentials can be refreshed at all (they have an expiration).
  bool Refreshable() const;
  // Fetches done since construction, and threads now blocked in Current() waiting for one
  // (for tests and the trace).
  uint64_t fetches() const;
  size_t waiting() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace lakedump
