// PostgreSQL tables dumped with --table-format iceberg, read back by icebird (tests/interop, an
// Iceberg reader we did not write) and compared value by value with what PostgreSQL returns:
// the every-type table of pg_test_util.h, and arrays (Iceberg lists) with NULL arrays, empty
// arrays and NULL elements. tests/interop/iceberg_check.mjs also checks the same dumps'
// metadata, Avro manifests and Parquet field ids, and icebird against DuckDB for every column.
// Skipped without LD_TEST_PG_DSN or tests/interop's node_modules.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "base/utf8.h"
#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/pg_test_util.h"

namespace lakedump {
namespace {

using json = nlohmann::json;
using testing_cli::Quote;
using testing_cli::ReadFile;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_pg::AdminConn;
using testing_pg::ScratchSchema;

// JavaScript's Date.toISOString of `ms` since the epoch, or null outside Date's range
// (JSON.stringify gives null for an invalid Date).
json JsIsoString(int64_t ms) {
  constexpr int64_t kMaxDateMs = 8'640'000'000'000'000;
  if (ms > kMaxDateMs || ms < -kMaxDateMs) return nullptr;
  int64_t days = ms / 86'400'000, rem = ms % 86'400'000;
  if (rem < 0) {
    rem += 86'400'000;
    days -= 1;
  }
  // Civil from days (proleptic Gregorian), as in H. Hinnant's date algorithms.
  const int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  const std::string year = (y >= 0 && y <= 9999) ? fmt::format("{:04}", y)
                                                 : fmt::format("{}{:06}", y < 0 ? '-' : '+',
                                                               y < 0 ? -y : y);
  return fmt::format("{}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", year, m, d, rem / 3'600'000,
                     rem / 60'000 % 60, rem / 1000 % 60, rem % 1000);
}

std::string FromHex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  }
  return out;
}

std::string Digits(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number_unsigned()) return std::to_string(v.get<uint64_t>());
  return v.dump();
}

// Whether icebird's value (as tests/interop/iceberg_read.mjs prints it: hyparquet's
// conversions, 64-bit integers as strings, dates and timestamps as millisecond ISO strings)
// is PostgreSQL's value `pg` (testing_pg::PgExpr's text; a list element: its JSON) of
// lakedump type `type`. *lossy is set when icebird's form cannot show the value exactly
// (bytes that are not UTF-8: hyparquet decodes them as text), which iceberg_check.mjs then
// checks against DuckDB instead.
::testing::AssertionResult Same(const LogicalType& type, const json& pg, const json& got,
                                bool* lossy) {
  auto fail = [&] {
    return ::testing::AssertionFailure() << "icebird " << got.dump() << ", PostgreSQL " << pg.dump();
  };
  if (pg.is_null()) return got.is_null() ? ::testing::AssertionSuccess() : fail();
  const std::string text = pg.is_string() ? pg.get<std::string>() : pg.dump();
  // Dates and timestamps JS cannot hold (±infinity, year 5874897) come back null.
  const bool temporal = type.id == TypeId::kDate || type.id == TypeId::kTimestamp ||
                        type.id == TypeId::kTimestampTz;
  if (got.is_null() && !temporal) return fail();
  bool same = false;
  switch (type.id) {
    case TypeId::kList: {
      const json want = json::parse(text);
      if (!got.is_array() || got.size() != want.size()) return fail();
      for (size_t i = 0; i < want.size(); ++i) {
        auto r = Same(type.ElementType(), want[i], got[i], lossy);
        if (!r) return r << " (element " << i << ")";
      }
      return ::testing::AssertionSuccess();
    }
    case TypeId::kBool: same = got.is_boolean() && got.get<bool>() == (text == "true"); break;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kTime: same = Digits(got) == text; break;
    case TypeId::kFloat:
    case TypeId::kDouble: {
      const std::string g = got.is_string() ? got.get<std::string>() : fmt::format("{:.17g}", got.get<double>());
      same = testing_pg::SameFloat(g, text, type.id == TypeId::kFloat);
      break;
    }
    case TypeId::kDecimal: {
      // hyparquet makes decimals JS numbers: equal to the nearest double, within rounding.
      const double want = std::strtod(text.c_str(), nullptr);
      same = got.is_number() &&
             std::fabs(got.get<double>() - want) <= 1e-12 * std::max(1.0, std::fabs(want));
      break;
    }
    case TypeId::kString: same = got == text; break;
    case TypeId::kJson: same = got == text || got == json::parse(text, nullptr, false); break;
    case TypeId::kUuid: {
      // A formatted string, or its 32 hex digits (older hyparquet: the bytes, as hex).
      std::string want = text, g = got.is_string() ? got.get<std::string>() : "";
      std::erase(want, '-');
      std::erase(g, '-');
      same = g == want;
      break;
    }
    case TypeId::kBinary: {
      const std::string bytes = FromHex(text);
      if (!IsValidUtf8(bytes)) {
        *lossy = true;
        return ::testing::AssertionSuccess();
      }
      same = got == bytes;
      break;
    }
    case TypeId::kDate:
      same = text.ends_with("infinity") ? got.is_null()
                                        : got == JsIsoString(std::stoll(text) * 86'400'000);
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      // hyparquet: new Date(Number(micros / 1000n)), the division truncating toward zero.
      same = text.ends_with("infinity") ? got.is_null()
                                        : got == JsIsoString(std::stoll(text) / 1000);
      break;
  }
  return same ? ::testing::AssertionSuccess() : fail();
}

class PostgresIcebergTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing_pg::TestDsn() == nullptr) GTEST_SKIP() << "LD_TEST_PG_DSN is not set";
    interop_ = testing_cli::InteropDir();
    if (interop_.empty()) GTEST_SKIP() << "LD_INTEROP_DIR with node_modules not found";
    admin_ = AdminConn();
    ASSERT_TRUE(admin_);
    schema_ = std::make_unique<ScratchSchema>(admin_.get(), "ld_ice");
  }

  // Dumps the scratch schema's tables as Iceberg into DEST (extra options appended).
  void Dump(const std::string& dest, const std::string& extra = "") {
    RunResult d = RunLakedump(
        fmt::format("dump {} {} --table-format iceberg --tables '{}.*' --progress none {}",
                    Quote(testing_pg::TestDsn()), Quote(dest), schema_->name(), extra),
        dir_);
    ASSERT_EQ(d.code, 0) << d.err;
  }

  // iceberg_read.mjs TABLE_URL --rows [args]: {"rows","sha256","values"}.
  json Icebird(const std::string& table_dir, const std::string& args = "") {
    const std::string out = dir_.Sub("icebird.json");
    const std::string cmd = fmt::format("node {}/iceberg_read.mjs {} --rows {} >{} 2>&1", interop_,
                                        Quote("file://" + table_dir), args, out);
    const int rc = std::system(cmd.c_str());
    const std::string text = ReadFile(out);
    EXPECT_EQ(WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, 0) << text.substr(0, 2000);
    const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
    return j.is_object() ? j : json::object();
  }

  // iceberg_check.mjs over the whole dump: every check passes.
  void ExpectIcebergCheckPasses(const std::string& dump) {
    const std::string out = dir_.Sub("iceberg-check.txt");
    const int rc = std::system(
        fmt::format("node {}/iceberg_check.mjs {} --quiet >{} 2>&1", interop_, Quote(dump), out)
            .c_str());
    const std::string text = ReadFile(out);
    EXPECT_EQ(WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, 0) << text.substr(0, 4000);
    EXPECT_NE(text.find(" passed, 0 failed"), std::string::npos) << text.substr(0, 4000);
  }

  // The table's columns as the source maps them (the types icebird's values are held to).
  Schema SourceSchema(const std::string& table) {
    PostgresOptions options;
    auto db = OpenPostgresDatabase(testing_pg::TestDsn(), options);
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    if (!db.ok()) return Schema();
    EXPECT_TRUE((*db)->BeginSnapshot().ok());
    auto def = (*db)->DescribeTable(TableInfo{TableRef{schema_->name(), table}});
    EXPECT_TRUE(def.ok()) << def.status().ToString();
    return def.ok() ? def->schema : Schema();
  }

  // Every row of `table` read by icebird equals PostgreSQL's, column by column (rows matched
  // by the first column, an integer key). Returns the number of values icebird cannot show
  // exactly (checked by iceberg_check.mjs against DuckDB).
  int ExpectIcebirdReadsPostgres(const std::string& table, const json& icebird) {
    const Schema schema = SourceSchema(table);
    std::string sql = "SELECT ";
    for (size_t c = 0; c < schema.num_columns(); ++c) {
      sql += (c ? ", " : "") + testing_pg::PgExpr(schema.column(c));
    }
    sql += fmt::format(" FROM {}.{} ORDER BY 1", schema_->q(), QuoteIdent(table));
    auto r = admin_->Query(sql);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return 0;
    std::map<std::string, json> by_key;
    for (const json& row : icebird["values"]) by_key[Digits(row[schema.column(0).name])] = row;
    EXPECT_EQ(by_key.size(), static_cast<size_t>(PQntuples(r->get())));
    int lossy = 0;
    for (int i = 0; i < PQntuples(r->get()); ++i) {
      const std::string key(PgValue(r->get(), i, 0));
      const json& row = by_key[key];
      if (!row.is_object()) {
        ADD_FAILURE() << "icebird has no row " << key << " of table " << table;
        continue;
      }
      for (size_t c = 0; c < schema.num_columns(); ++c) {
        const Column& col = schema.column(c);
        SCOPED_TRACE(fmt::format("table {}, row {}, column {} ({} -> {})", table, key, col.name,
                                 col.source_type, col.type.ToString()));
        const int ci = static_cast<int>(c);
        const json pg = PQgetisnull(r->get(), i, ci) ? json(nullptr)
                                                     : json(std::string(PgValue(r->get(), i, ci)));
        bool was_lossy = false;
        // hyparquet leaves a null list out of the row (undefined): null.
        const json got = row.contains(col.name) ? row[col.name] : json(nullptr);
        EXPECT_TRUE(Same(col.type, pg, got, &was_lossy));
        lossy += was_lossy ? 1 : 0;
      }
    }
    return lossy;
  }

  std::string interop_;
  std::unique_ptr<PgConn> admin_;
  std::unique_ptr<ScratchSchema> schema_;
  TempDir dir_;
};

TEST_F(PostgresIcebergTest, EveryMappedTypeReadByIcebirdEqualsPostgres) {
  ASSERT_TRUE(testing_pg::CreateEveryTypeTable(*admin_, schema_->q()).ok());
  const std::string dump = dir_.Sub("dump");
  Dump(dump);
  const json rows = Icebird(dump + "/" + schema_->name() + "/t");
  ASSERT_EQ(rows.value("rows", 0), 7);
  const int lossy = ExpectIcebirdReadsPostgres("t", rows);
  EXPECT_LE(lossy, 2);  // bytea '\x00ff10' (also repeated): not UTF-8
  ExpectIcebergCheckPasses(dump);
}

TEST_F(PostgresIcebergTest, ArraysAreIcebergListsReadByIcebird) {
  ASSERT_TRUE(admin_
                  ->Exec(fmt::format(R"SQL(
    CREATE TABLE {0}.arr (id int8 PRIMARY KEY, i4 int4[], i8 int8[], t text[],
                          nn int4[] NOT NULL);
    INSERT INTO {0}.arr VALUES
      (1, NULL, NULL, NULL, '{{}}'),
      (2, '{{}}', '{{}}', '{{}}', '{{1}}'),
      (3, '{{-2147483648,0,NULL,2147483647}}', '{{-9223372036854775808,NULL,9223372036854775807}}',
          '{{"a\"b","c,d",NULL,"","NULL","é ✓"}}', '{{2,3}}'),
      (4, '{{NULL}}', '{{NULL,NULL}}', '{{NULL}}', '{{}}'),
      (5, '{{7}}', '{{8}}', '{{x}}', '{{4}}');
  )SQL",
                                     schema_->q()))
                  .ok());
  const std::string dump = dir_.Sub("dump");
  Dump(dump);
  const std::string table_dir = dump + "/" + schema_->name() + "/arr";
  const json rows = Icebird(table_dir);
  ASSERT_EQ(rows.value("rows", 0), 5);
  EXPECT_EQ(ExpectIcebirdReadsPostgres("arr", rows), 0);
  // The metadata declares the lists with their element ids after every column's.
  const std::string hint = ReadFile(table_dir + "/metadata/version-hint.text");
  const json meta = json::parse(ReadFile(table_dir + "/metadata/v" + hint + ".metadata.json"));
  const json& fields = meta["schemas"][0]["fields"];
  EXPECT_EQ(fields[1]["type"], json::parse(R"({"type":"list","element-id":6,
      "element-required":false,"element":"int"})"));
  EXPECT_EQ(fields[2]["type"]["element"], "long");
  EXPECT_EQ(fields[3]["type"]["element-id"], 8);
  EXPECT_EQ(fields[4]["required"], true);
  EXPECT_EQ(meta["last-column-id"], 9);
  ExpectIcebergCheckPasses(dump);
}

}  // namespace
}  // namespace lakedump
