// A table's key index (docs/iceberg.md, "Increments"): for every live row of the table's
// current Iceberg snapshot, its primary key -> the data file and row position holding it. An
// increment looks up each changed key here to write the position delete of the row's old
// version (and to read an unchanged TOASTed value from it), then writes the index of its
// own snapshot beside the table's metadata ("metadata/keyindex-<run>.parquet", named in the
// snapshot's summary as "lakedump.key-index") for the next increment.
//
// Stored as Parquet: `key` (binary: the key columns' values, KeyIndex::EncodeKey), `file`
// (string: the data file's key in the store), `pos` (int64). A snapshot without an index
// (the base, an overwrite) gets one built from its data files' key columns.
//
// Memory: the whole index is held while an increment runs (about 40 bytes plus the key per
// row of the table): not yet bounded by the configured buffers.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "format/parquet/parquet_reader.h"
#include "store/object_store.h"
#include "table/row_batch.h"

namespace lakedump {

struct KeyLocation {
  uint32_t file = 0;  // KeyIndex::FileKey
  int64_t pos = 0;
};

class KeyIndex {
 public:
  // Appends the values of row `row` of `batch`'s columns `columns` to *out, so that two rows
  // get the same bytes exactly when their key values are equal. InvalidArgument for a list.
  static Status EncodeKey(const RowBatch& batch, const std::vector<size_t>& columns, size_t row,
                          std::string* out);

  // The id of a data file (its key in the store), added when new.
  uint32_t FileId(const std::string& key);
  const std::string& FileKey(uint32_t id) const { return files_[id]; }

  std::unordered_map<std::string, KeyLocation>& entries() { return entries_; }
  const std::unordered_map<std::string, KeyLocation>& entries() const { return entries_; }

  // Reads an index written by Serialize. Corruption when it is not one.
  static Result<KeyIndex> Read(ObjectStore& store, const std::string& key);
  // Adds every row of the data file `key` by the columns named `key_columns`.
  Status AddDataFile(ObjectStore& store, const std::string& key,
                     const std::vector<std::string>& key_columns);
  // The index as a Parquet file.
  Result<std::string> Serialize() const;

 private:
  std::vector<std::string> files_;
  std::unordered_map<std::string, uint32_t> file_ids_;
  std::unordered_map<std::string, KeyLocation> entries_;
};

// A Parquet reader over the object `key` of `store` (its `columns` only; empty: all).
// *holder keeps the object's reader alive as long as the Parquet reader.
Result<std::unique_ptr<ParquetReader>> OpenStoredParquet(
    ObjectStore& store, const std::string& key, const std::vector<std::string>& columns,
    std::unique_ptr<ObjectReader>* holder);

}  // namespace lakedump
