// The exact-values column of SQLite dumps (source/sqlite/sqlite_values.h): which columns need
// it, the cell's encoding read back, and cells a hostile dump could hold refused in one line.
#include "source/sqlite/sqlite_values.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

namespace lakedump {
namespace {

TEST(SqliteValuesTest, OnlyColumnsWhoseAffinityDoesNotKeepTheirValuesDrift) {
  const bool strict = false, lax = true;
  EXPECT_FALSE(SqliteColumnMayDrift("INTEGER", LogicalType::Of(TypeId::kInt64), strict));
  EXPECT_FALSE(SqliteColumnMayDrift("VARCHAR(10)", LogicalType::Of(TypeId::kString), strict));
  EXPECT_FALSE(SqliteColumnMayDrift("DOUBLE", LogicalType::Of(TypeId::kDouble), strict));
  EXPECT_FALSE(SqliteColumnMayDrift("NUMERIC(10,2)", LogicalType::Decimal(10, 2), strict));
  EXPECT_FALSE(SqliteColumnMayDrift("DATE", LogicalType::Of(TypeId::kDate), strict));
  EXPECT_FALSE(SqliteColumnMayDrift("JSON", LogicalType::Of(TypeId::kJson), strict));
  EXPECT_TRUE(SqliteColumnMayDrift("", LogicalType::Of(TypeId::kString), strict));
  EXPECT_TRUE(SqliteColumnMayDrift("ANY", LogicalType::Of(TypeId::kString), strict));
  EXPECT_TRUE(SqliteColumnMayDrift("DATETIME", LogicalType::Of(TypeId::kTimestamp), strict));
  EXPECT_TRUE(SqliteColumnMayDrift("BOOLEAN", LogicalType::Of(TypeId::kBool), strict));
  EXPECT_TRUE(SqliteColumnMayDrift("UUID", LogicalType::Of(TypeId::kUuid), strict));
  EXPECT_TRUE(SqliteColumnMayDrift("BLOB", LogicalType::Of(TypeId::kBinary), strict));
  EXPECT_TRUE(SqliteColumnMayDrift("FLOAT4", LogicalType::Of(TypeId::kFloat), strict));
  // --sqlite-type-mismatch string: BLOBs in text columns are read as \x-hex text.
  EXPECT_TRUE(SqliteColumnMayDrift("VARCHAR(10)", LogicalType::Of(TypeId::kString), lax));
  // ... and made an INTEGER column text: its integers must stay integers.
  EXPECT_TRUE(SqliteColumnMayDrift("INTEGER", LogicalType::Of(TypeId::kString), strict));

  Schema mixed({Column{"a", LogicalType::Of(TypeId::kInt64), true, "INTEGER"},
                Column{"b", LogicalType::Of(TypeId::kString), true, ""}});
  ASSERT_TRUE(AddSqliteValuesColumn(&mixed).ok());
  ASSERT_EQ(mixed.num_columns(), 3u);
  EXPECT_TRUE(IsSqliteValuesColumn(mixed.column(2)));
  EXPECT_TRUE(TakeSqliteValuesColumn(&mixed));
  EXPECT_EQ(mixed.num_columns(), 2u);
  EXPECT_FALSE(TakeSqliteValuesColumn(&mixed));

  Schema clash({Column{"_lakedump_sqlite_values", LogicalType::Of(TypeId::kString), true, ""}});
  Status s = AddSqliteValuesColumn(&clash);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("rename it"), std::string::npos) << s.ToString();
}

// Cells made from real sqlite3_values read back as the same values.
TEST(SqliteValuesTest, ACellReadsBackAsTheValuesItWasMadeFrom) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT -9223372036854775808, 2.5, 'tëxt', x'00ff', ''",
                               -1, &st, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  std::string cell;
  for (int i = 0; i < 5; ++i) AppendSqliteValue(static_cast<size_t>(i * 200), sqlite3_column_value(st, i), &cell);
  std::vector<SqliteExactValue> values;
  ASSERT_TRUE(ParseSqliteValues(cell, 1000, &values).ok());
  ASSERT_EQ(values.size(), 5u);
  EXPECT_EQ(values[0].storage_class, SQLITE_INTEGER);
  EXPECT_EQ(values[0].integer, INT64_MIN);
  EXPECT_EQ(values[1].storage_class, SQLITE_FLOAT);
  EXPECT_EQ(values[1].real, 2.5);
  EXPECT_EQ(values[2].storage_class, SQLITE_TEXT);
  EXPECT_EQ(values[2].bytes, "tëxt");
  EXPECT_EQ(values[3].storage_class, SQLITE_BLOB);
  EXPECT_EQ(values[3].bytes, std::string("\0\xff", 2));
  EXPECT_EQ(values[4].bytes, "");
  EXPECT_EQ(values[4].column, 800u);
  sqlite3_finalize(st);
  sqlite3_close(db);
}

TEST(SqliteValuesTest, AMalformedCellIsRefusedNamingWhatIsWrong) {
  std::vector<SqliteExactValue> values;
  auto refused = [&](const std::string& cell, size_t columns, const std::string& why) {
    Status s = ParseSqliteValues(cell, columns, &values);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << why;
    EXPECT_NE(s.message().find(why), std::string::npos) << s.ToString();
  };
  refused(std::string("\x05\x01", 2) + std::string(8, '\0'), 3, "column index 5 of 3 columns");
  refused(std::string("\x00\x03\x01" "a" "\x00\x03\x01" "b", 8), 3, "not increasing");
  refused(std::string("\x00\x07", 2), 3, "storage class 7");
  refused(std::string("\x00\x01\x01\x02", 4), 3, "truncated number");
  refused(std::string("\x00\x03\x7f" "abc", 6), 3, "truncated value");
  refused(std::string("\x00\x03\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12), 3, "truncated value");
  refused(std::string("\x00", 1), 3, "missing storage class");
  refused(std::string("\x80", 1), 3, "truncated column index");
  EXPECT_TRUE(ParseSqliteValues("", 3, &values).ok());
  EXPECT_TRUE(values.empty());
}

}  // namespace
}  // namespace lakedump
