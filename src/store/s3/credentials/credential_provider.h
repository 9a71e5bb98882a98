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
#include <memory>
#include <optional>
#include <stop_token>
#include <string>

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
  // chain moves on. Any other error stops the chain with one line naming the provider and
  // what is wrong (never a secret). `stop` cancels a slow fetch (Cancelled).
  virtual Result<ExpiringCredentials> Fetch(std::stop_token stop) = 0;
};

// Serves the credentials of one provider to every request of a run: fetched once, refreshed
// once for all threads when they are within `refresh_ahead` of their expiration (compared with
// clock->WallNow(): tests pass a FakeClock), and at once after Invalidate() (a 403 ExpiredToken).
class CredentialCache {
 public:
  static constexpr std::chrono::minutes kRefreshAhead{5};

  CredentialCache(std::unique_ptr<CredentialProvider> provider, ExpiringCredentials first,
                  Clock* clock = &SystemClock(),
                  std::chrono::seconds refresh_ahead = kRefreshAhead);
  virtual ~CredentialCache();
  CredentialCache(const CredentialCache&) = delete;
  CredentialCache& operator=(const CredentialCache&) = delete;

  // The credentials to sign the next request with: the cached ones, or fresh ones when these
  // expire within refresh_ahead (one thread fetches, the others wait for it). When a refresh
  // fails and the cached ones have not expired yet, they are returned (and the refresh is
  // tried again on the next call); once expired, the refresh's error.
  Result<Credentials> Current(std::stop_token stop = {});

  // The credentials `used` were refused as expired: the next Current() refreshes (once, however
  // many threads report the same credentials). Static credentials cannot refresh: false.
  bool Invalidate(const Credentials& used);

  std::string Describe() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace lakedump
