// Every mapped PostgreSQL type with edge values, read through the source and
// compared value by value with what PostgreSQL itself returns.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "integration/pg_test_util.h"
#include "table/list_json.h"
#include "table/temporal.h"

namespace lakedump {
namespace {

using testing_pg::AdminConn;
using testing_pg::PgExpr;
using testing_pg::SameFloat;
using testing_pg::ScratchSchema;

std::string Hex(std::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes) out += fmt::format("{:02x}", c);
  return out;
}

// Our value as text comparable with the PostgreSQL expression of the test.
std::optional<std::string> OurText(const ColumnVector& col, size_t row) {
  if (col.IsNull(row)) return std::nullopt;
  switch (col.type().id) {
    case TypeId::kBool: return col.ValueAt<uint8_t>(row) ? "true" : "false";
    case TypeId::kInt8: return std::to_string(col.ValueAt<int8_t>(row));
    case TypeId::kInt16: return std::to_string(col.ValueAt<int16_t>(row));
    case TypeId::kInt32: return std::to_string(col.ValueAt<int32_t>(row));
    case TypeId::kInt64: return std::to_string(col.ValueAt<int64_t>(row));
    case TypeId::kFloat: return fmt::format("{}", col.ValueAt<float>(row));
    case TypeId::kDouble: return fmt::format("{}", col.ValueAt<double>(row));
    case TypeId::kDecimal: return FormatDecimal(col.ValueAt<int128_t>(row), col.type().scale);
    case TypeId::kString:
    case TypeId::kJson: return std::string(col.BytesAt(row));
    case TypeId::kList: return ListToJson(col, row);
    case TypeId::kBinary: return Hex(col.BytesAt(row));
    case TypeId::kDate: {
      const int32_t d = col.ValueAt<int32_t>(row);
      if (d == std::numeric_limits<int32_t>::max()) return "infinity";
      if (d == -std::numeric_limits<int32_t>::max()) return "-infinity";
      return std::to_string(d);
    }
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      const int64_t t = col.ValueAt<int64_t>(row);
      if (t == std::numeric_limits<int64_t>::max()) return "infinity";
      if (t == -std::numeric_limits<int64_t>::max()) return "-infinity";
      return std::to_string(t);
    }
    case TypeId::kUuid: {
      const std::string h = Hex(std::string_view(
          reinterpret_cast<const char*>(col.ValueAt<Uuid>(row).bytes), 16));
      return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" +
             h.substr(16, 4) + "-" + h.substr(20);
    }
  }
  return std::nullopt;
}

struct ReadResult {
  Schema schema;
  std::map<int64_t, std::vector<std::optional<std::string>>> rows;  // by column 0 (id)
};

ReadResult ReadTable(Database& db, const TableRef& ref, size_t batch_rows = 2) {
  ReadResult out;
  auto source = db.Open(WorkUnit{TableInfo{ref}, 0, 1, ""});
  EXPECT_TRUE(source.ok()) << source.status().ToString();
  if (!source.ok()) return out;
  out.schema = (*source)->schema();
  RowBatch batch;
  while (true) {
    Status s = (*source)->Next(batch_rows, &batch);
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (!s.ok() || batch.empty()) break;
    EXPECT_TRUE(batch.Validate(out.schema).ok());
    for (size_t r = 0; r < batch.num_rows(); ++r) {
      std::vector<std::optional<std::string>> values;
      for (size_t c = 0; c < batch.num_columns(); ++c) values.push_back(OurText(batch.column(c), r));
      out.rows[std::stoll(*values[0])] = std::move(values);
    }
  }
  return out;
}

void ExpectSameAsPostgres(PgConn& admin, const ReadResult& ours, const std::string& qualified) {
  std::string sql = "SELECT ";
  for (size_t c = 0; c < ours.schema.num_columns(); ++c) {
    if (c) sql += ", ";
    sql += PgExpr(ours.schema.column(c));
  }
  sql += " FROM " + qualified + " ORDER BY 1";
  auto r = admin.Query(sql);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(static_cast<size_t>(PQntuples(r->get())), ours.rows.size());
  for (int i = 0; i < PQntuples(r->get()); ++i) {
    const int64_t id = std::stoll(std::string(PgValue(r->get(), i, 0)));
    const auto& row = ours.rows.at(id);
    for (size_t c = 0; c < ours.schema.num_columns(); ++c) {
      const Column& col = ours.schema.column(c);
      const bool pg_null = PQgetisnull(r->get(), i, static_cast<int>(c));
      SCOPED_TRACE(fmt::format("row id {}, column {} ({} -> {})", id, col.name, col.source_type,
                               col.type.ToString()));
      ASSERT_EQ(pg_null, !row[c].has_value());
      if (pg_null) continue;
      const std::string pg(PgValue(r->get(), i, static_cast<int>(c)));
      if (col.type.id == TypeId::kFloat || col.type.id == TypeId::kDouble) {
        EXPECT_TRUE(SameFloat(*row[c], pg, col.type.id == TypeId::kFloat))
            << *row[c] << " vs " << pg;
      } else if (pg.size() > 200) {
        EXPECT_EQ(row[c]->size(), pg.size());
        EXPECT_TRUE(*row[c] == pg);
      } else {
        EXPECT_EQ(*row[c], pg);
      }
    }
  }
}

TEST(PostgresTypesTest, EveryTypeWithEdgeValuesMatchesPostgres) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  ScratchSchema schema(admin.get());
  const std::string s = schema.q();
  ASSERT_TRUE(testing_pg::CreateEveryTypeTable(*admin, s).ok());

  PostgresOptions options;
  auto db = OpenPostgresDatabase(testing_pg::TestDsn(), options);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_TRUE((*db)->BeginSnapshot().ok());
  const TableRef ref{schema.name(), "t"};
  auto def = (*db)->DescribeTable(TableInfo{ref});
  ASSERT_TRUE(def.ok()) << def.status().ToString();
  // The mapping (docs/type-mapping.md). arr holds a 2-D value: its exact text; tarr's values
  // are 1-D (or empty): a list.
  std::map<std::string, std::string> expected = {
      {"b", "bool"}, {"i2", "int16"}, {"i4", "int32"}, {"i8", "int64"}, {"f4", "float"},
      {"f8", "double"}, {"n38", "decimal(38,10)"}, {"n12", "decimal(12,2)"},
      {"nneg", "decimal(5,0)"}, {"nsub", "decimal(5,5)"}, {"ntiny", "decimal(38,20)"},
      {"nu", "string"}, {"nwide", "string"}, {"t", "string"}, {"vc", "string"},
      {"bp", "string"}, {"nm", "string"}, {"by", "binary"}, {"d", "date"},
      {"ts", "timestamp"}, {"tstz", "timestamptz"}, {"tm", "time"}, {"u", "uuid"},
      {"js", "json"}, {"jb", "json"}, {"en", "string"}, {"ip", "string"}, {"net", "string"},
      {"iv", "string"}, {"arr", "string"}, {"tarr", "list<string>"}, {"m", "string"}, {"bits", "string"},
      {"dom", "decimal(10,2)"}, {"dom2", "string"}, {"tz", "string"}, {"oid_col", "int64"},
      {"ch", "string"}, {"mac", "string"}, {"rng", "string"}, {"xm", "string"}};
  for (const Column& c : def->schema.columns()) {
    if (c.name == "id") continue;
    EXPECT_EQ(c.type.ToString(), expected[c.name]) << c.name;
  }
  EXPECT_EQ(def->schema.column(*def->schema.FindColumn("n12")).source_type, "numeric(12,2)");
  EXPECT_FALSE(def->schema.column(0).nullable);
  EXPECT_EQ(def->primary_key, std::vector<std::string>{"id"});

  const ReadResult ours = ReadTable(**db, ref);
  ASSERT_EQ(ours.rows.size(), 7u);
  ExpectSameAsPostgres(*admin, ours, schema.q() + ".t");
}

TEST(PostgresTypesTest, NumericPoliciesForUnboundedNumeric) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  ScratchSchema schema(admin.get());
  ASSERT_TRUE(admin->Exec(fmt::format(
      "CREATE TABLE {0}.t (id int8, nu numeric); INSERT INTO {0}.t VALUES (1, 1.25), "
      "(2, -123456789.123456789), (3, NULL), (4, 0.5)", schema.q())).ok());
  const TableRef ref{schema.name(), "t"};
  {
    PostgresOptions options;
    options.types.numeric = PgNumericPolicy::kDouble;
    auto db = OpenPostgresDatabase(testing_pg::TestDsn(), options);
    ASSERT_TRUE(db.ok());
    ReadResult r = ReadTable(**db, ref, 100);
    EXPECT_EQ(r.schema.column(1).type.id, TypeId::kDouble);
    EXPECT_EQ(*r.rows[1][1], "1.25");
    EXPECT_EQ(*r.rows[2][1], fmt::format("{}", -123456789.123456789));
    EXPECT_FALSE(r.rows[3][1].has_value());
  }
  {
    PostgresOptions options;
    ASSERT_TRUE(ParsePgNumericPolicy("decimal(38,3)", &options.types).ok());
    auto db = OpenPostgresDatabase(testing_pg::TestDsn(), options);
    ASSERT_TRUE(db.ok());
    ReadResult r = ReadTable(**db, ref, 100);
    EXPECT_EQ(r.schema.column(1).type, LogicalType::Decimal(38, 3));
    EXPECT_EQ(*r.rows[1][1], "1.250");
    EXPECT_EQ(*r.rows[2][1], "-123456789.123");  // rounded half away from zero
    EXPECT_EQ(*r.rows[4][1], "0.500");
  }
  // NaN cannot be a decimal: an error naming table, column and row, or NULL by policy.
  ASSERT_TRUE(admin->Exec(fmt::format("CREATE TABLE {0}.n (id int8, amount numeric(10,2)); "
                                      "INSERT INTO {0}.n VALUES (1, 1.5), (2, 'NaN')",
                                      schema.q())).ok());
  {
    auto db = OpenPostgresDatabase(testing_pg::TestDsn(), PostgresOptions{});
    ASSERT_TRUE(db.ok());
    auto source = (*db)->Open(WorkUnit{TableInfo{{schema.name(), "n"}}, 0, 1, ""});
    ASSERT_TRUE(source.ok());
    RowBatch batch;
    Status s = (*source)->Next(100, &batch);
    EXPECT_EQ(s.code(), Code::kInvalidArgument);
    EXPECT_NE(s.message().find(schema.name() + ".n"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("\"amount\""), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("row 2"), std::string::npos) << s.message();
  }
  {
    PostgresOptions options;
    options.numeric_special = PgNumericSpecialPolicy::kNull;
    auto db = OpenPostgresDatabase(testing_pg::TestDsn(), options);
    ASSERT_TRUE(db.ok());
    ReadResult r = ReadTable(**db, TableRef{schema.name(), "n"}, 100);
    EXPECT_EQ(*r.rows[1][1], "1.50");
    EXPECT_FALSE(r.rows[2][1].has_value());
  }
}

TEST(PostgresTypesTest, TimestampBeyondInt64MicrosIsEscapedExactly) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  ScratchSchema schema(admin.get());
  ASSERT_TRUE(admin->Exec(fmt::format("CREATE TABLE {0}.t (id int8, far timestamp); "
                                      "INSERT INTO {0}.t VALUES (1, '294276-12-31 23:59:59')",
                                      schema.q())).ok());
  auto db = OpenPostgresDatabase(testing_pg::TestDsn(), PostgresOptions{});
  ASSERT_TRUE(db.ok());
  auto source = (*db)->Open(WorkUnit{TableInfo{{schema.name(), "t"}}, 0, 1, ""});
  ASSERT_TRUE(source.ok());
  RowBatch batch;
  ASSERT_TRUE((*source)->Next(100, &batch).ok());
  ASSERT_EQ(batch.num_rows(), 1u);
  const int64_t far = batch.column(1).values<int64_t>()[0];
  EXPECT_TRUE(IsTimestampEscape(far));
  EXPECT_EQ(FormatTimestamp(far), "+294276-12-31T23:59:59.000000");
}

}  // namespace
}  // namespace lakedump
