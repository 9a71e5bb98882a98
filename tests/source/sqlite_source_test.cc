#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "source/sqlite/sqlite_values.h"
#include "source/sqlite/sqlite_database.h"
#include "source/sqlite/sqlite_types.h"
#include "fakes/sync.h"
#include "source/sqlite_test_util.h"

namespace lakedump {
namespace {

using testing_sqlite::ReadAll;
using testing_sqlite::ReadTable;
using testing_sqlite::TempDir;
using testing_sqlite::Writer;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Rows = std::vector<std::vector<std::string>>;

std::unique_ptr<Database> MustOpen(const std::string& path, SqliteOptions options = {}) {
  auto db = OpenSqliteDatabase(path, options);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  return db.ok() ? std::move(*db) : nullptr;
}

TEST(SqliteTypeMappingTest, DeclaredTypes) {
  struct Case {
    const char* declared;
    const char* type;
    bool exact;
  };
  const Case cases[] = {
      {"INTEGER", "int64", true},
      {"int", "int64", true},
      {"BIGINT", "int64", true},
      {"INT8", "int64", true},
      {"UNSIGNED BIG INT", "int64", true},
      {"MEDIUMINT", "int32", true},
      {"INT4", "int32", true},
      {"SMALLINT", "int16", true},
      {"INT2", "int16", true},
      {"TINYINT", "int8", true},
      {"BOOLEAN", "bool", true},
      {"bool", "bool", true},
      {"REAL", "double", true},
      {"DOUBLE", "double", true},
      {"double  precision", "double", true},
      {"FLOAT", "double", true},
      {"FLOAT8", "double", true},
      {"FLOAT4", "float", true},
      {"NUMERIC(12,2)", "decimal(12,2)", true},
      {"decimal( 38 , 0 )", "decimal(38,0)", true},
      {"NUMERIC(7)", "decimal(7,0)", true},
      {"NUMERIC", "decimal(38,10)", true},
      {"DECIMAL", "decimal(38,10)", true},
      {"NUMERIC(50,2)", "string", false},
      {"NUMERIC(5,7)", "string", false},
      {"TEXT", "string", true},
      {"VARCHAR(32)", "string", true},
      {"CHARACTER VARYING(10)", "string", true},
      {"NCHAR(55)", "string", true},
      {"CLOB", "string", true},
      {"BLOB", "binary", true},
      {"BYTEA", "binary", true},
      {"DATE", "date", true},
      {"TIME", "time", true},
      {"DATETIME", "timestamp", true},
      {"TIMESTAMP", "timestamp", true},
      {"timestamp without time zone", "timestamp", true},
      {"TIMESTAMPTZ", "timestamptz", true},
      {"TIMESTAMP WITH TIME ZONE", "timestamptz", true},
      {"UUID", "uuid", true},
      {"JSON", "json", true},
      {"JSONB", "json", true},
      {"", "string", false},
      {"BIGSERIAL", "string", false},  // no "INT" in it: NUMERIC affinity
      {"POINTER_INT", "int64", false},
      {"INT UNSIGNED", "int64", false},
      {"VARCHAR2(10)", "string", false},
      {"LONGBLOB", "binary", false},
      {"FLOATING POINT", "int64", false},  // SQLite's rules: "INT" wins
      {"FLOATY", "double", false},
      {"MONEY", "string", false},
  };
  for (const Case& c : cases) {
    const SqliteTypeMapping m = MapSqliteDeclaredType(c.declared);
    EXPECT_EQ(m.type.ToString(), c.type) << c.declared;
    EXPECT_EQ(m.exact, c.exact) << c.declared;
  }
}

TEST(SqliteUrlTest, Forms) {
  EXPECT_EQ(SqlitePathFromUrl("sqlite:///abs/x.db"), "/abs/x.db");
  EXPECT_EQ(SqlitePathFromUrl("sqlite://rel/x.db"), "rel/x.db");
  EXPECT_EQ(SqlitePathFromUrl("sqlite:rel.db"), "rel.db");
  EXPECT_EQ(SqlitePathFromUrl("/plain/file?mode=ro"), "/plain/file?mode=ro");
}

TEST(SqliteDatabaseTest, MissingFile) {
  TempDir dir;
  const std::string path = dir.File("nope.db");
  auto db = OpenSqliteDatabase(path, {});
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), Code::kNotFound);
  EXPECT_EQ(db.status().message(), "no such database file: " + path);
  auto url = OpenSqliteDatabase("sqlite://" + path, {});
  EXPECT_EQ(url.status().code(), Code::kNotFound);
}

TEST(SqliteDatabaseTest, NotASqliteFile) {
  TempDir dir;
  const std::string path = dir.File("text.db");
  std::ofstream(path) << "this is certainly not a SQLite database, just some text padding it out\n";
  auto db = OpenSqliteDatabase(path, {});
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(db.status().message(), path + " is not a SQLite database");
}

TEST(SqliteDatabaseTest, OddFileNameIsNotParsedAsUri) {
  TempDir dir;
  const std::string path = dir.File("we ird?mode=memory#x.db");
  { Writer w(path); w.Exec("CREATE TABLE t(a INTEGER); INSERT INTO t VALUES (7);"); }
  auto db = MustOpen("sqlite://" + path);
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(ReadTable(*db, "t"), (Rows{{"7"}}));
}

TEST(SqliteDatabaseTest, ListsTablesNotViewsWithEstimates) {
  TempDir dir;
  const std::string path = dir.File("list.db");
  {
    Writer w(path);
    w.Exec("CREATE TABLE small(a INTEGER); INSERT INTO small VALUES (1);"
           "CREATE TABLE big(a INTEGER, b TEXT);"
           "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<5000) "
           "INSERT INTO big SELECT i, printf('%050d', i) FROM n;"
           "CREATE TABLE nr(k TEXT PRIMARY KEY, v INT) WITHOUT ROWID;"
           "CREATE INDEX big_a ON big(a);"
           "CREATE VIEW v AS SELECT * FROM big;");
  }
  auto db = MustOpen(path);
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->BeginSnapshot().ok());
  auto tables = db->ListTables();
  ASSERT_TRUE(tables.ok()) << tables.status().ToString();
  std::vector<std::string> names;
  for (const auto& t : *tables) {
    EXPECT_EQ(t.ref.schema, "main");
    names.push_back(t.ref.name);
  }
  EXPECT_THAT(names, ElementsAre("big", "nr", "small"));
  EXPECT_GE((*tables)[0].estimated_rows, 5000u);
  EXPECT_LE((*tables)[0].estimated_rows, 5500u);
  EXPECT_GT((*tables)[0].estimated_bytes, 5000u * 50);
  EXPECT_GT((*tables)[0].estimated_bytes, (*tables)[2].estimated_bytes);
  EXPECT_EQ(db->Describe()["kind"], "sqlite");
}

TEST(SqliteDatabaseTest, VirtualTablesWithoutTheirShadowTables) {
  TempDir dir;
  const std::string path = dir.File("vt.db");
  {
    Writer w(path);
    w.Exec("CREATE VIRTUAL TABLE docs USING fts5(title, body);"
           "INSERT INTO docs VALUES ('a', 'hello world'), ('b', 'ünïcode');"
           "CREATE TABLE plain(x INTEGER); INSERT INTO plain VALUES (1);");
  }
  auto db = MustOpen(path);
  ASSERT_NE(db, nullptr);
  auto tables = db->ListTables();
  ASSERT_TRUE(tables.ok()) << tables.status().ToString();
  std::vector<std::string> names;
  for (const auto& t : *tables) names.push_back(t.ref.name);
  EXPECT_THAT(names, ElementsAre("docs", "plain"));
  EXPECT_EQ(ReadTable(*db, "docs"), (Rows{{"a", "hello world"}, {"b", "ünïcode"}}));
}

TEST(SqliteDatabaseTest, DescribeTableColumnsKeysAndDdl) {
  TempDir dir;
  const std::string path = dir.File("d.db");
  const std::string ddl =
      "CREATE TABLE orders(id INTEGER NOT NULL, line SMALLINT NOT NULL, qty INT, "
      "price NUMERIC(10,2), note, PRIMARY KEY (id, line))";
  { Writer w(path); w.Exec(ddl); }
  auto db = MustOpen(path);
  ASSERT_NE(db, nullptr);
  TableInfo info;
  info.ref = {"main", "orders"};
  auto def = db->DescribeTable(info);
  ASSERT_TRUE(def.ok()) << def.status().ToString();
  EXPECT_EQ(def->ddl, ddl);
  EXPECT_THAT(def->primary_key, ElementsAre("id", "line"));
  const Schema& s = def->schema;
  // The untyped column could hold values its string form does not give back, but this table
  // holds none: no exact values column.
  ASSERT_EQ(s.num_columns(), 5u);
  EXPECT_EQ(s.column(0).name, "id");
  EXPECT_FALSE(s.column(0).nullable);
  EXPECT_EQ(s.column(1).type.ToString(), "int16");
  EXPECT_TRUE(s.column(2).nullable);
  EXPECT_EQ(s.column(3).type.ToString(), "decimal(10,2)");
  EXPECT_EQ(s.column(3).source_type, "NUMERIC(10,2)");
  EXPECT_EQ(s.column(4).type.ToString(), "string");
  EXPECT_EQ(s.column(4).source_type, "");

  info.ref.name = "missing";
  EXPECT_EQ(db->DescribeTable(info).status().code(), Code::kNotFound);
  db.reset();

  // An INTEGER in the untyped column would come back as the text '42': the exact SQLite
  // values follow the table's columns.
  { Writer w(path); w.Exec("INSERT INTO orders VALUES (1, 1, 1, 1.5, 42)"); }
  db = MustOpen(path);
  ASSERT_NE(db, nullptr);
  info.ref.name = "orders";
  auto with_values = db->DescribeTable(info);
  ASSERT_TRUE(with_values.ok()) << with_values.status().ToString();
  ASSERT_EQ(with_values->schema.num_columns(), 6u);
  EXPECT_TRUE(IsSqliteValuesColumn(with_values->schema.column(5)));
}

TEST(SqliteSourceTest, DecodesEveryTypeWithEdgeValues) {
  TempDir dir;
  const std::string path = dir.File("types.db");
  {
    Writer w(path);
    w.Exec(
        "CREATE TABLE t(b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 MEDIUMINT, i64 BIGINT, "
        "f FLOAT4, d DOUBLE, dec NUMERIC(20,4), s TEXT, bin BLOB, dt DATE, tm TIME, "
        "ts TIMESTAMP, tz TIMESTAMPTZ, u UUID, j JSON)");
    w.Exec(
        "INSERT INTO t VALUES (1, -128, -32768, -8388608, -9223372036854775808, 1.5, -0.0, "
        "'-1234567890123456.7891', '', x'', '0001-01-01', '00:00:00', '1969-12-31 23:59:59.999999', "
        "'2024-02-29T12:00:00+02:00', '123e4567-e89b-12d3-a456-426614174000', '{}')");
    w.Exec(
        "INSERT INTO t VALUES ('true', 127, 32767, 2147483647, 9223372036854775807, 3, 1e308, "
        "12.5, 'héllo wörld ✓ 中文 🙂', x'00ff10', '9999-12-31', '23:59:59.123456', "
        "'2200-01-01T00:00:00', '2024-01-01 00:00:00Z', "
        "x'00112233445566778899aabbccddeeff', '{\"a\": [1, 2]}')");
    w.Exec(
        "INSERT INTO t VALUES (0, 0, 0, 0, 0, 0, 9e999, 7, 'x', 'text in blob', '1900-02-28', "
        "'12:30', 0, '1970-01-01', '{00112233-4455-6677-8899-AABBCCDDEEFF}', '[]')");
    w.Exec("INSERT INTO t VALUES (NULL, NULL, NULL, NULL, NULL, NULL, -9e999, NULL, NULL, NULL, "
           "NULL, NULL, 1700000000, NULL, NULL, NULL)");
  }
  auto db = MustOpen(path);
  ASSERT_NE(db, nullptr);
  TableInfo info;
  info.ref = {"main", "t"};
  auto def = db->DescribeTable(info);
  ASSERT_TRUE(def.ok());
  std::vector<std::string> types;
  for (const Column& c : def->schema.columns()) types.push_back(c.type.ToString());
  EXPECT_THAT(types, ElementsAre("bool", "int8", "int16", "int32", "int64", "float", "double",
                                 "decimal(20,4)", "string", "binary", "date", "time", "timestamp",
                                 "timestamptz", "uuid", "json", "binary"));
  EXPECT_TRUE(IsSqliteValuesColumn(def->schema.column(16)));
  const Rows rows = ReadTable(*db, "t");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_THAT(rows[0],
              ElementsAre("true", "-128", "-32768", "-8388608", "-9223372036854775808", "1.5",
                          // SQLite stores an integral REAL as an integer: -0.0 comes back 0.
                          "0",
                          // NUMERIC affinity turned the text into a REAL: 17 digits don't survive.
                          "-1234567890123456.8000", "", "0x", "0001-01-01", "00:00:00.000000",
                          "1969-12-31T23:59:59.999999", "2024-02-29T10:00:00.000000",
                          "123e4567-e89b-12d3-a456-426614174000", "{}"));
  EXPECT_THAT(rows[1],
              ElementsAre("true", "127", "32767", "2147483647", "9223372036854775807", "3", "1e+308",
                          "12.5000", "héllo wörld ✓ 中文 🙂", "0x00ff10", "9999-12-31",
                          "23:59:59.123456", "2200-01-01T00:00:00.000000",
                          "2024-01-01T00:00:00.000000", "00112233-4455-6677-8899-aabbccddeeff",
                          "{\"a\": [1, 2]}"));
  EXPECT_THAT(rows[2],
              ElementsAre("false", "0", "0", "0", "0", "0", "inf", "7.0000", "x",
                          "0x7465787420696e20626c6f62", "1900-02-28", "12:30:00.000000",
                          "1970-01-01T00:00:00.000000", "1970-01-01T00:00:00.000000",
                          "00112233-4455-6677-8899-aabbccddeeff", "[]"));
  EXPECT_THAT(rows[3], ElementsAre("NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "-inf", "NULL",
                                   "NULL", "NULL", "NULL", "NULL", "2023-11-14T22:13:20.000000",
                                   "NULL", "NULL", "NULL"));
}

TEST(SqliteSourceTest, LargeBlobAndNumbersInTextColumns) {
  TempDir dir;
  const std::string path = dir.File("blob.db");
  {
    Writer w(path);
    w.Exec("CREATE TABLE t(id INTEGER PRIMARY KEY, b BLOB, s)");
    w.Exec("INSERT INTO t VALUES (1, randomblob(102400), 42), (2, zeroblob(0), 2.0), "
           "(3, NULL, 0.1)");
  }
  auto db = MustOpen(path);
  ASSERT_NE(db, nullptr);
  const Rows rows = ReadTable(*db, "t");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0][1].size(), 2u + 2 * 102400);
  EXPECT_EQ(rows[0][2], "42");
  EXPECT_EQ(rows[1][2], "2.0");
  EXPECT_EQ(rows[2][2], "0.1");
}

struct MismatchCase {
  const char* declared;
  const char* value;
  const char* message;
};

TEST(SqliteSourceTest, MismatchNamesTableColumnAndRowid) {
  const MismatchCase cases[] = {
      {"INTEGER", "'abc'", "TEXT value \"abc\" is not an integer"},
      {"INTEGER", "1.5", "REAL value 1.5 is not an integer"},
      {"TINYINT", "300", "INTEGER value 300 is not in range for int8"},
      {"DATE", "'2024-02-30'", "TEXT value \"2024-02-30\" is not a date (TEXT YYYY-MM-DD)"},
      {"DATE", "20240101", "INTEGER value 20240101 is not a date (TEXT YYYY-MM-DD)"},
      {"NUMERIC(5,2)", "1.234", "REAL value 1.234 is not a decimal(5,2) (too many fraction digits)"},
      {"NUMERIC(5,2)", "'1.2.3'", "TEXT value \"1.2.3\" is not a decimal(5,2) (two decimal points)"},
      {"NUMERIC(5,2)", "1e300", "REAL value 1e+300 is not a decimal(5,2) (too many digits)"},
      {"NUMERIC(5,2)", "12345", "INTEGER value 12345 is not a decimal(5,2) (too many digits)"},
      {"BOOLEAN", "2", "INTEGER value 2 is not a boolean (INTEGER 0/1 or TEXT true/false)"},
      {"DOUBLE", "'x'", "TEXT value \"x\" is not a number"},
      {"UUID", "x'0102'", "BLOB value of 2 bytes is not a UUID (TEXT 8-4-4-4-12 hex digits or a "
                          "16-byte BLOB)"},
      {"TIME", "'25:00:00'", "TEXT value \"25:00:00\" is not a time (TEXT HH:MM[:SS[.ffffff]])"},
      {"TEXT", "x'ff'",
       "BLOB value of 1 bytes is not text (BLOBs in text columns need "
       "--sqlite-type-mismatch=string)"},
      {"", "CAST(x'ff' AS TEXT)", "TEXT value \"\xff\" is not valid UTF-8"},
  };
  for (const MismatchCase& c : cases) {
    TempDir dir;
    const std::string path = dir.File("m.db");
    {
      Writer w(path);
      w.Exec(fmt::format("CREATE TABLE orders(qty {}); INSERT INTO orders(rowid, qty) VALUES "
                         "(16, NULL), (17, {}), (18, NULL)",
                         c.declared, c.value));
    }
    auto db = MustOpen(path);
    ASSERT_NE(db, nullptr);
    WorkUnit unit;
    unit.table.ref = {"main", "orders"};
    auto source = db->Open(unit);
    ASSERT_TRUE(source.ok());
    RowBatch batch;
    Status s = (*source)->Next(100, &batch);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << c.declared;
    EXPECT_EQ(s.message(),
              fmt::format("main.orders: column \"qty\" ({}) at rowid 17: {}",
                          MapSqliteDeclaredType(c.declared).type.ToString(), c.message));
  }
}

TEST(SqliteSourceTest, LaxTypesTurnMismatchedColumnsIntoStrings) {
  TempDir dir;
  const std::string path = dir.File("lax.db");
  {
    Writer w(path);
    w.Exec("CREATE TABLE t(a INTEGER, b INTEGER, c TEXT, d BIGSERIAL);"
           "INSERT INTO t VALUES (1, 1, x'01ff', 5), (2, 'two', 'x', 6)");
  }
  SqliteOptions lax;
  lax.lax_types = true;
  auto db = MustOpen(path, lax);
  ASSERT_NE(db, nullptr);
  TableInfo info;
  info.ref = {"main", "t"};
  auto def = db->DescribeTable(info);
  ASSERT_TRUE(def.ok()) << def.status().ToString();
  std::vector<std::string> types;
  for (const Column& col : def->schema.columns()) types.push_back(col.type.ToString());
  // b and d hold integers as strings now: their exact values (INTEGER 1, 5, 6) follow.
  EXPECT_THAT(types, ElementsAre("int64", "string", "string", "string", "binary"));
  EXPECT_EQ(ReadTable(*db, "t"), (Rows{{"1", "1", "\\x01ff", "5"}, {"2", "two", "x", "6"}}));
}

TEST(SqliteSourceTest, OddTableAndColumnNames) {
  TempDir dir;
  const std::string path = dir.File("odd.db");
  const std::string names[] = {"we\"ird name", "../../etc/passwd", "ünï/cødé 表", "select"};
  {
    Writer w(path);
    for (const auto& n : names) {
      std::string q = "\"";
      for (char ch : n) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
      q += "\"";
      w.Exec("CREATE TABLE " + q + "(" + q + " TEXT, \"rowid\" TEXT); INSERT INTO " + q +
             " VALUES ('v', 'r')");
    }
  }
  auto db = MustOpen(path);
  ASSERT_NE(db, nullptr);
  auto tables = db->ListTables();
  ASSERT_TRUE(tables.ok());
  ASSERT_EQ(tables->size(), 4u);
  for (const auto& t : *tables) {
    WorkUnit unit;
    unit.table = t;
    EXPECT_EQ(ReadAll(*db, unit), (Rows{{"v", "r"}})) << t.ref.name;
    auto def = db->DescribeTable(t);
    ASSERT_TRUE(def.ok());
    EXPECT_EQ(def->schema.column(0).name, t.ref.name);
  }
}

TEST(SqliteSourceTest, EmptyTableAndWithoutRowid) {
  TempDir dir;
  const std::string path = dir.File("e.db");
  {
    Writer w(path);
    w.Exec("CREATE TABLE empty(a INTEGER);"
           "CREATE TABLE nr(k TEXT PRIMARY KEY, v DATE) WITHOUT ROWID;"
           "INSERT INTO nr VALUES ('b', '2020-01-02'), ('a', 'bad');");
  }
  auto db = MustOpen(path);
  ASSERT_NE(db, nullptr);
  EXPECT_TRUE(ReadTable(*db, "empty").empty());
  WorkUnit unit;
  unit.table.ref = {"main", "nr"};
  auto source = db->Open(unit);
  ASSERT_TRUE(source.ok());
  RowBatch batch;
  Status s = (*source)->Next(10, &batch);
  // No rowid: the row is counted instead (WITHOUT ROWID tables read in key order).
  EXPECT_EQ(s.message(), "main.nr: column \"v\" (date) at row 1: TEXT value \"bad\" is not a date "
                         "(TEXT YYYY-MM-DD)");
}

TEST(SqliteSourceTest, QueriesTypeColumnsByDeclarationOrFirstRow) {
  TempDir dir;
  const std::string path = dir.File("q.db");
  {
    Writer w(path);
    w.Exec("CREATE TABLE t(d DATE, n NUMERIC(6,1)); INSERT INTO t VALUES ('2020-05-06', 1.5), "
           "('2021-01-01', 2)");
  }
  auto db = MustOpen(path);
  ASSERT_NE(db, nullptr);
  TableInfo q;
  q.ref = {"query", "recent"};
  q.query = "SELECT d, n, n * 2 AS twice, 'x' || d AS label, d FROM t ORDER BY d";
  auto def = db->DescribeTable(q);
  ASSERT_TRUE(def.ok()) << def.status().ToString();
  std::vector<std::string> cols;
  for (const Column& c : def->schema.columns()) cols.push_back(c.name + ":" + c.type.ToString());
  EXPECT_THAT(cols, ElementsAre("d:date", "n:decimal(6,1)", "twice:double", "label:string",
                                "d_2:date"));
  WorkUnit unit;
  unit.table = q;
  EXPECT_EQ(ReadAll(*db, unit, 1),
            (Rows{{"2020-05-06", "1.5", "3", "x2020-05-06", "2020-05-06"},
                  {"2021-01-01", "2.0", "4", "x2021-01-01", "2021-01-01"}}));

  q.query = "SELEC nonsense";
  unit.table = q;
  auto bad = db->Open(unit);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "query recent: near \"SELEC\": syntax error");
}

TEST(SqliteSourceTest, SplitsBigTablesIntoRowidRanges) {
  TempDir dir;
  const std::string path = dir.File("split.db");
  {
    Writer w(path);
    w.Exec("CREATE TABLE big(id INTEGER PRIMARY KEY, pad TEXT);"
           "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<10000) "
           "INSERT INTO big SELECT i * 3, printf('%0100d', i) FROM n;");
  }
  auto db = MustOpen(path);
  ASSERT_NE(db, nullptr);
  auto tables = db->ListTables();
  ASSERT_TRUE(tables.ok());
  const TableInfo& big = (*tables)[0];
  auto one = db->Split(big, big.estimated_bytes * 2);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->size(), 1u);
  auto units = db->Split(big, big.estimated_bytes / 4);
  ASSERT_TRUE(units.ok()) << units.status().ToString();
  ASSERT_GE(units->size(), 4u);
  ASSERT_LE(units->size(), 6u);
  std::vector<std::string> ids;
  for (const WorkUnit& u : *units) {
    EXPECT_EQ(u.count, static_cast<int>(units->size()));
    const Rows rows = ReadAll(*db, u);
    EXPECT_GT(rows.size(), 1000u);
    for (const auto& r : rows) ids.push_back(r[0]);
  }
  ASSERT_EQ(ids.size(), 10000u);
  for (size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(ids[i], std::to_string((i + 1) * 3));
}

// A writer commits (i, i) into both a and b in one transaction, in a bounded
// loop, while the dump reads a, waits, then reads b: a dump sees the same
// transactions in both tables.
void CheckConsistentUnderConcurrentWrites(bool wal) {
  TempDir dir;
  const std::string path = dir.File(wal ? "wal.db" : "rollback.db");
  Writer setup(path);
  if (wal) setup.Exec("PRAGMA journal_mode=WAL");
  setup.Exec("CREATE TABLE a(x INTEGER); CREATE TABLE b(x INTEGER);"
             "INSERT INTO a VALUES (0); INSERT INTO b VALUES (0);");

  // The writer and the test meet on events (commits, refusals, a pause), never on a timer.
  std::atomic<bool> stop{false}, hold{false}, held{false};
  std::atomic<int> commits{0}, refusals{0};
  Event events;
  std::thread writer([&] {
    Writer w(path);
    sqlite3_busy_timeout(w.db(), 2);
    for (int i = 1; !stop.load(); ++i) {
      if (hold.load()) {
        // Paused while the dump takes its snapshot: a writer in a tight loop would starve a
        // reader taking its SHARED lock in rollback-journal mode (its PENDING lock shuts new
        // readers out); real writers pause.
        held = true;
        events.Notify();
        events.WaitUntil([&] { return !hold.load() || stop.load(); });
        held = false;
      }
      const std::string ins = fmt::format("INSERT INTO a VALUES ({0}); INSERT INTO b VALUES ({0})", i);
      if (w.TryExec("BEGIN IMMEDIATE") != SQLITE_OK) {
        ++refusals;
        events.Notify();
        continue;
      }
      if (w.TryExec(ins) != SQLITE_OK || w.TryExec("COMMIT") != SQLITE_OK) {
        w.TryExec("ROLLBACK");  // releases the PENDING lock a failed COMMIT keeps
        ++refusals;
        events.Notify();
        continue;
      }
      ++commits;
      events.Notify();
      std::this_thread::yield();
    }
  });
  struct Joiner {
    std::atomic<bool>& stop;
    Event& events;
    std::thread& t;
    ~Joiner() {
      stop = true;
      events.Notify();
      t.join();
    }
  } joiner{stop, events, writer};
  ASSERT_TRUE(events.WaitUntil([&] { return commits.load() >= 20; }))
      << "the writer never got going";

  hold = true;
  ASSERT_TRUE(events.WaitUntil([&] { return held.load(); }));
  auto db = MustOpen(path);
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->BeginSnapshot().ok());
  const int at_snapshot = commits.load();
  const int refused_at_snapshot = refusals.load();
  events.Notify([&] { hold = false; });
  EXPECT_EQ(db->Describe()["journal_mode"], wal ? "wal" : "delete");

  const Rows a = ReadTable(*db, "a");
  // Let the writer commit (WAL) or be refused (rollback journal) a number of times.
  if (wal) {
    EXPECT_TRUE(events.WaitUntil([&] { return commits.load() >= at_snapshot + 50; }));
  } else {
    EXPECT_TRUE(events.WaitUntil([&] { return refusals.load() >= refused_at_snapshot + 20; }));
  }
  const Rows b = ReadTable(*db, "b");
  const int during = commits.load() - at_snapshot;
  EXPECT_EQ(a, b);
  EXPECT_GE(a.size(), 21u);
  if (wal) {
    EXPECT_GE(during, 50) << "the writer should keep committing in WAL mode";
  } else {
    EXPECT_LE(during, 1) << "no commit should get past the snapshot's SHARED lock";
  }
  db.reset();
  const int before_release = commits.load();
  EXPECT_TRUE(events.WaitUntil([&] { return commits.load() >= before_release + 10; }))
      << "writers proceed once the dump is over";
}

TEST(SqliteConsistencyTest, RollbackJournalMode) { CheckConsistentUnderConcurrentWrites(false); }
TEST(SqliteConsistencyTest, WalMode) { CheckConsistentUnderConcurrentWrites(true); }

// Sources over one shared connection (WAL) or a pool (rollback) read in
// parallel threads; every table comes back whole.
TEST(SqliteConsistencyTest, ParallelSourcesOnSharedConnections) {
  for (bool wal : {false, true}) {
    TempDir dir;
    const std::string path = dir.File("par.db");
    {
      Writer w(path);
      if (wal) w.Exec("PRAGMA journal_mode=WAL");
      for (int t = 0; t < 6; ++t) {
        w.Exec(fmt::format("CREATE TABLE t{0}(x INTEGER, s TEXT);"
                           "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE "
                           "i<3000) INSERT INTO t{0} SELECT i, 'row' || i FROM n;",
                           t));
      }
    }
    auto db = MustOpen(path);
    ASSERT_NE(db, nullptr);
    ASSERT_TRUE(db->BeginSnapshot().ok());
    std::vector<std::thread> threads;
    std::vector<size_t> counts(6);
    for (int t = 0; t < 6; ++t) {
      threads.emplace_back([&, t] {
        WorkUnit unit;
        unit.table.ref = {"main", fmt::format("t{}", t)};
        counts[t] = ReadAll(*db, unit, 97).size();
      });
    }
    for (auto& th : threads) th.join();
    for (size_t c : counts) EXPECT_EQ(c, 3000u);
  }
}

}  // namespace
}  // namespace lakedump
