// The CLI round trips with a PostgreSQL source: lakedump dump -> lakedump load
// into a second PostgreSQL database (compared with pg_dump --inserts) and into
// SQLite; and through S3 (radosgw): dump to s3://, verify there (clean, then with a
// flipped byte and a stray object put by awscli), load from s3://.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/pg_test_util.h"
#include "integration/s3_test_env.h"

namespace lakedump {
namespace {

using testing_cli::Quote;
using testing_cli::ReadFile;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_cli::WriteFile;
using testing_pg::ExpectSameLines;
using testing_pg::PgDumpInserts;

using testing_pg::AdminConn;
using testing_pg::ConninfoWith;
using testing_pg::QueryOne;
using testing_pg::ScratchDatabase;
using testing_pg::ScratchSchema;

// A source schema with a mix of types, a key, an odd table name and 3000 rows.
void CreateSource(PgConn& admin, const std::string& s) {
  ASSERT_TRUE(admin.Exec(fmt::format(R"SQL(
    CREATE TABLE {0}.orders (id int8 GENERATED ALWAYS AS IDENTITY PRIMARY KEY, qty int4 NOT NULL,
      price numeric(12,2), note text, at timestamptz, day date, tags text[], payload jsonb,
      ip inet, u uuid, raw bytea, ratio float8, unbounded numeric);
    INSERT INTO {0}.orders (qty, price, note, at, day, tags, payload, ip, u, raw, ratio, unbounded)
    SELECT g, g * 1.25, CASE WHEN g % 7 = 0 THEN NULL ELSE 'note ✓ ' || g END,
           TIMESTAMPTZ '2024-01-01 00:00:00+00' + g * INTERVAL '1 minute',
           CASE WHEN g = 1 THEN DATE 'infinity' ELSE DATE '2000-01-01' + g END,
           ARRAY['a' || g, NULL, 'q"uote'], jsonb_build_object('g', g, 'h', 'x'),
           ('10.0.' || (g % 256) || '.1')::inet, md5(g::text)::uuid, decode(md5(g::text), 'hex'),
           g / 3.0, CASE WHEN g = 2 THEN 'NaN'::numeric ELSE g * 1000000000000.000001 END
    FROM generate_series(1, 3000) g;
    CREATE TABLE {0}."Mixed Case ""q""" ("Key" int4 PRIMARY KEY, v varchar(5));
    INSERT INTO {0}."Mixed Case ""q""" VALUES (1, 'a'), (2, NULL), (3, 'ééééé');
  )SQL", s)).ok());
}

// pg_dump --inserts of the source schema, as a loaded copy must print it. Documented
// difference: the dump records GENERATED ALWAYS identity columns as BY DEFAULT
// (pg_catalog.cc), so pg_dump of the target lacks OVERRIDING SYSTEM VALUE. Values are equal.
std::vector<std::string> SourceInserts(const std::string& schema) {
  auto source = PgDumpInserts(testing_pg::TestDsn(), schema);
  EXPECT_EQ(source.size(), 3003u);
  for (std::string& line : source) {
    const size_t at = line.find(" OVERRIDING SYSTEM VALUE");
    if (at != std::string::npos) line.erase(at, 24);
  }
  std::sort(source.begin(), source.end());
  return source;
}

TEST(PostgresLoadCliTest, PostgresToDumpToPostgres) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  ScratchSchema schema(admin.get());
  CreateSource(*admin, schema.q());
  TempDir dir;
  RunResult dump = RunLakedump(fmt::format("dump '{}' '{}' --tables '{}.*' --file-size 64KiB --progress none",
                                  testing_pg::TestDsn(), dir.Sub("d"), schema.name()), dir);
  ASSERT_EQ(dump.code, 0) << dump.out << dump.err;

  ScratchDatabase db(admin.get());
  const std::string url = db.conninfo();
  RunResult load =
      RunLakedump(fmt::format("load '{}' \"{}\" --progress none", dir.Sub("d"), url), dir);
  EXPECT_EQ(load.code, 0) << load.out << load.err;
  const auto source = SourceInserts(schema.name());
  ExpectSameLines(source, PgDumpInserts(url, schema.name()));

  // Again: the table exists -> a clear error and exit 1; with replace it works.
  RunResult again =
      RunLakedump(fmt::format("load '{}' \"{}\" --progress none", dir.Sub("d"), url), dir);
  EXPECT_EQ(again.code, 1) << again.out << again.err;
  EXPECT_NE(again.err.find("already exists in the target (use --if-exists replace|append)"),
            std::string::npos)
      << again.out << again.err;
  RunResult replace = RunLakedump(fmt::format("load '{}' \"{}\" --if-exists replace --progress none",
                                     dir.Sub("d"), url), dir);
  EXPECT_EQ(replace.code, 0) << replace.out << replace.err;
  ExpectSameLines(source, PgDumpInserts(url, schema.name()));

  // A refused target: one line, exit 1.
  RunResult refused = RunLakedump(fmt::format("load '{}' postgresql://nobody:secret-pw@127.0.0.1:1/x "
                                     "--progress none",
                                     dir.Sub("d")), dir);
  EXPECT_NE(refused.code, 0);
  EXPECT_EQ((refused.out + refused.err).find("secret-pw"), std::string::npos) << refused.out << refused.err;
}

TEST(PostgresLoadCliTest, PostgresToDumpToSqlite) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  ScratchSchema schema(admin.get());
  CreateSource(*admin, schema.q());
  TempDir dir;
  RunResult dump = RunLakedump(fmt::format("dump '{}' '{}' --tables '{}.*' --progress none",
                                  testing_pg::TestDsn(), dir.Sub("d"), schema.name()), dir);
  ASSERT_EQ(dump.code, 0) << dump.out << dump.err;
  const std::string path = dir.Sub("out.sqlite");
  RunResult load = RunLakedump(
      fmt::format("load '{}' 'sqlite://{}' --progress none", dir.Sub("d"), path), dir);
  ASSERT_EQ(load.code, 0) << load.out << load.err;
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  auto one = [&](const std::string& sql) {
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK)
        << sql << ": " << sqlite3_errmsg(db);
    std::string out;
    if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
      out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    return out;
  };
  EXPECT_EQ(one("SELECT count(*) || ' ' || sum(qty) || ' ' || count(note) FROM orders"),
            QueryOne(*admin, fmt::format("SELECT count(*) || ' ' || sum(qty) || ' ' || "
                                         "count(note) FROM {}.orders",
                                         schema.q())));
  EXPECT_EQ(one("SELECT count(*) FROM \"Mixed Case \"\"q\"\"\""), "3");
  sqlite3_close(db);
}

// PostgreSQL -> s3:// -> verify on s3:// -> load from s3:// -> PostgreSQL.
TEST(PostgresLoadCliTest, PostgresToS3DumpVerifiedThereAndLoadedBack) {
  LD_REQUIRE_PG();
  const auto test_s3 = testing_s3::UseTestS3();
  if (!test_s3) GTEST_SKIP() << "LD_TEST_S3_* not set";
  const std::string& endpoint = test_s3->endpoint;
  const std::string& bucket = test_s3->bucket;
  TempDir dir;
  auto aws = [&](const std::string& args) {
    int rc = -1;
    const std::string out = test_s3->Aws(args, dir, &rc);
    EXPECT_EQ(rc, 0) << args << ": " << out;
    return out;
  };
  const std::string prefix = fmt::format("pg-round-trip-{}", getpid());
  const std::string url = "s3://" + bucket + "/" + prefix;
  const std::string s3 = " --endpoint " + endpoint;

  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  ScratchSchema schema(admin.get());
  CreateSource(*admin, schema.q());
  RunResult dump = RunLakedump(fmt::format("dump '{}' {} --tables '{}.*' --file-size 64KiB "
                                           "--progress none{}",
                                           testing_pg::TestDsn(), url, schema.name(), s3),
                               dir);
  ASSERT_EQ(dump.code, 0) << dump.out << dump.err;
  RunResult verify = RunLakedump("verify " + url + " --deep" + s3, dir);
  EXPECT_EQ(verify.code, 0) << verify.out << verify.err;

  {
    ScratchDatabase db(admin.get());
    RunResult load = RunLakedump(fmt::format("load {} \"{}\" --table-parallelism 2 "
                                             "--progress none{}",
                                             url, db.conninfo(), s3),
                                 dir);
    EXPECT_EQ(load.code, 0) << load.out << load.err;
    ExpectSameLines(SourceInserts(schema.name()), PgDumpInserts(db.conninfo(), schema.name()));
  }

  // Damage on the server, made by awscli: one data file with a flipped byte, one stray object.
  const std::string keys = aws("s3api list-objects-v2 --bucket " + bucket + " --prefix " + prefix +
                               " --query \"Contents[?ends_with(Key, '.parquet')].Key\" "
                               "--output json");
  const nlohmann::json key_list = nlohmann::json::parse(keys, nullptr, false);
  std::string victim;
  if (key_list.is_array() && !key_list.empty()) victim = key_list[0].get<std::string>();
  ASSERT_FALSE(victim.empty()) << keys;
  const std::string local = dir.Sub("victim.parquet");
  aws("s3 cp --only-show-errors s3://" + bucket + "/" + Quote(victim) + " " + local);
  std::string bytes = ReadFile(local);
  ASSERT_GT(bytes.size(), 100u);
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x01);
  WriteFile(local, bytes);
  aws("s3 cp --only-show-errors " + local + " s3://" + bucket + "/" + Quote(victim));
  aws("s3 cp --only-show-errors " + local + " " + url + "/stray.parquet");
  verify = RunLakedump("verify " + url + " --json" + s3, dir);
  EXPECT_EQ(verify.code, 1) << verify.out << verify.err;
  const nlohmann::json report = nlohmann::json::parse(verify.out, nullptr, false);
  std::vector<std::string> kinds;
  if (report.is_object()) {
    for (const auto& p : report["problems"]) {
      kinds.push_back(p["kind"].get<std::string>() + " " + p["key"].get<std::string>());
    }
  }
  const std::string relative = victim.substr(prefix.size() + 1);
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "checksum " + relative), kinds.end())
      << verify.out;
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "stray stray.parquet"), kinds.end())
      << verify.out;
  // A load of the damaged dump fails and names the file; nothing is half-loaded.
  ScratchDatabase damaged(admin.get());
  RunResult load = RunLakedump(
      fmt::format("load {} \"{}\" --progress none{}", url, damaged.conninfo(), s3), dir);
  EXPECT_EQ(load.code, 1) << load.out << load.err;
  EXPECT_NE(load.err.find(relative), std::string::npos) << load.err;
  aws("s3 rm --recursive --only-show-errors " + url);
}

// ANALYZE after a committed table is statistics, not data: when it fails (here an
// expression index whose function refuses to run under ANALYZE), the load warns in one
// line naming the table and exits 0, and the rows are in.
TEST(PostgresLoadCliTest, AFailingAnalyzeAfterTheCommitIsAWarning) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  ScratchSchema schema(admin.get());
  ASSERT_TRUE(admin->Exec(fmt::format(R"SQL(
    CREATE TABLE {0}.t (id int4 PRIMARY KEY, v text);
    INSERT INTO {0}.t SELECT g, 'v' || g FROM generate_series(1, 100) g;
    CREATE FUNCTION {0}.trap(x int4) RETURNS int4 LANGUAGE plpgsql IMMUTABLE AS $$
    BEGIN
      IF pg_catalog.current_query() ILIKE 'ANALYZE%' THEN RAISE EXCEPTION 'analyze trap'; END IF;
      RETURN x;
    END $$;
  )SQL", schema.q())).ok());
  TempDir dir;
  RunResult dump = RunLakedump(fmt::format("dump '{}' '{}' --tables '{}.t' --progress none",
                                           testing_pg::TestDsn(), dir.Sub("d"), schema.name()),
                               dir);
  ASSERT_EQ(dump.code, 0) << dump.out << dump.err;
  // The trap is set after the dump, and the rows deleted: the load appends them back into t.
  ASSERT_TRUE(admin->Exec(fmt::format("DELETE FROM {0}.t WHERE id > 0; "
                                      "CREATE INDEX t_trap ON {0}.t (({0}.trap(id)))",
                                      schema.q())).ok());
  RunResult load = RunLakedump(fmt::format("load '{}' '{}' --if-exists append --progress none",
                                           dir.Sub("d"), testing_pg::TestDsn()),
                               dir);
  EXPECT_EQ(load.code, 0) << load.out << load.err;
  EXPECT_NE(load.err.find("loaded, but ANALYZE failed"), std::string::npos) << load.err;
  EXPECT_NE(load.err.find("analyze trap"), std::string::npos) << load.err;
  EXPECT_EQ(QueryOne(*admin, fmt::format("SELECT count(*) FROM {}.t", schema.q())), "100");
}

}  // namespace
}  // namespace lakedump
