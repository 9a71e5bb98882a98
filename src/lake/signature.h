// Signed dumps (docs/dump-format.md, "Signed dumps"): `dump --sign-key-file K` records the
// SHA-256 of every object it writes (data files in their _table.json, each _table.json in
// _manifest.json) and writes _manifest.sig, holding HMAC-SHA256(K, exact bytes of
// _manifest.json), before _manifest.json (which stays the commit point). So the key's holder
// vouches for every byte: the manifest by the HMAC, the rest by the chain of SHA-256 digests.
// `verify` / `load --require-signature K` check that chain and refuse an unsigned or altered
// dump. Keys never appear in output, errors or metadata (only a key id: a one-way digest).
// Stateless functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "lake/manifest.h"
#include "lake/object_keys.h"
#include "store/object_store.h"

namespace lakedump {

inline constexpr std::string_view kSignatureKey = "_manifest.sig";
inline constexpr size_t kMinSigningKeyBytes = 32;

// The key file's bytes without trailing newlines (as `openssl dgst -hmac "$(cat K)"`, the
// documented check, takes them: so `echo ... > K` and `head -c 32 /dev/urandom > K` keys both
// check with openssl). InvalidArgument naming the file (never its content) when it cannot be
// read, is not a regular file (a FIFO, a device...), is readable or writable by its group or
// other users, is empty, or holds fewer than kMinSigningKeyBytes bytes.
Result<std::string> ReadSigningKey(const std::string& path);

// 16 hex digits identifying a key without revealing it (HMAC of a fixed label).
std::string SigningKeyId(std::string_view key);

// The content of _manifest.sig for these exact _manifest.json bytes. `previous_signature`:
// the _manifest.sig of the dump still committed at the destination ("" if none), whose
// entry is kept as "previous" so that the old manifest stays verifiable until the new
// one replaces it (the writer then rewrites the signature without it).
// `signed_object`: the signed object's key, recorded (an increment's manifest names its own).
std::string SignatureObject(std::string_view key, std::string_view manifest_bytes,
                            std::string_view previous_signature = "",
                            std::string_view signed_object = kManifestKey);

// The content of _manifest.sig for these exact bytes, written over `current_signature` (the
// signature object the store holds now, "" if none) while `committed_sha256` (the SHA-256 of
// the manifest the store holds now, "" if none) stays committed until this run's commit: the
// committed manifest's entry is kept as "previous" (or, when the object does not hold it,
// its main entry), and up to six other entries of runs that signed and may yet commit or
// may have committed meanwhile as "earlier". So no write built on the current object drops
// the entry of a committed manifest.
std::string SignatureObjectOver(std::string_view key, std::string_view manifest_bytes,
                                std::string_view current_signature,
                                std::string_view committed_sha256,
                                std::string_view signed_object = kManifestKey);

// Checks the signature object `signature` (the text of a _manifest.sig) against
// `signed_bytes`, the exact bytes of the object `what` names, by the entry (main, "previous"
// or "earlier") recorded for those bytes, else the main one. PermissionDenied, one line naming
// `what`: not a signature, signed with another key, or altered.
Status CheckSignatureText(std::string_view signature, std::string_view key,
                          std::string_view signed_bytes, std::string_view what);

// Whether `s` is a refusal of the signature checks above (exit 2 in the commands: a refused
// input), as opposed to a store that could not be read.
bool IsSignatureRefusal(const Status& s);

// Checks the store's _manifest.sig against `manifest_bytes` (its entry, or its "previous"
// entry whose manifest_sha256 is these bytes'). PermissionDenied, one line: not signed (no
// _manifest.sig), signed with another key, or altered.
Status CheckManifestSignature(ObjectStore& store, std::string_view key,
                              std::string_view manifest_bytes);

// Where a signed manifest records it was written: the store's own name (never with
// credentials), a local folder as an absolute path.
std::string SignedWrittenTo(ObjectStore& store);

// _manifest.json read, its signature checked, parsed; every table must carry a digest.
// `sha256`: when given, receives the SHA-256 of the exact bytes checked (increments chain to it).
Result<DumpManifest> ReadSignedManifest(ObjectStore& store, std::string_view key,
                                        std::string* sha256 = nullptr);

// The table's _table.json read, its SHA-256 checked against the signed manifest's entry,
// parsed; every data file must carry a digest.
Result<TableManifest> ReadSignedTableManifest(ObjectStore& store, const TableSummary& summary);

// PermissionDenied naming the file when `found` (a data file's SHA-256) is not `expected`.
Status CheckFileSha256(std::string_view key, std::string_view expected, std::string_view found);

}  // namespace lakedump
