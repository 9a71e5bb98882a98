#include "lake/dump_lease.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>

#include "lake/fenced_commit.h"
#include "lake/manifest.h"

namespace lakedump {
namespace {

using WallClock = std::chrono::system_clock;

int64_t UnixMs(WallClock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

std::string HostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return "unknown";
  return buf;
}

// A holder on this host whose process is gone (killed): it will never renew, nor write.
bool DeadOnThisHost(const LeaseHolder& h) {
  return h.host == HostName() && h.pid > 0 && ::kill(static_cast<pid_t>(h.pid), 0) != 0 &&
         errno == ESRCH;
}

}  // namespace

std::string LeaseHolder::Describe(WallClock::time_point now) const {
  const double ago = static_cast<double>(UnixMs(now) - renewed_unix_ms) / 1000.0;
  return fmt::format("run {} (host {}, pid {}, started {}, renewed {:.0f}s ago)", run_id, host,
                     pid, started_at, ago);
}

bool LeaseHolder::IsStale(WallClock::time_point now) const {
  const int64_t interval = renew_interval_ms > 0 ? renew_interval_ms : 10'000;
  if (UnixMs(now) - renewed_unix_ms > kStaleRenewals * interval) return true;
  return DeadOnThisHost(*this);
}

nlohmann::json ToJson(const LeaseHolder& h) {
  return {{"format", std::string(kDumpFormatName)}, {"kind", "lease"},
          {"run_id", h.run_id},         {"host", h.host},
          {"pid", h.pid},               {"started_at", h.started_at},
          {"renewed_unix_ms", h.renewed_unix_ms}, {"renew_interval_ms", h.renew_interval_ms},
          {"token", h.token}};
}

Result<LeaseHolder> ParseLease(std::string_view text) {
  if (text.size() > 64 * 1024) return Status::Corruption("_lease.json is too large");
  nlohmann::json j =
      nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("run_id") || !j["run_id"].is_string()) {
    return Status::Corruption("_lease.json is not a lakedump lease");
  }
  LeaseHolder h;
  h.run_id = j["run_id"].get<std::string>();
  if (j.contains("host") && j["host"].is_string()) h.host = j["host"].get<std::string>();
  if (j.contains("pid") && j["pid"].is_number_integer()) h.pid = j["pid"].get<int64_t>();
  if (j.contains("started_at") && j["started_at"].is_string()) {
    h.started_at = j["started_at"].get<std::string>();
  }
  if (j.contains("renewed_unix_ms") && j["renewed_unix_ms"].is_number_integer()) {
    h.renewed_unix_ms = j["renewed_unix_ms"].get<int64_t>();
  }
  if (j.contains("renew_interval_ms") && j["renew_interval_ms"].is_number_integer()) {
    h.renew_interval_ms = j["renew_interval_ms"].get<int64_t>();
  }
  if (j.contains("token") && j["token"].is_number_integer()) {
    h.token = std::max<int64_t>(0, j["token"].get<int64_t>());
  }
  return h;
}

namespace {

// The lease and the ETag of its bytes (Md5Etag), for a write conditional on it.
Result<LeaseHolder> ReadLeaseWithEtag(ObjectStore& store, std::string* etag) {
  LD_ASSIGN_OR_RETURN(std::string text, store.GetObject(kLeaseKey));
  if (etag != nullptr) *etag = Md5Etag(text);
  auto parsed = ParseLease(text);
  // An unreadable lease is held by nobody we can name: treat it as stale, by age 0.
  if (!parsed.ok()) return LeaseHolder{"(unreadable lease)", "?", 0, "?", 0, 1};
  return parsed;
}

}  // namespace

Result<LeaseHolder> ReadLease(ObjectStore& store) { return ReadLeaseWithEtag(store, nullptr); }

namespace {

// OK when there is no lease; AlreadyExists when there is one.
Status LeaseAbsent(ObjectStore& store) {
  Result<ObjectInfo> found = store.Head(kLeaseKey);
  if (found.ok()) return Status::AlreadyExists("the lease exists");
  return found.status().code() == Code::kNotFound ? Status::OK() : found.status();
}

// A stale lease may be taken over where a late write of its holder cannot land over the new
// run's commit: the store honours conditional writes, or the holder is dead on this host.
Status CheckTakeoverFenced(ObjectStore& store, const LeaseHolder& holder,
                           WallClock::time_point now) {
  if (DeadOnThisHost(holder)) return Status::OK();
  LD_ASSIGN_OR_RETURN(const bool fenced, StoreHonoursConditions(store, kLeaseKey));
  if (fenced) return Status::OK();
  return Status::AlreadyExists(fmt::format(
      "{} ignores conditional writes (If-None-Match, If-Match), so the run of the stale lease, "
      "{}, if it is cut off but alive, could still commit over this one: make sure it has "
      "ended, delete {} there, and run again",
      store.Describe(), holder.Describe(now), kLeaseKey));
}

// Creates the lease create-only. Where the store may ignore create-only (S3), it looks first:
// a create must not replace a lease, not even a stale one (its holder may be cut off but
// alive; see CheckTakeoverFenced).
Status CreateLease(ObjectStore& store, const std::string& body) {
  Status absent = store.create_only_is_atomic() ? Status::OK() : LeaseAbsent(store);
  if (!absent.ok()) return absent;
  return store.PutObject(kLeaseKey, body, WriteOptions{.create_only = true});
}

// Replaces the stale lease of `holder` (a plain write) with *self and the next fencing token.
Status TakeOver(ObjectStore& store, const LeaseHolder& holder, LeaseHolder* self,
                WallClock::time_point now) {
  LD_RETURN_IF_ERROR(CheckTakeoverFenced(store, holder, now));
  self->token = holder.token + 1;
  return store.PutObject(kLeaseKey, ToJson(*self).dump(2) + "\n");
}

}  // namespace

DumpLease::DumpLease(ObjectStore* store, LeaseHolder self, LeaseOptions options)
    : store_(store), options_(options), token_(self.token), host_(self.host),
      self_(std::move(self)) {
  last_renewal_ = options_.clock->Now();
}

Result<std::unique_ptr<DumpLease>> DumpLease::Acquire(ObjectStore* store, std::string run_id,
                                                      LeaseOptions options, std::stop_token stop) {
  LeaseHolder self;
  self.run_id = std::move(run_id);
  self.host = HostName();
  self.pid = static_cast<int64_t>(::getpid());
  Clock& clock = *options.clock;
  self.started_at = FormatUtc(clock.WallNow());
  self.renew_interval_ms = options.renew_interval.count();
  const auto give_up = options.wait ? clock.Now() + *options.wait : Clock::TimePoint::max();
  const std::string dest = store->Describe();
  std::optional<LeaseHolder> taken_over;
  for (;;) {
    if (stop.stop_requested()) return Status::Cancelled("interrupted while waiting for the lease");
    self.renewed_unix_ms = UnixMs(clock.WallNow());
    self.token = 1;
    const std::string body = ToJson(self).dump(2) + "\n";
    Status put = CreateLease(*store, body);
    std::optional<LeaseHolder> holder;
    if (put.code() == Code::kAlreadyExists) {
      auto current = ReadLease(*store);
      if (!current.ok() && current.status().code() != Code::kNotFound) return current.status();
      if (current.ok()) holder = *current;
      if (!holder) continue;  // released meanwhile: try again at once
      // A create whose reply was lost and was sent again finds itself.
      if (holder->run_id == self.run_id) put = Status::OK();
      if (!put.ok() && options.take_over_stale && holder->IsStale(clock.WallNow())) {
        // Replaced, then read back below like any non-atomic create.
        LD_RETURN_IF_ERROR(TakeOver(*store, *holder, &self, clock.WallNow()));
        taken_over = holder;
        put = Status::OK();
        holder.reset();
      }
    } else if (!put.ok()) {
      return put.WithContext(fmt::format("creating the lease {} in {}", kLeaseKey, dest));
    }
    if (put.ok()) {
      // Where create-only may have replaced a concurrent writer's lease (S3
      // endpoints that ignore If-None-Match), or after a takeover, both
      // writers wait and read back: the last write wins, the other backs off.
      bool read_back = taken_over.has_value();
      if (!store->create_only_is_atomic() && !read_back) {
        // Probe: the same create-only write again. A store that honours the
        // condition refuses it (the lease is there); one that ignores it
        // accepts it (same bytes, harmless), and then only a read-back helps.
        Status probe = store->PutObject(kLeaseKey, body, WriteOptions{.create_only = true});
        if (!probe.ok() && probe.code() != Code::kAlreadyExists) return probe;
        read_back = probe.ok();
      }
      if (read_back) {
        if (!clock.SleepFor(options.settle, stop)) return Status::Cancelled("interrupted");
        auto current = ReadLease(*store);
        if (!current.ok() && current.status().code() != Code::kNotFound) return current.status();
        if (!current.ok() || current->run_id != self.run_id) {
          if (current.ok()) holder = *current;
          taken_over.reset();
        }
      }
      if (!holder) {
        std::unique_ptr<DumpLease> lease(new DumpLease(store, self, options));
        lease->taken_over_ = std::move(taken_over);
        lease->renewer_ = std::jthread([l = lease.get()](std::stop_token s) { l->RenewLoop(s); });
        return lease;
      }
    }
    const auto now = clock.WallNow();
    if (clock.Now() >= give_up) {
      const bool stale = holder->IsStale(now);
      return Status::AlreadyExists(fmt::format(
          "{} is being written by another lakedump: {}{}", dest, holder->Describe(now),
          stale ? "; that run looks dead (its lease is stale): take it over with --if-exists "
                  "resume"
                : options.wait ? "; wait for it, or pass --wait-for-lock" : ""));
    }
    if (!clock.SleepFor(std::chrono::milliseconds(500), stop)) {
      return Status::Cancelled("interrupted while waiting for the lease");
    }
  }
}

DumpLease::~DumpLease() { Release().IgnoreError(); }

void DumpLease::RenewLoop(std::stop_token stop) {
  while (options_.clock->SleepFor(options_.renew_interval, stop)) {
    {
      std::lock_guard lock(mu_);
      if (!lost_.empty()) return;
    }
    Status s = RenewOnce();
    std::lock_guard lock(mu_);
    if (s.ok()) last_renewal_ = options_.clock->Now();
    // A failed renewal is tried again next time; CheckHeld() fails once
    // renewals have failed for too long.
  }
}

Status DumpLease::RenewOnce() {
  std::string etag;
  auto current = ReadLeaseWithEtag(*store_, &etag);
  std::lock_guard lock(mu_);
  if (!current.ok()) {
    if (current.status().code() == Code::kNotFound) {
      lost_ = "the lease was deleted by someone else";
      return Status::OK();
    }
    return current.status();
  }
  if (current->run_id != self_.run_id) {
    lost_ = "the lease was taken over by " + current->Describe(options_.clock->WallNow());
    return Status::OK();
  }
  self_.renewed_unix_ms = UnixMs(options_.clock->WallNow());
  // Only over the lease just read: a renewal of a run cut off from the store that lands
  // after a takeover is refused, instead of putting this run's lease back over the new one.
  Status put = store_->PutObject(kLeaseKey, ToJson(self_).dump(2) + "\n",
                                 WriteOptions{.if_match = etag});
  if (put.code() == Code::kAlreadyExists) {
    lost_ = "the lease was replaced by another run while this one renewed it";
    return Status::OK();
  }
  return put;
}

Status DumpLease::CheckHeld() {
  auto current = ReadLease(*store_);
  std::lock_guard lock(mu_);
  const std::string dest = store_->Describe();
  if (current.ok() && current->run_id != self_.run_id) {
    lost_ = "the lease was taken over by " + current->Describe(options_.clock->WallNow());
  } else if (!current.ok() && current.status().code() == Code::kNotFound) {
    lost_ = "the lease was deleted by someone else";
  } else if (!current.ok()) {
    return current.status().WithContext("checking the lease on " + dest);
  }
  if (!lost_.empty()) {
    return Status::AlreadyExists(fmt::format("{} is no longer this run's to write: {}", dest, lost_));
  }
  const auto since = options_.clock->Now() - last_renewal_;
  if (since > kStaleRenewals * options_.renew_interval) {
    return Status::AlreadyExists(fmt::format(
        "could not renew the lease on {} for {}s: another run may have taken it over", dest,
        std::chrono::duration_cast<std::chrono::seconds>(since).count()));
  }
  return Status::OK();
}

Status DumpLease::Release() {
  {
    std::lock_guard lock(mu_);
    if (released_) return Status::OK();
    released_ = true;
  }
  renewer_.request_stop();
  if (renewer_.joinable()) renewer_.join();
  auto current = ReadLease(*store_);
  if (!current.ok()) {
    return current.status().code() == Code::kNotFound ? Status::OK() : current.status();
  }
  if (current->run_id != self_.run_id) return Status::OK();  // not ours to delete
  const std::string key(kLeaseKey);
  return store_->Delete(std::span<const std::string>(&key, 1));
}

}  // namespace lakedump
