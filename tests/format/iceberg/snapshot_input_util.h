// Test helpers for Iceberg snapshots built by BuildSnapshot: a table at one location whose
// snapshots each add one file named after their run. Header-only; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "format/iceberg/iceberg_table.h"

namespace lakedump::iceberg {

inline constexpr const char* kTestLocation = "s3://b/d/main/t";

// lakedump's run ids in the tests: any of three characters or more.
inline bool AnyRunId(std::string_view run) { return run.size() >= 3; }

// Snapshot `id` of run `run` of `schema` at kTestLocation after `previous` (nullptr: a new
// table), adding one file "part-<run>.parquet" of `id` records and 100 bytes.
inline SnapshotInput TestSnapshotInput(const std::string& run, int64_t id, Schema schema,
                                       const TableHistory* previous) {
  SnapshotInput in;
  in.schema = std::move(schema);
  in.location = kTestLocation;
  in.table_uuid = "01234567-89ab-4def-8123-456789abcdef";
  in.snapshot_id = id;
  in.timestamp_ms = 1000 * id;
  in.file_tag = run;
  in.properties["lakedump.run-id"] = run;
  in.previous = previous;
  DataFileEntry f;
  f.path = std::string(kTestLocation) + "/part-" + run + ".parquet";
  f.record_count = static_cast<uint64_t>(id);
  f.file_size_in_bytes = 100;
  in.files.push_back(f);
  return in;
}

}  // namespace lakedump::iceberg
