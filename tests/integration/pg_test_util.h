// Helpers for integration tests against a real PostgreSQL (LD_TEST_PG_DSN).
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <cstdio>
#include <vector>
#include <sstream>
#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <unistd.h>

#include "source/postgres/pg_conn.h"
#include "source/postgres/postgres_database.h"

namespace lakedump::testing_pg {

inline const char* TestDsn() { return std::getenv("LD_TEST_PG_DSN"); }

#define LD_REQUIRE_PG()                                              \
  do {                                                               \
    if (::lakedump::testing_pg::TestDsn() == nullptr)                \
      GTEST_SKIP() << "LD_TEST_PG_DSN is not set";                   \
  } while (0)

// In a fixture's SetUp: *admin = the admin connection, or skip the test without the test
// server or without wal_level=logical (what incremental dumps need).
#define LD_REQUIRE_LOGICAL_PG(admin)                                                      \
  do {                                                                                    \
    LD_REQUIRE_PG();                                                                      \
    (admin) = ::lakedump::testing_pg::AdminConn();                                        \
    ASSERT_NE((admin), nullptr);                                                          \
    if (::lakedump::testing_pg::QueryOne(*(admin), "SHOW wal_level") != "logical")        \
      GTEST_SKIP() << "the test server runs without wal_level=logical";                   \
  } while (0)

// The test DSN as a keyword string with some parameters replaced.
inline std::string ConninfoWith(const std::map<std::string, std::string>& overrides) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(TestDsn(), &err);
  if (err) PQfreemem(err);
  std::map<std::string, std::string> kv;
  for (PQconninfoOption* o = opts; o && o->keyword; ++o) {
    if (o->val && *o->val) kv[o->keyword] = o->val;
  }
  PQconninfoFree(opts);
  for (const auto& [k, v] : overrides) kv[k] = v;
  std::string out;
  for (const auto& [k, v] : kv) {
    std::string quoted;
    for (char c : v) {
      if (c == '\'' || c == '\\') quoted += '\\';
      quoted += c;
    }
    out += k + "='" + quoted + "' ";
  }
  return out;
}

inline std::unique_ptr<PgConn> AdminConn(const std::string& conninfo = TestDsn()) {
  auto c = PgConn::Connect(conninfo, 10);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  if (!c.ok()) return nullptr;
  EXPECT_TRUE((*c)->Exec("SET application_name = 'ld_test_admin'; SET search_path = public; SET client_min_messages = warning").ok());
  return std::move(c).value();
}

inline std::string QueryOne(PgConn& conn, const std::string& sql) {
  auto r = conn.Query(sql);
  EXPECT_TRUE(r.ok()) << sql << ": " << r.status().ToString();
  if (!r.ok() || PQntuples(r->get()) == 0) return "";
  return std::string(PgValue(r->get(), 0, 0));
}

// Every row of `sql`'s result in the database of `conninfo`, by libpq: each value's text and
// "|" (NULL as "NULL"), a line per row.
inline std::string QueryRows(const std::string& conninfo, const std::string& sql) {
  auto c = PgConn::Connect(conninfo, 10);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  if (!c.ok()) return "";
  auto r = (*c)->Query(sql);
  EXPECT_TRUE(r.ok()) << sql << ": " << r.status().ToString();
  std::string out;
  for (int i = 0; r.ok() && i < PQntuples(r->get()); ++i) {
    for (int j = 0; j < PQnfields(r->get()); ++j) {
      out += PQgetisnull(r->get(), i, j) ? "NULL" : std::string(PgValue(r->get(), i, j));
      out += "|";
    }
    out += "\n";
  }
  return out;
}

// A schema with a unique name, dropped (CASCADE) at the end of the test.
class ScratchSchema {
 public:
  explicit ScratchSchema(PgConn* admin, std::string base = "ld_test") : admin_(admin) {
    static std::atomic<int> counter{0};
    name_ = base + "_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
    Status s = admin_->Exec("DROP SCHEMA IF EXISTS " + QuoteIdent(name_) + " CASCADE; CREATE SCHEMA " +
                            QuoteIdent(name_));
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  ~ScratchSchema() {
    admin_->Exec("DROP SCHEMA IF EXISTS " + QuoteIdent(name_) + " CASCADE").IgnoreError();
  }
  const std::string& name() const { return name_; }
  std::string q() const { return QuoteIdent(name_); }

 private:
  PgConn* admin_;
  std::string name_;
};

// A database created for the test and dropped at the end.
class ScratchDatabase {
 public:
  explicit ScratchDatabase(PgConn* admin) : admin_(admin) {
    static std::atomic<int> counter{0};
    name_ = fmt::format("ld_load_{}_{}", getpid(), counter++);
    EXPECT_TRUE(admin_->Exec("DROP DATABASE IF EXISTS " + QuoteIdent(name_)).ok());
    Status s = admin_->Exec("CREATE DATABASE " + QuoteIdent(name_));
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  ~ScratchDatabase() {
    admin_->Exec("DROP DATABASE IF EXISTS " + QuoteIdent(name_) + " WITH (FORCE)").IgnoreError();
  }
  const std::string& name() const { return name_; }
  std::string conninfo() const { return ConninfoWith({{"dbname", name_}}); }

 private:
  PgConn* admin_;
  std::string name_;
};

// Runs `sql` in `db` (search_path public); false (with a test failure) if it fails.
inline bool RunSqlIn(const ScratchDatabase& db, const std::string& sql) {
  auto conn = PgConn::Connect(db.conninfo(), 10);
  EXPECT_TRUE(conn.ok()) << conn.status().ToString();
  if (!conn.ok()) return false;
  Status s = (*conn)->Exec("SET search_path = public; " + sql);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return s.ok();
}

// The fixture of tests that write into the test server (LD_TEST_PG_DSN): SetUp() skips the
// test without it, else opens admin_. A derived SetUp() calls it, returns when IsSkipped() or
// HasFatalFailure(), then takes what it needs, dropped when the test ends:
//   UseScratchDatabase(sql)  source_, a database created for the test with `sql` run in it;
//   UseScratchSchema(base)   schema_, a schema named after `base` in the test database.
// Members are destroyed in reverse order: the scratch objects before admin_, which drops them.
class PgScratchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (TestDsn() == nullptr) GTEST_SKIP() << "LD_TEST_PG_DSN is not set";
    admin_ = AdminConn();
    ASSERT_TRUE(admin_);
  }
  void UseScratchDatabase(const std::string& sql) {
    source_ = std::make_unique<ScratchDatabase>(admin_.get());
    ASSERT_TRUE(RunSqlIn(*source_, sql));
  }
  void UseScratchSchema(std::string base = "ld_test") {
    schema_ = std::make_unique<ScratchSchema>(admin_.get(), std::move(base));
  }
  bool Stopped() { return IsSkipped() || HasFatalFailure(); }

  std::unique_ptr<PgConn> admin_;
  std::unique_ptr<ScratchDatabase> source_;
  std::unique_ptr<ScratchSchema> schema_;
};

// PostgreSQL's text of a column's values in the form the source reads it, by our column type:
// dates as days and times/timestamps as microseconds since the epoch (or ±infinity), bytea
// as hex, lists as JSON arrays, everything else as its text.
inline std::string PgExpr(const Column& column) {
  const std::string q = QuoteIdent(column.name);
  // char(n) keeps its padding (as SELECT shows it; ::text would trim it).
  if (column.source_type.starts_with("character(")) return q;
  // Lists as JSON arrays (ListToJson); an array column dumped as its exact text as text.
  if (column.type.is_list()) return fmt::format("array_to_json({})::text", q);
  switch (column.type.id) {
    case TypeId::kBinary: return fmt::format("encode({}, 'hex')", q);
    case TypeId::kDate:
      return fmt::format("CASE WHEN isfinite({0}) THEN ({0} - DATE '1970-01-01')::text "
                         "ELSE {0}::text END", q);
    case TypeId::kTime:
      return fmt::format("(extract(epoch from {})*1000000)::numeric(30,0)::text", q);
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return fmt::format("CASE WHEN isfinite({0}) THEN "
                         "(extract(epoch from {0})*1000000)::numeric(30,0)::text "
                         "ELSE {0}::text END", q);
    // The type's output (what the source reads): inet's cast to text adds '/32', xml's keeps
    // an XML declaration's encoding, where their output functions do not.
    case TypeId::kString:
      return fmt::format("CASE WHEN {0} IS NOT NULL THEN pg_catalog.format('%s', {0}) END", q);
    default: return q + "::text";
  }
}

inline bool SameFloat(const std::string& ours, const std::string& pg, bool is_float4) {
  auto parse = [&](const std::string& s) {
    if (s == "NaN" || s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity" || s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity" || s == "-inf") return -std::numeric_limits<double>::infinity();
    return is_float4 ? static_cast<double>(std::strtof(s.c_str(), nullptr))
                     : std::strtod(s.c_str(), nullptr);
  };
  const double a = parse(ours), b = parse(pg);
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

// Table `t` in schema `s` (quoted) with a column of every PostgreSQL type the
// source maps (and several it reads as text), 7 rows of edge values: NULLs,
// extremes, ±infinity, NaN, unicode, empty and big text/bytea, BC dates.
// Column `id` (int8 primary key) numbers the rows 1..7.
inline Status CreateEveryTypeTable(PgConn& admin, const std::string& s) {
  return admin.Exec(fmt::format(R"SQL(
    CREATE TYPE {0}.mood AS ENUM ('sad', 'happy', 'très "bien"');
    CREATE DOMAIN {0}.money2 AS numeric(10,2) CHECK (VALUE > -1000000);
    CREATE DOMAIN {0}.shorttext AS varchar(8);
    CREATE TABLE {0}.t (
      id int8 PRIMARY KEY, b bool, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8,
      n38 numeric(38,10), n12 numeric(12,2), nneg numeric(3,-2), nsub numeric(2,5),
      ntiny numeric(38,20), nu numeric, nwide numeric(50,5), t text, vc varchar(10), bp char(5),
      nm name, by bytea, d date, ts timestamp, tstz timestamptz, tm time, u uuid, js json,
      jb jsonb, en {0}.mood, ip inet, net cidr, iv interval, arr int4[], tarr text[],
      m money, bits bit(4), dom {0}.money2, dom2 {0}.shorttext, tz timetz, oid_col oid,
      ch "char", mac macaddr, rng int4range, xm xml);
    INSERT INTO {0}.t (id) VALUES (1);
    INSERT INTO {0}.t VALUES (2, true, 32767, 2147483647, 9223372036854775807, 3.4028235e38,
      1.7976931348623157e308, 9999999999999999999999999999.9999999999, 9999999999.99, 99900,
      0.00099, 0.00000000000000000001,
      123456789012345678901234567890123456789012345.678901234567890,
      123456789012345678901234567890123456789012345.12345,
      '', '', 'a', 'x', '', '4713-11-24 BC', '200000-01-01 00:00:00', '2024-02-29 12:34:56.789012+05',
      '24:00:00', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '{{"a": [1, 2, {{"b": null}}]}}',
      '{{"a": [1, 2, {{"b": null}}]}}', 'happy', '192.168.0.1/24', '10.0.0.0/8',
      '1 year 2 mons 3 days 04:05:06.789', '{{1,NULL,3}}', '{{"a\"b","c,d",NULL}}', 12.34,
      B'1010', 12.34, 'abc', '12:00:00+02', 4294967295, 'z', '08:00:2b:01:02:03', '[1,5)',
      '<a>x</a>');
    INSERT INTO {0}.t VALUES (3, false, -32768, -2147483648, -9223372036854775808, '-Infinity',
      'NaN', -9999999999999999999999999999.9999999999, -9999999999.99, -99900, -0.00099,
      -0.00000000000000000001, 'NaN', -0.00001, 'héllo wörld ✓ 日本語 🎉', 'ünï', 'ab', 'ñ',
      '\x00ff10', '5874897-12-31', '4713-11-24 00:00:00 BC', '4713-11-24 00:00:00+00 BC',
      '00:00:00', '00000000-0000-0000-0000-000000000000', '[]', '{{"ü": "✓", "k": 1.50}}', 'très "bien"',
      '::1', '2001:db8::/32', '-1 days', '{{{{1,2}},{{3,4}}}}', '{{}}', -0.01, B'0000', 0.01, '', '00:00:00-14',
      0, ' ', 'ff:ff:ff:ff:ff:ff', 'empty', '');
    INSERT INTO {0}.t (id, f4, f8, d, ts, tstz, nu, n38, n12, t, by) VALUES
      (4, 'Infinity', '-Infinity', 'infinity', 'infinity', '-infinity', 'Infinity', 0, 0,
       repeat('xyz✓', 250000), decode(repeat('00ff10', 350000), 'hex')),
      (5, 1.5e-45, 5e-324, '-infinity', '-infinity', 'infinity', '-Infinity', 0.0000000001,
       -0.01, 'tab	newline
end', '\x5c');
    INSERT INTO {0}.t (id, nu, d, ts) VALUES (6, 0.000000000000000000000000000000000000000001,
      '1970-01-01', '1969-12-31 23:59:59.999999'), (7, -100000000000000000000, '0001-01-01', '0001-01-01 00:00:00');
  )SQL", s));
}

// pg_dump --data-only --inserts of one schema: the INSERT lines, sorted. pg_dump is the
// oracle of a round trip: it reads both databases without our code in between.
inline std::vector<std::string> PgDumpInserts(const std::string& conninfo,
                                              const std::string& schema) {
  const std::string cmd =
      fmt::format("pg_dump --data-only --inserts --schema='{}' --dbname=\"{}\" 2>&1", schema,
                  conninfo);
  FILE* p = popen(cmd.c_str(), "r");
  EXPECT_NE(p, nullptr);
  std::string text;
  if (p == nullptr) return {};
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) text.append(buf, n);
  EXPECT_EQ(pclose(p), 0) << text.substr(0, 2000);
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("INSERT INTO ")) lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

// Equal line lists; the first three differing lines are shown, shortened.
inline void ExpectSameLines(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  ASSERT_EQ(a.size(), b.size());
  int shown = 0;
  for (size_t i = 0; i < a.size() && shown < 3; ++i) {
    if (a[i] != b[i]) {
      ++shown;
      ADD_FAILURE() << "source: " << a[i].substr(0, 400) << "\ntarget: " << b[i].substr(0, 400);
    }
  }
}

}  // namespace lakedump::testing_pg
