// End to end against a real PostgreSQL (LD_TEST_PG_DSN): `lakedump dump postgres://...`
// of a table with every mapped type and edge values, and of a --query, read back by
// the three oracle readers (tests/interop) and compared value by value with what
// PostgreSQL itself returns; the PostgreSQL policy options and bad input.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/pg_test_util.h"
#include "table/temporal.h"

namespace lakedump {
namespace {

using json = nlohmann::json;
using testing_cli::ExpectOneLineError;
using testing_cli::InteropDir;
using testing_cli::Quote;
using testing_cli::ReadFile;
using testing_cli::ReadWithOracles;
using testing_cli::RunLakedump;
using testing_cli::RunResult;

// PostgreSQL's value as text from which Canonical() makes the oracle's form.
std::string PgExpr(const std::string& name, const std::string& type,
                   const std::string& source_type) {
  const std::string q = QuoteIdent(name);
  if (source_type.starts_with("character(")) return q;  // keeps its padding, as COPY sends it
  // A list: PostgreSQL's JSON of the array (an array column dumped as exact text: its text).
  if (type.starts_with("list<")) return fmt::format("array_to_json({})::text", q);
  if (source_type.ends_with("[]")) return q + "::text";
  if (type == "binary") return fmt::format("encode({}, 'hex')", q);
  // The type's output function, as the dump reads them (a cast to text of an inet keeps /32).
  if (source_type == "inet" || source_type == "cidr" || source_type == "xml") {
    return fmt::format("CASE WHEN {0} IS NOT NULL THEN format('%s', {0}) END", q);
  }
  if (type == "date") {
    return fmt::format(
        "CASE WHEN isfinite({0}) THEN ({0} - DATE '1970-01-01')::text ELSE {0}::text END", q);
  }
  if (type == "time") return fmt::format("(extract(epoch from {})*1000000)::numeric(30,0)::text", q);
  if (type == "timestamp" || type == "timestamptz") {
    return fmt::format("CASE WHEN isfinite({0}) THEN "
                       "(extract(epoch from {0})*1000000)::numeric(30,0)::text "
                       "ELSE {0}::text END", q);
  }
  return q + "::text";
}

// The canonical form (tests/interop/README.md) of PostgreSQL's text `pg` for our
// column type; infinities as the clamped extremes (the default --pg-infinity).
// Years past 9999 carry no '+' in the canonical form.
std::string NoPlus(std::string s) { return s.starts_with("+") ? s.substr(1) : s; }

std::string Canonical(const std::string& type, const std::string& pg) {
  if (type == "date") {
    if (pg == "infinity") return NoPlus(FormatDate(std::numeric_limits<int32_t>::max()));
    if (pg == "-infinity") return FormatDate(-std::numeric_limits<int32_t>::max());
    return NoPlus(FormatDate(static_cast<int32_t>(std::stol(pg))));
  }
  if (type == "time") return FormatTime(std::stoll(pg));
  if (type == "timestamp" || type == "timestamptz") {
    int64_t us = pg == "infinity"    ? std::numeric_limits<int64_t>::max()
                 : pg == "-infinity" ? -std::numeric_limits<int64_t>::max()
                                     : std::stoll(pg);
    return NoPlus(FormatTimestamp(us)) + (type == "timestamptz" ? "Z" : "");
  }
  return pg;
}

double ParseFloat(const json& v) {
  if (v.is_number()) return v.get<double>();
  const std::string s = v.get<std::string>();
  if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (s == "Infinity") return std::numeric_limits<double>::infinity();
  if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  return std::strtod(s.c_str(), nullptr);
}

class PostgresDumpCliTest : public testing_pg::PgScratchTest {
 protected:
  void SetUp() override {
    PgScratchTest::SetUp();
    if (Stopped()) return;
    UseScratchSchema();
  }

  std::string Dsn() const { return Quote(testing_pg::TestDsn()); }

  // Every file of the dumped table `table` read by the oracles, checked
  // against `SELECT ... FROM from ORDER BY 1`; returns the rows seen.
  size_t CheckAgainstPostgres(const std::string& dest, const std::string& table_key,
                              const std::string& from, const std::string& interop) {
    const json tm = json::parse(ReadFile(dest + "/" + table_key));
    std::vector<std::string> names, types;
    std::string sql = "SELECT ";
    for (const json& c : tm["columns"]) {
      names.push_back(c["name"]);
      types.push_back(c["type"]);
      if (names.size() > 1) sql += ", ";
      sql += PgExpr(c["name"], c["type"], c["source_type"]);
    }
    auto r = admin_->Query(sql + " FROM " + from + " ORDER BY 1");
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return 0;
    // Expected rows by id (column 0).
    std::map<std::string, int> by_id;
    for (int i = 0; i < PQntuples(r->get()); ++i) by_id[std::string(PgValue(r->get(), i, 0))] = i;
    size_t seen = 0;
    for (const json& f : tm["files"]) {
      const std::string file = dest + "/" + f["key"].get<std::string>();
      const std::vector<json> readers = ReadWithOracles(interop, file, dir_);
      if (readers.size() != 3) return seen;
      for (const json& rd : readers) {
        EXPECT_FALSE(rd.contains("error")) << rd.dump();
        if (rd.contains("error")) return seen;
        EXPECT_EQ(rd["rows"].size(), readers[0]["rows"].size()) << rd["reader"];
      }
      const json& duck = readers[0];
      for (size_t i = 0; i < duck["rows"].size(); ++i) {
        const std::string id = duck["rows"][i][0];
        EXPECT_TRUE(by_id.contains(id)) << "row id " << id << " not in PostgreSQL";
        if (!by_id.contains(id)) return seen;
        const int pg_row = by_id[id];
        ++seen;
        for (size_t c = 0; c < names.size(); ++c) {
          SCOPED_TRACE(fmt::format("{} row id {} column {} ({})", file, id, names[c], types[c]));
          const json& v = duck["rows"][i][c];
          // The other readers agree with DuckDB where they see the same type.
          for (size_t k = 1; k < readers.size(); ++k) {
            if (readers[k]["types"][c] == duck["types"][c]) {
              EXPECT_EQ(readers[k]["rows"][i][c], v) << readers[k]["reader"];
            }
          }
          const bool pg_null = PQgetisnull(r->get(), pg_row, static_cast<int>(c));
          EXPECT_EQ(v.is_null(), pg_null);
          if (pg_null || v.is_null()) continue;
          const std::string pg(PgValue(r->get(), pg_row, static_cast<int>(c)));
          if (types[c] == "float" || types[c] == "double") {
            // A float's canonical form is the shortest text that reads back as the same float.
            const bool f4 = types[c] == "float";
            const double a0 = ParseFloat(v), b0 = std::strtod(pg.c_str(), nullptr);
            const double a = f4 ? static_cast<double>(static_cast<float>(a0)) : a0;
            const double bb = f4 ? static_cast<double>(static_cast<float>(b0)) : b0;
            EXPECT_TRUE((std::isnan(a) && std::isnan(bb)) || a == bb) << v << " vs " << pg;
          } else if (types[c].starts_with("list<")) {
            // The oracle's list: its elements' canonical forms (strings for text and numbers).
            json want = json::array();
            for (const json& e : json::parse(pg)) {
              want.push_back(e.is_null() || e.is_string() || e.is_boolean() ? e : json(e.dump()));
            }
            EXPECT_EQ(v, want);
          } else if (types[c] == "json" && names[c] == "js") {
            EXPECT_EQ(v.get<std::string>(), pg);  // json keeps the text as written
          } else {
            const std::string want = Canonical(types[c], pg);
            const std::string got = v.is_boolean() ? (v.get<bool>() ? "true" : "false")
                                                   : v.get<std::string>();
            if (want.size() > 200) {
              EXPECT_EQ(got.size(), want.size());
              EXPECT_TRUE(got == want);
            } else {
              EXPECT_EQ(got, want);
            }
          }
        }
      }
    }
    return seen;
  }

  TempDir dir_;
};

TEST_F(PostgresDumpCliTest, EveryTypeAndAQueryReadBackByTheOraclesEqualPostgres) {
  const std::string interop = InteropDir();
  if (interop.empty()) GTEST_SKIP() << "LD_INTEROP_DIR with node_modules not found";
  ASSERT_TRUE(testing_pg::CreateEveryTypeTable(*admin_, schema_->q()).ok());
  const std::string dest = dir_.Sub("out");
  const std::string query =
      fmt::format("q1=SELECT id, i8 / 2 AS half, upper(t) AS \"Upper T\", n12 * 2 AS n12x2, "
                  "ts::date AS ts_day FROM {}.t WHERE id BETWEEN 2 AND 6;",
                  schema_->q());
  RunResult r = RunLakedump(fmt::format("dump {} {} --tables {} --query {} --json --progress none",
                                        Dsn(), Quote(dest), Quote(schema_->name() + ".*"),
                                        Quote(query)),
                            dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["tables"], 2);

  const json m = json::parse(ReadFile(dest + "/_manifest.json"));
  EXPECT_EQ(m["source"]["kind"], "postgresql");
  EXPECT_FALSE(m["source"]["snapshot_id"].get<std::string>().empty());
  EXPECT_FALSE(m["source"]["wal_lsn"].get<std::string>().empty());
  EXPECT_EQ(m["source"]["server_version_num"].get<int>() / 10000, 15);
  std::map<std::string, std::string> keys;
  for (const json& t : m["tables"]) keys[t["schema"].get<std::string>() + "." +
                                          t["table"].get<std::string>()] = t["key"];
  ASSERT_TRUE(keys.contains(schema_->name() + ".t")) << m.dump();
  ASSERT_TRUE(keys.contains("query.q1")) << m.dump();

  EXPECT_EQ(CheckAgainstPostgres(dest, keys[schema_->name() + ".t"], schema_->q() + ".t", interop),
            7u);
  // The query's result, with its types described by PostgreSQL (numeric(12,2) * 2 is an
  // unbounded numeric: a string by default).
  const json q1 = json::parse(ReadFile(dest + "/" + keys["query.q1"]));
  EXPECT_EQ(q1["query"].get<std::string>().find("SELECT id"), 0u);
  std::map<std::string, std::string> q1_types;
  for (const json& c : q1["columns"]) q1_types[c["name"]] = c["type"];
  EXPECT_EQ(q1_types["half"], "int64");
  EXPECT_EQ(q1_types["Upper T"], "string");
  EXPECT_EQ(q1_types["n12x2"], "string");
  EXPECT_EQ(q1_types["ts_day"], "date");
  EXPECT_NE(q1["ddl"].get<std::string>().find("\"Upper T\" text"), std::string::npos) << q1["ddl"];
  const std::string from = fmt::format(
      "(SELECT id, i8 / 2 AS half, upper(t) AS \"Upper T\", n12 * 2 AS n12x2, ts::date AS ts_day "
      "FROM {}.t WHERE id BETWEEN 2 AND 6) q",
      schema_->q());
  EXPECT_EQ(CheckAgainstPostgres(dest, keys["query.q1"], from, interop), 5u);
}

TEST_F(PostgresDumpCliTest, PolicyOptionsChangeTheMappingAndBadValuesAreUsageErrors) {
  ASSERT_TRUE(admin_->Exec(fmt::format(
      "CREATE TABLE {0}.p (id int PRIMARY KEY, nu numeric, n numeric(6,2), d date); "
      "INSERT INTO {0}.p VALUES (1, 1.5, 'NaN', 'infinity'), (2, 2.25, 1.25, '2020-01-01')",
      schema_->q())).ok());
  const std::string tables = Quote(schema_->name() + ".p");
  // Default: NaN in a decimal column is an error naming table, column and row.
  RunResult r = RunLakedump(fmt::format("dump {} {} --tables {} --progress none", Dsn(),
                                        Quote(dir_.Sub("a")), tables),
                            dir_);
  ExpectOneLineError(r, 1, "\"n\"");
  EXPECT_FALSE(std::filesystem::exists(dir_.Sub("a/_manifest.json")));
  // --pg-numeric-nan null, --pg-infinity null, --pg-numeric double.
  r = RunLakedump(fmt::format("dump {} {} --tables {} --progress none --pg-numeric-nan null "
                              "--pg-infinity null --pg-numeric double",
                              Dsn(), Quote(dir_.Sub("b")), tables),
                  dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  const json m = json::parse(ReadFile(dir_.Sub("b/_manifest.json")));
  const json t = json::parse(ReadFile(dir_.Sub("b/" + m["tables"][0]["key"].get<std::string>())));
  EXPECT_EQ(t["columns"][1]["type"], "double");
  EXPECT_EQ(t["rows"], 2);
  const std::string interop = InteropDir();
  if (!interop.empty()) {
    const auto readers = ReadWithOracles(
        interop, dir_.Sub("b/" + t["files"][0]["key"].get<std::string>()), dir_);
    ASSERT_EQ(readers.size(), 3u);
    const json& rows = readers[0]["rows"];
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0][1], 1.5);
    EXPECT_TRUE(rows[0][2].is_null());  // NaN -> null
    EXPECT_TRUE(rows[0][3].is_null());  // infinity -> null
    EXPECT_EQ(rows[1][2], "1.25");
  }
  // Bad policy values and a bad query are usage errors, nothing written.
  ExpectOneLineError(RunLakedump(fmt::format("dump {} {} --tables {} --pg-infinity sometimes",
                                             Dsn(), Quote(dir_.Sub("c")), tables),
                                 dir_),
                     2, "--pg-infinity");
  ExpectOneLineError(RunLakedump(fmt::format("dump {} {} --tables {} --pg-numeric 'decimal(38,99)'",
                                             Dsn(), Quote(dir_.Sub("c")), tables),
                                 dir_),
                     2, "--pg-numeric");
  ExpectOneLineError(
      RunLakedump(fmt::format("dump {} {} --tables {} --query {}", Dsn(), Quote(dir_.Sub("c")),
                              tables, Quote("bad=SELEC 1")),
                  dir_),
      2, "--query bad");
  ExpectOneLineError(
      RunLakedump(fmt::format("dump {} {} --tables {} --query {}", Dsn(), Quote(dir_.Sub("c")),
                              tables, Quote("dup=SELECT 1 AS x, 2 AS x")),
                  dir_),
      2, "distinct aliases");
  EXPECT_FALSE(std::filesystem::exists(dir_.Sub("c/_manifest.json")));
}

// A table with no columns holds rows PostgreSQL can count but Parquet cannot carry
// (rows live only in column data): the dump fails naming it and the way out, instead
// of writing a file its own verify refuses. One without rows dumps and verifies.
TEST_F(PostgresDumpCliTest, AZeroColumnTableWithRowsFailsNamingItAndTheExclude) {
  const std::string s = schema_->name();
  ASSERT_TRUE(admin_->Exec(fmt::format("CREATE TABLE {0}.nocols (); INSERT INTO {0}.nocols DEFAULT "
                                       "VALUES; INSERT INTO {0}.nocols DEFAULT VALUES; "
                                       "CREATE TABLE {0}.empty_nocols (); "
                                       "CREATE TABLE {0}.t (a int4); INSERT INTO {0}.t VALUES (1)",
                                       schema_->q()))
                  .ok());
  const std::string dest = dir_.Sub("d");
  RunResult d = RunLakedump(fmt::format("dump '{}' '{}' --tables '{}.*' --progress none",
                                        testing_pg::TestDsn(), dest, s),
                            dir_);
  testing_cli::ExpectOneLineError(
      d, 1,
      fmt::format("table {0}.nocols has no columns but 2 rows: Parquet cannot hold rows without "
                  "columns (leave it out with --exclude {0}.nocols)",
                  s));
  RunResult ok = RunLakedump(fmt::format("dump '{}' '{}' --tables '{}.*' --exclude '{}.nocols' "
                                         "--if-exists overwrite --progress none",
                                         testing_pg::TestDsn(), dest, s, s),
                             dir_);
  ASSERT_EQ(ok.code, 0) << ok.out << ok.err;
  RunResult v = RunLakedump("verify --deep '" + dest + "'", dir_);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
}

}  // namespace
}  // namespace lakedump
