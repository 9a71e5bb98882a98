// libFuzzer target: the readers of an incremental dump's increments, which load reads from the
// bucket (docs/incremental.md). The first byte of an input picks the reader, the rest is what
// it reads:
//   'M' an increment's _manifest.json (ParseIncrementManifest): what parses must serialize
//       again and parse back to the same value;
//   'T' a column type of a re-dumped table (ParsePgColumnType, the closed grammar): what parses
//       must give SQL that parses back to the same SQL, with nothing but the grammar's
//       characters in it;
//   'C' a change file (Parquet): its columns as load names them (ChangeFileColumns, escaped
//       and not) and every row's _op, _unchanged JSON and values in COPY text.
// Any input must yield a value or an error, never a crash. Seeds: with
// LD_INCREMENT_FUZZ_WRITE_SEEDS=DIR set, the target first writes a valid manifest and types
// to DIR (scripts/fuzz does, into the corpus, and adds Parquet files as 'C' inputs).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/byte_sink.h"
#include "format/parquet/parquet_reader.h"
#include "format/parquet/parquet_writer.h"
#include "lake/incremental_state.h"
#include "load/postgres/increment_files.h"
#include "load/postgres/pg_type_grammar.h"

namespace {

using namespace lakedump;

void FuzzManifest(std::string_view in) {
  auto m = ParseIncrementManifest(in, "_increments/000001/_manifest.json");
  if (!m.ok()) return;
  const std::string again = ToJson(*m).dump();
  auto back = ParseIncrementManifest(again, "again");
  if (!back.ok() || ToJson(*back).dump() != again) std::abort();
}

void FuzzType(std::string_view in) {
  auto t = ParsePgColumnType(in);
  if (!t.ok()) return;
  const std::string sql = PgColumnTypeSql(*t);
  // A built-in type's SQL holds only the grammar's characters (a named type's is quoted;
  // "pg_lsn" has an underscore).
  constexpr const char* kGrammarCharacters = "abcdefghijklmnopqrstuvwxyz0123456789_ (),-[]\"";
  if (t->builtin != nullptr && sql.find_first_not_of(kGrammarCharacters) != std::string::npos) {
    std::abort();
  }
  auto back = ParsePgColumnType(sql);
  if (!back.ok() || PgColumnTypeSql(*back) != sql) std::abort();
}

void FuzzChangeFile(std::string_view in) {
  const std::string file(in);  // a private copy: ASan sees reads past its end
  auto reader = ParquetReader::OpenBuffer(file);
  if (!reader.ok()) return;
  for (bool escaped : {false, true}) {
    auto names = ChangeFileColumns((*reader)->schema(), "changes/t/part.parquet", escaped);
    if (!names.ok()) return;
  }
  // ChangeFileColumns checked the meta columns' types: _op and _unchanged are strings.
  RowBatch batch;
  std::string line, scratch;
  for (int i = 0; i < 1000; ++i) {
    if (!(*reader)->Next(256, &batch).ok() || batch.num_rows() == 0) break;
    for (size_t row = 0; row < batch.num_rows(); ++row) {
      line.clear();
      if (!batch.column(0).IsNull(row)) line.append(batch.column(0).BytesAt(row));
      if (!batch.column(4).IsNull(row)) {
        (void)nlohmann::json::parse(batch.column(4).BytesAt(row), nullptr, false);
      }
      for (size_t c = kChangeMetaColumns; c < batch.num_columns(); ++c) {
        AppendCopyText(batch.column(c), row, &line, &scratch);
      }
    }
  }
}

// A change file as an increment writes it: the meta columns, then id, "_op" (escaped) and v.
std::string ChangeFileSeed() {
  auto str = [](const char* name, bool nullable) {
    return Column{name, LogicalType::Of(TypeId::kString), nullable, ""};
  };
  Schema schema({str("_op", false), {"_lsn", LogicalType::Of(TypeId::kInt64), false, ""},
                 {"_xid", LogicalType::Of(TypeId::kInt64), false, ""},
                 {"_commit_ts", LogicalType::Of(TypeId::kTimestampTz), false, ""},
                 str("_unchanged", true), {"id", LogicalType::Of(TypeId::kInt32), true, ""},
                 str("_lakedump__op", true), str("v", true)});
  StringSink sink;
  ParquetWriter writer(schema, ParquetWriterOptions{}, &sink);
  RowBatch batch(schema);
  for (int32_t r = 0; r < 3; ++r) {
    batch.column(0).AppendBytes(r == 2 ? "delete" : r == 1 ? "update" : "insert");
    batch.column(1).Append<int64_t>(1000 + r);
    batch.column(2).Append<int64_t>(700);
    batch.column(3).Append<int64_t>(1764921600000000);
    if (r == 1) batch.column(4).AppendBytes("[\"v\"]");
    else batch.column(4).AppendNull();
    batch.column(5).Append<int32_t>(r);
    batch.column(6).AppendBytes("o");
    batch.column(7).AppendBytes("v\t\\x");
  }
  if (!writer.Write(batch).ok() || !writer.Close().ok()) std::abort();
  return "C" + sink.str();
}

void WriteSeeds(const char* dir) {
  std::ofstream(std::string(dir) + "/change-file", std::ios::binary) << ChangeFileSeed();
  IncrementManifest m;
  m.sequence = 2;
  m.increment_id = "20261202T080000Z-0a1b2c3d";
  m.base_dump_id = "20261201T080000Z-00000000";
  m.previous_increment_id = "20261201T090000Z-11111111";
  m.slot = m.publication = "lakedump_0123456789abcdef";
  m.start_lsn = 0x196B950;
  m.end_lsn = 0x1D9ADA0;
  m.escaped_column_names = true;
  IncrementalTable t;
  t.ref = TableRef{"public", "t"};
  t.oid = 16390;
  t.key = {"id"};
  t.columns = {{"id", 23, -1}, {"v", 1043, 24}};
  m.tables = {t};
  m.change_files = {ChangeFile{t.ref, "changes/public/t/part-0.parquet", 10, 3758,
                               "0123456789abcdef"}};
  m.redumped = {RedumpedTable{TableRef{"public", "nopk"}, "no primary key"}};
  m.dropped = {TableRef{"public", "d"}};
  std::ofstream(std::string(dir) + "/manifest") << "M" << ToJson(m).dump();
  int n = 0;
  for (const char* type : {"numeric(10,2)[]", "timestamp(3) with time zone",
                           "character varying(20)", "interval day to second(3)",
                           "app.\"My Type\"", "integer DEFAULT 1"}) {
    std::ofstream(std::string(dir) + "/type-" + std::to_string(n++)) << "T" << type;
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("LD_INCREMENT_FUZZ_WRITE_SEEDS")) WriteSeeds(dir);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0]) {
    case 'T':
      FuzzType(in);
      break;
    case 'C':
      FuzzChangeFile(in);
      break;
    default:
      FuzzManifest(in);
      break;
  }
  return 0;
}
