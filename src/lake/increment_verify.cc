#include "lake/increment_verify.h"

#include <fmt/format.h>

#include <set>

#include "base/sha256.h"
#include "lake/increment_signature.h"
#include "lake/incremental_state.h"
#include "lake/object_checksum.h"
#include "lake/object_keys.h"
#include "lake/signature.h"
#include "store/prefix_store.h"

namespace lakedump {

namespace {

void AddProblem(IncrementVerifyResult* out, std::string key, std::string kind,
                std::string message, std::string expected = {}, std::string found = {}) {
  out->problems.push_back(VerifyProblem{std::move(key), std::move(kind), std::move(message),
                                        std::move(expected), std::move(found)});
}

// One change file: present, its size, XXH64 and (signed) SHA-256.
void CheckChangeFile(ObjectStore& store, const std::string& key, const ChangeFile& f,
                     bool signing, IncrementVerifyResult* out) {
  auto reader = store.NewReader(key);
  if (!reader.ok()) {
    AddProblem(out, key, reader.status().code() == Code::kNotFound ? "missing" : "unreadable",
               reader.status().message());
    return;
  }
  if ((*reader)->size() != f.bytes) {
    AddProblem(out, key, signing ? "signature" : "size", "change file size differs",
               fmt::format("{} bytes", f.bytes), fmt::format("{} bytes", (*reader)->size()));
    return;
  }
  auto digest = HashObjectDigests(**reader, f.bytes, signing);
  if (!digest.ok()) {
    AddProblem(out, key, "unreadable", digest.status().message());
    return;
  }
  ++out->files;
  out->bytes += f.bytes;
  if (signing && !ConstantTimeEquals(digest->sha256, f.sha256)) {
    AddProblem(out, key, "signature", "change file altered after the increment: SHA-256 differs",
               f.sha256, digest->sha256);
  } else if (digest->xxh64 != f.xxh64) {
    AddProblem(out, key, "checksum", "change file XXH64 differs", f.xxh64, digest->xxh64);
  }
}

// A signed increment's own signature and place in the chain (increment_signature.h), on its
// manifest's bytes as stored now; *previous_sha256 becomes its manifest's SHA-256.
void CheckSigned(ObjectStore& store, std::string_view key, const IncrementManifest& listed,
                 std::string* previous_sha256, IncrementVerifyResult* out) {
  const std::string manifest_key = IncrementPrefix(listed.sequence) + std::string(kManifestKey);
  auto text = store.GetObject(manifest_key, kMaxMetadataBytes);
  if (!text.ok()) {
    AddProblem(out, manifest_key, "signature", text.status().message());
    return;
  }
  auto m = ParseIncrementManifest(*text, manifest_key);
  Status s = m.ok() ? CheckIncrementSignature(store, key, *text, *m, *previous_sha256)
                    : m.status();
  if (!s.ok()) AddProblem(out, manifest_key, "signature", s.message());
  *previous_sha256 = Sha256Hex(*text);
}

// redump/ of a signed increment: its manifest's bytes are the ones the increment records.
void CheckRedumpDigest(ObjectStore& redump, const std::string& redump_prefix,
                       const IncrementManifest& m, IncrementVerifyResult* out) {
  auto text = ReadDumpManifestText(redump);
  const std::string key = redump_prefix + std::string(kManifestKey);
  if (!text.ok()) return;  // the verify of redump/ reports it
  const std::string found = Sha256Hex(*text);
  if (!ConstantTimeEquals(found, m.redump_manifest_sha256)) {
    AddProblem(out, key, "signature",
               "altered after the increment: SHA-256 differs from the increment's record",
               m.redump_manifest_sha256, found);
  }
}

}  // namespace

Result<IncrementVerifyResult> VerifyIncrements(ObjectStore& store, const DumpManifest& base,
                                               const VerifyOptions& options) {
  IncrementVerifyResult out;
  auto chain = ReadIncrements(store, base);
  if (!chain.ok()) {
    if (chain.status().code() != Code::kCorruption) return chain.status();
    AddProblem(&out, std::string(kIncrementsFolder), "increment", chain.status().message());
    return out;
  }
  const bool signing = !options.signing_key.empty();
  std::string previous_sha256;
  if (signing) {
    LD_ASSIGN_OR_RETURN(std::string base_text, ReadDumpManifestText(store));
    previous_sha256 = Sha256Hex(base_text);
  }
  std::set<std::string> claimed;
  for (const IncrementManifest& m : *chain) {
    if (options.stop.stop_requested()) return Status::Cancelled("verify interrupted");
    ++out.increments;
    const std::string prefix = IncrementPrefix(m.sequence);
    claimed.insert(prefix + std::string(kManifestKey));
    claimed.insert(prefix + std::string(kSignatureKey));
    if (signing) CheckSigned(store, options.signing_key, m, &previous_sha256, &out);
    for (const ChangeFile& f : m.change_files) {
      const std::string key = prefix + f.key;
      claimed.insert(key);
      CheckChangeFile(store, key, f, signing, &out);
    }
    if (!m.redumped.empty()) {
      const std::string redump = prefix + std::string(kRedumpFolder);
      PrefixStore sub(&store, redump);
      if (signing) CheckRedumpDigest(sub, redump, m, &out);
      // Signed: redump/ is a signed dump of its own, checked with the same key.
      LD_ASSIGN_OR_RETURN(VerifyReport report, Verify(sub, options));
      for (VerifyProblem p : report.problems) {
        p.key = redump + p.key;
        out.problems.push_back(std::move(p));
      }
      out.files += report.files;
      out.bytes += report.bytes;
      LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> objects, sub.List(""));
      for (const ObjectInfo& o : objects) claimed.insert(redump + o.key);
    }
  }
  const std::string uncommitted = IncrementPrefix(static_cast<int>(chain->size()) + 1);
  LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> listing, store.List(kIncrementsFolder));
  for (const ObjectInfo& o : listing) {
    if (claimed.contains(o.key) || o.key.starts_with(uncommitted)) continue;
    AddProblem(&out, o.key, "stray",
               "object under _increments/ is not claimed by an increment manifest", "-",
               fmt::format("{} bytes", o.size));
  }
  return out;
}

}  // namespace lakedump
