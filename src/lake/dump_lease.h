// DumpLease: one writer per destination. A dump holds `_lease.json` at the
// dump root from before it touches the destination until it ends (success or
// failure); a second run finds it and refuses (or waits). See
// docs/dump-format.md, "One writer per destination".
//
// Acquire() creates the lease create-only (local: rename without replace; S3:
// If-None-Match: *). Where the store cannot promise that a create-only write
// never replaces an object (S3: an endpoint may ignore the condition), it
// sends the same create-only write again: refused, the endpoint honours the
// condition (radosgw 16.2 and AWS do); accepted, it does not, and the writer
// waits `settle` and reads the lease back: only the run whose id it finds goes
// on (so does a run taking over a stale lease). A background thread renews the lease every `renew_interval`,
// after checking that it still holds this run's id; a lease not renewed for
// kStaleRenewals intervals (by the holder's own interval) is stale, and so is
// one whose holder's pid is gone on this host. Only a caller that allows it
// (--if-exists resume) takes over a stale lease, with the holder's fencing token + 1, and
// only on a store that honours conditional writes (lake/fenced_commit.h: elsewhere the
// stale holder, cut off but alive, could still land its manifest over the new run's).
//
// Thread-safe: CheckHeld() may be called from any thread. Release() (also run
// by the destructor) stops the renewal thread and deletes the lease when it is
// still this run's. Borrows the store, which must outlive the lease.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/status.h"
#include "lake/object_keys.h"
#include "store/object_store.h"

namespace lakedump {

inline constexpr int kStaleRenewals = 3;

struct LeaseOptions {
  std::chrono::milliseconds renew_interval{10'000};
  // How long Acquire() waits for a held lease to go (0: refuse at once;
  // nullopt: wait without limit, until `stop`).
  std::optional<std::chrono::milliseconds> wait{std::chrono::milliseconds(0)};
  bool take_over_stale = false;  // --if-exists resume
  // Read-back delay where create-only is not atomic (S3).
  std::chrono::milliseconds settle{1500};
  // Renewals, staleness, waits and the lease's timestamps read this clock (borrowed; it must
  // outlive the lease).
  Clock* clock = &SystemClock();
};

// What a lease file says about its holder.
struct LeaseHolder {
  std::string run_id;
  std::string host;
  int64_t pid = 0;
  std::string started_at;  // ISO 8601 UTC
  int64_t renewed_unix_ms = 0;
  int64_t renew_interval_ms = 0;
  // The fencing token: 1 for a new lease, the stale holder's + 1 for each takeover; a
  // run's manifest records it (lake/fenced_commit.h). 0 in a lease of an older lakedump.
  int64_t token = 0;

  // "run R (host H, pid P, started S, renewed Ns ago)"
  std::string Describe(std::chrono::system_clock::time_point now) const;
  // Not renewed for kStaleRenewals of its intervals, or its pid is gone on this host.
  bool IsStale(std::chrono::system_clock::time_point now) const;
};

nlohmann::json ToJson(const LeaseHolder& holder);
Result<LeaseHolder> ParseLease(std::string_view text);
// The lease as stored now; NotFound when there is none (an unreadable one: a stale holder).
Result<LeaseHolder> ReadLease(ObjectStore& store);

class DumpLease {
 public:
  // AlreadyExists "DEST is being written by another lakedump run (...)" when
  // another live run holds it (after waiting up to options.wait).
  static Result<std::unique_ptr<DumpLease>> Acquire(ObjectStore* store, std::string run_id,
                                                    LeaseOptions options,
                                                    std::stop_token stop = {});
  ~DumpLease();
  DumpLease(const DumpLease&) = delete;
  DumpLease& operator=(const DumpLease&) = delete;

  // OK while the lease on the store holds this run's id and was renewed
  // recently; an error naming the new holder otherwise. Reads the lease.
  Status CheckHeld();
  // Stops renewing; deletes the lease if it is still this run's. Idempotent.
  Status Release();
  // The holder this run took the lease over from (stale), if any.
  const std::optional<LeaseHolder>& taken_over() const { return taken_over_; }
  // This run's fencing token and host, as the lease records them.
  int64_t token() const { return token_; }
  const std::string& host() const { return host_; }

 private:
  DumpLease(ObjectStore* store, LeaseHolder self, LeaseOptions options);
  void RenewLoop(std::stop_token stop);
  Status RenewOnce();

  ObjectStore* const store_;
  const LeaseOptions options_;
  const int64_t token_;
  const std::string host_;
  std::mutex mu_;
  LeaseHolder self_;                                   // guarded by mu_ (renewed_unix_ms)
  std::string lost_;                                   // guarded by mu_: why it is no longer ours
  Clock::TimePoint last_renewal_;                      // guarded by mu_
  bool released_ = false;                              // guarded by mu_
  std::optional<LeaseHolder> taken_over_;
  std::jthread renewer_;  // last: stops before the rest is destroyed
};

}  // namespace lakedump
