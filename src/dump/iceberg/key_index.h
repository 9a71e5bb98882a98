// A table's key index (docs/iceberg.md, "Increments"): for every live row of the table's
// current Iceberg snapshot, its primary key -> the data file and row position holding it. An
// increment looks up each changed key here to write the position delete of the row's old
// version (and to read an unchanged TOASTed value from it), then writes the index of its
// own snapshot beside the table's metadata ("metadata/keyindex-<run>.parquet", named in the
// snapshot's summary as "lakedump.key-index") for the next increment.
//
// Stored as Parquet, in no particular order: `key` (binary: the key columns' values,
// EncodeIndexKey), `file` (string: the data file's key in the store), `pos` (int64). A
// snapshot without an index (the base, an overwrite) gets its entries from its data files'
// key columns.
//
// Memory: the index is never held whole. It is streamed, a batch at a time: once to find the
// increment's changed keys (only those are kept), once to write the next index (its rows
// copied but for the changed keys, whose new places follow). Written through the store's
// streaming writer, one row group buffered.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "format/parquet/parquet_reader.h"
#include "format/parquet/parquet_writer.h"
#include "store/object_store.h"
#include "table/row_batch.h"

namespace lakedump {

// Appends the values of row `row` of `batch`'s columns `columns` to *out, so that two rows
// get the same bytes exactly when their key values are equal. InvalidArgument for a list.
Status EncodeIndexKey(const RowBatch& batch, const std::vector<size_t>& columns, size_t row,
                      std::string* out);

// The data files an increment's index entries name, by a small id.
class IndexFiles {
 public:
  uint32_t Id(std::string_view key);
  const std::string& Key(uint32_t id) const { return keys_[id]; }

 private:
  std::vector<std::string> keys_;
  std::unordered_map<std::string, uint32_t> ids_;
  size_t last_ = 0;  // the id found last (entries come grouped by file)
};

struct KeyLocation {
  uint32_t file = 0;  // IndexFiles::Id
  int64_t pos = 0;
};

// Where the current snapshot's index entries come from: its index file, or (none) the key
// columns `key_columns` of its data files.
struct KeyIndexOrigin {
  std::string index_key;
  std::vector<std::string> data_files;
  std::vector<std::string> key_columns;
};

// Called for every entry; `key` is valid during the call only.
using KeyIndexVisitor = std::function<Status(std::string_view key, KeyLocation at)>;

// Streams every entry of `origin`, its files given ids in *files. Corruption when the index
// file is not one (a column missing or of another type, a null, a negative position).
Status ForEachKeyIndexEntry(ObjectStore& store, const KeyIndexOrigin& origin, IndexFiles* files,
                            const KeyIndexVisitor& visit);

// Writes an index through the store's streaming writer, one row group buffered.
class KeyIndexWriter {
 public:
  static Result<std::unique_ptr<KeyIndexWriter>> Open(ObjectStore& store, const std::string& key);
  ~KeyIndexWriter();
  Status Add(std::string_view key, std::string_view file, int64_t pos);
  // Flushes the last rows, writes the footer and closes the object; returns its size.
  Result<uint64_t> Close();

 private:
  KeyIndexWriter() = default;
  std::string key_;
  std::unique_ptr<ObjectWriter> out_;
  std::unique_ptr<ParquetWriter> writer_;
  RowBatch batch_;
};

// A Parquet reader over the object `key` of `store` (its `columns` only; empty: all).
// *holder keeps the object's reader alive as long as the Parquet reader.
Result<std::unique_ptr<ParquetReader>> OpenStoredParquet(
    ObjectStore& store, const std::string& key, const std::vector<std::string>& columns,
    std::unique_ptr<ObjectReader>* holder);

}  // namespace lakedump
