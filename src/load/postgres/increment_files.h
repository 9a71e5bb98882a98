// What both ways of applying an increment (row by row, increment_apply.h; set-based,
// increment_set_apply.h) need of its files: opening one only after its size and XXH64 match
// what the increment recorded, and a value in COPY's text format.
// Functions; thread-safe.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "format/parquet/parquet_reader.h"
#include "lake/manifest.h"
#include "store/object_store.h"
#include "table/row_batch.h"

namespace lakedump {

// The _table.json of re-dumped table `t` of increment `sequence`, whose redump/ (a dump of its
// own, at `redump_store`) has manifest `dump`; Corruption when redump/ lacks it.
Result<TableManifest> ReadRedumpedTable(ObjectStore& redump_store, const DumpManifest& dump,
                                        const TableRef& t, int sequence);

// Rows read from an increment's files per batch.
inline constexpr size_t kIncrementBatchRows = 4096;

// Opens `key` of `store` as Parquet after checking its size and XXH64 against `bytes` and
// `xxh64` (Corruption naming the file otherwise), and its SHA-256 against `sha256` when the
// increment records one (a signed increment always does: a signature refusal otherwise), all
// before any of its rows is applied. `holder` keeps the object open as long as the reader is
// used.
Result<std::unique_ptr<ParquetReader>> OpenCheckedIncrementFile(
    ObjectStore& store, const std::string& key, uint64_t bytes, const std::string& xxh64,
    std::unique_ptr<ObjectReader>* holder, const std::string& sha256);

// The source's names of the table's columns in a change file (after the meta columns _op,
// _lsn, _xid, _commit_ts, _unchanged; unescaped when `escaped`: UnescapeChangeColumnName), or
// Corruption naming `key` when `schema` is not a change file's or names a column twice.
Result<std::vector<std::string>> ChangeFileColumns(const Schema& schema, const std::string& key,
                                                   bool escaped);

// Appends the value at `row` of `col` in its PostgreSQL text form, escaped for COPY's text
// format, or \N for NULL. `scratch` is reused between calls.
void AppendCopyText(const ColumnVector& col, size_t row, std::string* line, std::string* scratch);

}  // namespace lakedump
