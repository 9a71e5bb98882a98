#include "lake/increment_signature.h"

#include <fmt/format.h>

#include "base/sha256.h"
#include "lake/object_keys.h"
#include "lake/signature.h"

namespace lakedump {
namespace {

Status Refused(int sequence, std::string_view what) {
  return Status::PermissionDenied(
      fmt::format("signature check failed: increment {} ({}{}): {}", sequence,
                  IncrementPrefix(sequence), kManifestKey, what));
}

std::string ManifestKeyOf(int sequence) {
  return IncrementPrefix(sequence) + std::string(kManifestKey);
}

bool IsHexDigest(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// The checks ReadIncrements makes of `m` as increment `sequence` after `before` (null for
// the first), as a signature refusal: under a signature, a manifest out of its place is a
// copied, reordered or replayed one.
Status CheckPlace(const IncrementManifest& m, int sequence, const DumpManifest& base,
                  const IncrementManifest* before) {
  const std::string expected_previous = before == nullptr ? "" : before->increment_id;
  if (m.sequence != sequence || m.base_dump_id != base.dump_id ||
      m.previous_increment_id != expected_previous ||
      (before != nullptr && m.start_lsn != before->end_lsn)) {
    return Refused(sequence, fmt::format(
                                 "it is not this dump's increment {} (it says sequence {} of "
                                 "base {}): copied from another dump, reordered or replayed",
                                 sequence, m.sequence, m.base_dump_id));
  }
  return Status::OK();
}

}  // namespace

std::string IncrementSignatureKey(int sequence) {
  return IncrementPrefix(sequence) + std::string(kSignatureKey);
}

Result<std::string> SignedChainTip(ObjectStore& store, std::string_view key,
                                   const DumpManifest& base,
                                   const std::vector<IncrementManifest>& previous) {
  auto not_signed = [](const Status& s, std::string_view what) -> Status {
    if (!IsSignatureRefusal(s)) return s;
    return Status::InvalidArgument(fmt::format(
        "--sign-key-file: {} does not verify with this key ({}): a signed increment must follow "
        "a signed one; make a new signed base (dump --incremental --if-exists overwrite "
        "--sign-key-file)",
        what, s.message()));
  };
  if (previous.empty()) {
    std::string sha;
    auto checked = ReadSignedManifest(store, key, &sha);
    if (!checked.ok()) return not_signed(checked.status(), "the base dump");
    if (checked->dump_id != base.dump_id) {
      return Status::Corruption("the base dump's manifest changed while the increment started");
    }
    return sha;
  }
  const IncrementManifest& last = previous.back();
  const std::string manifest_key = ManifestKeyOf(last.sequence);
  LD_ASSIGN_OR_RETURN(std::string text, store.GetObject(manifest_key, kMaxMetadataBytes));
  auto sig = store.GetObject(IncrementSignatureKey(last.sequence), 64 * 1024);
  if (!sig.ok() && sig.status().code() != Code::kNotFound) return sig.status();
  Status s = sig.ok() ? CheckSignatureText(*sig, key, text, manifest_key)
                      : Refused(last.sequence, "it is not signed (no _manifest.sig)");
  if (!s.ok()) return not_signed(s, fmt::format("increment {}", last.sequence));
  LD_ASSIGN_OR_RETURN(IncrementManifest parsed, ParseIncrementManifest(text, manifest_key));
  if (parsed.increment_id != last.increment_id) {
    return Status::Corruption(
        fmt::format("{} changed while the increment started", manifest_key));
  }
  return Sha256Hex(text);
}

Status CheckIncrementSignature(ObjectStore& store, std::string_view key, std::string_view text,
                               const IncrementManifest& m, std::string_view previous_sha256) {
  const int n = m.sequence;
  auto sig = store.GetObject(IncrementSignatureKey(n), 64 * 1024);
  if (!sig.ok()) {
    if (sig.status().code() == Code::kNotFound) {
      return Refused(n, fmt::format("it is not signed (no {})", IncrementSignatureKey(n)));
    }
    return sig.status().WithContext(IncrementSignatureKey(n));
  }
  Status s = CheckSignatureText(*sig, key, text, ManifestKeyOf(n));
  if (!s.ok()) {
    if (!IsSignatureRefusal(s)) return s;
    // CheckSignatureText names the manifest already.
    return Status::PermissionDenied(fmt::format("{} (increment {})", s.message(), n));
  }
  if (!ConstantTimeEquals(m.previous_manifest_sha256, previous_sha256)) {
    return Refused(n, fmt::format("it does not follow the manifest before it (it follows SHA-256 "
                                  "{}, the one before it is {}): copied from another dump, "
                                  "reordered or replayed",
                                  m.previous_manifest_sha256.empty()
                                      ? std::string("none")
                                      : m.previous_manifest_sha256,
                                  previous_sha256));
  }
  for (const ChangeFile& f : m.change_files) {
    if (!IsHexDigest(f.sha256)) {
      return Refused(n, fmt::format("it records no SHA-256 for {}", f.key));
    }
  }
  if (!m.redumped.empty() && !IsHexDigest(m.redump_manifest_sha256)) {
    return Refused(n, "it records no SHA-256 for its redump/_manifest.json");
  }
  return Status::OK();
}

Result<SignedIncrementChain> ReadSignedIncrementChain(ObjectStore& store, std::string_view key,
                                                      int until) {
  SignedIncrementChain chain;
  LD_ASSIGN_OR_RETURN(chain.base, ReadSignedManifest(store, key, &chain.base_sha256));
  std::string previous_sha = chain.base_sha256;
  for (int n = 1; n <= until; ++n) {
    const std::string manifest_key = ManifestKeyOf(n);
    auto text = store.GetObject(manifest_key, kMaxMetadataBytes);
    if (!text.ok()) {
      if (text.status().code() == Code::kNotFound) {
        return Refused(n, "it is missing (removed after the listing)");
      }
      return text.status().WithContext(manifest_key);
    }
    LD_ASSIGN_OR_RETURN(IncrementManifest m, ParseIncrementManifest(*text, manifest_key));
    LD_RETURN_IF_ERROR(CheckPlace(m, n, chain.base,
                                  chain.increments.empty() ? nullptr : &chain.increments.back()));
    LD_RETURN_IF_ERROR(CheckIncrementSignature(store, key, *text, m, previous_sha));
    previous_sha = Sha256Hex(*text);
    chain.increments.push_back(std::move(m));
  }
  return chain;
}

bool IncrementTrusted(bool trust_dump, const SignedIncrementChain* chain, int sequence) {
  return trust_dump || (chain != nullptr && chain->SignatureVerified(sequence));
}

Result<DumpManifest> ReadIncrementRedumpManifest(ObjectStore& redump_store,
                                                 const IncrementManifest& m) {
  if (m.redump_manifest_sha256.empty()) return ReadDumpManifest(redump_store);
  const std::string what = fmt::format("{}{}{}", IncrementPrefix(m.sequence), kRedumpFolder,
                                       kManifestKey);
  LD_ASSIGN_OR_RETURN(std::string text, ReadDumpManifestText(redump_store));
  const std::string found = Sha256Hex(text);
  if (!ConstantTimeEquals(found, m.redump_manifest_sha256)) {
    return Status::PermissionDenied(fmt::format(
        "signature check failed: {} was altered after the dump (SHA-256 {}, increment {}'s "
        "manifest says {})",
        what, found, m.sequence, m.redump_manifest_sha256));
  }
  LD_ASSIGN_OR_RETURN(DumpManifest redump, ParseDumpManifest(text, what));
  for (const TableSummary& t : redump.tables) {
    if (t.table_json_sha256.empty()) {
      return Status::PermissionDenied(fmt::format(
          "signature check failed: {} records no SHA-256 for {}", what, t.key));
    }
  }
  return redump;
}

Result<TableManifest> ReadIncrementRedumpTable(ObjectStore& redump_store,
                                               const TableSummary& summary) {
  if (summary.table_json_sha256.empty()) return ReadTableManifest(redump_store, summary.key);
  return ReadSignedTableManifest(redump_store, summary);
}

}  // namespace lakedump
