#include "lake/signature_commit.h"

#include <fmt/format.h>

#include <string>

#include <nlohmann/json.hpp>

#include "base/sha256.h"
#include "lake/signature.h"

namespace lakedump {
namespace {

constexpr int kAttempts = 5;
constexpr uint64_t kMaxSignatureBytes = 64 * 1024;
constexpr uint64_t kMaxManifestBytes = uint64_t{256} << 20;

// The object's bytes, "" when it does not exist.
Result<std::string> ReadOrEmpty(ObjectStore& store, std::string_view key, uint64_t max_bytes) {
  auto bytes = store.GetObject(key, max_bytes);
  if (bytes.ok()) return std::move(*bytes);
  if (bytes.status().code() == Code::kNotFound) return std::string();
  return bytes.status().WithContext(std::string(key));
}

// A write that succeeds only over exactly `current` ("" = no object).
WriteOptions Over(std::string_view current) {
  WriteOptions options;
  if (current.empty()) {
    options.create_only = true;
  } else {
    options.if_match = Md5Etag(current);
  }
  return options;
}

}  // namespace

Status PutSignatureAhead(ObjectStore& store, std::string_view signature_key,
                         std::string_view manifest_key, std::string_view sign_key,
                         std::string_view manifest_bytes) {
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    LD_ASSIGN_OR_RETURN(std::string current,
                        ReadOrEmpty(store, signature_key, kMaxSignatureBytes));
    LD_ASSIGN_OR_RETURN(std::string committed,
                        ReadOrEmpty(store, manifest_key, kMaxManifestBytes));
    const std::string text =
        SignatureObjectOver(sign_key, manifest_bytes, current,
                            committed.empty() ? "" : Sha256Hex(committed), manifest_key);
    Status put = store.PutObject(signature_key, text, Over(current));
    if (put.code() != Code::kAlreadyExists) return put.WithContext(std::string(signature_key));
  }
  return Status::AlreadyExists(fmt::format(
      "{} kept changing while this run wrote it: another run is committing this dump",
      signature_key));
}

void TrimSignatureAfterCommit(ObjectStore& store, std::string_view signature_key,
                              std::string_view manifest_key, std::string_view sign_key,
                              std::string_view manifest_bytes) {
  auto current = ReadOrEmpty(store, signature_key, kMaxSignatureBytes);
  if (!current.ok() || current->empty()) return;
  // Only the object this run wrote: its main entry is this manifest's.
  const nlohmann::json parsed = nlohmann::json::parse(*current, nullptr, false);
  const std::string own = SignatureObject(sign_key, manifest_bytes, "", manifest_key);
  if (parsed.is_object() && parsed.value("manifest_sha256", "") == Sha256Hex(manifest_bytes) &&
      *current != own) {
    store.PutObject(signature_key, own, Over(*current)).IgnoreError();
  }
}

}  // namespace lakedump
