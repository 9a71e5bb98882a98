// The checks `lakedump verify` runs on the increments of an incremental dump
// (docs/incremental.md): the chain of increment manifests, every change file (size and
// XXH64), each increment's redump/ (a dump of its own, verified as one) and the objects under
// _increments/ that no increment claims. A last increment folder without a manifest (a run
// that did not commit; the next increment removes it) is not a problem.
// Thread-safe with respect to the store.
#pragma once

#include <vector>

#include "lake/manifest.h"
#include "lake/verifier.h"

namespace lakedump {

struct IncrementVerifyResult {
  std::vector<VerifyProblem> problems;  // keys relative to the dump root
  uint64_t increments = 0;
  uint64_t files = 0;
  uint64_t bytes = 0;
};

Result<IncrementVerifyResult> VerifyIncrements(ObjectStore& store, const DumpManifest& base,
                                               const VerifyOptions& options);

}  // namespace lakedump
