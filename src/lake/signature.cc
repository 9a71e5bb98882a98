#include "lake/signature.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/sha256.h"
#include "lake/object_keys.h"

namespace lakedump {
namespace {

constexpr std::string_view kSignatureFormat = "lakedump-signature";
constexpr std::string_view kAlgorithm = "hmac-sha256";
constexpr std::string_view kRefusedPrefix = "signature check failed: ";
// Entries of manifests that other runs signed but may not have committed, kept in
// "earlier" so that a run never drops the entry of the manifest that is committed.
constexpr size_t kMaxEarlierEntries = 6;

Status Refused(std::string_view what) {
  return Status::PermissionDenied(fmt::format("{}{}", kRefusedPrefix, what));
}

bool IsEntry(const nlohmann::json& j) {
  return j.is_object() && j.contains("hmac_sha256") && j["hmac_sha256"].is_string() &&
         (!j.contains("key_id") || j["key_id"].is_string()) &&
         (!j.contains("manifest_sha256") || j["manifest_sha256"].is_string());
}

// A signature object (ours, or hostile): nullopt unless it has the format, the algorithm
// and a well-formed entry (and a well-formed "previous" when present).
std::optional<nlohmann::json> ParseSignature(std::string_view text) {
  if (text.empty() || text.size() > 64 * 1024) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || j.value("format", "") != kSignatureFormat ||
      j.value("algorithm", "") != kAlgorithm || !IsEntry(j)) {
    return std::nullopt;
  }
  if (j.contains("previous") && !IsEntry(j["previous"])) return std::nullopt;
  if (j.contains("earlier")) {
    const nlohmann::json& e = j["earlier"];
    if (!e.is_array() || e.size() > kMaxEarlierEntries) return std::nullopt;
    for (const nlohmann::json& entry : e) {
      if (!IsEntry(entry)) return std::nullopt;
    }
  }
  return j;
}

// The entry's three fields, nothing else (a hostile object's extra fields are not carried).
nlohmann::json EntryOf(const nlohmann::json& j) {
  return {{"key_id", j.value("key_id", "")},
          {"manifest_sha256", j.value("manifest_sha256", "")},
          {"hmac_sha256", j["hmac_sha256"]}};
}

// Every entry of a parsed signature object, the main one first, then "previous", then
// "earlier" in order.
std::vector<const nlohmann::json*> EntriesOf(const nlohmann::json& sig) {
  std::vector<const nlohmann::json*> out = {&sig};
  if (sig.contains("previous")) out.push_back(&sig["previous"]);
  if (sig.contains("earlier")) {
    for (const nlohmann::json& e : sig["earlier"]) out.push_back(&e);
  }
  return out;
}

}  // namespace

Result<std::string> ReadSigningKey(const std::string& path) {
  // Opened without blocking (a FIFO would wait for a writer), then checked on the descriptor:
  // what is read is what was checked.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    return Status::InvalidArgument(
        fmt::format("key file {}: cannot read it ({})", path, std::strerror(errno)));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    return Status::InvalidArgument(fmt::format(
        "key file {} is not a regular file (a FIFO, socket or device): refused", path));
  }
  if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    return Status::InvalidArgument(fmt::format(
        "key file {} is readable or writable by other users (mode {:04o}): refused; make it "
        "private with: chmod 600 {}",
        path, st.st_mode & 07777, path));
  }
  std::string key;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return Status::InvalidArgument(
          fmt::format("key file {}: cannot read it ({})", path, std::strerror(errno)));
    }
    if (n == 0) break;
    key.append(buf, static_cast<size_t>(n));
    if (key.size() > 64 * 1024) {
      return Status::InvalidArgument(fmt::format("key file {} is larger than 64 KiB", path));
    }
  }
  // As "$(cat K)" in the documented openssl check: trailing newlines are not part of the key.
  while (!key.empty() && key.back() == '\n') key.pop_back();
  if (key.empty()) return Status::InvalidArgument(fmt::format("key file {} is empty", path));
  if (key.size() < kMinSigningKeyBytes) {
    return Status::InvalidArgument(fmt::format(
        "key file {} holds {} bytes; a signing key needs at least {} (make one with: head -c "
        "32 /dev/urandom > FILE; chmod 600 FILE)",
        path, key.size(), kMinSigningKeyBytes));
  }
  return key;
}

std::string SigningKeyId(std::string_view key) {
  return HmacSha256Hex(key, "lakedump signing key id").substr(0, 16);
}

std::string SignatureObject(std::string_view key, std::string_view manifest_bytes,
                            std::string_view previous_signature, std::string_view signed_object) {
  nlohmann::json j = {{"format", std::string(kSignatureFormat)},
                      {"format_version", 1},
                      {"algorithm", std::string(kAlgorithm)},
                      {"signed_object", std::string(signed_object)},
                      {"key_id", SigningKeyId(key)},
                      {"manifest_sha256", Sha256Hex(manifest_bytes)},
                      {"hmac_sha256", HmacSha256Hex(key, manifest_bytes)}};
  // The signature of the manifest still committed, while the new one is not yet: so the
  // old dump keeps passing --require-signature until the new manifest replaces it.
  if (auto prev = ParseSignature(previous_signature); prev.has_value()) {
    j["previous"] = {{"key_id", (*prev)["key_id"]},
                     {"manifest_sha256", (*prev)["manifest_sha256"]},
                     {"hmac_sha256", (*prev)["hmac_sha256"]}};
  }
  return j.dump(2) + "\n";
}

std::string SignatureObjectOver(std::string_view key, std::string_view manifest_bytes,
                                std::string_view current_signature,
                                std::string_view committed_sha256,
                                std::string_view signed_object) {
  nlohmann::json j = nlohmann::json::parse(SignatureObject(key, manifest_bytes, "", signed_object));
  auto current = ParseSignature(current_signature);
  if (!current.has_value()) return j.dump(2) + "\n";
  const std::string own = j["manifest_sha256"];
  std::vector<const nlohmann::json*> entries = EntriesOf(*current);
  // "previous": the committed manifest's entry when the object holds it, else its main one.
  const nlohmann::json* previous = entries.front();
  for (const nlohmann::json* e : entries) {
    if (!committed_sha256.empty() && e->value("manifest_sha256", "") == committed_sha256) {
      previous = e;
      break;
    }
  }
  std::set<std::string> seen = {own};
  if (previous->value("manifest_sha256", "") != own) {
    j["previous"] = EntryOf(*previous);
    seen.insert(previous->value("manifest_sha256", ""));
  }
  nlohmann::json earlier = nlohmann::json::array();
  for (const nlohmann::json* e : entries) {
    if (earlier.size() == kMaxEarlierEntries) break;
    if (seen.insert(e->value("manifest_sha256", "")).second) earlier.push_back(EntryOf(*e));
  }
  if (!earlier.empty()) j["earlier"] = std::move(earlier);
  return j.dump(2) + "\n";
}

Status CheckSignatureText(std::string_view signature, std::string_view key,
                          std::string_view signed_bytes, std::string_view what) {
  auto parsed = ParseSignature(signature);
  if (!parsed.has_value()) {
    return Refused(fmt::format("the signature of {} is not a lakedump hmac-sha256 signature",
                               what));
  }
  const nlohmann::json* entry = &*parsed;
  // During an overwrite of a signed dump, the signature object already holds the new
  // manifest's entry and the committed one's as "previous" (or, after runs that signed and
  // did not commit, among "earlier"): the entry is the one for these bytes.
  const std::string digest = Sha256Hex(signed_bytes);
  if (parsed->value("manifest_sha256", digest) != digest) {
    for (const nlohmann::json* e : EntriesOf(*parsed)) {
      if (e->value("manifest_sha256", "") == digest) {
        entry = e;
        break;
      }
    }
  }
  if (entry->value("key_id", "") != SigningKeyId(key)) {
    return Refused(fmt::format("{} was signed with another key (key id {}, this key's is {})",
                               what, entry->value("key_id", "?").substr(0, 16),
                               SigningKeyId(key)));
  }
  if (!ConstantTimeEquals((*entry)["hmac_sha256"].get<std::string>(),
                          HmacSha256Hex(key, signed_bytes))) {
    return Refused(fmt::format("{} does not match its signature: it was altered after the dump",
                               what));
  }
  return Status::OK();
}

bool IsSignatureRefusal(const Status& s) {
  return s.code() == Code::kPermissionDenied && s.message().find(kRefusedPrefix) != std::string_view::npos;
}

Status CheckManifestSignature(ObjectStore& store, std::string_view key,
                              std::string_view manifest_bytes) {
  auto sig = store.GetObject(kSignatureKey, 64 * 1024);
  if (!sig.ok()) {
    if (sig.status().code() == Code::kNotFound) {
      return Refused(fmt::format("the dump at {} is not signed (no {})", store.Describe(),
                                 kSignatureKey));
    }
    return sig.status().WithContext(kSignatureKey);
  }
  return CheckSignatureText(*sig, key, manifest_bytes, kManifestKey);
}

std::string SignedWrittenTo(ObjectStore& store) {
  const std::string where = store.Describe();
  if (where.empty() || where.find("://") != std::string::npos) return where;
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(where, ec);
  return ec ? where : absolute.lexically_normal().string();
}

Result<DumpManifest> ReadSignedManifest(ObjectStore& store, std::string_view key,
                                        std::string* sha256) {
  LD_ASSIGN_OR_RETURN(std::string text, ReadDumpManifestText(store));
  LD_RETURN_IF_ERROR(CheckManifestSignature(store, key, text));
  if (sha256 != nullptr) *sha256 = Sha256Hex(text);
  LD_ASSIGN_OR_RETURN(DumpManifest m,
                      ParseDumpManifest(text, fmt::format("{}/{}", store.Describe(),
                                                          kManifestKey)));
  for (const TableSummary& t : m.tables) {
    if (t.table_json_sha256.empty()) {
      return Refused(fmt::format("the signed manifest records no SHA-256 for {}", t.key));
    }
  }
  return m;
}

Result<TableManifest> ReadSignedTableManifest(ObjectStore& store, const TableSummary& summary) {
  LD_ASSIGN_OR_RETURN(std::string text, store.GetObject(summary.key));
  const std::string found = Sha256Hex(text);
  if (!ConstantTimeEquals(found, summary.table_json_sha256)) {
    return Refused(fmt::format("{} was altered after the dump (SHA-256 {}, the signed manifest "
                               "says {})",
                               summary.key, found, summary.table_json_sha256));
  }
  LD_ASSIGN_OR_RETURN(TableManifest t, ParseTableManifest(text, summary.key));
  for (const DataFile& f : t.files) {
    if (f.sha256.empty()) {
      return Refused(fmt::format("{} records no SHA-256 for {}", summary.key, f.key));
    }
  }
  return t;
}

Status CheckFileSha256(std::string_view key, std::string_view expected, std::string_view found) {
  if (ConstantTimeEquals(expected, found)) return Status::OK();
  return Refused(fmt::format("data file {} was altered after the dump (SHA-256 {}, the signed "
                             "record says {})",
                             key, found, expected));
}

}  // namespace lakedump
