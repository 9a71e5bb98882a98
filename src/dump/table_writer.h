// TableFileWriter: writes the rows of one work unit of a table into data files:
// FileEncoder -> ChecksumSink -> ObjectWriter per file, rolling to a new file
// past DumpOptions::file_size and, with --partition-by, keeping one open file
// per partition value (at most max_open_partitions; more is an error).
// Memory: one encoder's buffered row group per open file.
// Ownership: borrows the store, progress and trace. Not thread-safe.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dump/dump_options.h"
#include "dump/file_encoder.h"
#include "base/checksum.h"
#include "lake/object_checksum.h"
#include "lake/manifest.h"
#include "base/progress.h"
#include "base/trace.h"
#include "store/object_store.h"

namespace lakedump {

// The text of a value as it appears in a partition folder name (before
// escaping); nullopt for a null.
std::optional<std::string> PartitionValueText(const ColumnVector& column, size_t row);

// Appends row `row` of `src` to `dst` (same type).
void AppendRowValue(const ColumnVector& src, size_t row, ColumnVector* dst);

struct TableFileWriterContext {
  ObjectStore* store = nullptr;
  const FileEncoderFactory* encoder = nullptr;
  const DumpOptions* options = nullptr;
  std::string run_id;
  DumpProgress* progress = nullptr;  // may be null
  TraceRecorder* trace = nullptr;    // may be null
};

class TableFileWriter {
 public:
  // REQUIRES: when options->partition_by is set, schema has that column.
  TableFileWriter(const TableFileWriterContext& ctx, const TableRef& table, Schema schema,
                  int unit);
  ~TableFileWriter();  // open files are aborted (their writers destroyed unclosed)

  Status Write(const RowBatch& batch);
  // Closes every open file; with write_empty_file and no file written yet,
  // writes one empty file so the table's schema is on record.
  Result<std::vector<DataFile>> Finish(bool write_empty_file);

 private:
  struct OpenFile;
  // `partition_value`: the partition column's value in this file (for Iceberg).
  Result<OpenFile*> FileFor(const std::string& partition,
                            std::optional<std::string> partition_value = std::nullopt);
  Status WriteTo(OpenFile* file, const RowBatch& batch);
  Status CloseFile(std::unique_ptr<OpenFile> file);

  TableFileWriterContext ctx_;
  TableRef table_;
  Schema schema_;
  int unit_;
  std::optional<size_t> partition_column_;
  std::string partition_name_;  // escaped column name
  int next_seq_ = 0;
  std::map<std::string, std::unique_ptr<OpenFile>> open_;  // by partition ("" = none)
  std::vector<DataFile> done_;
  RowBatch scratch_;
};

}  // namespace lakedump
