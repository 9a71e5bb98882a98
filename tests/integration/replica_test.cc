// A restore that is a replica (issue 11): a PostgreSQL database with every kind of
// schema object (tests/data/replica/rich_schema.sql: domains, an enum, a partitioned
// table, views, a materialized view, triggers and functions, secondary indexes,
// foreign keys, standalone sequences with values, a nextval default) dumped and loaded
// with --trust-dump into an empty database: `pg_dump -s` and `pg_dump --data-only` of
// source and replica are equal. Also: the clear error when an object exists, the
// untrusted load's one line, --tables/--exclude through the archive, --schema-only,
// and a pg_dump too old (a fake one in a temp dir) with the --schema-from fallback;
// the data copied straight into the restored tables (no staging table), a failed
// table left empty, and the archive listed in process exactly as pg_restore --list does.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <future>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/pg_test_util.h"
#include "integration/replica_fixture.h"
#include "integration/s3_test_env.h"
#include "source/postgres/pg_archive_toc.h"
#include "source/postgres/pg_schema_capture.h"
#include "source/postgres/pg_tools.h"

namespace lakedump {
namespace {

using testing_cli::Quote;
using testing_cli::ReadFile;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_cli::WriteFile;
using testing_pg::AdminConn;
using testing_pg::QueryOne;
using testing_pg::ScratchDatabase;
using testing_replica::ExpectSameDump;
using testing_replica::PgDumpLines;
using testing_replica::ReplicaTest;
using testing_replica::RunText;

TEST_F(ReplicaTest, TrustedLoadIsATwin) {
  const std::string dump = dir_.Sub("d");
  RunResult d = Dump(dump);
  ASSERT_EQ(d.code, 0) << d.out << d.err;
  nlohmann::json manifest = nlohmann::json::parse(ReadFile(dump + "/_manifest.json"));
  ASSERT_EQ(manifest["schema"]["schema_from"], "pg_dump");
  EXPECT_EQ(manifest["schema"]["archive"]["key"], "_schema/postgres.dump");
  EXPECT_EQ(manifest["schema"]["archive"]["bytes"].get<uint64_t>(),
            std::filesystem::file_size(dump + "/_schema/postgres.dump"));
  bool unused_seq = false;
  for (const auto& q : manifest["schema"]["sequences"]) {
    if (q["name"] == "unused_seq") unused_seq = q["last_value"] == 42 && q["is_called"] == true;
  }
  EXPECT_TRUE(unused_seq) << manifest["schema"]["sequences"].dump();

  RunResult v = RunLakedump(fmt::format("verify {}", Quote(dump)), dir_);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
  RunResult ls = RunLakedump(fmt::format("ls {} --ddl", Quote(dump)), dir_);
  EXPECT_EQ(ls.code, 0) << ls.err;
  EXPECT_NE(ls.out.find("schema: from pg_dump"), std::string::npos) << ls.out;
  EXPECT_NE(ls.out.find("TRIGGER shop orders orders_touch"), std::string::npos) << ls.out;

  ScratchDatabase replica(admin_.get());
  RunResult l = Load(dump, replica, "--trust-dump --json");
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  nlohmann::json summary = nlohmann::json::parse(l.out);
  EXPECT_EQ(summary["schema"]["method"], "pg_restore");

  ExpectSameDump(PgDumpLines(source_->conninfo(), "--schema-only"),
                 PgDumpLines(replica.conninfo(), "--schema-only"));
  ExpectSameDump(PgDumpLines(source_->conninfo(), "--data-only --inserts"),
                 PgDumpLines(replica.conninfo(), "--data-only --inserts"));

  // The nextval default and the identity column hand out the next values on both.
  auto src = PgConn::Connect(source_->conninfo(), 10);
  auto dst = PgConn::Connect(replica.conninfo(), 10);
  ASSERT_TRUE(src.ok() && dst.ok());
  const std::string insert =
      "INSERT INTO shop.orders (customer_id, qty) VALUES (1, 4) RETURNING id";
  const std::string source_id = QueryOne(**src, insert);
  EXPECT_FALSE(source_id.empty());
  EXPECT_EQ(QueryOne(**dst, insert), source_id);
  const std::string customer = "INSERT INTO shop.customers (email) VALUES ('z@x') RETURNING id";
  EXPECT_EQ(QueryOne(**dst, customer), QueryOne(**src, customer));
  // The trigger is there and fires after the load, not during it.
  EXPECT_EQ(QueryOne(**dst, "SELECT count(*) FROM shop.orders WHERE updated_at IS NOT NULL"), "0");
  EXPECT_EQ(QueryOne(**dst, "UPDATE shop.orders SET note = 'x' WHERE id = 1000 "
                            "RETURNING updated_at IS NOT NULL"),
            "t");
}

TEST_F(ReplicaTest, ThroughS3TheLoadIsATwinToo) {
  auto s3 = testing_s3::UseTestS3();
  if (!s3) GTEST_SKIP() << "LD_TEST_S3_ENDPOINT is not set";
  const std::string prefix = fmt::format("replica-{}-{}", getpid(), std::rand());
  const std::string url = "s3://" + s3->bucket + "/" + prefix;
  const std::string endpoint = " --endpoint " + s3->endpoint;
  RunResult d = Dump(url, endpoint);
  ASSERT_EQ(d.code, 0) << d.out << d.err;
  // The archive is an object of the dump, seen by awscli.
  const std::string listing =
      s3->Aws("s3 ls --recursive s3://" + s3->bucket + "/" + prefix + "/_schema/", dir_);
  EXPECT_NE(listing.find(prefix + "/_schema/postgres.dump"), std::string::npos) << listing;
  RunResult v = RunLakedump(fmt::format("verify {}{}", Quote(url), endpoint), dir_);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
  ScratchDatabase replica(admin_.get());
  RunResult l = Load(url, replica, "--trust-dump" + endpoint);
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  ExpectSameDump(PgDumpLines(source_->conninfo(), "--schema-only"),
                 PgDumpLines(replica.conninfo(), "--schema-only"));
  ExpectSameDump(PgDumpLines(source_->conninfo(), "--data-only --inserts"),
                 PgDumpLines(replica.conninfo(), "--data-only --inserts"));
  s3->Aws("s3 rm --recursive --only-show-errors s3://" + s3->bucket + "/" + prefix, dir_);
}

TEST_F(ReplicaTest, AnAlteredArchiveIsCaughtByVerifyAndLoad) {
  const std::string dump = dir_.Sub("d");
  ASSERT_EQ(Dump(dump).code, 0);
  const std::string archive = dump + "/_schema/postgres.dump";
  std::string bytes = ReadFile(archive);
  ASSERT_GT(bytes.size(), 100u);
  bytes[bytes.size() / 2] ^= 0x20;
  WriteFile(archive, bytes);
  RunResult v = RunLakedump(fmt::format("verify {}", Quote(dump)), dir_);
  EXPECT_EQ(v.code, 1) << v.out << v.err;
  EXPECT_NE(v.out.find("PROBLEM schema-archive: _schema/postgres.dump"), std::string::npos) << v.out;
  ScratchDatabase replica(admin_.get());
  RunResult l = Load(dump, replica, "--trust-dump");
  EXPECT_EQ(l.code, 1) << l.out << l.err;
  EXPECT_NE(l.err.find("_schema/postgres.dump: XXH64 is"), std::string::npos) << l.err;
  auto dst = PgConn::Connect(replica.conninfo(), 10);
  ASSERT_TRUE(dst.ok());
  EXPECT_EQ(QueryOne(**dst, "SELECT count(*) FROM pg_namespace WHERE nspname = 'shop'"), "0");
}

TEST_F(ReplicaTest, ExistingObjectFailsNamingItAndCreatesNothing) {
  const std::string dump = dir_.Sub("d");
  ASSERT_EQ(Dump(dump).code, 0);
  ScratchDatabase replica(admin_.get());
  {
    auto dst = PgConn::Connect(replica.conninfo(), 10);
    ASSERT_TRUE(dst.ok());
    ASSERT_TRUE((*dst)->Exec("CREATE SCHEMA shop; CREATE TABLE shop.orders (x int)").ok());
  }
  RunResult l = Load(dump, replica, "--trust-dump");
  EXPECT_EQ(l.code, 1) << l.out << l.err;
  EXPECT_NE(l.err.find("already exists"), std::string::npos) << l.err;
  EXPECT_NE(l.err.find("created nothing"), std::string::npos) << l.err;
  EXPECT_EQ(std::count(l.err.begin(), l.err.end(), '\n'), 1) << l.err;
  auto dst = PgConn::Connect(replica.conninfo(), 10);
  ASSERT_TRUE(dst.ok());
  EXPECT_EQ(QueryOne(**dst, "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON "
                            "n.oid = c.relnamespace WHERE n.nspname = 'shop'"),
            "1");
  EXPECT_EQ(QueryOne(**dst, "SELECT count(*) FROM pg_type t JOIN pg_namespace n ON "
                            "n.oid = t.typnamespace WHERE n.nspname = 'shop' AND t.typtype IN "
                            "('d', 'e')"),
            "0");
}

TEST_F(ReplicaTest, UntrustedLoadRunsNoSchemaCodeAndSaysSoInOneLine) {
  const std::string dump = dir_.Sub("d");
  ASSERT_EQ(Dump(dump).code, 0);
  ScratchDatabase replica(admin_.get());
  RunResult l = Load(dump, replica);
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  EXPECT_NE(l.err.find("were not restored"), std::string::npos) << l.err;
  EXPECT_NE(l.err.find("--trust-dump"), std::string::npos) << l.err;
  auto dst = PgConn::Connect(replica.conninfo(), 10);
  ASSERT_TRUE(dst.ok());
  EXPECT_EQ(QueryOne(**dst, "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON "
                            "n.oid = p.pronamespace WHERE n.nspname = 'shop'"),
            "0");
  EXPECT_EQ(QueryOne(**dst, "SELECT count(*) FROM shop.orders"), "3");
  // The index on a plain column comes across from the structured metadata.
  EXPECT_EQ(QueryOne(**dst, "SELECT count(*) FROM pg_indexes WHERE schemaname = 'shop' AND "
                            "indexname = 'orders_customer_idx'"),
            "1");
}

TEST_F(ReplicaTest, TablesAndExcludeApplyToTheSchema) {
  const std::string dump = dir_.Sub("d");
  ASSERT_EQ(Dump(dump, "--exclude shop.events").code, 0);
  ScratchDatabase replica(admin_.get());
  RunResult l = Load(dump, replica, "--trust-dump");
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  auto dst = PgConn::Connect(replica.conninfo(), 10);
  ASSERT_TRUE(dst.ok());
  EXPECT_EQ(QueryOne(**dst, "SELECT pg_catalog.to_regclass('shop.events_2025') IS NULL"), "t");
  EXPECT_EQ(QueryOne(**dst, "SELECT count(*) FROM shop.customer_orders"), "3");

  // At load time: --exclude drops a table with its indexes, constraints and partitions.
  const std::string full = dir_.Sub("full");
  ASSERT_EQ(Dump(full).code, 0);
  ScratchDatabase partial(admin_.get());
  RunResult p = Load(full, partial, "--trust-dump --exclude shop.events");
  ASSERT_EQ(p.code, 0) << p.out << p.err;
  auto pc = PgConn::Connect(partial.conninfo(), 10);
  ASSERT_TRUE(pc.ok());
  EXPECT_EQ(QueryOne(**pc, "SELECT pg_catalog.to_regclass('shop.events') IS NULL AND "
                           "pg_catalog.to_regclass('shop.events_2026') IS NULL"),
            "t");
  EXPECT_EQ(QueryOne(**pc, "SELECT count(*) FROM shop.order_counts"), "2");
}

// A selection that leaves out a table other objects need: the views reading it are left
// out of the archive at dump time, the foreign key to it is left out at load, named.
TEST_F(ReplicaTest, ViewsAndForeignKeysNeedingATableLeftOutAreLeftOutToo) {
  for (const std::string selection : {"--tables shop.orders", "--exclude shop.customers"}) {
    SCOPED_TRACE(selection);
    const std::string dump = dir_.Sub(selection.substr(2, 6));
    RunResult d = Dump(dump, selection);
    ASSERT_EQ(d.code, 0) << d.out << d.err;
    nlohmann::json manifest = nlohmann::json::parse(ReadFile(dump + "/_manifest.json"));
    bool fk_recorded = false;
    for (const auto& k : manifest["schema"]["fks"]) {
      fk_recorded |= k["schema"] == "shop" && k["table"] == "orders" &&
                     k["name"] == "orders_customer_id_fkey" && k["ref_schema"] == "shop" &&
                     k["ref_table"] == "customers";
    }
    EXPECT_TRUE(fk_recorded) << manifest["schema"]["fks"].dump();
    ScratchDatabase replica(admin_.get());
    RunResult l = Load(dump, replica, "--trust-dump --json");
    ASSERT_EQ(l.code, 0) << l.out << l.err;
    const std::string warning =
        "skipped PostgreSQL foreign key orders_customer_id_fkey on shop.orders: it references "
        "shop.customers, which this load does not restore";
    EXPECT_NE(l.err.find("lakedump: warning: " + warning), std::string::npos) << l.err;
    nlohmann::json summary = nlohmann::json::parse(l.out, nullptr, false);
    ASSERT_TRUE(summary.is_object()) << l.out;
    EXPECT_EQ(summary["schema"]["skipped"], nlohmann::json::array({warning})) << l.out;
    auto dst = PgConn::Connect(replica.conninfo(), 10);
    ASSERT_TRUE(dst.ok());
    EXPECT_EQ(QueryOne(**dst, "SELECT pg_catalog.to_regclass('shop.customers') IS NULL AND "
                              "pg_catalog.to_regclass('shop.customer_orders') IS NULL"),
              "t");
    EXPECT_EQ(QueryOne(**dst, "SELECT count(*) FROM shop.orders"), "3");
    EXPECT_EQ(QueryOne(**dst, "SELECT count(*) FROM pg_catalog.pg_constraint WHERE contype = 'f'"),
              "0");
    // What needs only the orders is there: the materialized view (refreshed), the trigger,
    // the primary key.
    EXPECT_EQ(QueryOne(**dst, "SELECT count(*) FROM shop.order_counts"), "2");
    EXPECT_EQ(QueryOne(**dst, "SELECT count(*) FROM pg_catalog.pg_trigger WHERE "
                              "tgname = 'orders_touch'"),
              "1");
    EXPECT_EQ(QueryOne(**dst, "SELECT count(*) FROM pg_catalog.pg_constraint WHERE "
                              "conname = 'orders_pkey'"),
              "1");
  }
}

// Objects that need shop.customers, beside the rich schema's: functions with SQL-standard
// bodies (their pg_depend names the tables they use), one commented and granted, a view
// reading customers only through such a function; and one over shop.orders only, which stays.
constexpr const char* kFunctionsOverCustomers = R"SQL(
CREATE FUNCTION shop.customer_count() RETURNS bigint LANGUAGE sql STABLE
  BEGIN ATOMIC SELECT count(*) FROM shop.customers; END;
COMMENT ON FUNCTION shop.customer_count() IS 'how many customers';
REVOKE EXECUTE ON FUNCTION shop.customer_count() FROM PUBLIC;
CREATE FUNCTION shop.first_email() RETURNS text LANGUAGE sql STABLE
  RETURN (SELECT min(email) FROM shop.customers);
CREATE VIEW shop.customer_total AS SELECT shop.customer_count() AS n;
COMMENT ON VIEW shop.customer_total IS 'through a function';
CREATE FUNCTION shop.order_qty() RETURNS bigint LANGUAGE sql STABLE
  BEGIN ATOMIC SELECT sum(qty) FROM shop.orders; END;
)SQL";

// What a load without shop.customers must leave out, and what it must keep.
void ExpectCustomersAndWhatNeedsThemLeftOut(PgConn& dst) {
  EXPECT_EQ(QueryOne(dst, "SELECT pg_catalog.to_regclass('shop.customers') IS NULL AND "
                          "pg_catalog.to_regclass('shop.customer_orders') IS NULL AND "
                          "pg_catalog.to_regclass('shop.customer_total') IS NULL"),
            "t");
  EXPECT_EQ(QueryOne(dst, "SELECT count(*) FROM pg_catalog.pg_proc WHERE proname IN "
                          "('customer_count', 'first_email')"),
            "0");
  EXPECT_EQ(QueryOne(dst, "SELECT shop.order_qty()"), "6");
  EXPECT_EQ(QueryOne(dst, "SELECT count(*) FROM shop.orders"), "3");
  EXPECT_EQ(QueryOne(dst, "SELECT count(*) FROM shop.order_counts"), "2");
}

// A full dump loaded without one of its tables (load --exclude, or --tables naming the
// others): the views and SQL-standard functions needing it, directly or through each other,
// are left out with it; the rest of the schema is restored. --exclude names each in a warning;
// --tables (a subset: what its tables need and what is on them) names only the view that also
// reads a kept table, the others would not have been restored anyway.
TEST_F(ReplicaTest, ViewsAndFunctionsNeedingATableExcludedAtLoadAreLeftOut) {
  auto src = PgConn::Connect(source_->conninfo(), 10);
  ASSERT_TRUE(src.ok());
  ASSERT_TRUE((*src)->Exec(kFunctionsOverCustomers).ok());
  const std::string dump = dir_.Sub("d");
  RunResult d = Dump(dump);
  ASSERT_EQ(d.code, 0) << d.out << d.err;
  for (const std::string selection :
       {"--exclude shop.customers", "--tables 'shop.orders,shop.events'"}) {
    SCOPED_TRACE(selection);
    ScratchDatabase replica(admin_.get());
    RunResult l = Load(dump, replica, "--trust-dump --json " + selection);
    ASSERT_EQ(l.code, 0) << l.out << l.err;
    const bool subset = selection.starts_with("--tables");
    for (const std::string warning :
         {"skipped PostgreSQL view shop.customer_orders: it needs shop.customers, which this "
          "load does not restore",
          "skipped PostgreSQL view shop.customer_total: it needs shop.customers, which this "
          "load does not restore",
          "skipped PostgreSQL function shop.customer_count(): it needs shop.customers, which "
          "this load does not restore",
          "skipped PostgreSQL function shop.first_email(): it needs shop.customers, which this "
          "load does not restore"}) {
      const bool named = l.err.find("lakedump: warning: " + warning) != std::string::npos;
      EXPECT_EQ(named, !subset || warning.find("customer_orders") != std::string::npos)
          << warning << "\n" << l.err;
    }
    auto dst = PgConn::Connect(replica.conninfo(), 10);
    ASSERT_TRUE(dst.ok());
    ExpectCustomersAndWhatNeedsThemLeftOut(**dst);
  }
}

// A dump without a table (--tables): pg_dump cannot leave functions out, so those whose
// SQL-standard body uses the table are in the archive, and the load leaves them out.
TEST_F(ReplicaTest, FunctionsNeedingATableLeftOutOfTheDumpAreLeftOut) {
  auto src = PgConn::Connect(source_->conninfo(), 10);
  ASSERT_TRUE(src.ok());
  ASSERT_TRUE((*src)->Exec(kFunctionsOverCustomers).ok());
  const std::string dump = dir_.Sub("d");
  RunResult d = Dump(dump, "--tables shop.orders");
  ASSERT_EQ(d.code, 0) << d.out << d.err;
  nlohmann::json manifest = nlohmann::json::parse(ReadFile(dump + "/_manifest.json"));
  bool recorded = false;
  for (const auto& dep : manifest["schema"]["dependents"]) {
    recorded |= dep["catalog"] == 1255 &&
                dep["tables"] == nlohmann::json::array({{{"schema", "shop"}, {"name", "customers"}}});
  }
  EXPECT_TRUE(recorded) << manifest["schema"]["dependents"].dump();
  ScratchDatabase replica(admin_.get());
  RunResult l = Load(dump, replica, "--trust-dump");
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  EXPECT_NE(l.err.find("lakedump: warning: skipped PostgreSQL function shop.customer_count(): "
                       "it needs shop.customers, which this load does not restore"),
            std::string::npos)
      << l.err;
  auto dst = PgConn::Connect(replica.conninfo(), 10);
  ASSERT_TRUE(dst.ok());
  ExpectCustomersAndWhatNeedsThemLeftOut(**dst);
}

TEST_F(ReplicaTest, SchemaOnlyRestoresEmptyTablesAndSequenceValues) {
  const std::string dump = dir_.Sub("d");
  ASSERT_EQ(Dump(dump).code, 0);
  ScratchDatabase replica(admin_.get());
  RunResult l = Load(dump, replica, "--trust-dump --schema-only");
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  ExpectSameDump(PgDumpLines(source_->conninfo(), "--schema-only"),
                 PgDumpLines(replica.conninfo(), "--schema-only"));
  auto dst = PgConn::Connect(replica.conninfo(), 10);
  ASSERT_TRUE(dst.ok());
  EXPECT_EQ(QueryOne(**dst, "SELECT count(*) FROM shop.orders"), "0");
  EXPECT_EQ(QueryOne(**dst, "SELECT last_value FROM shop.unused_seq"), "42");
}

TEST_F(ReplicaTest, SchemaMapWithTheArchiveIsRefused) {
  const std::string dump = dir_.Sub("d");
  ASSERT_EQ(Dump(dump).code, 0);
  ScratchDatabase replica(admin_.get());
  RunResult l = Load(dump, replica, "--trust-dump --schema-map shop=other");
  EXPECT_EQ(l.code, 2) << l.out << l.err;
  EXPECT_NE(l.err.find("--schema-map cannot rename"), std::string::npos) << l.err;
}

TEST_F(ReplicaTest, PgDumpTooOldFailsInOneLineAndTheFallbackWorks) {
  // A pg_dump that says it is 9.6: the failure path, as a fake in a temp dir.
  const std::string bin = dir_.Sub("oldbin");
  std::filesystem::create_directories(bin);
  WriteFile(bin + "/pg_dump", "#!/bin/sh\necho 'pg_dump (PostgreSQL) 9.6.24'\n");
  std::filesystem::permissions(bin + "/pg_dump", std::filesystem::perms::owner_all);
  RunResult d = Dump(dir_.Sub("d"), "--pg-bin-dir " + Quote(bin));
  EXPECT_EQ(d.code, 1) << d.out << d.err;
  EXPECT_NE(d.err.find("pg_dump of PostgreSQL 15 or later is needed"), std::string::npos) << d.err;
  EXPECT_NE(d.err.find("--schema-from lakedump"), std::string::npos) << d.err;
  EXPECT_EQ(std::count(d.err.begin(), d.err.end(), '\n'), 1) << d.err;
  EXPECT_FALSE(std::filesystem::exists(dir_.Sub("d") + "/_manifest.json"));

  RunResult f = Dump(dir_.Sub("f"), "--pg-bin-dir " + Quote(bin) + " --schema-from lakedump");
  ASSERT_EQ(f.code, 0) << f.out << f.err;
  nlohmann::json manifest = nlohmann::json::parse(ReadFile(dir_.Sub("f") + "/_manifest.json"));
  EXPECT_EQ(manifest["schema"]["schema_from"], "lakedump");
  EXPECT_FALSE(manifest["schema"].contains("archive"));
  // Without the archive only what its load uses is read: no sequences, keys or dependents.
  EXPECT_FALSE(manifest["schema"]["indexes"].empty());
  for (const char* archive_only : {"sequences", "fks", "dependents", "mentions", "objects"}) {
    EXPECT_FALSE(manifest["schema"].contains(archive_only)) << archive_only;
  }
}

// Issue 29: the schema archive and the --use-list that pg_restore reads never have a name in
// the temp directory: a pg_restore wrapper lists $TMPDIR each time it runs, and finds it
// empty; pg_restore reads them as /dev/fd/N (unnamed files only lakedump holds open), and
// nothing is left after the load.
TEST_F(ReplicaTest, TheArchiveAndItsListAreNeverNamedInTheTempDir) {
  const std::string dump = dir_.Sub("d");
  ASSERT_EQ(Dump(dump).code, 0);
  const char* server_bin = std::getenv("LD_TEST_PG_BIN");
  const std::string real_bin = server_bin ? server_bin : "/usr/lib/postgresql/15/bin";
  const std::string bin = dir_.Sub("bin"), tmp = dir_.Sub("tmp"), log = dir_.Sub("seen.log");
  std::filesystem::create_directories(bin);
  std::filesystem::create_directories(tmp);
  WriteFile(bin + "/pg_restore",
            "#!/bin/sh\n{ echo \"args: $*\"; ls -A \"$TMPDIR\"; echo --; } >> " + Quote(log) +
                "\nexec " + Quote(real_bin + "/pg_restore") + " \"$@\"\n");
  std::filesystem::permissions(bin + "/pg_restore", std::filesystem::perms::owner_all);
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  ::setenv("TMPDIR", tmp.c_str(), 1);
  ScratchDatabase replica(admin_.get());
  RunResult l = Load(dump, replica, "--trust-dump --pg-bin-dir " + Quote(bin));
  if (old) {
    ::setenv("TMPDIR", saved.c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  const std::string seen = ReadFile(log);
  size_t runs = 0;
  std::istringstream lines(seen);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("args: ")) {
      ++runs;
      if (line.find("--version") == std::string::npos) {
        EXPECT_NE(line.find("/dev/fd/"), std::string::npos) << line;
      }
    } else {
      EXPECT_EQ(line, "--") << "a file in the temp directory while pg_restore ran:\n" << seen;
    }
  }
  EXPECT_GE(runs, 3u) << seen;  // --list, pre-data, post-data
  EXPECT_TRUE(std::filesystem::is_empty(tmp));
  auto dst = PgConn::Connect(replica.conninfo(), 10);
  ASSERT_TRUE(dst.ok());
  EXPECT_EQ(QueryOne(**dst, "SELECT count(*) > 0 FROM shop.orders"), "t");
}

// The dump lists its archive in process (no pg_restore, issue 11's cost): a pg_restore that
// fails is never run, and the objects are exactly those `pg_restore --list` shows, a comment
// on the database (which it leaves out) included.
TEST_F(ReplicaTest, TheArchiveIsListedWithoutPgRestoreExactlyAsItListsIt) {
  auto src = PgConn::Connect(source_->conninfo(), 10);
  ASSERT_TRUE(src.ok());
  ASSERT_TRUE((*src)->Exec("DO $$ BEGIN EXECUTE pg_catalog.format("
                           "'COMMENT ON DATABASE %I IS %L', pg_catalog.current_database(), "
                           "'the shop'); END $$").ok());
  const char* server_bin = std::getenv("LD_TEST_PG_BIN");
  const std::string real_bin = server_bin ? server_bin : "/usr/lib/postgresql/15/bin";
  const std::string bin = dir_.Sub("bin");
  std::filesystem::create_directories(bin);
  std::filesystem::create_symlink(real_bin + "/pg_dump", bin + "/pg_dump");
  const std::string marker = dir_.Sub("pg_restore_ran");
  WriteFile(bin + "/pg_restore", "#!/bin/sh\ntouch " + Quote(marker) + "\nexit 1\n");
  std::filesystem::permissions(bin + "/pg_restore", std::filesystem::perms::owner_all);

  const std::string dump = dir_.Sub("d");
  RunResult d = Dump(dump, "--pg-bin-dir " + Quote(bin));
  ASSERT_EQ(d.code, 0) << d.out << d.err;
  EXPECT_FALSE(std::filesystem::exists(marker));

  const std::string archive_path = dump + "/_schema/postgres.dump";
  std::string listing = RunText(fmt::format("{}/pg_restore --list {}", Quote(real_bin),
                                            Quote(archive_path)));
  std::string entries;  // without pg_restore's header comments
  std::istringstream lines(listing);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line[0] != ';') entries += line + "\n";
  }
  auto toc = ReadPgArchiveToc(ReadFile(archive_path));
  ASSERT_TRUE(toc.ok()) << toc.status().ToString();
  EXPECT_EQ(PgArchiveListing(*toc), entries);
  // pg_dump keeps the database's comment, pg_restore lists it only with --create.
  EXPECT_TRUE(std::any_of(toc->entries.begin(), toc->entries.end(), [](const auto& e) {
    return e.desc == "COMMENT" && e.tag.starts_with("DATABASE ");
  }));
  EXPECT_EQ(entries.find(" COMMENT - DATABASE "), std::string::npos) << entries;

  nlohmann::json manifest = nlohmann::json::parse(ReadFile(dump + "/_manifest.json"));
  nlohmann::json expected = nlohmann::json::array();
  for (const PgTocEntry& e : ParsePgTocListing(listing)) {
    expected.push_back({{"type", e.type}, {"schema", e.schema}, {"name", e.name}});
  }
  EXPECT_EQ(manifest["schema"]["objects"], expected);
  EXPECT_GT(expected.size(), 30u);  // every kind of object of rich_schema.sql
  const std::string version = RunText(fmt::format("{}/pg_dump --version", Quote(real_bin)));
  EXPECT_EQ(manifest["schema"]["archive"]["pg_dump_version"],
            ParsePgToolVersion(version).second);
}

TEST_F(ReplicaTest, AcrossEnginesPlainIndexesComeAndTheRestIsListed) {
  // PostgreSQL -> SQLite: tables, keys and plain-column indexes; each other object one warning.
  const std::string dump = dir_.Sub("d");
  ASSERT_EQ(Dump(dump).code, 0);
  const std::string db = dir_.Sub("replica.db");
  RunResult l = RunLakedump(
      fmt::format("load {} {} --progress none --trust-dump --json", Quote(dump), Quote(db)), dir_);
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  nlohmann::json summary = nlohmann::json::parse(l.out);
  const std::string skipped = summary["schema"]["skipped"].dump();
  EXPECT_NE(skipped.find("function shop.touch()"), std::string::npos) << skipped;
  EXPECT_NE(skipped.find("trigger shop.orders orders_touch"), std::string::npos) << skipped;
  EXPECT_EQ(skipped.find("events_2025_kind_idx"), std::string::npos) << skipped;
  EXPECT_EQ(std::count(l.err.begin(), l.err.end(), '\n'),
            static_cast<long>(summary["schema"]["skipped"].size()))
      << l.err;
  const std::string indexes = RunText(fmt::format(
      "sqlite3 {} \"SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL "
      "ORDER BY name\"",
      Quote(db)));
  EXPECT_EQ(indexes, "events_kind_idx\norders_customer_idx\n");

  // SQLite -> PostgreSQL: the plain-column index comes, the view and the trigger are listed.
  const std::string source = dir_.Sub("source.db");
  RunText(fmt::format(
      "sqlite3 {} \"CREATE TABLE items (id INTEGER PRIMARY KEY, qty INTEGER); "
      "CREATE INDEX items_qty ON items (qty); CREATE VIEW v AS SELECT * FROM items; "
      "CREATE TRIGGER tr AFTER INSERT ON items BEGIN SELECT 1; END; "
      "INSERT INTO items VALUES (1, 2);\"",
      Quote(source)));
  ASSERT_EQ(RunLakedump(fmt::format("dump {} {} --progress none", Quote(source),
                                    Quote(dir_.Sub("s"))), dir_).code, 0);
  ScratchDatabase target(admin_.get());
  RunResult p = Load(dir_.Sub("s"), target, "--trust-dump --json");
  ASSERT_EQ(p.code, 0) << p.out << p.err;
  const std::string skipped_pg = nlohmann::json::parse(p.out)["schema"]["skipped"].dump();
  EXPECT_NE(skipped_pg.find("SQLite view v"), std::string::npos) << skipped_pg;
  EXPECT_NE(skipped_pg.find("SQLite trigger tr"), std::string::npos) << skipped_pg;
  auto conn = PgConn::Connect(target.conninfo(), 10);
  ASSERT_TRUE(conn.ok());
  EXPECT_EQ(QueryOne(**conn, "SELECT indexdef FROM pg_indexes WHERE indexname = 'items_qty'"),
            "CREATE INDEX items_qty ON public.items USING btree (qty)");  // SQLite's main: public
}

// Records every CREATE TABLE run in `conninfo`'s database (an event trigger into
// lakedump_audit.created), so a test sees which relations a load created.
void RecordCreateTable(const std::string& conninfo) {
  auto conn = PgConn::Connect(conninfo, 10);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  Status s = (*conn)->Exec(R"SQL(
    CREATE SCHEMA lakedump_audit;
    CREATE TABLE lakedump_audit.created (identity text NOT NULL);
    CREATE FUNCTION lakedump_audit.record() RETURNS event_trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO lakedump_audit.created
        SELECT object_identity FROM pg_catalog.pg_event_trigger_ddl_commands()
        WHERE command_tag = 'CREATE TABLE';
    END $$;
    CREATE EVENT TRIGGER lakedump_audit_created ON ddl_command_end WHEN TAG IN ('CREATE TABLE')
      EXECUTE FUNCTION lakedump_audit.record();)SQL");
  ASSERT_TRUE(s.ok()) << s.ToString();
}

// The restore copies straight into the tables pg_restore's pre-data created: no staging
// table is ever created (an event trigger in the target records every CREATE TABLE),
// neither for a table loaded by one sink (COPY FREEZE) nor by several in parallel, nor for
// the partitioned table, nor for a table with columns that have no binary encoding (inet,
// interval, arrays, ...: kinds.t, copied in text form). Every row comes back exact.
TEST_F(ReplicaTest, RestoreCopiesStraightIntoTheRestoredTables) {
  {
    auto src = PgConn::Connect(source_->conninfo(), 10);
    ASSERT_TRUE(src.ok());
    ASSERT_TRUE((*src)->Exec("CREATE SCHEMA kinds").ok());
    Status s = testing_pg::CreateEveryTypeTable(**src, "kinds");
    ASSERT_TRUE(s.ok()) << s.ToString();
    s = (*src)->Exec(
        "CREATE TABLE kinds.many (id int8 PRIMARY KEY, name text, amount numeric(12,2), "
        "at timestamptz); INSERT INTO kinds.many SELECT g, 'name ' || g, g * 1.25, "
        "TIMESTAMPTZ '2024-01-01' + g * INTERVAL '1 minute' FROM generate_series(1, 5000) g");
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  const std::string dump = dir_.Sub("d");
  // Five row groups in one file: kinds.many is loaded by two sinks at once.
  RunResult d = Dump(dump, "--row-group-size 1000");
  ASSERT_EQ(d.code, 0) << d.out << d.err;
  ScratchDatabase replica(admin_.get());
  RecordCreateTable(replica.conninfo());
  RunResult l = Load(dump, replica, "--trust-dump --file-parallelism 2");
  ASSERT_EQ(l.code, 0) << l.out << l.err;

  auto dst = PgConn::Connect(replica.conninfo(), 10);
  ASSERT_TRUE(dst.ok());
  // The trigger saw pg_restore create the tables, so it would have seen staging tables too.
  EXPECT_EQ(QueryOne(**dst, "SELECT count(*) FROM lakedump_audit.created WHERE identity IN "
                            "('shop.orders', 'shop.events', 'kinds.many', 'kinds.t')"),
            "4");
  EXPECT_EQ(QueryOne(**dst, "SELECT coalesce(string_agg(identity, ',' ORDER BY identity), '') "
                            "FROM lakedump_audit.created WHERE identity LIKE '%_lakedump_load_%'"),
            "");
  EXPECT_EQ(QueryOne(**dst, "SELECT count(*) FROM pg_class WHERE relname LIKE '_lakedump_load_%'"),
            "0");
  EXPECT_EQ(QueryOne(**dst, "SELECT count(*) FROM kinds.many"), "5000");
  for (const std::string schema : {"shop", "kinds"}) {
    const auto source = testing_pg::PgDumpInserts(source_->conninfo(), schema);
    EXPECT_GT(source.size(), 3u) << schema;
    EXPECT_EQ(source, testing_pg::PgDumpInserts(replica.conninfo(), schema)) << schema;
  }
}

// A restore whose table fails after some of its sinks committed (a data file altered: its
// checksum is checked once every row group was streamed) leaves that table empty and runs
// no post-data: exit 1, nothing presented as loaded.
TEST_F(ReplicaTest, AFailedDirectLoadLeavesTheTableEmpty) {
  {
    auto src = PgConn::Connect(source_->conninfo(), 10);
    ASSERT_TRUE(src.ok());
    Status s = (*src)->Exec(
        "CREATE TABLE shop.many (id int8 PRIMARY KEY, name text); INSERT INTO shop.many "
        "SELECT g, 'name ' || g FROM generate_series(1, 5000) g");
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  const std::string dump = dir_.Sub("d");
  RunResult d = Dump(dump, "--row-group-size 1000 --compression none");
  ASSERT_EQ(d.code, 0) << d.out << d.err;
  std::string file;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dump + "/shop/many")) {
    if (e.path().extension() == ".parquet") file = e.path().string();
  }
  ASSERT_FALSE(file.empty());
  // A byte of the last row group's values (the text column's, near the footer) flipped: the
  // first row groups stream and commit, the checksum fails afterwards.
  std::string bytes = ReadFile(file);
  ASSERT_GT(bytes.size(), 4000u);
  const size_t at = bytes.find("name 4999");
  ASSERT_NE(at, std::string::npos) << "the values are not stored plain";
  bytes[at + 5] = '8';  // "name 4899": still decodes, the checksum differs
  WriteFile(file, bytes);

  ScratchDatabase replica(admin_.get());
  RunResult l = Load(dump, replica, "--trust-dump --file-parallelism 2");
  EXPECT_EQ(l.code, 1) << l.out << l.err;
  EXPECT_NE(l.err.find("does not match its recorded checksum"), std::string::npos) << l.err;
  auto dst = PgConn::Connect(replica.conninfo(), 10);
  ASSERT_TRUE(dst.ok());
  EXPECT_EQ(QueryOne(**dst, "SELECT count(*) FROM shop.many"), "0");
  EXPECT_EQ(QueryOne(**dst, "SELECT count(*) FROM pg_indexes WHERE tablename = 'many'"), "0");
}

// A dump of some schemas never touches the sequences of others: a sequence being
// dropped elsewhere in the database (by the application, or a test next door) neither
// blocks the dump nor fails it. The schema's facts were read from every sequence once,
// so such a DROP failed the coordinator's transaction and with it the workers' snapshot.
TEST_F(ReplicaTest, ASequenceDroppedInAnotherSchemaDoesNotDisturbTheDump) {
  auto other = PgConn::Connect(source_->conninfo(), 10);
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE((*other)->Exec("CREATE SCHEMA elsewhere; CREATE SEQUENCE elsewhere.going; "
                             "CREATE TABLE elsewhere.t (id serial PRIMARY KEY)").ok());
  // The DROP holds its lock, uncommitted, for a while, then commits.
  ASSERT_TRUE((*other)->Exec("BEGIN; DROP SEQUENCE elsewhere.going; "
                             "DROP TABLE elsewhere.t").ok());
  // (or as soon as the dump is over).
  std::promise<void> dumped;
  std::thread commit([&, over = dumped.get_future()] {
    over.wait_for(std::chrono::seconds(10));
    EXPECT_TRUE((*other)->Exec("COMMIT").ok());
  });
  const auto start = std::chrono::steady_clock::now();
  RunResult d = Dump(dir_.Sub("d"), "--tables 'shop.*'");
  const auto took = std::chrono::steady_clock::now() - start;
  dumped.set_value();
  commit.join();
  EXPECT_EQ(d.code, 0) << d.out << d.err;
  EXPECT_LT(took, std::chrono::seconds(10)) << "the dump waited for another schema's DROP";
}

}  // namespace
}  // namespace lakedump
