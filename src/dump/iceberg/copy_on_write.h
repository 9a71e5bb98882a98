// Copy-on-write in an increment's row delta (docs/iceberg.md, "Copy-on-write"): a data file of
// the parent snapshot that has lost at least kCopyOnWriteShare of its rows (the positions its
// live delete files name, and this increment's) is rewritten without them in the same
// snapshot, as Iceberg v2 has it: the old file a DELETED entry, the new one ADDED; the
// increment's deletes of it are not written; a live delete file that names only removed files
// is dropped (DELETED) with them. The key index then follows the moved rows (MovedRows).
// Which files lost the share comes from the key index's counts (no delete file is read then);
// only when some file is rewritten are the live delete files read, for its deleted positions.
// Memory: the parent's manifests' entries, a count per data file, and per rewritten file one
// bit per row (with a rank every 64 rows); the files are streamed.
// Functions; not thread-safe per table.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "dump/iceberg/change_applier.h"
#include "dump/iceberg/key_index.h"
#include "format/iceberg/iceberg_history.h"
#include "format/iceberg/iceberg_table.h"
#include "lake/manifest.h"
#include "store/object_store.h"
#include "table/schema.h"

namespace lakedump {

inline constexpr double kCopyOnWriteShare = 0.2;

// Where the rows of rewritten data files went.
class MovedRows {
 public:
  // Records that `old_key` (a store key) was rewritten into `new_key` without the positions
  // set in `deleted` (one bit per row, 64 a word).
  void Add(const std::string& old_key, const std::string& new_key, std::vector<uint64_t> deleted);
  bool empty() const { return files_.empty(); }
  // The new place of row `pos` of `key`: false when `key` was not rewritten; Corruption when
  // that row was deleted.
  Result<bool> Find(std::string_view key, int64_t pos, const std::string** new_key,
                    int64_t* new_pos) const;

 private:
  struct Moved {
    std::string new_key;
    std::vector<uint64_t> deleted;
    std::vector<int64_t> deleted_before;  // per word: deleted rows in the words before it
  };
  std::unordered_map<std::string, Moved, StringViewHash, std::equal_to<>> files_;
};

struct CopyOnWritten {
  std::vector<iceberg::DataFileEntry> added;             // the rewritten files
  std::vector<iceberg::RewrittenManifest> rewritten;     // the parent manifests changed
  std::vector<std::string> kept;                         // the parent's other manifest records
  MovedRows moved;
};

// Rewrites the files of the parent snapshot `h` that reached the share (into
// "<name_base>-cow<k>.parquet", schema `data`), and takes their positions out of *deletes
// (this increment's, ids of `files`). `live_rows`: per id of `files`, its rows the key index
// holds after the increment (what a file lost is its rows but those). `root`: the store's URI.
Result<CopyOnWritten> CopyOnWrite(ObjectStore& store, const TableRef& table,
                                  const std::string& location, const iceberg::TableHistory& h,
                                  const Schema& data, const IndexFiles& files,
                                  const std::vector<int64_t>& live_rows,
                                  std::vector<KeyLocation>* deletes, const std::string& name_base,
                                  const std::string& root);

}  // namespace lakedump
