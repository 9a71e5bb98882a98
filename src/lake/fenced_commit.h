// The dump commit point as one conditional write, read back (docs/dump-format.md, "Commit
// protocol", "One committer").
//
// A run commits by writing _manifest.json with a precondition: If-None-Match: * where the
// destination held no manifest when the run prepared it, If-Match: <that manifest's ETag>
// where it did (overwrite, resume). Of two runs racing to commit (a run cut off from the store
// while its manifest PUT is in flight, and the run that took its stale lease over), the
// second write is refused. The run then reads the manifest back: it is committed only when
// the store holds exactly its bytes. The manifest names its committer (a "commit" record: run
// id, the lease's fencing token, host), so that a loser can name the winner.
//
// A store may accept the condition headers and ignore them (some S3 servers):
// StoreHonoursConditions() probes for that, and a stale lease is taken over only where the
// store honours them (lake/dump_lease.h), so that on such a store no second run commits while
// the first may still land its manifest.
//
// Stateless functions; thread-safe as the store is.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "store/object_store.h"

namespace lakedump {

// Who committed a manifest.
struct CommitRecord {
  std::string run_id;
  int64_t fencing_token = 0;  // 0: not recorded (a manifest of an older lakedump)
  std::string host;

  // "run R (fencing token T, host H)", leaving out what is not recorded.
  std::string Describe() const;
};

// The manifest's "commit" member.
nlohmann::json ToJson(const CommitRecord& record);
// The committer a manifest's text names: its "commit" record, or its dump_id alone in a
// manifest without one. Hostile input: anything unreadable gives run id "(unreadable)".
CommitRecord CommitRecordOf(std::string_view manifest_text);

// The precondition of this run's commit, from the destination as PrepareDestination listed
// it (`manifest`: the _manifest.json entry, null where there was none): If-None-Match: *
// (create_only), or If-Match: its ETag (the listing's; where the store lists none, a local
// folder, Md5Etag of its bytes, which is what the local store compares).
Result<WriteOptions> CommitPrecondition(ObjectStore& store, const ObjectInfo* manifest);

// How a commit ended.
struct ManifestCommit {
  // OK: the store holds exactly this run's manifest. AlreadyExists: another run's manifest
  // was committed first (the message names it). Otherwise: the write's or the read-back's
  // error, or a write answered OK whose object the store does not hold.
  Status status;
  // After a failure: the write was refused outright and the store still holds the manifest
  // the run started from. Nothing of this run's will be committed, and no other run has
  // committed since (a run that may have reused this run's objects): this run's objects may
  // go. False whenever in doubt.
  bool may_delete_own = false;
};

// Writes `body` to _manifest.json under `precondition`, then reads it back and compares the
// bytes. `self`: this run, for the messages.
ManifestCommit CommitManifest(ObjectStore& store, std::string_view body,
                              const WriteOptions& precondition, const CommitRecord& self);

// Whether `store` refuses conditional writes it must refuse: on the existing object `key`
// (its bytes written back unchanged, harmless where a condition is ignored), a create-only
// write and an If-Match write with a wrong ETag must both fail with AlreadyExists. False
// when either was accepted. True without a request where the store enforces conditions
// itself (create_only_is_atomic()).
Result<bool> StoreHonoursConditions(ObjectStore& store, std::string_view key);

}  // namespace lakedump
