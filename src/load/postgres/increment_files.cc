#include "load/postgres/increment_files.h"

#include <fmt/format.h>

#include <set>

#include "lake/increment_signature.h"
#include "lake/incremental_state.h"
#include "lake/object_checksum.h"
#include "lake/signature.h"
#include "load/postgres/pg_copy_encoder.h"

namespace lakedump {

Result<std::unique_ptr<ParquetReader>> OpenCheckedIncrementFile(
    ObjectStore& store, const std::string& key, uint64_t bytes, const std::string& xxh64,
    std::unique_ptr<ObjectReader>* holder, const std::string& sha256) {
  LD_ASSIGN_OR_RETURN(*holder, store.NewReader(key));
  if ((*holder)->size() != bytes) {
    return Status::Corruption(fmt::format("{}: {} bytes, the increment records {}", key,
                                          (*holder)->size(), bytes));
  }
  LD_ASSIGN_OR_RETURN(ObjectDigests digest, HashObjectDigests(**holder, bytes, !sha256.empty()));
  if (!sha256.empty()) LD_RETURN_IF_ERROR(CheckFileSha256(key, sha256, digest.sha256));
  if (digest.xxh64 != xxh64) {
    return Status::Corruption(fmt::format("{}: its XXH64 is {}, the dump records {}", key,
                                          digest.xxh64, xxh64));
  }
  ObjectReader* reader = holder->get();
  ParquetReaderOptions options;
  options.name = key;
  return ParquetReader::Open(
      bytes, [reader](uint64_t off, uint64_t len, std::string* out) {
        return reader->ReadAt(off, len, out);
      },
      options);
}

Result<TableManifest> ReadRedumpedTable(ObjectStore& redump_store, const DumpManifest& dump,
                                        const TableRef& t, int sequence) {
  for (const TableSummary& s : dump.tables) {
    if (s.table == t) return ReadIncrementRedumpTable(redump_store, s);
  }
  return Status::Corruption(fmt::format("increment {}: re-dumped table {} is not in redump/",
                                        sequence, t.QualifiedName()));
}

Result<std::vector<std::string>> ChangeFileColumns(const Schema& schema, const std::string& key,
                                                   bool escaped) {
  if (schema.num_columns() < kChangeMetaColumns || schema.column(0).name != "_op" ||
      schema.column(0).type.id != TypeId::kString || schema.column(1).name != "_lsn" ||
      schema.column(1).type.id != TypeId::kInt64 || schema.column(4).name != "_unchanged" ||
      schema.column(4).type.id != TypeId::kString) {
    return Status::Corruption(key + ": not a change file");
  }
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (size_t i = kChangeMetaColumns; i < schema.num_columns(); ++i) {
    const std::string& name = schema.column(i).name;
    names.push_back(escaped ? UnescapeChangeColumnName(name) : name);
    if (names.back().empty() || !seen.insert(names.back()).second) {
      return Status::Corruption(fmt::format("{}: column \"{}\" is empty or named twice", key,
                                            names.back()));
    }
  }
  return names;
}

void AppendCopyText(const ColumnVector& col, size_t row, std::string* line, std::string* scratch) {
  if (col.IsNull(row)) {
    line->append("\\N");
    return;
  }
  scratch->clear();
  AppendPgText(col, row, scratch);
  AppendCopyEscaped(*scratch, line);
}

}  // namespace lakedump
