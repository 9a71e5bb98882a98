// End-to-end tests of `lakedump load` (the real binary): SQLite -> dump -> load
// into a new SQLite file compares equal table by table; --if-exists fail /
// replace / append; a dump without a manifest; a failure or SIGKILL midway
// leaves no half-loaded table; DuckDB-written Parquet files with a hand-written
// manifest load with the values DuckDB reads.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "base/checksum.h"
#include "fakes/cli_run.h"
#include "fakes/fs_events.h"
#include "fakes/temp_dir.h"
#include "source/sqlite/sqlite_database.h"
#include "source/sqlite/sqlite_text.h"
#include "source/sqlite_test_util.h"

namespace lakedump {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Rows = std::vector<std::string>;

using namespace testing_cli;

RunResult RunLd(const std::string& args, const TempDir& tmp) { return RunLakedump(args, tmp); }

std::string QuoteId(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

struct Db {
  explicit Db(const std::string& path) {
    EXPECT_EQ(sqlite3_open(path.c_str(), &h), SQLITE_OK) << path;
  }
  ~Db() { sqlite3_close(h); }
  void Exec(const std::string& sql) {
    char* err = nullptr;
    ASSERT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK)
        << (err ? err : "") << " in " << sql;
  }
  // Every row of a query; each value as storage class + text, so 1 and '1'
  // differ.
  // kind per column: 'u' UUID, 't' timestamp (compared as the instant), else raw.
  Rows Query(const std::string& sql, const std::string& kinds = "") {
    Rows rows;
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
      ADD_FAILURE() << sqlite3_errmsg(h) << " in " << sql;
      return rows;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
      std::string row;
      for (int c = 0; c < sqlite3_column_count(st); ++c) {
        row += c ? "|" : "";
        const int t = sqlite3_column_type(st, c);
        const char kind = static_cast<size_t>(c) < kinds.size() ? kinds[c] : ' ';
        const bool uuid = kind == 'u';
        std::optional<ParsedTimestamp> instant;
        if (kind == 't' && t == SQLITE_TEXT) {
          instant = ParseSqliteTimestamp(
              reinterpret_cast<const char*>(sqlite3_column_text(st, c)));
        }
        if (t == SQLITE_NULL) {
          row += "NULL";
        } else if (t == SQLITE_BLOB && !(uuid && sqlite3_column_bytes(st, c) == 16)) {
          const auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(st, c));
          row += "x'";
          for (int i = 0; i < sqlite3_column_bytes(st, c); ++i) row += fmt::format("{:02x}", p[i]);
          row += "'";
        } else if (instant) {
          // An offset (+14:00) comes back as the same instant in UTC (Z).
          row += fmt::format("instant:{}", instant->micros);
        } else if (uuid) {
          // A UUID is one logical value whether stored as 16 bytes or as text.
          std::string hex;
          if (t == SQLITE_BLOB) {
            const auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(st, c));
            for (int i = 0; i < 16; ++i) hex += fmt::format("{:02x}", p[i]);
          } else {
            for (char ch : std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, c)))) {
              if (ch != '-' && ch != '{' && ch != '}') {
                hex += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
              }
            }
          }
          row += "uuid:" + hex;
        } else if (t == SQLITE_FLOAT) {
          row += fmt::format("r:{}", sqlite3_column_double(st, c));
        } else {
          row += (t == SQLITE_INTEGER ? "i:" : "t:");
          row += reinterpret_cast<const char*>(sqlite3_column_text(st, c));
        }
      }
      rows.push_back(row);
    }
    sqlite3_finalize(st);
    return rows;
  }
  std::vector<std::string> Tables() {
    Rows r = Query(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE "
        "'sqlite_%' ORDER BY name");
    for (std::string& s : r) s = s.substr(2);
    return r;
  }
  // Every row of a table, sorted, all columns.
  Rows Table(const std::string& table) {
    std::string kinds;
    for (const std::string& t :
         Query("SELECT type FROM pragma_table_info(" + std::string("'") + table + "')")) {
      const bool ts = t.find("TIMESTAMP") != std::string::npos || t == "t:DATETIME";
      kinds.push_back(t == "t:UUID" ? 'u' : ts ? 't' : ' ');
    }
    Rows rows = Query("SELECT * FROM " + QuoteId(table), kinds);
    std::sort(rows.begin(), rows.end());
    return rows;
  }
  int64_t Count(const std::string& table) {
    Rows r = Query("SELECT count(*) FROM " + QuoteId(table));
    return r.empty() ? -1 : std::stoll(r[0].substr(2));
  }
  sqlite3* h = nullptr;
};

// A demo database plus a table of edge values.
void AddEdgeTable(const std::string& path) {
  Db db(path);
  db.Exec(
      "CREATE TABLE edge_values (id INTEGER, i BIGINT, small SMALLINT, d DOUBLE, f FLOAT4, s TEXT, "
      "v VARCHAR(10), b BLOB, n NUMERIC(12,4), wide NUMERIC(38,6), dt DATE, ts TIMESTAMP, "
      "tz TIMESTAMPTZ, tm TIME, u UUID, j JSON, ok BOOLEAN, anything, num NUMERIC)");
  db.Exec(
      "INSERT INTO edge_values VALUES "
      "(1, 9223372036854775807, 32767, 1.7976931348623157e308, 3.5, 'héllo ✓ 日本語 🎉', '', "
      "x'00ff00', 12345678.1234, 12345678901234.5, '2024-02-29', '2024-02-29 23:59:59', "
      "'2024-02-29T23:59:59.123456Z', '23:59:59.999999', '0123abcd-0000-4000-8000-00000000abcd', "
      "'{\"k\": [1, 2, {\"x\": null}]}', 1, 'free text', 12345678901234567),"
      "(2, -9223372036854775808, -32768, -4.9e-324, -0.25, '', 'tab\there', x'', -0.0001, "
      "-99999999.999999, '0001-01-01', '1970-01-01 00:00:00', '1969-12-31T23:59:59Z', "
      "'00:00:00', '00000000-0000-0000-0000-000000000000', '[]', 0, '', -9223372036854775808),"
      "(3, 0, 0, 0.0, 0.0, 'quote '' and \" and \\ and %', 'x', zeroblob(300000), 0, 0, "
      "'9999-12-31', '9999-12-31 23:59:59.5', '2000-01-01T00:00:00Z', '12:00:00.5', NULL, "
      "'\"str\"', NULL, 'x', 1.25),"
      "(4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
      "NULL, NULL, NULL, NULL),"
      "(5, 1, 2, 1e-300, 1e10, 'line\nbreak', 'ü', randomblob(1000000), 99999999.9999, 1.5, "
      "'1999-12-31', '1999-12-31 12:34:56.000001', '1999-12-31T12:34:56.5Z', '01:02:03.000004', "
      "'ffffffff-ffff-ffff-ffff-ffffffffffff', '{}', 1, 'ü', 9007199254740993)");
}

class LoadCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ = new TempDir();
    db_ = tmp_->Sub("demo.sqlite");
    dump_ = tmp_->Sub("dump");
    RunResult r = RunLd("demo " + db_ + " --rows 20000 --small-tables 5 --seed 11", *tmp_);
    ASSERT_EQ(r.code, 0) << r.err;
    AddEdgeTable(db_);
    // Small row groups and files: store_orders_fact spans several files.
    r = RunLd("dump " + db_ + " " + dump_ + " --row-group-size 2000 --file-size 200KiB", *tmp_);
    ASSERT_EQ(r.code, 0) << r.err;
  }
  static void TearDownTestSuite() {
    delete tmp_;
    tmp_ = nullptr;
  }

  // Every table of the source equals the target's, and the target has no other
  // table.
  void ExpectSameTables(const std::string& target) {
    Db src(db_), dst(target);
    ASSERT_EQ(dst.Tables(), src.Tables());
    for (const std::string& t : src.Tables()) {
      const Rows a = src.Table(t), b = dst.Table(t);
      ASSERT_EQ(a.size(), b.size()) << t;
      for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]) << t << " sorted row " << i;
    }
  }

  static TempDir* tmp_;
  static std::string db_;
  static std::string dump_;
  TempDir dir_;
};
TempDir* LoadCliTest::tmp_ = nullptr;
std::string LoadCliTest::db_;
std::string LoadCliTest::dump_;

TEST_F(LoadCliTest, RoundTripEqualsEveryTable) {
  const std::string target = dir_.Sub("copy.sqlite");
  // Our own dump, trusted: the source's recorded DDL comes back byte for byte.
  RunResult r = RunLd("load " + dump_ + " " + target + " --json -j 3 --trust-dump", dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  const json summary = json::parse(r.out);
  EXPECT_EQ(summary["status"], "ok");
  const json manifest = json::parse(ReadFile(dump_ + "/_manifest.json"));
  EXPECT_EQ(summary["rows"], manifest["totals"]["rows"]);
  EXPECT_EQ(summary["tables"], manifest["tables"].size());
  EXPECT_EQ(summary["files"], manifest["totals"]["files"]);
  EXPECT_GT(summary["files"].get<int>(), static_cast<int>(manifest["tables"].size()));
  ExpectSameTables(target);
  // Declared types and constraints come from the source's DDL; SQLite's RENAME quotes the name.
  Db src(db_), dst(target);
  auto ddl = [](Db& db) {
    Rows rows = db.Query("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE "
                         "'sqlite_%' ORDER BY name");
    for (std::string& r : rows) r.erase(std::remove(r.begin(), r.end(), '"'), r.end());
    return rows;
  };
  EXPECT_EQ(ddl(dst), ddl(src));
  // The copy dumps again to the same rows (the round trip is stable).
  const std::string dump2 = dir_.Sub("dump2");
  r = RunLd("dump " + target + " " + dump2 + " --json", dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  const json m2 = json::parse(ReadFile(dump2 + "/_manifest.json"));
  EXPECT_EQ(m2["totals"]["rows"], manifest["totals"]["rows"]);
}

TEST_F(LoadCliTest, IfExistsFailReplaceAppend) {
  const std::string target = dir_.Sub("t.sqlite");
  ASSERT_EQ(RunLd("load " + dump_ + " " + target + " --progress none", dir_).code, 0);
  Db(target).Exec("DELETE FROM store_orders_fact WHERE rowid % 2 = 0");

  RunResult r = RunLd("load " + dump_ + " " + target, dir_);
  ExpectOneLineError(r, 1, "already exists");
  EXPECT_NE(r.err.find("--if-exists"), std::string::npos) << r.err;

  r = RunLd("load " + dump_ + " " + target + " --if-exists replace", dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("loaded "), std::string::npos) << r.out;
  ExpectSameTables(target);

  const int64_t before = Db(target).Count("store_orders_fact");
  r = RunLd("load " + dump_ + " " + target +
                " --if-exists append --tables store_orders_fact,"
                "edge_values",
            dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Db(target).Count("store_orders_fact"), 2 * before);
  EXPECT_EQ(Db(target).Count("edge_values"), 10);
  // Appending rows whose keys exist fails and leaves the table as it was.
  const int64_t stores = Db(target).Count("store_dimension");
  r = RunLd("load " + dump_ + " " + target + " --if-exists append --tables store_dimension", dir_);
  ExpectOneLineError(r, 1, "UNIQUE");
  EXPECT_EQ(Db(target).Count("store_dimension"), stores);
  EXPECT_TRUE(Db(target)
                  .Query("SELECT name FROM sqlite_schema WHERE name LIKE "
                         "'\\_lakedump%' ESCAPE '\\'")
                  .empty());
}

TEST_F(LoadCliTest, BadUsageAndMissingManifest) {
  ExpectOneLineError(
      RunLd("load " + dump_ + " " + dir_.Sub("x.sqlite") + " --if-exists skip", dir_), 2,
      "--if-exists");
  ExpectOneLineError(RunLd("load " + dump_ + " " + dir_.Sub("x.sqlite") + " --tables nope", dir_),
                     2, "unknown table nope");
  ExpectOneLineError(RunLd("load " + dump_ + " " + dir_.Sub("x.txt"), dir_), 2,
                     "not a SQLite file name");
  // A PostgreSQL target that refuses the connection: one line, never the password.
  RunResult refused = RunLd("load " + dump_ + " postgres://u:secretpw@127.0.0.1:1/db", dir_);
  ExpectOneLineError(refused, 1, "cannot connect to PostgreSQL");
  EXPECT_EQ(refused.err.find("secretpw"), std::string::npos) << refused.err;
  fs::create_directories(dir_.Sub("nodump"));
  fs::copy(dump_, dir_.Sub("nodump"), fs::copy_options::recursive);
  fs::remove(dir_.Sub("nodump/_manifest.json"));
  const std::string target = dir_.Sub("none.sqlite");
  RunResult r = RunLd("load " + dir_.Sub("nodump") + " " + target, dir_);
  ExpectOneLineError(r, 1, "no dump at");
  EXPECT_NE(r.err.find("no _manifest.json"), std::string::npos);
  EXPECT_FALSE(fs::exists(target));  // refused before the target is created
  r = RunLd("load --help", dir_);
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("--schema-map"), std::string::npos);
  EXPECT_NE(r.out.find("Examples"), std::string::npos);
}

TEST_F(LoadCliTest, BrokenFileMidwayLeavesNoHalfLoadedTable) {
  const std::string copy = dir_.Sub("broken");
  fs::copy(dump_, copy, fs::copy_options::recursive);
  const json t = json::parse(ReadFile(copy + "/main/store_orders_fact/_table.json"));
  ASSERT_GE(t["files"].size(), 2u);
  // The last file: garbage of the same size, so earlier files' rows are already
  // staged.
  const std::string key = t["files"].back()["key"];
  const uint64_t size = t["files"].back()["bytes"];
  WriteFile(copy + "/" + key, std::string(size, '\x5a'));
  const std::string target = dir_.Sub("half.sqlite");
  RunResult r = RunLd("load " + copy + " " + target + " -j 1", dir_);
  ExpectOneLineError(r, 1, key);
  Db db(target);
  for (const std::string& name : db.Tables()) {
    EXPECT_NE(name, "store_orders_fact");
    EXPECT_EQ(name.rfind("_lakedump", 0), std::string::npos) << name;
  }
}

TEST_F(LoadCliTest, KilledMidwayThenReplaceRecovers) {
  const std::string target = dir_.Sub("killed.sqlite");
  Db src(db_);
  std::map<std::string, int64_t> rows;
  for (const std::string& t : src.Tables()) rows[t] = src.Count(t);
  // Killed after the 1st, 4th and 16th batch of changes to the target's files (the journal
  // and the database: early, midway, late), not after a time.
  for (int changes : {1, 4, 16}) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      execl(LAKEDUMP_BINARY, LAKEDUMP_BINARY, "load", dump_.c_str(), target.c_str(), "--if-exists",
            "replace", "--batch-rows", "500", "--progress", "none", static_cast<char*>(nullptr));
      _exit(127);
    }
    int seen = -1;  // the first check comes before any change
    WaitForFiles(dir_.path(), /*recursive=*/false, pid, [&] { return ++seen >= changes; });
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    // Whatever got committed is complete; nothing is half there under its own
    // name.
    Db db(target);
    for (const std::string& name : db.Tables()) {
      if (name.rfind("_lakedump_load_", 0) == 0) continue;  // staging: dropped by the next run
      ASSERT_TRUE(rows.count(name)) << name;
      EXPECT_EQ(db.Count(name), rows[name]) << name << " after a kill at change " << changes;
    }
  }
  RunResult r = RunLd("load " + dump_ + " " + target + " --if-exists replace", dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  ExpectSameTables(target);  // includes: no staging table left
}

TEST_F(LoadCliTest, SchemaMapAndExclude) {
  const std::string target = dir_.Sub("some.sqlite");
  RunResult r = RunLd("load " + dump_ + " " + target +
                          " --schema-map main=public --exclude 'small_*,store_*' --json",
                      dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  const json s = json::parse(r.out);
  for (const json& t : s["loaded"]) {
    EXPECT_EQ(t["target"].get<std::string>().rfind("public.", 0), 0u) << t;
    EXPECT_EQ(t["source"].get<std::string>().rfind("main.store_", 0), std::string::npos) << t;
  }
  const auto tables = Db(target).Tables();
  EXPECT_EQ(std::count(tables.begin(), tables.end(), "store_orders_fact"), 0);
  EXPECT_EQ(std::count(tables.begin(), tables.end(), "edge_values"), 1);
}

// DuckDB-written Parquet (tests/data/duckdb, made by
// tests/interop/make_duckdb_files.mjs) as two files of one table, with a
// hand-written _table.json and _manifest.json.
TEST(LoadDuckdbTest, DuckdbParquetWithHandWrittenManifest) {
  TempDir dir;
  const std::string data = std::string(LAKEDUMP_SOURCE_DIR) + "/tests/data/duckdb/";
  const std::string dump = dir.Sub("dump");
  fs::create_directories(dump + "/ext/duck");
  const std::vector<std::string> files = {"duckdb_default.parquet",
                                          "duckdb_zstd_small_groups.parquet"};
  json jfiles = json::array();
  for (const std::string& f : files) {
    fs::copy_file(data + f, dump + "/ext/duck/" + f);
    jfiles.push_back({{"key", "ext/duck/" + f},
                      {"rows", 3000},
                      {"bytes", fs::file_size(data + f)},
                      {"xxh64", Xxh64Hex(ReadFile(data + f))}});  // as `xxhsum` prints it
  }
  const std::vector<std::pair<std::string, std::string>> columns = {{"id", "int32"},
                                                                    {"c_bool", "bool"},
                                                                    {"c_int8", "int8"},
                                                                    {"c_int16", "int16"},
                                                                    {"c_int32", "int32"},
                                                                    {"c_int64", "int64"},
                                                                    {"c_float", "float"},
                                                                    {"c_double", "double"},
                                                                    {"c_dec4", "decimal(4,2)"},
                                                                    {"c_dec18", "decimal(18,6)"},
                                                                    {"c_dec38", "decimal(38,10)"},
                                                                    {"c_string", "string"},
                                                                    {"c_blob", "binary"},
                                                                    {"c_date", "date"},
                                                                    {"c_time", "time"},
                                                                    {"c_ts", "timestamp"},
                                                                    {"c_tstz", "timestamptz"},
                                                                    {"c_uuid", "uuid"},
                                                                    {"c_u8", "int16"},
                                                                    {"c_u16", "int32"},
                                                                    {"c_u32", "int64"},
                                                                    {"c_u64", "decimal(20,0)"},
                                                                    {"c_ts_ms", "timestamp"},
                                                                    {"c_ts_ns", "timestamp"}};
  json jcols = json::array();
  for (const auto& [name, type] : columns) {
    jcols.push_back({{"name", name}, {"type", type}, {"nullable", true}, {"source_type", ""}});
  }
  const json table = {{"format", "lakedump-dump"},
                      {"format_version", 1},
                      {"schema", "ext"},
                      {"table", "duck"},
                      {"columns", jcols},
                      {"ddl", ""},
                      {"primary_key", json::array()},
                      {"files", jfiles},
                      {"rows", 6000}};
  WriteFile(dump + "/ext/duck/_table.json", table.dump());
  const json manifest = {{"format", "lakedump-dump"},
                         {"format_version", 1},
                         {"dump_id", "hand-written"},
                         {"source", {{"kind", "duckdb"}}},
                         {"tables",
                          {{{"schema", "ext"},
                            {"table", "duck"},
                            {"key", "ext/duck/_table.json"},
                            {"rows", 6000},
                            {"files", 2},
                            {"bytes", 0}}}},
                         {"totals", {{"rows", 6000}, {"files", 2}, {"bytes", 0}}}};
  WriteFile(dump + "/_manifest.json", manifest.dump());

  const std::string target = dir.Sub("duck.sqlite");
  RunResult r = RunLd("load " + dump + " " + target, dir);
  ASSERT_EQ(r.code, 0) << r.err;

  // What DuckDB reads from the files, against what lakedump's SQLite source
  // reads back.
  const json expected = json::parse(ReadFile(data + "expected.duckdb.json"));
  auto db = OpenSqliteDatabase(target, {});
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  const auto rows = testing_sqlite::ReadTable(**db, "duck");
  ASSERT_EQ(rows.size(), 6000u);
  ASSERT_EQ(expected["rows"].size(), 3000u);
  for (size_t i = 0; i < rows.size(); ++i) {
    const json& want = expected["rows"][i % 3000];
    for (size_t c = 0; c < columns.size(); ++c) {
      const json& w = want[c];
      const std::string& got = rows[i][c];
      const std::string what = fmt::format("row {} column {}", i, columns[c].first);
      if (w.is_null()) {
        EXPECT_EQ(got, "NULL") << what;
      } else if (w.is_boolean()) {
        EXPECT_EQ(got, w.get<bool>() ? "true" : "false") << what;
      } else if (w.is_number()) {
        EXPECT_EQ(std::stod(got), w.get<double>()) << what;
      } else if (columns[c].second == "binary") {
        EXPECT_EQ(got, "0x" + w.get<std::string>()) << what;
      } else {
        std::string s = w.get<std::string>();
        if (columns[c].second == "timestamptz" && !s.empty() && s.back() == 'Z') s.pop_back();
        EXPECT_EQ(got, s) << what;
      }
    }
  }
  // A few values as SQLite users see them.
  Db raw(target);
  EXPECT_EQ(raw.Query("SELECT c_ts, c_tstz, c_dec38, typeof(c_blob) FROM duck "
                      "WHERE id = 1 LIMIT "
                      "1"),
            Rows{"t:1969-07-20 21:17:40.123457|t:2000-01-01T00:01:26.400001Z|"
                 "t:98765432109876543210.0000000000|t:blob"});
}

}  // namespace
}  // namespace lakedump
