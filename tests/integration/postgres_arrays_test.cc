// PostgreSQL arrays (issue 11): one-dimensional arrays from 1 of every element type we map are
// dumped as Parquet lists (NULL arrays, empty arrays, NULL elements), read as lists by the
// independent readers; a column holding a 2-D array or one with bounds [0:1] is dumped as the
// exact text. Loaded back (trusted through the schema archive, and untrusted from the recorded
// types), the values are equal (`pg_dump --data-only` of source and replica when trusted); into
// SQLite lists are JSON. Lists whose elements have a binary form go back as binary arrays (below).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sqlite3.h>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/pg_test_util.h"

namespace lakedump {
namespace {

using nlohmann::json;
using testing_cli::Quote;
using testing_cli::ReadFile;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_pg::ScratchDatabase;

constexpr const char* kSchemaSql = R"SQL(
CREATE TYPE mood AS ENUM ('sad', 'happy', 'très "bien"');
CREATE DOMAIN small AS int4 CHECK (VALUE < 1000);
CREATE TABLE arr (
  id int8 PRIMARY KEY,
  b bool[], i2 int2[], i4 int4[], i8 int8[], f4 float4[], f8 float8[], o oid[],
  n numeric(12,2)[], nu numeric[], t text[], vc varchar(5)[], bp char(3)[], nm name[],
  by bytea[], d date[], tm time[], ts timestamp[], tstz timestamptz[], u uuid[], js json[],
  jb jsonb[], en mood[], dm small[], ip inet[], iv interval[]);
INSERT INTO arr (id) VALUES (1);
INSERT INTO arr VALUES (2, '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}',
  '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}');
INSERT INTO arr VALUES (3, '{true,NULL,false}', '{-32768,NULL,32767}',
  '{-2147483648,0,NULL,2147483647}', '{-9223372036854775808,9223372036854775807,NULL}',
  '{NaN,-Infinity,1.5,NULL,-0}', '{NaN,Infinity,1e308,NULL,0.1}', '{0,4294967295,NULL}',
  '{-9999999999.99,NULL,0.01}', '{NaN,Infinity,-1.000000000000000000001,NULL}',
  '{"a\"b","c,d",NULL,"","NULL","{x}"," sp "}', '{abc,NULL,"é"}', '{a,NULL,abc}',
  '{pg_class,NULL}', '{"\\x00ff",NULL,"\\x"}', '{2024-02-29,infinity,-infinity,NULL,4713-11-24 BC}',
  '{00:00:00,24:00:00,NULL,12:34:56.789012}',
  '{"2024-02-29 12:34:56.789012",NULL,infinity,"4713-11-24 00:00:00 BC"}',
  '{"2024-02-29 12:34:56.789012+05",-infinity,NULL}',
  '{ffffffff-ffff-ffff-ffff-ffffffffffff,NULL}', ARRAY['{"a": [1, 2]}'::json, NULL, '[]'],
  ARRAY['{"b": 1}'::jsonb, NULL], '{happy,NULL,"très \"bien\""}', '{1,NULL,999}',
  '{192.168.0.1/24,NULL,::1}', '{"1 year 2 mons",NULL,"-1 days"}');
INSERT INTO arr (id, i4, t) VALUES (4, '{NULL}', '{NULL,NULL}'), (5, '{7}', '{x}');
CREATE TABLE shaped (id int8 PRIMARY KEY, m int4[], one int4[], tt text[]);
INSERT INTO shaped VALUES (1, '{{1,2},{3,NULL}}', '{1,2}', '{{"a","b"}}'),
  (2, '[0:1]={5,6}', '{}', '[2:3]={"x y",NULL}'), (3, '{7,8}', NULL, '{z}'), (4, NULL, '{3}', NULL),
  (5, '[1:1][3:4]={{1,2}}', '{4,NULL}', '{}');
)SQL";

// A scratch database made by an SQL script (SetUpWith), dumped to dump_.
class DumpedArraysTest : public testing_pg::PgScratchTest {
 protected:
  void SetUpWith(const char* sql) {
    PgScratchTest::SetUp();
    if (Stopped()) return;
    UseScratchDatabase(sql);
    if (HasFatalFailure()) return;
    dump_ = dir_.Sub("dump");
    RunResult d = RunLakedump(fmt::format("dump {} {} --progress none",
                                          Quote(source_->conninfo()), Quote(dump_)),
                              dir_);
    ASSERT_EQ(d.code, 0) << d.err;
  }

  json TableJson(const std::string& table) {
    return json::parse(ReadFile(dump_ + "/public/" + table + "/_table.json"));
  }

  TempDir dir_;
  std::string dump_;
};

class PostgresArraysTest : public DumpedArraysTest {
 protected:
  void SetUp() override { SetUpWith(kSchemaSql); }
};

TEST_F(PostgresArraysTest, OneDimensionalArraysAreListsOtherShapesExactText) {
  std::map<std::string, std::string> types;
  const json arr = TableJson("arr");
  for (const json& c : arr["columns"]) {
    types[c["name"].get<std::string>()] = c["type"].get<std::string>();
  }
  const std::map<std::string, std::string> want = {
      {"b", "list<bool>"}, {"i2", "list<int16>"}, {"i4", "list<int32>"}, {"i8", "list<int64>"},
      {"f4", "list<float>"}, {"f8", "list<double>"}, {"o", "list<int64>"},
      {"n", "list<decimal(12,2)>"}, {"nu", "list<string>"}, {"t", "list<string>"},
      {"vc", "list<string>"}, {"bp", "list<string>"}, {"nm", "list<string>"},
      {"by", "list<binary>"}, {"d", "list<date>"}, {"tm", "list<time>"},
      {"ts", "list<timestamp>"}, {"tstz", "list<timestamptz>"}, {"u", "list<uuid>"},
      {"js", "list<json>"}, {"jb", "list<json>"}, {"en", "list<string>"},
      {"dm", "list<int32>"}, {"ip", "list<string>"}, {"iv", "list<string>"}};
  for (const auto& [name, type] : want) EXPECT_EQ(types[name], type) << name;
  std::map<std::string, std::string> shaped;
  const json shaped_table = TableJson("shaped");
  for (const json& c : shaped_table["columns"]) {
    shaped[c["name"].get<std::string>()] = c["type"].get<std::string>();
    if (c["name"] != "id") {
      EXPECT_TRUE(c["source_type"].get<std::string>().ends_with("[]"));
    }
  }
  EXPECT_EQ(shaped["m"], "string");  // 2-D and [0:1] values
  EXPECT_EQ(shaped["one"], "list<int32>");
  EXPECT_EQ(shaped["tt"], "string");
  RunResult v = RunLakedump(fmt::format("verify {}", Quote(dump_)), dir_);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
}

TEST_F(PostgresArraysTest, TrustedLoadIsByteIdentical) {
  ScratchDatabase replica(admin_.get());
  RunResult l = RunLakedump(fmt::format("load {} {} --progress none --trust-dump", Quote(dump_),
                                        Quote(replica.conninfo())),
                            dir_);
  ASSERT_EQ(l.code, 0) << l.err;
  const std::vector<std::string> source = testing_pg::PgDumpInserts(source_->conninfo(), "public");
  EXPECT_EQ(source.size(), 10u);  // 5 rows of arr, 5 of shaped
  testing_pg::ExpectSameLines(source, testing_pg::PgDumpInserts(replica.conninfo(), "public"));
}

// Untrusted, tables are created from the recorded types (base types and arrays of them: the
// enum and the domain of table arr are not restored, so this compares table shaped).
TEST_F(PostgresArraysTest, UntrustedLoadKeepsBaseTypeArraysExactly) {
  ScratchDatabase replica(admin_.get());
  RunResult l = RunLakedump(fmt::format("load {} {} --progress none --tables public.shaped",
                                        Quote(dump_), Quote(replica.conninfo())),
                            dir_);
  ASSERT_EQ(l.code, 0) << l.err;
  auto value = testing_pg::QueryRows;
  const std::string sql =
      "SELECT id, m::text, one::text, tt::text, pg_typeof(m)::text, pg_typeof(tt)::text "
      "FROM public.shaped ORDER BY id";
  EXPECT_EQ(value(replica.conninfo(), sql), value(source_->conninfo(), sql));
  EXPECT_NE(value(replica.conninfo(), sql).find("[0:1]={5,6}"), std::string::npos);
}

TEST_F(PostgresArraysTest, IntoSqliteListsAreJsonArrays) {
  const std::string db_path = dir_.Sub("arrays.sqlite");
  RunResult l = RunLakedump(fmt::format("load {} {} --progress none --tables public.arr",
                                        Quote(dump_), Quote(db_path)),
                            dir_);
  ASSERT_EQ(l.code, 0) << l.err;
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT i4, t, f8, n, d, b FROM arr WHERE id = 3", -1, &st,
                               nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  auto text = [&](int i) {
    const unsigned char* t = sqlite3_column_text(st, i);
    return t == nullptr ? std::string("NULL") : std::string(reinterpret_cast<const char*>(t));
  };
  EXPECT_EQ(text(0), "[-2147483648,0,null,2147483647]");
  EXPECT_EQ(text(1), R"(["a\"b","c,d",null,"","NULL","{x}"," sp "])");
  EXPECT_EQ(text(2), R"(["NaN","Infinity",1e+308,null,0.1])");
  EXPECT_EQ(text(3), "[-9999999999.99,null,0.01]");
  EXPECT_EQ(text(5), "[true,null,false]");
  sqlite3_finalize(st);
  sqlite3_close(db);
}

TEST_F(PostgresArraysTest, IndependentReadersReadTheLists) {
  const std::string interop = testing_cli::InteropDir();
  if (interop.empty()) GTEST_SKIP() << "LD_INTEROP_DIR with node_modules not found";
  const json tm = TableJson("arr");
  const std::string file = dump_ + "/" + tm["files"][0]["key"].get<std::string>();
  const std::vector<json> readers = testing_cli::ReadWithOracles(interop, file, dir_);
  ASSERT_EQ(readers.size(), 3u);
  size_t i4 = 0;
  while (tm["columns"][i4]["name"] != "i4") ++i4;
  for (const json& r : readers) {
    SCOPED_TRACE(r.dump().substr(0, 500));
    ASSERT_FALSE(r.contains("error"));
    EXPECT_EQ(r["types"][i4], "list<int32>");
    ASSERT_EQ(r["rows"].size(), 5u);
    EXPECT_TRUE(r["rows"][0][i4].is_null());
    EXPECT_EQ(r["rows"][1][i4], json::array());
    EXPECT_EQ(r["rows"][2][i4], json::parse(R"(["-2147483648","0",null,"2147483647"])"));
    EXPECT_EQ(r["rows"][3][i4], json::parse("[null]"));
  }
}

// Lists loaded back as binary arrays (array_send's form, PgEncoding::kArray): a table whose
// every column has a binary form (arrays of text, integers, floats, numeric, bool, dates, times,
// timestamps, uuid, bytea, json, jsonb, an enum), with NULL arrays, empty arrays, NULL elements,
// arrays of one NULL, long arrays and more rows than one encoder block, is loaded trusted
// (straight into the restored table) and untrusted (through the staging table), and read back
// by libpq from the target and the source: the same text, dimensions, bounds and types. A table
// with an inet[] column (no binary form) takes the text path.
constexpr const char* kBinaryArraysSql = R"SQL(
CREATE TYPE feel AS ENUM ('low', 'high "q"');
CREATE TABLE bin (
  id int8 PRIMARY KEY,
  t text[], i4 int4[], i2 int2[], i8 int8[], b bool[], f4 float4[], f8 float8[],
  n numeric(12,2)[], nu numeric[], vc varchar(5)[], bp char(3)[], by bytea[], d date[],
  tm time[], ts timestamp[], tstz timestamptz[], u uuid[], js json[], jb jsonb[], en feel[],
  o oid[]);
INSERT INTO bin (id) VALUES (1);
INSERT INTO bin VALUES (2, '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}',
  '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}');
INSERT INTO bin VALUES (3, '{"a\"b","c,d",NULL,"","NULL","{x}"," sp ","tab\there","back\\slash"}',
  '{-2147483648,0,NULL,2147483647}', '{-32768,NULL,32767}',
  '{-9223372036854775808,9223372036854775807,NULL}', '{true,NULL,false}',
  '{NaN,-Infinity,1.5,NULL,-0}', '{NaN,Infinity,1e308,NULL,0.1}', '{-9999999999.99,NULL,0.01}',
  '{NaN,Infinity,-1.000000000000000000001,NULL,0}', '{abc,NULL,"é"}', '{a,NULL,abc}',
  '{"\\x00ff",NULL,"\\x"}', '{2024-02-29,infinity,-infinity,NULL,4713-11-24 BC}',
  '{00:00:00,24:00:00,NULL,12:34:56.789012}',
  '{"2024-02-29 12:34:56.789012",NULL,infinity,"4713-11-24 00:00:00 BC"}',
  '{"2024-02-29 12:34:56.789012+05",-infinity,NULL}',
  '{ffffffff-ffff-ffff-ffff-ffffffffffff,NULL}', ARRAY['{"a": [1, 2]}'::json, NULL, '[]'],
  ARRAY['{"b": 1}'::jsonb, NULL], '{"high \"q\"",NULL,low}', '{0,4294967295,NULL}');
INSERT INTO bin (id, t, i4, en) VALUES (4, '{NULL}', '{NULL,NULL}', '{NULL}');
INSERT INTO bin (id, t, i4, f8)
  SELECT g, array(SELECT 'v' || k FROM generate_series(1, g % 7) k),
         array(SELECT CASE WHEN k % 3 = 0 THEN NULL ELSE k * g END
               FROM generate_series(1, g % 5) k),
         array(SELECT k / 3.0 FROM generate_series(1, g % 4) k)
  FROM generate_series(10, 2600) g;
INSERT INTO bin (id, t, i8)
  VALUES (5, array(SELECT repeat('x', k % 40) FROM generate_series(1, 3000) k),
          array(SELECT k FROM generate_series(1, 3000) k));
CREATE TABLE mixed (id int8 PRIMARY KEY, t text[], ip inet[]);
INSERT INTO mixed VALUES (1, '{"a b",NULL}', '{10.0.0.1,NULL}'), (2, '{}', '{}'), (3, NULL, NULL);
)SQL";

// Every value of `table`'s columns `columns` as text with its dimensions, lower bound and type,
// by libpq, in id order.
std::string ReadArrays(const std::string& conninfo, const std::string& table,
                       const std::vector<std::string>& columns) {
  std::string select = "SELECT id";
  for (const std::string& c : columns) {
    select += fmt::format(", {0}::text, array_ndims({0}), array_lower({0}, 1), pg_typeof({0})", c);
  }
  return testing_pg::QueryRows(conninfo, select + " FROM public." + table + " ORDER BY id");
}

const std::vector<std::string> kBinColumns = {"t",  "i4", "i2", "i8", "b",  "f4",   "f8",
                                              "n",  "nu", "vc", "bp", "by", "d",    "tm",
                                              "ts", "tstz", "u", "js", "jb", "o"};

class PostgresBinaryArraysTest : public DumpedArraysTest {
 protected:
  void SetUp() override { SetUpWith(kBinaryArraysSql); }
};

TEST_F(PostgresBinaryArraysTest, TrustedLoadReadsBackTheSameArrays) {
  ScratchDatabase replica(admin_.get());
  RunResult l = RunLakedump(fmt::format("load {} {} --progress none --trust-dump", Quote(dump_),
                                        Quote(replica.conninfo())),
                            dir_);
  ASSERT_EQ(l.code, 0) << l.err;
  std::vector<std::string> columns = kBinColumns;
  columns.push_back("en");
  const std::string source = ReadArrays(source_->conninfo(), "bin", columns);
  EXPECT_EQ(std::count(source.begin(), source.end(), '\n'), 2596);
  EXPECT_EQ(ReadArrays(replica.conninfo(), "bin", columns), source);
  EXPECT_EQ(ReadArrays(replica.conninfo(), "mixed", {"t", "ip"}),
            ReadArrays(source_->conninfo(), "mixed", {"t", "ip"}));
  testing_pg::ExpectSameLines(testing_pg::PgDumpInserts(source_->conninfo(), "public"),
                              testing_pg::PgDumpInserts(replica.conninfo(), "public"));
}

// Untrusted, the tables are created from the recorded types (the enum column is text there:
// left out) and loaded through the staging table.
TEST_F(PostgresBinaryArraysTest, UntrustedLoadReadsBackTheSameArrays) {
  ScratchDatabase replica(admin_.get());
  RunResult l = RunLakedump(fmt::format("load {} {} --progress none --tables public.bin",
                                        Quote(dump_), Quote(replica.conninfo())),
                            dir_);
  ASSERT_EQ(l.code, 0) << l.err;
  EXPECT_EQ(ReadArrays(replica.conninfo(), "bin", kBinColumns),
            ReadArrays(source_->conninfo(), "bin", kBinColumns));
}

}  // namespace
}  // namespace lakedump
