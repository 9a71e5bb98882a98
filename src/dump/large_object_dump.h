// Writes the source's large objects into the dump (docs/dump-format.md, "Large objects"):
// each one streamed from its LargeObjectSource into `_large_objects/<oid>-<run>.bin`, a chunk
// at a time (memory: one chunk and the store writer's buffers), hashed on the way, and its
// manifest entry. Runs on the schema capture's thread, beside the tables. One thread.
#pragma once

#include <stop_token>
#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "dump/run_journal_writer.h"
#include "source/large_object_source.h"
#include "store/object_store.h"

namespace lakedump {

struct LargeObjectDumpResult {
  nlohmann::json entries = nlohmann::json::array();  // schema.large_objects
  uint64_t bytes = 0;
};

// Records every key in `journal` (one batch) before the first write, then writes each large
// object; `sha256`: signed dumps record it too.
Result<LargeObjectDumpResult> DumpLargeObjects(LargeObjectSource& source, ObjectStore& store,
                                               RunJournalWriter& journal, bool sha256,
                                               std::stop_token stop);

}  // namespace lakedump
