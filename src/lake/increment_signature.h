// Signed increments (docs/dump-format.md, "Signed dumps"; docs/incremental.md): an increment
// made with --sign-key-file K is signed like a base dump, and chained. Its manifest records the
// SHA-256 of every change file, of its redump/_manifest.json (redump/ is a signed dump of its
// own) and of the exact bytes of the manifest it follows (the base's _manifest.json for
// increment 1, increment N-1's manifest for N); _increments/NNNNNN/_manifest.sig holds
// HMAC-SHA256(K, exact bytes of its _manifest.json), written before the manifest (which stays
// the increment's commit point). So a forged, copied (from another dump), reordered or
// replayed increment fails the check, with one line naming it.
// Functions; thread-safe with respect to the store.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "lake/incremental_state.h"
#include "lake/manifest.h"
#include "store/object_store.h"

namespace lakedump {

// "_increments/000001/_manifest.sig" for increment 1.
std::string IncrementSignatureKey(int sequence);

// For the increment runner, before it writes increment previous.size() + 1 signed with `key`:
// the SHA-256 of the exact bytes of the manifest it follows (the base's, else the last
// increment's), after checking that this manifest is signed with `key` and is the one `base`
// and `previous` were read from. InvalidArgument (one line) when it is not signed with the key:
// a signed increment cannot follow an unsigned one (make a new base).
Result<std::string> SignedChainTip(ObjectStore& store, std::string_view key,
                                   const DumpManifest& base,
                                   const std::vector<IncrementManifest>& previous);

// The checks of one increment's own signature and its place in the chain, on the exact bytes
// `text` of its manifest and `m`, parsed from them: _manifest.sig matches with `key`, the
// manifest says it follows `previous_sha256` (the SHA-256 of the manifest before it), and it
// records a SHA-256 for every change file and for its redump/. PermissionDenied (a signature
// refusal, IsSignatureRefusal) naming the increment.
Status CheckIncrementSignature(ObjectStore& store, std::string_view key, std::string_view text,
                               const IncrementManifest& m, std::string_view previous_sha256);

// A signed dump and its increments 1..until, each read once and checked: the base's signature
// (its manifest only; the load checks its tables and files), then each increment's signature
// and chain (CheckIncrementSignature, and sequence, base, previous increment and WAL range as
// ReadIncrements checks them). The manifests returned are parsed from the bytes checked.
struct SignedIncrementChain {
  DumpManifest base;
  std::string base_sha256;                   // of the base's _manifest.json as checked
  std::vector<IncrementManifest> increments;  // 1..until, every one's signature verified

  // Whether increment `sequence`'s own signature verified (every one returned did).
  bool SignatureVerified(int sequence) const {
    return sequence >= 1 && static_cast<size_t>(sequence) <= increments.size();
  }
};
Result<SignedIncrementChain> ReadSignedIncrementChain(ObjectStore& store, std::string_view key,
                                                      int until);

// The trust a load grants increment `sequence`: --trust-dump (the user's own word) covers
// every increment; a signature covers only the increments whose own signature verified
// (`chain`, null without --require-signature). Never the base's signature alone.
bool IncrementTrusted(bool trust_dump, const SignedIncrementChain* chain, int sequence);

// redump/_manifest.json of increment `m` (its store: `redump_store`), checked against the
// SHA-256 the increment records when it records one (a signed increment always does; every
// table must then carry its _table.json's SHA-256).
Result<DumpManifest> ReadIncrementRedumpManifest(ObjectStore& redump_store,
                                                 const IncrementManifest& m);
// A re-dumped table's _table.json: checked against the digest its redump/_manifest.json
// records (ReadSignedTableManifest), when it records one.
Result<TableManifest> ReadIncrementRedumpTable(ObjectStore& redump_store,
                                               const TableSummary& summary);

}  // namespace lakedump
