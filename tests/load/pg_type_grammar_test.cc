// The closed grammar of an increment's column types (pg_type_grammar.h): the format_type()
// texts lakedump records parse and come back as the same SQL; anything an attacker could use to
// make a statement out of a type (a DEFAULT, a USING, a COLLATE, a function call, a comment,
// a second statement) is refused, as are modifiers out of range or out of place.
#include "load/postgres/pg_type_grammar.h"

#include <gtest/gtest.h>

namespace lakedump {
namespace {

std::string RoundTrip(std::string_view text) {
  auto t = ParsePgColumnType(text);
  EXPECT_TRUE(t.ok()) << text << ": " << t.status().ToString();
  return t.ok() ? PgColumnTypeSql(*t) : std::string();
}

TEST(PgTypeGrammarTest, TypesLakedumpWritesComeBackAsTheSameSql) {
  for (const char* text :
       {"integer", "bigint", "smallint", "double precision", "numeric", "numeric(10,2)",
        "numeric(5)", "numeric(3,-2)", "character varying", "character varying(20)",
        "character(3)", "bpchar", "\"char\"", "text", "bytea", "boolean", "date",
        "time without time zone", "time(3) without time zone", "time(0) with time zone",
        "timestamp without time zone", "timestamp(3) with time zone", "interval",
        "interval(2)", "interval year to month", "interval day to second(3)", "uuid", "jsonb",
        "inet", "bit(8)", "bit varying(5)", "tstzrange", "integer[]", "numeric(10,2)[]",
        "timestamp(6) with time zone[]", "character varying(40)[]", "pg_lsn", "pg_lsn[]"}) {
    EXPECT_EQ(RoundTrip(text), text);
  }
}

TEST(PgTypeGrammarTest, NamedTypesAreQuotedIdentifiers) {
  EXPECT_EQ(RoundTrip("mood"), "\"mood\"");
  EXPECT_EQ(RoundTrip("public.mood"), "\"public\".\"mood\"");
  EXPECT_EQ(RoundTrip("app.\"My Type\"[]"), "\"app\".\"My Type\"[]");
  EXPECT_EQ(RoundTrip("\"a\"\"b\""), "\"a\"\"b\"");
  auto t = ParsePgColumnType("app.\"My Type\"");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->builtin, nullptr);
  EXPECT_EQ(t->schema, "app");
  EXPECT_EQ(t->name, "My Type");
}

TEST(PgTypeGrammarTest, StatementsInATypeAreRefused) {
  for (const char* text : {
           "text DEFAULT pg_catalog.lo_export(16384, pg_catalog.chr(47))",
           "text GENERATED ALWAYS AS (pg_read_file(x)) STORED",
           "int4 USING pg_catalog.pg_read_file(x)",
           "text COLLATE \"C\"",
           "text; DROP TABLE t",
           "text --",
           "integer)",
           "(integer",
           "varchar(lo_export(1, 2))",
           "numeric(10,2) DEFAULT 1",
           "geometry(Point,4326)",
           "Integer",
           "public.mood.x",
           "\"unterminated",
           "\"\"",
           "\"a\nb\"",
           "integer[][]x",
           "",
           "[]",
           "text\n",
       }) {
    auto t = ParsePgColumnType(text);
    EXPECT_FALSE(t.ok()) << text << " parsed as " << (t.ok() ? PgColumnTypeSql(*t) : "");
    if (!t.ok()) {
      EXPECT_EQ(t.status().code(), Code::kInvalidArgument);
      EXPECT_EQ(t.status().message().find('\n'), std::string::npos) << t.status().message();
    }
  }
}

TEST(PgTypeGrammarTest, ModifiersOutOfRangeOrPlaceAreRefused) {
  for (const char* text :
       {"numeric(0)", "numeric(1001)", "numeric(10,2,3)", "numeric(10,-1001)",
        "character varying(0)", "character varying(99999999)", "timestamp(7) with time zone",
        "timestamp with time zone(3)", "integer(4)", "text(1)", "interval year(2)",
        "time(-1) without time zone", "numeric(1234567890)", "numeric( )", "numeric(1,)",
        "mood(3)", "bit(0)"}) {
    EXPECT_FALSE(ParsePgColumnType(text).ok()) << text;
  }
}

}  // namespace
}  // namespace lakedump
