// One table's change file applied to its key index, streaming (docs/iceberg.md, "Increments";
// key_index.h). Three passes, none holding the table:
//  1. CollectKeys reads the change file's operations and key columns: the changed keys, sorted
//     (the only keys held in memory), which of them an update leaves values unchanged for,
//     and where each key's last version will be in the increment's data file (none when
//     deleted);
//  2. Merge streams the current index's runs once, in key order, merged with the changed keys:
//     it finds where each changed key's row lives before the increment and writes the next
//     index (the runs split around the changed keys, which come in at their new places).
//     Meanwhile, on a thread of its own, the change file is read again and the new row
//     versions stream into the increment's data file (one batch, then one row group,
//     buffered). When an update takes unchanged (TOASTed) values from a previous version,
//     those versions are read from their data files after the merge (those values only are
//     held), and the new versions are written then;
//  3. Apply plays the operations in commit order against the places found: the positions to
//     delete and the counts. Where copy-on-write then rewrites files, RemapIndex writes the
//     index again with their rows at their new places.
// Memory: the changed keys with their places, one operation and key per change row, the
// positions to delete, the kept values of rows whose later update takes them, and the writers'
// buffers; not the table's size.
// Not thread-safe (its own thread runs inside Merge only, on members Merge does not touch).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "dump/iceberg/iceberg_increment.h"
#include "dump/iceberg/key_index.h"
#include "format/iceberg/iceberg_table.h"
#include "format/parquet/parquet_writer.h"
#include "store/object_store.h"
#include "table/row_batch.h"
#include "table/schema.h"

namespace lakedump {

// A Parquet data file written as rows arrive; the object is created with its first rows.
class StreamedDataFile {
 public:
  StreamedDataFile(ObjectStore& store, std::string key, const Schema& schema,
                   ParquetWriterOptions options = {});
  ~StreamedDataFile();
  Status Append(const RowBatch& rows);
  // Writes the buffered rows and the footer, and closes the object (once; Close does it
  // when not done).
  Status Finish();
  // The file's entry (`root`: the store's URI, which the path starts with), or nullopt when
  // no row was appended (nothing written).
  Result<std::optional<iceberg::DataFileEntry>> Close(const std::string& root);
  uint64_t rows() const { return rows_; }

 private:
  ObjectStore& store_;
  std::string key_;
  const Schema& schema_;
  ParquetWriterOptions options_;
  std::unique_ptr<ObjectWriter> out_;
  std::unique_ptr<ParquetWriter> writer_;
  uint64_t rows_ = 0;
  bool finished_ = false;
};

class MovedRows;  // copy_on_write.h

struct StringViewHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

class IcebergChangeApplier {
 public:
  // `data`: the data file's schema; `key_columns`: the key's columns in the change file;
  // `new_file`: the increment's data file (a key of `store`).
  IcebergChangeApplier(ObjectStore& store, const Schema& data, std::string change_file,
                       std::vector<size_t> key_columns, std::string new_file);
  ~IcebergChangeApplier();

  // A change file row's operation.
  enum ChangeOp : uint8_t { kInsertOp, kUpdateOp, kDeleteOp };

  Status CollectKeys();
  // Writes the next index into `index_key` (a key of the store) while it finds the changed
  // keys' places in `origin`'s.
  Status Merge(const KeyIndexOrigin& origin, const std::string& index_key);
  Status Apply();
  // After Apply: the new data file (none without rows) and the old places to delete.
  Result<std::optional<iceberg::DataFileEntry>> FinishDataFile(const std::string& root);
  std::vector<KeyLocation>& deletes() { return deletes_; }
  const IndexFiles& files() const { return files_; }
  // After Merge: per id of files(), its rows that stay where they were (not the new file's).
  const std::vector<int64_t>& live_rows() const { return live_rows_; }
  const IcebergChangeCounts& counts() const { return counts_; }
  // Writes the index `from` (Merge's) again into `to` with the rows of the files that
  // copy-on-write rewrote (`moved`) at their new places; returns its size.
  Result<uint64_t> RemapIndex(const std::string& from, const std::string& to,
                              const MovedRows& moved);

 private:
  struct Changed {
    std::string_view key;    // its bytes (EncodeIndexKey), in change_keys_
    bool live = false;       // the table holds the key (at `at`)
    KeyLocation at;
    bool takes_unchanged = false;  // an update of it sends some values as unchanged
    int64_t kept = -1;       // its current version's row in kept_ (takes_unchanged only)
    int64_t new_pos = -1;    // its last version's row in the new data file (-1: deleted)
  };
  // What CollectKeys reads of each change-file row, in file order.
  struct ChangeRows {
    std::vector<size_t> key_end;   // row r's key: change_keys_[key_end[r - 1], key_end[r])
    std::vector<int64_t> new_pos;  // where the row lands in the new data file (-1: a delete)
    std::vector<bool> takes_unchanged;
  };

  void IndexChangedKeys(const ChangeRows& rows);
  Status MergeIndex(const KeyIndexOrigin& origin, const std::string& index_key);
  Status WriteChangedBefore(const std::string* bound, KeyIndexWriter* writer);
  Status MergeRun(const KeyRun& run, KeyIndexWriter* writer);
  void CountLive(uint32_t file, int64_t rows);
  Status ReadKeptVersions();
  Status WriteNewVersions();
  Status ApplyOps();
  Status StageRow(const RowBatch& changes, size_t r, Changed* c, bool update);
  Status StageRowsAsTheyAre(const RowBatch& changes, size_t begin, size_t n);
  Status FlushStaged();

  ObjectStore& store_;
  const Schema& data_;
  std::string change_file_;
  std::vector<size_t> key_columns_;
  IndexKeyOrder order_;
  IndexFiles files_;
  uint32_t new_file_;
  std::string change_keys_;            // every change-file row's key, in file order
  std::vector<Changed> changed_;       // one per changed key, in key order
  std::vector<uint32_t> row_changed_;  // per change-file row: its key's entry in changed_
  size_t merge_next_ = 0;              // MergeIndex: the first changed key not written yet
  std::vector<uint8_t> row_ops_;       // per change-file row: its ChangeOp
  bool versions_written_ = false;      // Merge wrote the new versions beside the index
  RowBatch kept_;    // the versions whose values a later update of the key takes
  RowBatch staged_;  // rows not yet handed to the data file
  std::unique_ptr<StreamedDataFile> out_;
  std::vector<KeyLocation> deletes_;
  std::vector<int64_t> live_rows_;
  IcebergChangeCounts counts_;
};

}  // namespace lakedump
