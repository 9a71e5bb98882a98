// Test helper: Parquet files holding a list column in the legacy forms other writers produce
// (LogicalTypes.md "Lists", backward-compatibility rules), made from a file our writer wrote
// by rewriting its schema only: the levels of these forms equal those of the 3-level LIST
// with required elements. Header-only; tests.
#pragma once

#include <string>
#include <vector>

#include "base/byte_sink.h"
#include "format/parquet/parquet_writer.h"
#include "parquet_craft.h"
#include "table/row_batch.h"

namespace lakedump::testing {

enum class LegacyList {
  kTwoLevel,            // <opt> group a (LIST) { repeated int32 array; }
  kTwoLevelRequired,    // required group a (LIST) { repeated int32 array; }
  kRepeatedPrimitive,   // repeated int32 a;  (no annotation: a required list)
};

// Column "a" (int32 elements): rows [1,2], [], [3], then for kTwoLevel a null row; plus an
// int64 column "id" (0, 1, 2...) after it. The lakedump schema the reader should map it to
// and the rows' canonical JSON come back in *schema and *rows_json.
inline std::string LegacyListFile(LegacyList form, Schema* schema, std::string* rows_json) {
  const bool nullable = form == LegacyList::kTwoLevel;
  *schema = Schema({Column{"a", LogicalType::List(LogicalType::Of(TypeId::kInt32), false),
                           nullable, ""},
                    Column{"id", LogicalType::Of(TypeId::kInt64), false, ""}});
  RowBatch b(*schema);
  ColumnVector& a = b.column(0);
  a.elements().Append<int32_t>(1);
  a.elements().Append<int32_t>(2);
  a.AppendList();
  a.AppendList();
  a.elements().Append<int32_t>(3);
  a.AppendList();
  if (nullable) a.AppendNull();
  for (size_t i = 0; i < a.size(); ++i) b.column(1).Append<int64_t>(static_cast<int64_t>(i));
  *rows_json = nullable ? R"([["1","2"],"0"],
[[],"1"],
[["3"],"2"],
[null,"3"])"
                        : R"([["1","2"],"0"],
[[],"1"],
[["3"],"2"])";
  StringSink sink;
  ParquetWriterOptions o;
  o.codec = CodecKind::kSnappy;
  ParquetWriter w(*schema, o, &sink);
  if (!w.Write(b).ok() || !w.Close().ok()) return "";
  return RewriteParquet(
      sink.str(), [](size_t, parquet::PageHeader*, std::string*) {},
      [form](parquet::FileMetaData* m) {
        // schema: root, a (LIST), list (repeated group), element, id
        std::vector<parquet::SchemaElement> s = m->schema;
        parquet::SchemaElement leaf = s[3];
        leaf.repetition = parquet::Repetition::kRepeated;
        std::vector<std::string> path;
        if (form == LegacyList::kRepeatedPrimitive) {
          leaf.name = "a";
          m->schema = {s[0], leaf, s[4]};
          path = {"a"};
        } else {
          leaf.name = "array";
          m->schema = {s[0], s[1], leaf, s[4]};
          path = {"a", "array"};
        }
        for (parquet::RowGroup& g : m->row_groups) g.columns[0].meta_data->path_in_schema = path;
      });
}

}  // namespace lakedump::testing
