// THE PROOF: files written by ParquetWriter, read by three independent readers
// (DuckDB, hyparquet, parquet-wasm) through tests/interop/check.mjs, compared
// value by value with the canonical JSON of what was written.
#include <gtest/gtest.h>

#include <regex>

#include <fmt/format.h>

#include "base/thread_pool.h"
#include "canonical_json.h"
#include "format/parquet/parquet_writer.h"
#include "list_craft.h"
#include "parquet_test_util.h"
#include "test_data.h"

namespace lakedump {
namespace {

using testing::NullPattern;

struct Case {
  std::string name;
  Schema schema;
  NullPattern nulls = NullPattern::kSome;
  size_t rows = 0;
  size_t batch_rows = 1000;
  ParquetWriterOptions options;
  uint64_t seed = 1;
  std::string meta_json;  // optional X.meta.json
};

// Writes case.parquet and case.expected.json (and meta) into dir.
void WriteCase(const std::string& dir, const Case& c) {
  StringSink sink;
  ParquetWriter writer(c.schema, c.options, &sink);
  RowBatch batch(c.schema);
  std::string rows_json;
  for (size_t at = 0; at < c.rows; at += c.batch_rows) {
    batch.Clear();
    const size_t n = std::min(c.batch_rows, c.rows - at);
    testing::FillRows(c.schema, c.nulls, at, n, c.seed, &batch);
    testing::AppendCanonicalRows(c.schema, batch, &rows_json);
    ASSERT_TRUE(writer.Write(batch).ok()) << c.name;
  }
  Status s = writer.Close();
  ASSERT_TRUE(s.ok()) << c.name << ": " << s.ToString();
  testing::WriteFile(dir + "/" + c.name + ".parquet", sink.str());
  testing::WriteFile(dir + "/" + c.name + ".expected.json",
                     testing::CanonicalDocument(c.schema, rows_json));
  if (!c.meta_json.empty()) testing::WriteFile(dir + "/" + c.name + ".meta.json", c.meta_json);
}

std::vector<Case> Matrix() {
  std::vector<Case> cases;
  const CodecKind codecs[] = {CodecKind::kNone, CodecKind::kSnappy, CodecKind::kZstd,
                              CodecKind::kGzip, CodecKind::kLz4Raw};
  const std::pair<NullPattern, const char*> patterns[] = {
      {NullPattern::kNone, "nonull"}, {NullPattern::kSome, "somenull"}, {NullPattern::kAll, "allnull"}};
  constexpr size_t kGroup = 50;  // small row groups make boundaries cheap to hit
  const size_t sizes[] = {0, 1, kGroup, kGroup + 1, 3 * kGroup + 17};
  for (CodecKind codec : codecs) {
    for (const auto& [nulls, pname] : patterns) {
      for (size_t rows : sizes) {
        Case c;
        c.name = fmt::format("all_{}_{}_{}", CodecName(codec), pname, rows);
        c.schema = testing::AllTypesSchema(nulls);
        c.nulls = nulls;
        c.rows = rows;
        c.batch_rows = 23;  // batches straddle row-group boundaries
        c.options.codec = codec;
        c.options.row_group_rows = kGroup;
        c.seed = rows + 7;
        cases.push_back(std::move(c));
      }
    }
  }
  // Plain pages only (no dictionary), several pages per chunk.
  {
    Case c;
    c.name = "plain_small_pages";
    c.schema = testing::AllTypesSchema(NullPattern::kSome);
    c.rows = 700;
    c.options.dictionary = false;
    c.options.page_bytes = 512;
    c.options.row_group_rows = 300;
    cases.push_back(std::move(c));
  }
  // dictionary_columns: every other column dictionary-encoded, the rest PLAIN, in one file
  // (as the Iceberg key index is written: a dictionary for its `file` and `rows` only).
  {
    Case c;
    c.name = "some_columns_dictionary";
    c.schema = testing::AllTypesSchema(NullPattern::kSome);
    for (size_t i = 0; i < c.schema.num_columns(); i += 2) {
      c.options.dictionary_columns.push_back(c.schema.column(i).name);
    }
    c.rows = 500;
    c.options.row_group_rows = 200;
    c.options.codec = CodecKind::kZstd;
    cases.push_back(std::move(c));
  }
  // High-cardinality strings: the dictionary overflows its limit mid-chunk and
  // the chunk continues with PLAIN pages after the dictionary-encoded ones.
  {
    Case c;
    c.name = "dict_fallback";
    c.schema = Schema({Column{"id", LogicalType::Of(TypeId::kInt64), true, ""},
                       Column{"s", LogicalType::Of(TypeId::kString), true, ""},
                       Column{"b", LogicalType::Of(TypeId::kBinary), true, ""}});
    c.rows = 5000;
    c.options.dictionary_limit_bytes = 2000;
    c.options.page_bytes = 4096;
    c.options.row_group_rows = 4000;
    c.options.codec = CodecKind::kZstd;
    cases.push_back(std::move(c));
  }
  // Several row groups with threads (pool-less: threads ignored) and big batches.
  {
    Case c;
    c.name = "many_groups";
    c.schema = testing::AllTypesSchema(NullPattern::kSome);
    c.rows = 2500;
    c.batch_rows = 777;
    c.options.row_group_rows = 400;
    cases.push_back(std::move(c));
  }
  // The same with a pool: row groups in flight and each row group's columns
  // encoded by 3 lanes (the bytes equal the serial writer's; this reads them).
  {
    static ThreadPool pool(2);
    Case c;
    c.name = "many_groups_parallel";
    c.schema = testing::AllTypesSchema(NullPattern::kSome);
    c.rows = 2500;
    c.batch_rows = 777;
    c.options.row_group_rows = 400;
    c.options.codec = CodecKind::kZstd;
    c.options.threads = 3;
    c.options.pool = &pool;
    cases.push_back(std::move(c));
  }
  // Statistics and logical types checked through DuckDB's parquet_metadata.
  {
    Case c;
    c.name = "meta_stats";
    c.schema = testing::AllTypesSchema(NullPattern::kNone);
    c.nulls = NullPattern::kNone;
    c.rows = testing::EdgeRows();  // exactly the edge values
    c.meta_json = R"({"num_rows": 8, "num_row_groups": 1, "columns": {
      "c_int64": {"min": "-9223372036854775808", "max": "9223372036854775807", "null_count": 0,
                  "logical_type": "INT_64", "physical_type": "INT64", "compression": "SNAPPY"},
      "c_int8": {"min": "-128", "max": "127", "physical_type": "INT32"},
      "c_double": {"physical_type": "DOUBLE"},
      "c_binary": {"min": ""},
      "c_time": {"min": "00:00:00", "max": "23:59:59.999999"},
      "c_uuid": {"min": "00000000-0000-0000-0000-000000000000"},
      "c_dec38": {"logical_type": "DECIMAL", "physical_type": "FIXED_LEN_BYTE_ARRAY"},
      "c_dec4": {"min": "-99.99", "max": "99.99", "physical_type": "INT32"},
      "c_dec18": {"physical_type": "INT64", "logical_type": "DECIMAL"},
      "c_date": {"min": "0001-01-01", "max": "9999-12-31", "logical_type": "DATE"},
      "c_ts": {"logical_type": "TIMESTAMP"},
      "c_uuid": {"logical_type": "UUID", "physical_type": "FIXED_LEN_BYTE_ARRAY"},
      "c_json": {"logical_type": "JSON"},
      "c_string": {"min": "", "logical_type": "STRING", "physical_type": "BYTE_ARRAY"}
    }})";
    cases.push_back(std::move(c));
  }
  {
    Case c;
    c.name = "meta_nulls";
    c.schema = Schema({Column{"a", LogicalType::Of(TypeId::kInt32), true, ""},
                       Column{"f", LogicalType::Of(TypeId::kFloat), true, ""}});
    c.rows = 1000;
    c.options.row_group_rows = 300;
    RowBatch all(c.schema);
    testing::FillRows(c.schema, c.nulls, 0, c.rows, c.seed, &all);
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    for (size_t i = 0; i < c.rows; ++i) {
      if (all.column(0).IsNull(i)) continue;
      lo = std::min(lo, all.column(0).ValueAt<int32_t>(i));
      hi = std::max(hi, all.column(0).ValueAt<int32_t>(i));
    }
    // DuckDB drops float statistics holding infinities, so only counts for f.
    c.meta_json = fmt::format(
        R"({{"num_rows": 1000, "num_row_groups": 4, "columns": {{
        "a": {{"min": "{}", "max": "{}", "null_count": {}}},
        "f": {{"null_count": {}}}}}}})",
        lo, hi, all.column(0).null_count(), all.column(1).null_count());
    cases.push_back(std::move(c));
  }
  // Lists (3-level LIST) of every element type: null lists, empty lists, null elements, values;
  // row groups, pages and the dictionary's fall-back to PLAIN all end inside runs of lists.
  for (const auto& [nulls, pname] : patterns) {
    for (size_t rows : {size_t{0}, size_t{1}, size_t{3 * kGroup + 17}}) {
      Case c;
      c.name = fmt::format("lists_{}_{}", pname, rows);
      c.schema = testing::ListTypesSchema(nulls);
      c.nulls = nulls;
      c.rows = rows;
      c.batch_rows = 23;
      c.options.row_group_rows = kGroup;
      c.seed = rows + 3;
      cases.push_back(std::move(c));
    }
  }
  {
    Case c;
    c.name = "lists_small_pages_dict_fallback";
    c.schema = testing::ListTypesSchema(NullPattern::kSome);
    c.rows = 900;
    c.options.page_bytes = 256;
    c.options.dictionary_limit_bytes = 600;
    c.options.row_group_rows = 400;
    c.options.codec = CodecKind::kZstd;
    cases.push_back(std::move(c));
  }
  {
    Case c;
    c.name = "lists_plain";
    c.schema = testing::ListTypesSchema(NullPattern::kSome);
    c.rows = 300;
    c.options.dictionary = false;
    c.options.page_bytes = 300;
    cases.push_back(std::move(c));
  }
  return cases;
}

TEST(ParquetInteropTest, IndependentReadersReadEveryTypeCodecAndShape) {
  const std::string interop = testing::InteropDir();
  if (interop.empty()) {
    GTEST_SKIP() << "tests/interop/node_modules missing: run `npm ci` in tests/interop "
                    "(or set LD_INTEROP_DIR)";
  }
  const std::string dir = testing::MakeTempDir("ld_interop_");
  ASSERT_FALSE(dir.empty());
  for (const Case& c : Matrix()) WriteCase(dir, c);
  // Lists in the legacy forms other writers produce (which our reader reads too): the
  // independent readers agree on their values.
  for (auto [form, name] : {std::pair{testing::LegacyList::kTwoLevel, "legacy_two_level"},
                            std::pair{testing::LegacyList::kTwoLevelRequired,
                                      "legacy_two_level_required"},
                            std::pair{testing::LegacyList::kRepeatedPrimitive,
                                      "legacy_repeated_primitive"}}) {
    Schema schema;
    std::string rows_json;
    const std::string file = testing::LegacyListFile(form, &schema, &rows_json);
    ASSERT_FALSE(file.empty());
    testing::WriteFile(dir + "/" + name + ".parquet", file);
    testing::WriteFile(dir + "/" + name + ".expected.json",
                       testing::CanonicalDocument(schema, rows_json));
  }
  std::string out;
  const int rc = testing::RunCommand(fmt::format("node {}/check.mjs --quiet {}", interop, dir), &out);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, std::regex(R"((\d+) passed, (\d+) failed)"))) << out;
  EXPECT_EQ(m[2].str(), "0") << out;
  EXPECT_GT(std::stoi(m[1].str()), 200) << out;
  EXPECT_EQ(rc, 0) << out;
  if (rc == 0 && !::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace lakedump
