// The rows of a table's data files, their position deletes applied, for `compact`
// (docs/iceberg.md, "Compaction"): SurvivingRows reads one file's rows that no delete
// removed; KeyOrderedRows merges the rows of many files into key order, so that the
// compacted files hold the table sorted by key and its key index shrinks back to a few runs
// per file (key_runs.h), however fragmented the increments had left it.
//
// KeyOrderedRows: a data file whose surviving rows are already in key order (a base dumped
// in key order, most increments' files) is read as it is, a first pass over its key columns
// having found it so. Any other file is sorted in chunks of at most `memory_bytes` of rows,
// each written sorted, as Parquet, to an unnamed temporary file (base/temp_file.h: nothing
// is left behind, even after kill -9). The sorted sources are then merged, at most
// kMaxMergeWidth at once: more are first merged, the smallest first, into further temporary
// files, so that the largest (a base's files) are read by the last merge only.
// Corruption when two surviving rows have the same key, or a source's keys go backwards (a
// file changed between the two passes).
// Memory: the chunk being sorted (memory_bytes) and one slice of it; in the merge, per open
// source one batch, its keys and its reader's row group (temporary files are written in
// small row groups). The deleted positions are the caller's.
// Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "dump/iceberg/key_runs.h"
#include "format/parquet/parquet_reader.h"
#include "store/object_store.h"
#include "table/row_batch.h"
#include "table/schema.h"

namespace lakedump {

// The sources one merge reads at once.
inline constexpr size_t kMaxMergeWidth = 16;
// The rows a compaction sorts in memory at most before spilling them, sorted, to a
// temporary file.
inline constexpr size_t kCompactSortBytes = size_t{64} << 20;

// One data file's rows but for its deleted positions, a batch at a time.
class SurvivingRows {
 public:
  // Data file `key` of `store`, read as `schema`'s columns (InvalidArgument when one has
  // another type there); `deleted`: its deleted positions, sorted (borrowed).
  static Result<std::unique_ptr<SurvivingRows>> Open(ObjectStore& store, const std::string& key,
                                                     const Schema& schema,
                                                     const std::vector<int64_t>* deleted);
  // Over an open reader (of a file that `name` names in errors), taking it.
  SurvivingRows(std::unique_ptr<ObjectReader> holder, std::unique_ptr<ParquetReader> reader,
                const std::vector<int64_t>* deleted);
  ~SurvivingRows();
  // Replaces *out with the next surviving rows (at least one); none at the end.
  Status Next(RowBatch* out);

 private:
  std::unique_ptr<ObjectReader> holder_;
  std::unique_ptr<ParquetReader> reader_;
  const std::vector<int64_t>* deleted_;
  std::vector<int64_t>::const_iterator next_deleted_;
  int64_t pos_ = 0;
  RowBatch read_;
};

class KeyOrderedRows {
 public:
  // Called with consecutive rows [begin, begin + n) of `rows`, in key order.
  using Emit = std::function<Status(const RowBatch& rows, size_t begin, size_t n)>;

  // `key_columns`: the key's columns of `schema` (not empty).
  KeyOrderedRows(ObjectStore& store, const Schema& schema, std::vector<size_t> key_columns,
                 size_t memory_bytes = kCompactSortBytes);
  ~KeyOrderedRows();

  // Adds data file `key` with its sorted deleted positions (borrowed until Finish).
  Status AddFile(const std::string& key, const std::vector<int64_t>* deleted);
  // Every surviving row of the files added, in key order. Once.
  Status Finish(const Emit& emit);

  // What AddFile found (for tests and the compaction's report).
  size_t files_in_order() const { return files_in_order_; }
  size_t files_sorted() const { return files_sorted_; }
  size_t temporary_files() const { return temporary_files_; }

 private:
  struct Source;
  class Merger;
  Result<bool> InKeyOrder(const std::string& key, const std::vector<int64_t>* deleted,
                          uint64_t* rows);
  Status SortFile(const std::string& key, const std::vector<int64_t>* deleted);
  Status SpillSorted(const RowBatch& chunk);
  Result<std::unique_ptr<SurvivingRows>> OpenSource(const Source& s);
  Status Merge(const std::vector<Source>& sources, const Emit& emit);

  ObjectStore& store_;
  const Schema& schema_;
  std::vector<size_t> key_columns_;
  IndexKeyOrder order_;
  size_t memory_bytes_;
  std::vector<Source> sources_;
  size_t files_in_order_ = 0, files_sorted_ = 0, temporary_files_ = 0;
};

}  // namespace lakedump
