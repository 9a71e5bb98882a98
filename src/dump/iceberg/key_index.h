// A table's key index (docs/iceberg.md, "Increments"): for every live row of the table's
// current Iceberg snapshot, its primary key -> the data file and row position holding it. An
// increment looks up each changed key here to write the position delete of the row's old
// version (and to read an unchanged TOASTed value from it), then writes the index of its
// own snapshot beside the table's metadata ("metadata/keyindex-<run>.parquet", named in the
// snapshot's summary as "lakedump.key-index") for the next increment.
//
// Stored as Parquet, sorted by key (key_runs.h), one row per run: `key` (binary: the key
// columns' values, EncodeIndexKey, of the run's first row), `file` (int32: an index into the
// JSON array of data file keys in the file's key-value metadata `lakedump.key-index.files`),
// `pos` (int64: the first row's position) and `rows` (int64); the metadata's
// `lakedump.key-index` is `sorted-runs`. An index written before indexes were sorted (no
// `rows`, `file` a string, one row per key, in no order) is still read, through a
// KeyRunSorter. An incremental base writes the indexes of its tables keyed by one integer
// column with their snapshots (WriteDataFilesKeyIndex); a snapshot without an index (an
// overwrite, another key's base, a base written before bases had one) gets its runs from
// its data files' key columns, sorted the same way.
//
// Memory: the index is never held whole. It is streamed, a row group at a time, in key order,
// once per increment: merged with the increment's changed keys (sorted; only they are held) to
// find their old places and write the next index at once. An index file's runs come a decoded
// batch at a time (KeyRunBlock), so that the runs between two changed keys are copied into
// the next index as a block (KeyIndexWriter::AddBlock), not one at a time. An index to sort holds at most kKeyIndexSortBytes of runs, spilling past it.
// Written through the store's streaming writer, one row group buffered and one being encoded
// on the writer's own thread.
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
#include "base/thread_pool.h"
#include "dump/iceberg/key_runs.h"
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
  size_t size() const { return keys_.size(); }

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

// The runs an index to sort (from data files, or an index of the old form) holds in memory
// at most before spilling to temporary files.
inline constexpr size_t kKeyIndexSortBytes = 16 << 20;

// Consecutive runs of an index file of the sorted form, as one decoded batch holds them, their
// files given ids (`listed`: an id per place in the file's list). The reader checked them: each
// a run of the order, naming a listed file, in key order after the block before. Valid during
// the visitor's call only.
class KeyRunBlock {
 public:
  KeyRunBlock(const RowBatch& batch, const std::vector<uint32_t>& listed)
      : batch_(batch), listed_(listed) {}
  size_t size() const { return batch_.num_rows(); }
  std::string_view key(size_t i) const { return batch_.column(0).BytesAt(i); }
  uint32_t file(size_t i) const {
    return listed_[static_cast<size_t>(batch_.column(1).ValueAt<int32_t>(i))];
  }
  int64_t pos(size_t i) const { return batch_.column(2).ValueAt<int64_t>(i); }
  int64_t rows(size_t i) const { return batch_.column(3).ValueAt<int64_t>(i); }
  KeyRun run(size_t i) const;
  // The first run from `from` on whose last key is `key` or after it; size() when none.
  size_t FirstReaching(size_t from, std::string_view key, const IndexKeyOrder& order) const;
  // The decoded columns: key, file (a place in the file's list), pos, rows.
  const RowBatch& batch() const { return batch_; }

 private:
  const RowBatch& batch_;
  const std::vector<uint32_t>& listed_;
};

using KeyRunBlockVisitor = std::function<Status(const KeyRunBlock& block)>;

// Streams the runs of `origin` in key order (`order`: its key's), their files given ids in
// *files: an index file's of the sorted form a block at a time to `block`, any other's (data
// files' key columns, an index of the old form) one at a time to `run`. Corruption when the
// index file is not one (a column missing or of another type, a null, a negative position or
// length, a key not of `order`, keys out of order or twice).
Status ForEachKeyRunBlock(ObjectStore& store, const KeyIndexOrigin& origin,
                          const IndexKeyOrder& order, IndexFiles* files,
                          const KeyRunBlockVisitor& block, const KeyRunVisitor& run);

// The same, every run one at a time.
Status ForEachKeyRun(ObjectStore& store, const KeyIndexOrigin& origin,
                     const IndexKeyOrder& order, IndexFiles* files, const KeyRunVisitor& visit);

// Writes an index through the store's streaming writer, one row group buffered.
class KeyIndexWriter {
 public:
  // `files`: the table of the ids that Add's runs name (the index lists the ones used);
  // REQUIRES: it outlives the writer.
  static Result<std::unique_ptr<KeyIndexWriter>> Open(ObjectStore& store, const std::string& key,
                                                      const IndexKeyOrder& order,
                                                      const IndexFiles& files);
  ~KeyIndexWriter();
  // Appends a run (`rows` keys from `key` at positions from `pos` of `file`), joined to the
  // one before when it continues it. Internal when it does not follow it in key order.
  Status Add(std::string_view key, uint32_t file, int64_t pos, int64_t rows);
  // Appends runs [begin, end) of `block` as they are: the first as Add does, the others after
  // it in bulk (the reader checked their order), the last held for the next Add to join.
  Status AddBlock(const KeyRunBlock& block, size_t begin, size_t end);
  // Flushes the last rows, writes the footer and closes the object; returns its size.
  Result<uint64_t> Close();

 private:
  KeyIndexWriter(const IndexKeyOrder& order, const IndexFiles& files)
      : order_(order), files_(files) {}
  Status Put();
  // The place of the file `id` of files_ in the index's list, listing it when new.
  int32_t ListedAs(uint32_t id);
  Status WriteIfFull();

  const IndexKeyOrder& order_;
  const IndexFiles& files_;
  std::vector<int32_t> listed_as_;  // per id of files_: its place in the index's list, or -1
  std::vector<uint32_t> listed_;    // the ids of files_ listed, in the list's order
  std::string key_;
  std::unique_ptr<ThreadPool> pool_;  // encodes the writer's row groups
  std::unique_ptr<ObjectWriter> out_;
  std::unique_ptr<ParquetWriter> writer_;
  RowBatch batch_;
  bool has_last_ = false;
  std::string last_key_;
  uint32_t last_file_ = 0;
  int64_t last_pos_ = 0, last_rows_ = 0;
};

// Writes the key index `index_key` of a snapshot whose live rows are those of `data_files`
// (store keys; no deletes), keyed by their columns `key_columns` (`order`: their key's): the
// index an incremental base writes with its snapshot, so that its first increment streams
// it instead of reading and sorting every key of the table (docs/iceberg.md, "Increments").
// Returns the index's size. Errors as ForEachKeyRun's (a key twice is Corruption).
Result<uint64_t> WriteDataFilesKeyIndex(ObjectStore& store,
                                        const std::vector<std::string>& data_files,
                                        const std::vector<std::string>& key_columns,
                                        const IndexKeyOrder& order, const std::string& index_key);

// A Parquet reader over the object `key` of `store` (its `columns` only; empty: all).
// *holder keeps the object's reader alive as long as the Parquet reader.
Result<std::unique_ptr<ParquetReader>> OpenStoredParquet(
    ObjectStore& store, const std::string& key, const std::vector<std::string>& columns,
    std::unique_ptr<ObjectReader>* holder);

}  // namespace lakedump
