#include "dump/signature.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/sha256.h"
#include "dump/object_keys.h"

namespace lakedump {
namespace {

constexpr std::string_view kSignatureFormat = "lakedump-signature";
constexpr std::string_view kAlgorithm = "hmac-sha256";

Status Refused(std::string_view what) {
  return Status::PermissionDenied(fmt::format("signature check failed: {}", what));
}

}  // namespace

Result<std::string> ReadSigningKey(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::InvalidArgument(
        fmt::format("key file {}: cannot read it ({})", path, std::strerror(errno)));
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string key = ss.str();
  if (key.empty()) return Status::InvalidArgument(fmt::format("key file {} is empty", path));
  if (key.size() < kMinSigningKeyBytes) {
    return Status::InvalidArgument(fmt::format(
        "key file {} holds {} bytes; a signing key needs at least {} (make one with: head -c "
        "32 /dev/urandom > FILE)",
        path, key.size(), kMinSigningKeyBytes));
  }
  return key;
}

std::string SigningKeyId(std::string_view key) {
  return HmacSha256Hex(key, "lakedump signing key id").substr(0, 16);
}

std::string SignatureObject(std::string_view key, std::string_view manifest_bytes) {
  nlohmann::json j = {{"format", std::string(kSignatureFormat)},
                      {"format_version", 1},
                      {"algorithm", std::string(kAlgorithm)},
                      {"signed_object", std::string(kManifestKey)},
                      {"key_id", SigningKeyId(key)},
                      {"manifest_sha256", Sha256Hex(manifest_bytes)},
                      {"hmac_sha256", HmacSha256Hex(key, manifest_bytes)}};
  return j.dump(2) + "\n";
}

Status CheckManifestSignature(ObjectStore& store, std::string_view key,
                              std::string_view manifest_bytes) {
  auto sig = store.GetObject(kSignatureKey);
  if (!sig.ok()) {
    if (sig.status().code() == Code::kNotFound) {
      return Refused(fmt::format("the dump at {} is not signed (no {})", store.Describe(),
                                 kSignatureKey));
    }
    return sig.status().WithContext(kSignatureKey);
  }
  if (sig->size() > 64 * 1024) return Refused(fmt::format("{} is not a signature", kSignatureKey));
  nlohmann::json j = nlohmann::json::parse(*sig, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || j.value("format", "") != kSignatureFormat ||
      j.value("algorithm", "") != kAlgorithm || !j.contains("hmac_sha256") ||
      !j["hmac_sha256"].is_string()) {
    return Refused(fmt::format("{} is not a lakedump hmac-sha256 signature", kSignatureKey));
  }
  if (j.value("key_id", "") != SigningKeyId(key)) {
    return Refused(fmt::format(
        "the dump was signed with another key (key id {}, this key's is {})",
        j.value("key_id", "?").substr(0, 16), SigningKeyId(key)));
  }
  if (!ConstantTimeEquals(j["hmac_sha256"].get<std::string>(),
                          HmacSha256Hex(key, manifest_bytes))) {
    return Refused(fmt::format("{} does not match its signature: it was altered after the dump",
                               kManifestKey));
  }
  return Status::OK();
}

Result<DumpManifest> ReadSignedManifest(ObjectStore& store, std::string_view key) {
  LD_ASSIGN_OR_RETURN(std::string text, ReadDumpManifestText(store));
  LD_RETURN_IF_ERROR(CheckManifestSignature(store, key, text));
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
  return Refused(fmt::format("data file {} was altered after the dump (SHA-256 {}, its signed "
                             "_table.json says {})",
                             key, found, expected));
}

}  // namespace lakedump
