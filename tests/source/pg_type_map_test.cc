#include "source/postgres/pg_type_map.h"

#include <gtest/gtest.h>

#include "source/postgres/pg_catalog.h"
#include "source/postgres/pg_conn.h"

namespace lakedump {
namespace {

PgColumnInfo Info(uint32_t oid, int32_t typmod = -1, char category = 'N', char typtype = 'b',
                  std::string name = "x") {
  PgColumnInfo i;
  i.name = "c\"ol";
  i.base_oid = oid;
  i.base_typmod = typmod;
  i.base_category = category;
  i.base_typtype = typtype;
  i.base_name = std::move(name);
  i.format_type = "whatever";
  return i;
}

int32_t NumericTypmod(int p, int s) { return ((p << 16) | (s & 0x7ff)) + 4; }

TEST(PgTypeMapTest, NumericTypmods) {
  PgTypeOptions options;
  EXPECT_EQ(MapPgColumn(Info(1700, NumericTypmod(12, 2)), options).column.type,
            LogicalType::Decimal(12, 2));
  EXPECT_EQ(MapPgColumn(Info(1700, NumericTypmod(38, 10)), options).column.type,
            LogicalType::Decimal(38, 10));
  // PostgreSQL 15: negative scale and scale above precision.
  EXPECT_EQ(MapPgColumn(Info(1700, NumericTypmod(3, -2)), options).column.type,
            LogicalType::Decimal(5, 0));
  EXPECT_EQ(MapPgColumn(Info(1700, NumericTypmod(2, 5)), options).column.type,
            LogicalType::Decimal(5, 5));
  // Unbounded and too wide follow the policy.
  EXPECT_EQ(MapPgColumn(Info(1700), options).column.type, LogicalType::Of(TypeId::kString));
  EXPECT_EQ(MapPgColumn(Info(1700, NumericTypmod(50, 5)), options).field.wire,
            PgWire::kNumericText);
  ASSERT_TRUE(ParsePgNumericPolicy("decimal(38,6)", &options).ok());
  PgColumnMapping m = MapPgColumn(Info(1700), options);
  EXPECT_EQ(m.column.type, LogicalType::Decimal(38, 6));
  EXPECT_TRUE(m.field.round);
  ASSERT_TRUE(ParsePgNumericPolicy("double", &options).ok());
  EXPECT_EQ(MapPgColumn(Info(1700), options).column.type, LogicalType::Of(TypeId::kDouble));
  EXPECT_FALSE(ParsePgNumericPolicy("decimal(38,40)", &options).ok());
  EXPECT_FALSE(ParsePgNumericPolicy("float", &options).ok());
}

TEST(PgTypeMapTest, SelectExpressionsAreQuoted) {
  PgTypeOptions options;
  PgColumnMapping direct = MapPgColumn(Info(20), options);
  EXPECT_EQ(direct.select_expr, "\"c\"\"ol\"");
  EXPECT_EQ(direct.column.type, LogicalType::Of(TypeId::kInt64));
  // Arrays: a list of the element's mapping (binary elements), elements without one as
  // text[]; a column holding other shapes (or an unknown element type) as its exact text.
  PgColumnInfo ints = Info(1007, -1, 'A');
  ints.element_oid = 23;
  PgColumnMapping array = MapPgColumn(ints, options);
  EXPECT_EQ(array.select_expr, "\"c\"\"ol\"");
  EXPECT_EQ(array.column.type, LogicalType::List(LogicalType::Of(TypeId::kInt32), true));
  EXPECT_TRUE(array.field.array);
  EXPECT_EQ(array.field.wire, PgWire::kInt4);
  PgColumnInfo intervals = Info(1187, -1, 'A');
  intervals.element_oid = 1186;
  intervals.element_category = 'T';
  PgColumnMapping texts = MapPgColumn(intervals, options);
  EXPECT_EQ(texts.select_expr, "\"c\"\"ol\"::pg_catalog.text[]");
  EXPECT_EQ(texts.column.type, LogicalType::List(LogicalType::Of(TypeId::kString), true));
  PgColumnInfo numerics = Info(1231, (12 << 16) + 2 + 4, 'A');
  numerics.element_oid = 1700;
  EXPECT_EQ(MapPgColumn(numerics, options).column.type,
            LogicalType::List(LogicalType::Decimal(12, 2), true));
  ints.array_as_text = true;
  PgColumnMapping exact = MapPgColumn(ints, options);
  EXPECT_EQ(exact.select_expr, "\"c\"\"ol\"::pg_catalog.text");
  EXPECT_EQ(exact.column.type, LogicalType::Of(TypeId::kString));
  EXPECT_FALSE(exact.field.array);
  EXPECT_EQ(MapPgColumn(Info(1007, -1, 'A'), options).column.type,
            LogicalType::Of(TypeId::kString));
  PgColumnMapping interval = MapPgColumn(Info(1186, -1, 'T'), options);
  EXPECT_EQ(interval.select_expr, "\"c\"\"ol\"::pg_catalog.text");
  EXPECT_TRUE(interval.text_fallback);
  // inet, cidr and xml through their output functions, not their casts to text.
  EXPECT_EQ(MapPgColumn(Info(869, -1, 'I'), options).select_expr,
            "pg_catalog.textin(pg_catalog.inet_out(\"c\"\"ol\"))");
  EXPECT_EQ(MapPgColumn(Info(650, -1, 'I'), options).select_expr,
            "pg_catalog.textin(pg_catalog.cidr_out(\"c\"\"ol\"))");
  EXPECT_EQ(MapPgColumn(Info(142, -1, 'U'), options).select_expr,
            "pg_catalog.textin(pg_catalog.xml_out(\"c\"\"ol\"))");
  PgColumnInfo inets = Info(1041, -1, 'A');
  inets.element_oid = 869;
  inets.element_category = 'I';
  EXPECT_EQ(MapPgColumn(inets, options).select_expr,
            "pg_catalog.textin(pg_catalog.array_out(\"c\"\"ol\"))::pg_catalog.text[]");
  PgColumnMapping en = MapPgColumn(Info(99999, -1, 'E', 'e'), options);
  EXPECT_EQ(en.select_expr, "\"c\"\"ol\"");
  EXPECT_FALSE(en.text_fallback);
  EXPECT_EQ(MapPgColumn(Info(3802), options).field.wire, PgWire::kJsonb);
  EXPECT_EQ(MapPgColumn(Info(1184), options).column.type, LogicalType::Of(TypeId::kTimestampTz));
}

TEST(PgTypeMapTest, Quoting) {
  EXPECT_EQ(QuoteIdent("a\"b c"), "\"a\"\"b c\"");
  EXPECT_EQ(QuoteQualified("S", "t\""), "\"S\".\"t\"\"\"");
  EXPECT_EQ(QuoteLiteral("it's"), "'it''s'");
}

TEST(PgTypeMapTest, SimpleDefaults) {
  for (const char* d : {"42", "-1.5", "'it''s'::text", "true", "now()", "CURRENT_TIMESTAMP",
                        "'happy'::ns.mood", "'{}'::integer[]", "(-1)", "gen_random_uuid()",
                        "'x'::character varying(10)"}) {
    EXPECT_TRUE(IsSimpleDefault(d)) << d;
  }
  for (const char* d : {"nextval('s'::regclass)", "my_func()", "(a + 1)", "'a'::text || 'b'"}) {
    EXPECT_FALSE(IsSimpleDefault(d)) << d;
  }
}

TEST(PgTypeMapTest, ErrorClassification) {
  EXPECT_EQ(PgStatusFromError("55P03", "could not obtain lock", false).code(), Code::kUnavailable);
  EXPECT_EQ(PgStatusFromError("57P01", "terminating connection", false).code(), Code::kUnavailable);
  EXPECT_EQ(PgStatusFromError("42P01", "relation does not exist", false).code(), Code::kNotFound);
  EXPECT_EQ(PgStatusFromError("42501", "permission denied", false).code(), Code::kPermissionDenied);
  EXPECT_EQ(PgStatusFromError("", "server closed the connection", true).code(), Code::kUnavailable);
}

}  // namespace
}  // namespace lakedump
