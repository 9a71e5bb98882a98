#include "load/sqlite/sqlite_target.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>

#include "load/open_target.h"
#include "load/sqlite/sqlite_load_types.h"
#include "source/sqlite/sqlite_database.h"
#include "source/sqlite/sqlite_values.h"
#include "source/sqlite_test_util.h"
#include "table/temporal.h"

namespace lakedump {
namespace {

using testing_sqlite::Query;
using testing_sqlite::ReadTable;
using testing_sqlite::TempDir;
using testing_sqlite::Writer;

TablePlan SimplePlan(const std::string& name, LoadIfExists if_exists = LoadIfExists::kFail) {
  TablePlan p;
  p.source = TableRef{"public", name};
  p.target = p.source;
  p.definition.schema = Schema({Column{"id", LogicalType::Of(TypeId::kInt64), false, "bigint"},
                                Column{"v", LogicalType::Of(TypeId::kString), true, "text"}});
  p.definition.primary_key = {"id"};
  p.source_kind = "postgresql";
  p.if_exists = if_exists;
  return p;
}

RowBatch SimpleRows(int64_t from, int64_t to) {
  RowBatch b(SimplePlan("x").definition.schema);
  for (int64_t i = from; i < to; ++i) {
    b.column(0).Append(i);
    b.column(1).AppendBytes("v" + std::to_string(i));
  }
  return b;
}

Status LoadSimple(TargetDatabase& target, const TablePlan& plan, int64_t from, int64_t to) {
  LD_RETURN_IF_ERROR(target.PrepareTable(plan));
  LD_ASSIGN_OR_RETURN(auto sink, target.OpenSink(plan));
  LD_RETURN_IF_ERROR(sink->Append(SimpleRows(from, to)));
  LD_ASSIGN_OR_RETURN(uint64_t rows, sink->Finish());
  if (rows != static_cast<uint64_t>(to - from)) return Status::Internal("row count");
  sink.reset();
  return target.CommitTable(plan);
}

TEST(SqliteTargetTest, EveryTypeReadsBackThroughTheSqliteSource) {
  TempDir tmp;
  const std::string path = tmp.File("all.sqlite");
  Schema schema({
      Column{"b", LogicalType::Of(TypeId::kBool)},
      Column{"i8", LogicalType::Of(TypeId::kInt8)},
      Column{"i16", LogicalType::Of(TypeId::kInt16)},
      Column{"i32", LogicalType::Of(TypeId::kInt32)},
      Column{"i64", LogicalType::Of(TypeId::kInt64)},
      Column{"f", LogicalType::Of(TypeId::kFloat)},
      Column{"d", LogicalType::Of(TypeId::kDouble)},
      Column{"dec", LogicalType::Decimal(12, 3)},
      Column{"s", LogicalType::Of(TypeId::kString)},
      Column{"bin", LogicalType::Of(TypeId::kBinary)},
      Column{"dt", LogicalType::Of(TypeId::kDate)},
      Column{"t", LogicalType::Of(TypeId::kTime)},
      Column{"ts", LogicalType::Of(TypeId::kTimestamp)},
      Column{"tz", LogicalType::Of(TypeId::kTimestampTz)},
      Column{"u", LogicalType::Of(TypeId::kUuid)},
      Column{"j", LogicalType::Of(TypeId::kJson)},
  });
  RowBatch batch(schema);
  auto row = [&](bool b, int8_t i8, int16_t i16, int32_t i32, int64_t i64, float f, double d,
                 int128_t dec, std::string s, std::string bin, int32_t dt, int64_t t, int64_t ts,
                 int64_t tz, uint8_t ubyte, std::string j) {
    batch.column(0).Append(static_cast<uint8_t>(b));
    batch.column(1).Append(i8);
    batch.column(2).Append(i16);
    batch.column(3).Append(i32);
    batch.column(4).Append(i64);
    batch.column(5).Append(f);
    batch.column(6).Append(d);
    batch.column(7).Append(dec);
    batch.column(8).AppendBytes(s);
    batch.column(9).AppendBytes(bin);
    batch.column(10).Append(dt);
    batch.column(11).Append(t);
    batch.column(12).Append(ts);
    batch.column(13).Append(tz);
    Uuid u;
    for (int k = 0; k < 16; ++k) u.bytes[k] = static_cast<uint8_t>(ubyte + k);
    batch.column(14).Append(u);
    batch.column(15).AppendBytes(j);
  };
  row(true, -128, -32768, std::numeric_limits<int32_t>::min(), std::numeric_limits<int64_t>::min(),
      0.1f, -1.7976931348623157e308, -static_cast<int128_t>(999999999999LL), "héllo ✓ 日本",
      std::string("\0\x01\xff", 3), -719162 /* 0001-01-01 */, 0, -62135596800000000LL, 1, 0,
      R"({"a": [1, 2]})");
  row(false, 127, 32767, std::numeric_limits<int32_t>::max(), std::numeric_limits<int64_t>::max(),
      std::numeric_limits<float>::max(), std::numeric_limits<double>::denorm_min(), 1, "", "",
      2932896 /* 9999-12-31 */, 86399999999, 253402300799999999LL, 1700000000123456LL, 0xf0, "[]");
  row(true, 0, 0, 0, 0, 1.5f, std::numeric_limits<double>::infinity(), 500, "'quoted' \"x\"",
      std::string(100000, 'z'), 19000, 45296000001, 1700000000000000LL, -1, 0x80, "{}");
  for (size_t c = 0; c < schema.num_columns(); ++c) batch.column(c).AppendNull();

  auto target = OpenTargetDatabase(path, {});
  ASSERT_TRUE(target.ok()) << target.status().ToString();
  TablePlan plan;
  plan.source = plan.target = TableRef{"public", "all types"};
  plan.definition.schema = schema;
  plan.source_kind = "postgresql";
  ASSERT_TRUE((*target)->PrepareTable(plan).ok());
  auto sink = (*target)->OpenSink(plan);
  ASSERT_TRUE(sink.ok()) << sink.status().ToString();
  ASSERT_TRUE((*sink)->Append(batch).ok());
  ASSERT_EQ(*(*sink)->Finish(), 4u);
  sink->reset();
  ASSERT_TRUE((*target)->CommitTable(plan).ok());
  target->reset();

  auto db = OpenSqliteDatabase(path, {});
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  TableInfo info;
  info.ref = TableRef{"main", "all types"};
  auto def = (*db)->DescribeTable(info);
  ASSERT_TRUE(def.ok()) << def.status().ToString();
  // Its DATE, BOOLEAN... columns could hold values their typed form does not give back, but
  // `load` wrote every value in the form it writes back: no exact SQLite values column.
  EXPECT_FALSE(TakeSqliteValuesColumn(&def->schema));
  ASSERT_EQ(def->schema.num_columns(), schema.num_columns());
  for (size_t c = 0; c < schema.num_columns(); ++c) {
    EXPECT_EQ(def->schema.column(c).type, schema.column(c).type)
        << schema.column(c).name << " declared " << def->schema.column(c).source_type;
  }
  const auto rows = ReadTable(**db, "all types");
  ASSERT_EQ(rows.size(), 4u);
  for (size_t r = 0; r < 4; ++r) {
    for (size_t c = 0; c < schema.num_columns(); ++c) {
      EXPECT_EQ(rows[r][c], testing_sqlite::Render(batch.column(c), r))
          << "row " << r << " column " << schema.column(c).name;
    }
  }
  // The text forms SQLite users see.
  EXPECT_EQ(Query(path, "SELECT f, dt, t, ts, tz, u FROM \"all types\" WHERE rowid = 1"),
            std::vector<std::string>{"0.1|0001-01-01|00:00:00|0001-01-01 00:00:00|"
                                     "1970-01-01T00:00:00.000001Z|00010203-0405-0607-0809-"
                                     "0a0b0c0d0e0f"});
  EXPECT_EQ(Query(path,
                  "SELECT typeof(bin), length(bin), typeof(s) FROM \"all types\" WHERE "
                  "rowid = 2"),
            std::vector<std::string>{"blob|0|text"});
}

TEST(SqliteTargetTest, WideDecimalsStayExactText) {
  TempDir tmp;
  const std::string path = tmp.File("dec.sqlite");
  TablePlan plan;
  plan.source = plan.target = TableRef{"public", "money"};
  plan.definition.schema = Schema({Column{"m", LogicalType::Decimal(38, 2)}});
  plan.source_kind = "postgresql";
  RowBatch b(plan.definition.schema);
  b.column(0).Append(static_cast<int128_t>(1234567890123456789LL) * 1000 + 12);
  auto target = OpenSqliteTarget(path, {});
  ASSERT_TRUE(target.ok());
  ASSERT_TRUE((*target)->PrepareTable(plan).ok());
  auto sink = (*target)->OpenSink(plan);
  ASSERT_TRUE((*sink)->Append(b).ok());
  ASSERT_TRUE((*sink)->Finish().ok());
  sink->reset();
  ASSERT_TRUE((*target)->CommitTable(plan).ok());
  target->reset();
  EXPECT_EQ(Query(path, "SELECT m, typeof(m) FROM money"),
            std::vector<std::string>{"12345678901234567890.12|text"});
}

TEST(SqliteTargetTest, WholeDecimalsInNumericColumnsStayExactIntegers) {
  TempDir tmp;
  const std::string path = tmp.File("whole.sqlite");
  TablePlan plan;
  plan.source = plan.target = TableRef{"main", "n"};
  // SQLite NUMERIC without precision dumps as decimal(38,10); (38,2) from elsewhere is TEXT.
  plan.definition.schema = Schema({Column{"a", LogicalType::Decimal(38, 10), true, "NUMERIC"},
                                   Column{"b", LogicalType::Decimal(38, 2), true, "TEXT"}});
  plan.source_kind = "sqlite";
  RowBatch batch(plan.definition.schema);
  batch.column(0).Append(static_cast<int128_t>(12345678901234567LL) * Pow10(10));
  batch.column(1).Append(static_cast<int128_t>(12300));
  batch.column(0).Append(static_cast<int128_t>(125) * Pow10(8));
  batch.column(1).Append(static_cast<int128_t>(-5));
  auto target = OpenSqliteTarget(path, {});
  ASSERT_TRUE(target.ok());
  ASSERT_TRUE((*target)->PrepareTable(plan).ok());
  auto sink = (*target)->OpenSink(plan);
  ASSERT_TRUE((*sink)->Append(batch).ok());
  ASSERT_TRUE((*sink)->Finish().ok());
  sink->reset();
  ASSERT_TRUE((*target)->CommitTable(plan).ok());
  target->reset();
  EXPECT_EQ(Query(path, "SELECT a, typeof(a), b, typeof(b) FROM n ORDER BY rowid"),
            (std::vector<std::string>{"12345678901234567|integer|123.00|text",
                                      "1.25|real|-0.05|text"}));
}

TEST(SqliteTargetTest, ReusesTheSqliteSourcesDdl) {
  TempDir tmp;
  const std::string path = tmp.File("ddl.sqlite");
  TablePlan plan;
  plan.source = plan.target = TableRef{"main", "orders"};
  plan.definition.schema =
      Schema({Column{"id", LogicalType::Of(TypeId::kInt64), true, "INTEGER"},
              Column{"amount", LogicalType::Decimal(10, 2), false, "NUMERIC(10,2)"},
              Column{"note", LogicalType::Of(TypeId::kString), true, ""}});
  plan.definition.ddl =
      "CREATE TABLE IF NOT EXISTS \"orders\" (id INTEGER "
      "PRIMARY KEY, amount NUMERIC(10,2) "
      "NOT NULL CHECK (amount >= 0), note)";
  plan.definition.primary_key = {"id"};
  plan.source_kind = "sqlite";
  plan.trust_schema = true;  // the recorded DDL is applied to a trusted dump only
  RowBatch b(plan.definition.schema);
  b.column(0).Append(int64_t{7});
  b.column(1).Append(static_cast<int128_t>(1230));
  b.column(2).AppendBytes("n");
  auto target = OpenSqliteTarget(path, {});
  ASSERT_TRUE(target.ok());
  ASSERT_TRUE((*target)->PrepareTable(plan).ok());
  auto sink = (*target)->OpenSink(plan);
  ASSERT_TRUE((*sink)->Append(b).ok());
  ASSERT_TRUE((*sink)->Finish().ok());
  sink->reset();
  ASSERT_TRUE((*target)->CommitTable(plan).ok());
  target->reset();
  const auto sql = Query(path, "SELECT sql FROM sqlite_schema WHERE name = 'orders'");
  ASSERT_EQ(sql.size(), 1u);
  EXPECT_NE(sql[0].find("CHECK (amount >= 0)"), std::string::npos) << sql[0];
  EXPECT_NE(sql[0].find("orders"), std::string::npos) << sql[0];
  EXPECT_EQ(Query(path, "SELECT rowid, amount, typeof(amount), note FROM orders"),
            std::vector<std::string>{"7|12.3|real|n"});
  EXPECT_TRUE(Query(path, "SELECT name FROM sqlite_schema WHERE name LIKE '_lakedump%'").empty());
}

TEST(SqliteTargetTest, ExistingTableFailsAndIsKept) {
  TempDir tmp;
  const std::string path = tmp.File("exists.sqlite");
  Writer(path).Exec("CREATE TABLE t (x); INSERT INTO t VALUES (1)");
  auto target = OpenSqliteTarget(path, {});
  ASSERT_TRUE(target.ok());
  const TablePlan plan = SimplePlan("t");
  Status s = (*target)->PrepareTable(plan);
  EXPECT_EQ(s.code(), Code::kAlreadyExists) << s.ToString();
  EXPECT_NE(s.message().find("--if-exists"), std::string::npos);
  EXPECT_TRUE((*target)->AbortTable(plan).ok());
  target->reset();
  EXPECT_EQ(Query(path, "SELECT x FROM t"), std::vector<std::string>{"1"});
}

TEST(SqliteTargetTest, ReplaceAndAppend) {
  TempDir tmp;
  const std::string path = tmp.File("ra.sqlite");
  {
    auto target = OpenSqliteTarget(path, {});
    ASSERT_TRUE(target.ok());
    ASSERT_TRUE(LoadSimple(**target, SimplePlan("t"), 0, 10).ok());
  }
  {
    auto target = OpenSqliteTarget(path, {});
    ASSERT_TRUE(LoadSimple(**target, SimplePlan("t", LoadIfExists::kReplace), 100, 103).ok());
  }
  EXPECT_EQ(Query(path, "SELECT count(*), min(id) FROM t"), std::vector<std::string>{"3|100"});
  {
    auto target = OpenSqliteTarget(path, {});
    ASSERT_TRUE(LoadSimple(**target, SimplePlan("t", LoadIfExists::kAppend), 0, 5).ok());
  }
  EXPECT_EQ(Query(path, "SELECT count(*), min(id) FROM t"), std::vector<std::string>{"8|0"});
  {
    // Appending rows that break the primary key fails and changes nothing.
    auto target = OpenSqliteTarget(path, {});
    const TablePlan plan = SimplePlan("t", LoadIfExists::kAppend);
    Status s = LoadSimple(**target, plan, 4, 6);
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find("UNIQUE"), std::string::npos) << s.ToString();
    EXPECT_TRUE((*target)->AbortTable(plan).ok());
  }
  EXPECT_EQ(Query(path, "SELECT count(*) FROM t"), std::vector<std::string>{"8"});
  EXPECT_EQ(Query(path, "SELECT count(*) FROM sqlite_schema WHERE name LIKE '_lakedump%'"),
            std::vector<std::string>{"0"});
}

TEST(SqliteTargetTest, AbortLeavesNothingAndAStaleStagingTableIsDropped) {
  TempDir tmp;
  const std::string path = tmp.File("abort.sqlite");
  Writer(path).Exec("CREATE TABLE _lakedump_load_t (junk)");  // left by a killed run
  auto target = OpenSqliteTarget(path, {});
  ASSERT_TRUE(target.ok());
  const TablePlan plan = SimplePlan("t");
  ASSERT_TRUE((*target)->PrepareTable(plan).ok());
  auto sink = (*target)->OpenSink(plan);
  ASSERT_TRUE(sink.ok());
  ASSERT_TRUE((*sink)->Append(SimpleRows(0, 1000)).ok());
  EXPECT_EQ(Query(path, "SELECT count(*) FROM _lakedump_load_t"), std::vector<std::string>{"1000"});
  sink->reset();  // no Finish
  ASSERT_TRUE((*target)->AbortTable(plan).ok());
  target->reset();
  EXPECT_TRUE(Query(path, "SELECT name FROM sqlite_schema").empty());
}

TEST(SqliteTargetTest, SameNameTwiceInOneRunIsRefused) {
  TempDir tmp;
  auto target = OpenSqliteTarget(tmp.File("twice.sqlite"), {});
  ASSERT_TRUE(target.ok());
  TablePlan a = SimplePlan("t");
  TablePlan b = SimplePlan("T");
  b.source.schema = b.target.schema = "other";
  ASSERT_TRUE((*target)->PrepareTable(a).ok());
  Status s = (*target)->PrepareTable(b);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  // b's abort must not remove a's staging table.
  EXPECT_TRUE((*target)->AbortTable(b).ok());
  auto sink = (*target)->OpenSink(a);
  ASSERT_TRUE(sink.ok()) << sink.status().ToString();
  ASSERT_TRUE((*sink)->Append(SimpleRows(0, 3)).ok());
  sink->reset();
  EXPECT_TRUE((*target)->CommitTable(a).ok());
}

TEST(SqliteTargetTest, NotADatabase) {
  TempDir tmp;
  const std::string path = tmp.File("text.db");
  { std::ofstream(path) << "this is not a database file, just some text that is long enough"; }
  auto target = OpenSqliteTarget(path, {});
  ASSERT_FALSE(target.ok());
  EXPECT_EQ(target.status().code(), Code::kInvalidArgument) << target.status().ToString();
  EXPECT_NE(target.status().message().find("not a SQLite database"), std::string::npos);
}

TEST(OpenTargetTest, Kinds) {
  TempDir tmp;
  EXPECT_TRUE(OpenTargetDatabase("sqlite://" + tmp.File("a.anything"), {}).ok());
  EXPECT_TRUE(OpenTargetDatabase(tmp.File("b.db"), {}).ok());
  // PostgreSQL URLs open PostgresTarget, which connects: tested in tests/integration.
  EXPECT_TRUE(IsPostgresUrl("postgres://u:secret@h/db"));
  EXPECT_TRUE(IsPostgresUrl("host=h dbname=db"));
  auto r = OpenTargetDatabase("mysql://u:secret@h/db", {});
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(r.status().message().find("secret"), std::string::npos) << r.status().ToString();
  EXPECT_EQ(OpenTargetDatabase(tmp.File("noext"), {}).status().code(), Code::kInvalidArgument);
}

TEST(SqliteLoadTypesTest, RenameTableInDdl) {
  EXPECT_EQ(*RenameTableInDdl("CREATE TABLE t(a)", "s"), "CREATE TABLE s(a)");
  EXPECT_EQ(*RenameTableInDdl("create table if not exists main.\"a(b\" ( x int )", "s"),
            "create table if not exists \"s\" ( x int )");
  EXPECT_EQ(*RenameTableInDdl("CREATE TABLE [odd name] (x) WITHOUT ROWID", "n"),
            "CREATE TABLE \"n\" (x) WITHOUT ROWID");
  EXPECT_EQ(*RenameTableInDdl("CREATE TABLE \"q\"\"x\"(x)", "n"), "CREATE TABLE \"n\"(x)");
  EXPECT_EQ(*RenameTableInDdl("CREATE TABLE t (x)", "a b"), "CREATE TABLE \"a b\" (x)");
  EXPECT_FALSE(RenameTableInDdl("CREATE TEMP TABLE t(a)", "n").has_value());
  EXPECT_FALSE(RenameTableInDdl("CREATE TABLE t AS SELECT 1", "n").has_value());
  EXPECT_FALSE(RenameTableInDdl("CREATE VIEW v AS SELECT 1", "n").has_value());
  EXPECT_FALSE(RenameTableInDdl("", "n").has_value());
}

TEST(SqliteLoadTypesTest, TextForms) {
  EXPECT_EQ(SqliteTimestampText(0, false), "1970-01-01 00:00:00");
  EXPECT_EQ(SqliteTimestampText(-1, true), "1969-12-31T23:59:59.999999Z");
  EXPECT_EQ(SqliteTimestampText(1500000, false), "1970-01-01 00:00:01.5");
  // PostgreSQL's last 30 years are escaped in a dump (table/temporal.h): written as the time
  // they stand for, as PostgreSQL prints them (years past 9999 with a '+', as dates are), not
  // as the date about 292,000 years BC their int64 would be.
  EXPECT_EQ(SqliteTimestampText(EscapeOfPgMicros(kPgTimestampEnd - 1), false),
            "+294276-12-31 23:59:59.999999");
  EXPECT_EQ(SqliteTimestampText(EscapeOfPgMicros(kPgTimestampEscapeFrom), true),
            "+294247-01-10T04:00:54.775807Z");
  EXPECT_EQ(SqliteTimeText(3723000000), "01:02:03");
  EXPECT_EQ(SqliteTimeText(3723000100), "01:02:03.0001");
  EXPECT_EQ(SqliteDeclaredType(LogicalType::Decimal(10, 2)), "DECIMAL(10,2)");
  EXPECT_EQ(SqliteDeclaredType(LogicalType::Decimal(20, 2)), "TEXT");
  Column c{"x", LogicalType::Of(TypeId::kString), true, "VARCHAR(32)"};
  EXPECT_EQ(SqliteColumnType(c, true), "VARCHAR(32)");
  EXPECT_EQ(SqliteColumnType(c, false), "TEXT");
  c.source_type = "INTEGER";  // lax mode turned an INTEGER column into string
  EXPECT_EQ(SqliteColumnType(c, true), "TEXT");
}

}  // namespace
}  // namespace lakedump

namespace lakedump {
namespace {

// A SQLite dump's exact values replace the typed ones (an INTEGER in an untyped column stays
// an INTEGER); a malformed cell, as a forged dump could hold, is refused naming the row, and
// nothing of the table stays.
TEST(SqliteTargetTest, ExactValuesComeBackAndAMalformedCellIsRefused) {
  TempDir tmp;
  const std::string path = tmp.File("exact.sqlite");
  auto target = OpenSqliteTarget(path, {});
  ASSERT_TRUE(target.ok()) << target.status().ToString();
  TablePlan plan;
  plan.source = TableRef{"main", "mixed"};
  plan.target = plan.source;
  plan.source_kind = "sqlite";
  plan.sqlite_values = true;
  plan.definition.schema = Schema({Column{"v", LogicalType::Of(TypeId::kString), true, ""}});
  Schema with_values = plan.definition.schema;
  ASSERT_TRUE(AddSqliteValuesColumn(&with_values).ok());
  auto load = [&](const std::string& cell) {
    RowBatch batch(with_values);
    batch.column(0).AppendBytes("5");
    batch.column(1).AppendBytes(cell);
    batch.column(0).AppendBytes("text");
    batch.column(1).AppendNull();
    LD_RETURN_IF_ERROR((*target)->PrepareTable(plan));
    LD_ASSIGN_OR_RETURN(auto sink, (*target)->OpenSink(plan));
    Status s = sink->Append(batch);
    sink.reset();
    if (!s.ok()) {
      (void)(*target)->AbortTable(plan);
      return s;
    }
    return (*target)->CommitTable(plan);
  };
  // Column 0, INTEGER 5.
  const std::string integer5 = std::string("\x00\x01\x05", 3) + std::string(7, '\0');
  Status bad = load(std::string("\x01\x01", 2) + std::string(8, '\0'));
  EXPECT_EQ(bad.code(), Code::kInvalidArgument) << bad.ToString();
  EXPECT_NE(bad.message().find("row 1: its _lakedump_sqlite_values cell is malformed: column "
                               "index 1 of 1 columns"),
            std::string::npos)
      << bad.ToString();
  EXPECT_TRUE(Query(path, "SELECT name FROM sqlite_schema WHERE name LIKE '%mixed%'").empty());
  ASSERT_TRUE(load(integer5).ok());
  target->reset();
  EXPECT_EQ(Query(path, "SELECT typeof(v) || ':' || v FROM mixed"),
            (std::vector<std::string>{"integer:5", "text:text"}));
}

}  // namespace
}  // namespace lakedump
