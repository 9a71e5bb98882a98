#include "lake/fenced_commit.h"

#include <fmt/format.h>

#include "lake/object_keys.h"

namespace lakedump {
namespace {

// An ETag no object has: MD5 digests of real bytes are never all zeros in practice.
constexpr std::string_view kNoSuchEtag = "00000000000000000000000000000000";

// The write was answered with a refusal (an error reply, a local write error), not lost:
// kUnavailable (no answer, retried) and kCancelled may still land after the read-back.
bool IsDefiniteRefusal(const Status& write) {
  return !write.ok() && !write.retryable() && write.code() != Code::kCancelled;
}

}  // namespace

std::string CommitRecord::Describe() const {
  std::string out = "run " + run_id;
  std::string details;
  if (fencing_token > 0) details = fmt::format("fencing token {}", fencing_token);
  if (!host.empty()) details += (details.empty() ? "host " : ", host ") + host;
  if (!details.empty()) out += " (" + details + ")";
  return out;
}

nlohmann::json ToJson(const CommitRecord& record) {
  return {{"run_id", record.run_id},
          {"fencing_token", record.fencing_token},
          {"host", record.host}};
}

CommitRecord CommitRecordOf(std::string_view manifest_text) {
  CommitRecord record;
  record.run_id = "(unreadable)";
  nlohmann::json j = nlohmann::json::parse(manifest_text.begin(), manifest_text.end(), nullptr,
                                           /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return record;
  if (j.contains("dump_id") && j["dump_id"].is_string()) {
    record.run_id = j["dump_id"].get<std::string>();
  }
  if (!j.contains("commit") || !j["commit"].is_object()) return record;
  const nlohmann::json& c = j["commit"];
  if (c.contains("run_id") && c["run_id"].is_string()) {
    record.run_id = c["run_id"].get<std::string>();
  }
  if (c.contains("fencing_token") && c["fencing_token"].is_number_integer()) {
    record.fencing_token = c["fencing_token"].get<int64_t>();
  }
  if (c.contains("host") && c["host"].is_string()) record.host = c["host"].get<std::string>();
  // Names from a bucket go into one-line messages: no control characters, bounded.
  for (std::string* s : {&record.run_id, &record.host}) {
    if (s->size() > 128) s->resize(128);
    for (char& ch : *s) {
      if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = '?';
    }
  }
  return record;
}

Result<WriteOptions> CommitPrecondition(ObjectStore& store, const ObjectInfo* manifest) {
  if (manifest == nullptr) return WriteOptions{.create_only = true};
  if (!manifest->etag.empty()) return WriteOptions{.if_match = manifest->etag};
  LD_ASSIGN_OR_RETURN(std::string bytes, store.GetObject(kManifestKey));
  return WriteOptions{.if_match = Md5Etag(bytes)};
}

ManifestCommit CommitManifest(ObjectStore& store, std::string_view body,
                              const WriteOptions& precondition, const CommitRecord& self) {
  const std::string dest = store.Describe();
  const Status put = store.PutObject(kManifestKey, body, precondition);
  // Read back whatever the write said: a retried write whose first attempt landed is refused
  // by its own precondition, and a write answered OK may not have stored anything.
  Result<std::string> stored = store.GetObject(kManifestKey);
  if (stored.ok() && *stored == body) return {Status::OK(), false};
  if (!stored.ok() && stored.status().code() != Code::kNotFound) {
    // Unknown: keep everything (the manifest may be this run's, or land later).
    const Status& cause = put.ok() ? stored.status() : put;
    return {cause.WithContext(fmt::format(
                "{} of this run ({}) could not be read back from {} ({})", kManifestKey,
                self.Describe(), dest, stored.status().message())),
            false};
  }
  const std::string holds =
      stored.ok() ? "the manifest of " + CommitRecordOf(*stored).Describe() : "no manifest";
  if (put.ok()) {
    return {Status::IOError(fmt::format(
                "{} answered the write of {} with success but holds {}: this run ({}) did not "
                "commit",
                dest, kManifestKey, holds, self.Describe())),
            false};
  }
  const bool unchanged = stored.ok() ? (!precondition.if_match.empty() &&
                                        Md5Etag(*stored) == precondition.if_match)
                                     : precondition.create_only;
  if (put.code() == Code::kAlreadyExists && stored.ok() && !unchanged) {
    return {Status::AlreadyExists(fmt::format(
                "another run committed {} first: {}; this run ({}) did not commit and deletes "
                "nothing",
                dest, CommitRecordOf(*stored).Describe(), self.Describe())),
            false};
  }
  return {put.WithContext(std::string(kManifestKey)), IsDefiniteRefusal(put) && unchanged};
}

Result<bool> StoreHonoursConditions(ObjectStore& store, std::string_view key) {
  if (store.create_only_is_atomic()) return true;
  LD_ASSIGN_OR_RETURN(std::string bytes, store.GetObject(key, 1 << 20));
  Status create = store.PutObject(key, bytes, WriteOptions{.create_only = true});
  if (create.ok()) return false;
  if (create.code() != Code::kAlreadyExists) return create;
  Status match = store.PutObject(key, bytes, WriteOptions{.if_match = std::string(kNoSuchEtag)});
  if (match.ok()) return false;
  if (match.code() != Code::kAlreadyExists) return match;
  return true;
}

}  // namespace lakedump
