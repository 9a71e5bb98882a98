// The objects a snapshot of a lakedump Iceberg table needs to be read: its manifest list,
// the manifests it names, the live data and delete files they list, and the key index its
// summary names ("lakedump.key-index"). `gc --expire-snapshots` deletes what only expired
// snapshots need (snapshots of increments and compactions share files, so expiry by run id
// would delete files that later snapshots read); `compact` reads a snapshot's files.
// Everything read is hostile until checked: manifests are read bounded, every file must be
// under the table (or an increment's re-dump folder), names must not climb out.
// Not thread-safe (the cache); the store is borrowed.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "format/iceberg/removed_files.h"
#include "source/table_source.h"
#include "store/object_store.h"

namespace lakedump {

// The file_path of a manifest entry's data_file record (a URI).
Result<std::string> IcebergEntryPath(const iceberg::RemovedEntry& entry);

// The store key of `uri`, a file of the dump at `store` (its root URI + "/" + key).
// Corruption when it is not.
Result<std::string> IcebergUriKey(const ObjectStore& store, std::string_view uri);

class SnapshotObjects {
 public:
  SnapshotObjects(ObjectStore* store, TableRef table);

  // Adds to *keys the store keys of what `snapshot` (an entry of a checked history's
  // "snapshots") needs. Manifests read before are not read again.
  Status Add(const nlohmann::ordered_json& snapshot, std::set<std::string>* keys);

 private:
  ObjectStore* store_;
  TableRef table_;
  std::string location_;
  std::map<std::string, std::vector<std::string>> manifests_;  // manifest key -> its live files
};

}  // namespace lakedump
