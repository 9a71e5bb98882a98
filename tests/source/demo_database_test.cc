#include "source/demo/demo_database.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <set>

#include "source/sqlite/sqlite_database.h"
#include "source/sqlite_test_util.h"

namespace lakedump {
namespace {

using testing_sqlite::ReadAll;
using testing_sqlite::TempDir;
using testing_sqlite::Writer;

// FNV-1a over every table's DDL and every value's type and text, in rowid order.
uint64_t Checksum(const std::string& path) {
  Writer w(path);
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](const void* p, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      h ^= static_cast<const uint8_t*>(p)[i];
      h *= 1099511628211ULL;
    }
  };
  std::vector<std::string> tables;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(w.db(), "SELECT name, sql FROM sqlite_schema ORDER BY name", -1, &st, nullptr);
  while (sqlite3_step(st) == SQLITE_ROW) {
    tables.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
    mix(sqlite3_column_text(st, 1), static_cast<size_t>(sqlite3_column_bytes(st, 1)));
  }
  sqlite3_finalize(st);
  for (const std::string& t : tables) {
    sqlite3_prepare_v2(w.db(), ("SELECT * FROM \"" + t + "\" ORDER BY rowid").c_str(), -1, &st,
                       nullptr);
    while (sqlite3_step(st) == SQLITE_ROW) {
      for (int c = 0; c < sqlite3_column_count(st); ++c) {
        const int type = sqlite3_column_type(st, c);
        mix(&type, sizeof(type));
        if (type == SQLITE_BLOB) {
          mix(sqlite3_column_blob(st, c), static_cast<size_t>(sqlite3_column_bytes(st, c)));
        } else if (type != SQLITE_NULL) {
          mix(sqlite3_column_text(st, c), static_cast<size_t>(sqlite3_column_bytes(st, c)));
        }
      }
    }
    sqlite3_finalize(st);
  }
  return h;
}

int64_t Count(const std::string& path, const std::string& table) {
  Writer w(path);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(w.db(), ("SELECT count(*) FROM " + table).c_str(), -1, &st, nullptr);
  int64_t n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  return n;
}

DemoOptions Small() {
  DemoOptions o;
  o.rows = 3000;
  o.small_tables = 3;
  o.big_rows = 2000;
  return o;
}

TEST(DemoDatabaseTest, CreatesVmartTablesWithRowCounts) {
  TempDir dir;
  const std::string path = dir.File("demo.db");
  ASSERT_TRUE(CreateDemoDatabase(path, Small()).ok());
  EXPECT_EQ(Count(path, "store_orders_fact"), 3000);
  EXPECT_EQ(Count(path, "date_dimension"), 1826);
  EXPECT_EQ(Count(path, "product_dimension"), 2001);
  EXPECT_EQ(Count(path, "store_dimension"), 250);
  EXPECT_EQ(Count(path, "vendor_dimension"), 100);
  EXPECT_EQ(Count(path, "employee_dimension"), 1003);
  EXPECT_EQ(Count(path, "shipping_dimension"), 100);
  EXPECT_EQ(Count(path, "customer_dimension"), 5002);
  EXPECT_EQ(Count(path, "small_table_0000"), 100);
  EXPECT_EQ(Count(path, "small_table_0002"), 100);
  EXPECT_EQ(Count(path, "big_table"), 2000);
  EXPECT_EQ(Count(path, "store_orders_fact WHERE date_delivered IS NULL") > 0, true);
  // About 5% NULLs in each nullable big_table column.
  const int64_t nulls = Count(path, "big_table WHERE s1 IS NULL");
  EXPECT_GT(nulls, 40);
  EXPECT_LT(nulls, 160);
}

TEST(DemoDatabaseTest, SameSeedSameData) {
  TempDir dir;
  DemoOptions o = Small();
  ASSERT_TRUE(CreateDemoDatabase(dir.File("a.db"), o).ok());
  ASSERT_TRUE(CreateDemoDatabase(dir.File("b.db"), o).ok());
  o.seed = 2;
  ASSERT_TRUE(CreateDemoDatabase(dir.File("c.db"), o).ok());
  EXPECT_EQ(Checksum(dir.File("a.db")), Checksum(dir.File("b.db")));
  EXPECT_NE(Checksum(dir.File("a.db")), Checksum(dir.File("c.db")));
}

TEST(DemoDatabaseTest, RefusesToOverwriteUnlessAsked) {
  TempDir dir;
  const std::string path = dir.File("demo.db");
  DemoOptions o = Small();
  o.big_rows = 0;
  ASSERT_TRUE(CreateDemoDatabase(path, o).ok());
  Status s = CreateDemoDatabase(path, o);
  EXPECT_EQ(s.code(), Code::kAlreadyExists);
  EXPECT_THAT(s.message(), ::testing::HasSubstr(path + " already exists"));
  EXPECT_THAT(s.message(), ::testing::HasSubstr("--overwrite"));
  o.overwrite = true;
  o.rows = 10;
  EXPECT_TRUE(CreateDemoDatabase(path, o).ok());
  EXPECT_EQ(Count(path, "store_orders_fact"), 10);
}

// Every table reads back through the strict SQLite source without a single
// mismatch, and together the mapped schemas use every lakedump type.
TEST(DemoDatabaseTest, ReadsBackStrictlyWithEveryType) {
  TempDir dir;
  const std::string path = dir.File("demo.db");
  ASSERT_TRUE(CreateDemoDatabase(path, Small()).ok());
  auto db = OpenSqliteDatabase(path, {});
  ASSERT_TRUE(db.ok());
  auto tables = (*db)->ListTables();
  ASSERT_TRUE(tables.ok());
  EXPECT_EQ(tables->size(), 12u);
  std::set<TypeId> seen;
  bool wide_decimal = false;
  for (const TableInfo& t : *tables) {
    auto def = (*db)->DescribeTable(t);
    ASSERT_TRUE(def.ok()) << def.status().ToString();
    for (const Column& c : def->schema.columns()) {
      seen.insert(c.type.id);
      if (c.type.id == TypeId::kDecimal && c.type.precision > 18) wide_decimal = true;
    }
    WorkUnit unit;
    unit.table = t;
    const auto rows = ReadAll(**db, unit, 4096);
    EXPECT_GT(rows.size(), 0u) << t.ref.name;
  }
  for (int id = 0; id <= static_cast<int>(TypeId::kJson); ++id) {
    EXPECT_TRUE(seen.count(static_cast<TypeId>(id)))
        << LogicalType::Of(static_cast<TypeId>(id)).ToString() << " is not in the demo";
  }
  EXPECT_TRUE(wide_decimal);
}

TEST(DemoDatabaseTest, EdgeRowsDecode) {
  TempDir dir;
  const std::string path = dir.File("demo.db");
  DemoOptions o;
  o.rows = 1;
  ASSERT_TRUE(CreateDemoDatabase(path, o).ok());
  auto db = OpenSqliteDatabase(path, {});
  ASSERT_TRUE(db.ok());
  TableInfo q;
  q.ref = {"query", "edge"};
  q.query =
      "SELECT customer_uuid, customer_since, last_login, annual_income, number_of_children "
      "FROM customer_dimension WHERE customer_key > 5000 ORDER BY customer_key";
  WorkUnit unit;
  unit.table = q;
  const auto rows = ReadAll(**db, unit);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_THAT(rows[0], ::testing::ElementsAre("ffffffff-ffff-4fff-bfff-ffffffffffff", "0001-01-01",
                                              "1900-01-01T00:00:00.000000",
                                              "9223372036854775807", "127"));
  EXPECT_THAT(rows[1], ::testing::ElementsAre("00000000-0000-0000-0000-000000000000", "NULL",
                                              "NULL", "-9223372036854775808", "-128"));
}

// Its speed is measured by bench/ (a unit test asserts no wall-clock duration): here, the
// default size is what it says.
TEST(DemoDatabaseTest, DefaultSizeHas300000Orders) {
  TempDir dir;
  const std::string path = dir.File("demo.db");
  ASSERT_TRUE(CreateDemoDatabase(path, DemoOptions{}).ok());
  auto db = OpenSqliteDatabase(path, {});
  ASSERT_TRUE(db.ok());
  TableInfo q;
  q.ref = {"query", "count"};
  q.query = "SELECT count(*) FROM store_orders_fact";
  WorkUnit unit;
  unit.table = q;
  const auto rows = ReadAll(**db, unit);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_THAT(rows[0], ::testing::ElementsAre("300000"));
}

}  // namespace
}  // namespace lakedump
