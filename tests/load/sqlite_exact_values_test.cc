// The SQLite source's promise about exact values (source/sqlite/sqlite_values.h), checked
// against SQLite itself: a value in a column that cannot drift, or one SqliteValueRoundTrips
// accepts, is what `load` writes back (BindSqliteValue into a column of the same declared type,
// SQLite's affinity applied): the same storage class and bytes. Every other value is kept in
// the values column.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

#include "load/sqlite/sqlite_load_types.h"
#include "source/sqlite/sqlite_types.h"
#include "source/sqlite/sqlite_values.h"
#include "table/temporal.h"

namespace lakedump {
namespace {

struct Stored {
  std::string type;   // typeof()
  std::string quote;  // quote(): the bytes (hex for a BLOB, %!.15g is not enough for REAL)
  bool operator==(const Stored&) const = default;
};

class SqliteExactValuesTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(sqlite3_open(":memory:", &db_), SQLITE_OK); }
  void TearDown() override { sqlite3_close(db_); }

  void Exec(const std::string& sql) {
    char* err = nullptr;
    ASSERT_EQ(sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << sql << err;
  }

  // typeof and exact bytes (REAL: its 64 bits) of t.c.
  Stored Read(const std::string& table) {
    sqlite3_stmt* st = nullptr;
    const std::string sql = "SELECT typeof(c), CASE typeof(c) WHEN 'real' THEN printf('%!.17g', c) "
                            "ELSE quote(c) END FROM " + table;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr), SQLITE_OK);
    Stored out;
    if (sqlite3_step(st) == SQLITE_ROW) {
      out.type = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
      out.quote = reinterpret_cast<const char*>(sqlite3_column_text(st, 1));
    }
    sqlite3_finalize(st);
    return out;
  }

  // Inserts `literal` (SQL) into a column declared `declared`, dumps it as the source does,
  // loads it back as `load` does into a second such column, and checks the promise. Returns
  // whether the value came back as it was.
  bool RoundTrip(const std::string& declared, const std::string& literal) {
    Exec("DROP TABLE IF EXISTS s; DROP TABLE IF EXISTS u;");
    Exec("CREATE TABLE s (c " + declared + "); CREATE TABLE u (c " + declared + ");");
    Exec("INSERT INTO s VALUES (" + literal + ")");
    const LogicalType type = MapSqliteDeclaredType(declared).type;
    ColumnVector column(type, true);
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, "SELECT c FROM s", -1, &st, nullptr), SQLITE_OK);
    EXPECT_EQ(sqlite3_step(st), SQLITE_ROW);
    sqlite3_value* v = sqlite3_column_value(st, 0);
    std::string why;
    const bool may_drift = SqliteColumnMayDrift(declared, type, false);
    if (!DecodeSqliteValue(v, may_drift, &column, &why)) {
      sqlite3_finalize(st);
      ADD_FAILURE() << declared << " " << literal << ": " << why;
      return false;
    }
    const bool kept = !may_drift || SqliteValueRoundTrips(v, column);
    sqlite3_finalize(st);
    sqlite3_stmt* ins = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, "INSERT INTO u VALUES (?1)", -1, &ins, nullptr), SQLITE_OK);
    std::string scratch;
    EXPECT_EQ(BindSqliteValue(ins, 1, column, 0, SqliteAffinityOf(declared), &scratch), SQLITE_OK);
    EXPECT_EQ(sqlite3_step(ins), SQLITE_DONE);
    sqlite3_finalize(ins);
    const Stored before = Read("s"), after = Read("u");
    if (kept) {
      EXPECT_EQ(before, after) << declared << " " << literal << ": " << before.type << " "
                               << before.quote << " came back as " << after.type << " "
                               << after.quote << (may_drift ? "" : " (a column that cannot drift)");
    }
    return before == after;
  }

  sqlite3* db_ = nullptr;
};

TEST_F(SqliteExactValuesTest, ColumnsThatCannotDriftComeBackAsTheyWere) {
  for (const char* v : {"0", "-9223372036854775808", "9223372036854775807", "1.0", "'42'"}) {
    RoundTrip("INTEGER", v);
    RoundTrip("SMALLINT", "7");
  }
  for (const char* v : {"1.5", "0.1", "5e-324", "1.7976931348623157e308", "3", "-0.0", "1e300"}) {
    RoundTrip("DOUBLE PRECISION", v);
    RoundTrip("REAL", v);
  }
  // NUMERIC affinity: INTEGERs, REALs (the demo's cents), numeric text made a number.
  for (const char* v : {"12.34", "0.1", "100.0", "100", "-99999999.99", "'12.30'", "'7'",
                        "123456789012.25", "1e20", "9.3e18", "0.07", "2.67"}) {
    RoundTrip("NUMERIC(38,2)", v);
  }
  for (const char* v : {"12.34", "0.01", "99999999.99", "-0.5", "'3.10'"}) {
    RoundTrip("NUMERIC(10,2)", v);
    RoundTrip("DECIMAL(12,2)", v);
  }
  // The one TEXT a NUMERIC column keeps that a decimal could parse: "." is no decimal.
  EXPECT_FALSE(ParseDecimal(".", 10, 2).ok());
  EXPECT_FALSE(ParseDecimal("-.", 10, 2).ok());
  EXPECT_TRUE(ParseDecimal("5.", 10, 2).ok());
  for (const char* v : {"'2024-01-31'", "'0001-01-01'", "'9999-12-31'"}) RoundTrip("DATE", v);
  for (const char* v : {"'{\"a\": 1}'", "'[1, 2]'", "'\"x\"'", "'null'"}) RoundTrip("JSON", v);
  for (const char* v : {"'text'", "'5'", "5", "1.5", "''"}) RoundTrip("VARCHAR(8)", v);
}

TEST_F(SqliteExactValuesTest, CanonicalFormsComeBackAndTheOthersAreKept) {
  // Canonical: nothing recorded, and they do come back.
  EXPECT_TRUE(RoundTrip("TIMESTAMP", "'2024-01-31 10:00:00'"));
  EXPECT_TRUE(RoundTrip("DATETIME", "'2024-01-31 10:00:00.25'"));
  EXPECT_TRUE(RoundTrip("TIMESTAMPTZ", "'2024-01-31T10:00:00Z'"));
  EXPECT_TRUE(RoundTrip("TIMESTAMPTZ", "'1900-01-01T00:00:00.000001Z'"));
  EXPECT_TRUE(RoundTrip("TIME", "'08:15:00'"));
  EXPECT_TRUE(RoundTrip("TIME", "'08:15:00.5'"));
  EXPECT_TRUE(RoundTrip("UUID", "'0f0e0d0c-0b0a-4908-8706-050403020100'"));
  EXPECT_TRUE(RoundTrip("BOOLEAN", "1"));
  EXPECT_TRUE(RoundTrip("FLOAT4", "0.1"));
  EXPECT_TRUE(RoundTrip("FLOAT4", "12.125"));
  EXPECT_TRUE(RoundTrip("BLOB", "x'00ff'"));
  EXPECT_TRUE(RoundTrip("", "'text'"));
  // Other forms: RoundTrip has checked they are recorded (not kept) when they would drift.
  for (const char* v : {"'2024-01-31'", "'2024-01-31T10:00:00'", "'2024-01-31 10:00'",
                        "'2024-01-31 10:00:00.500'", "'2024-01-31 10:00:00+02:00'", "1704067200",
                        "'2024-01-31 10:00:00Z'"}) {
    EXPECT_FALSE(RoundTrip("DATETIME", v)) << v;
  }
  EXPECT_FALSE(RoundTrip("TIMESTAMPTZ", "'2024-01-31 10:00:00Z'"));
  EXPECT_FALSE(RoundTrip("TIMESTAMPTZ", "'2024-01-31t10:00:00z'"));
  EXPECT_FALSE(RoundTrip("TIME", "'08:15'"));
  EXPECT_FALSE(RoundTrip("TIME", "'08:15:00.50'"));
  EXPECT_FALSE(RoundTrip("UUID", "'{FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF}'"));
  EXPECT_FALSE(RoundTrip("UUID", "x'000102030405060708090a0b0c0d0e0f'"));
  EXPECT_FALSE(RoundTrip("BOOLEAN", "'true'"));
  EXPECT_FALSE(RoundTrip("FLOAT4", "0.123456789"));
  EXPECT_FALSE(RoundTrip("BLOB", "'text'"));
  EXPECT_FALSE(RoundTrip("", "5"));
  EXPECT_FALSE(RoundTrip("", "x'00'"));
}

}  // namespace
}  // namespace lakedump
