// Writing a signature object around a conditional manifest commit (docs/dump-format.md,
// "Signed dumps"), so that two runs racing for one destination (a run whose lease went stale
// while it was cut off, and the run that took over) can never leave the committed manifest
// without its signature: every write of the signature object is conditional on the object the
// run read (If-Match its bytes' MD5, or create-only when there was none) and built over it
// (SignatureObjectOver keeps the committed manifest's entry and the entries of other runs).
// A run that read an old object fails its write and reads again; it never replaces a newer
// object on the strength of an old read.
// Stateless functions; thread-safe as the store is.
#pragma once

#include <string_view>

#include "base/status.h"
#include "store/object_store.h"

namespace lakedump {

// Before the commit: writes `signature_key` with the entry for `manifest_bytes` (the bytes
// about to be written to `manifest_key`), over the signature object and the manifest the
// store holds now; read and written again (a few times) when another run changed the
// signature object in between. AlreadyExists, naming the object, when it kept changing.
Status PutSignatureAhead(ObjectStore& store, std::string_view signature_key,
                         std::string_view manifest_key, std::string_view sign_key,
                         std::string_view manifest_bytes);

// After the commit: the signature object reduced to the committed manifest's entry, only if
// its main entry is still this run's (no other run wrote it since). Best effort: the entry this run needs is in the object either way.
void TrimSignatureAfterCommit(ObjectStore& store, std::string_view signature_key,
                              std::string_view manifest_key, std::string_view sign_key,
                              std::string_view manifest_bytes);

}  // namespace lakedump
