// A test hook for the exactly-once tests of Iceberg increments (docs/iceberg.md, "Commit
// order"): with LAKEDUMP_FAULT=iceberg-step-<N>, the store an increment commits its Iceberg
// snapshots through makes the process die (as a crash or SIGKILL would: _Exit, nothing
// flushed or cleaned) right after its N-th completed step, a step being one object written
// (data file, delete file, key index, manifest, manifest list, metadata, version hint) or
// one delete. Without that variable, the store itself is used.
// Ownership: the wrapper borrows the store. Thread-safety: that of the store (the count is
// atomic).
#pragma once

#include <memory>

#include "store/object_store.h"

namespace lakedump {

// `store`, or a wrapper of it that dies after the step LAKEDUMP_FAULT names; *holder keeps
// the wrapper alive.
ObjectStore* WithCommitStepFault(ObjectStore* store, std::unique_ptr<ObjectStore>* holder);

}  // namespace lakedump
