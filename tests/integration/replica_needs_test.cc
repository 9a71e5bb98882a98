// A dump of some tables (--tables) keeps what those tables need from schemas none of whose
// tables is selected (issue 11, docs/dump-format.md "Schema"): the functions their defaults,
// checks, indexes and triggers call, their columns' domains and enums, the
// sequences their defaults draw from, the extensions that provide their types. The replica is
// the source's twin for the selected tables: an INSERT without the columns gets the same
// defaults, and `pg_dump -s` of the selected objects is equal.
// And what a function with a quoted body (no pg_depend) that uses a table left out does after
// the load: it is restored, and fails only when called; load names it in one warning line.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "integration/replica_fixture.h"

namespace lakedump {
namespace {

using testing_cli::ReadFile;
using testing_cli::RunResult;
using testing_pg::QueryOne;
using testing_pg::ScratchDatabase;
using testing_replica::ExpectSameDump;
using testing_replica::PgDumpLines;
using testing_replica::ReplicaTest;

// util: a schema whose only table (util.codes) is not selected, holding what app.tickets
// needs; ext: citext, an extension's type (pg_dump --schema alone dumps no extension).
constexpr const char* kTicketsNeedingUtil = R"SQL(
CREATE SCHEMA util;
CREATE TABLE util.codes (id serial PRIMARY KEY, code text);
SELECT setval('util.codes_id_seq', 700);
CREATE SEQUENCE util.ticket_seq START 500;
CREATE FUNCTION util.default_code() RETURNS text LANGUAGE sql IMMUTABLE RETURN 'A-' || 7;
CREATE FUNCTION util.valid_code(c text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS
  $$BEGIN RETURN c LIKE 'A-%'; END$$;
CREATE FUNCTION util.norm(c text) RETURNS text LANGUAGE sql IMMUTABLE AS $$SELECT lower(c)$$;
CREATE FUNCTION util.positive(v integer) RETURNS boolean LANGUAGE sql IMMUTABLE RETURN v > 0;
CREATE DOMAIN util.qty AS integer CHECK (util.positive(VALUE));
CREATE TYPE util.size AS ENUM ('s', 'm', 'l');
CREATE FUNCTION util.stamp() RETURNS trigger LANGUAGE plpgsql AS
  $$BEGIN NEW.stamped := true; RETURN NEW; END$$;
CREATE SCHEMA ext;
CREATE EXTENSION citext SCHEMA ext;
CREATE SCHEMA app;
CREATE TABLE app.tickets (
  id bigint PRIMARY KEY DEFAULT nextval('util.ticket_seq'),
  code text NOT NULL DEFAULT util.default_code() CHECK (util.valid_code(code)),
  qty util.qty,
  size util.size DEFAULT 'm',
  ref integer DEFAULT nextval('util.codes_id_seq'),
  label ext.citext,
  stamped boolean
);
CREATE INDEX tickets_norm_idx ON app.tickets (util.norm(code));
CREATE TRIGGER tickets_stamp BEFORE INSERT ON app.tickets
  FOR EACH ROW EXECUTE FUNCTION util.stamp();
INSERT INTO app.tickets (qty, label) VALUES (3, 'First');
)SQL";

TEST_F(ReplicaTest, WhatTheSelectedTablesNeedFromSchemasLeftOutIsKept) {
  auto src = PgConn::Connect(source_->conninfo(), 10);
  ASSERT_TRUE(src.ok());
  Status created = (*src)->Exec(kTicketsNeedingUtil);
  ASSERT_TRUE(created.ok()) << created.ToString();
  const std::string dump = dir_.Sub("d");
  RunResult d = Dump(dump, "--tables app.tickets");
  ASSERT_EQ(d.code, 0) << d.out << d.err;
  // util's sequence owned by the table left out: its value is recorded (the default draws
  // from it), and so is the standalone one's.
  nlohmann::json manifest = nlohmann::json::parse(ReadFile(dump + "/_manifest.json"));
  int recorded = 0;
  for (const auto& q : manifest["schema"]["sequences"]) {
    if (q["schema"] != "util") continue;
    recorded += (q["name"] == "codes_id_seq" && q["last_value"] == 701) ||
                (q["name"] == "ticket_seq" && q["last_value"] == 500);
  }
  EXPECT_EQ(recorded, 2) << manifest["schema"]["sequences"].dump();

  ScratchDatabase replica(admin_.get());
  RunResult l = Load(dump, replica, "--trust-dump");
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  auto dst = PgConn::Connect(replica.conninfo(), 10);
  ASSERT_TRUE(dst.ok());
  // Only the selected table of the source's tables, and the row.
  EXPECT_EQ(QueryOne(**dst, "SELECT pg_catalog.to_regclass('util.codes') IS NULL AND "
                            "pg_catalog.to_regclass('shop.orders') IS NULL"),
            "t");
  EXPECT_EQ(
      QueryOne(**dst, "SELECT count(*) FROM app.tickets WHERE label OPERATOR(ext.=) 'FIRST'"),
      "1");
  // An INSERT without the columns gets what it gets on the source.
  const std::string insert =
      "INSERT INTO app.tickets (qty, label) VALUES (2, 'x') RETURNING "
      "concat_ws(' ', id, code, size, ref, stamped)";
  const std::string expected = QueryOne(**src, insert);
  EXPECT_EQ(expected, "501 A-7 m 702 t");
  EXPECT_EQ(QueryOne(**dst, insert), expected);
  // The domain's check and the table's check still call their functions.
  EXPECT_FALSE((*dst)->Exec("INSERT INTO app.tickets (qty) VALUES (0)").ok());
  EXPECT_FALSE((*dst)->Exec("INSERT INTO app.tickets (qty, code) VALUES (1, 'B-1')").ok());
  // pg_dump -s of the selected objects, and of what they need, is the source's.
  ExpectSameDump(PgDumpLines(source_->conninfo(), "--schema-only --table app.tickets"),
                 PgDumpLines(replica.conninfo(), "--schema-only --table app.tickets"));
  ExpectSameDump(
      PgDumpLines(source_->conninfo(), "--schema-only --schema util --exclude-table util.codes"),
      PgDumpLines(replica.conninfo(), "--schema-only --schema util --exclude-table util.codes"));
  EXPECT_EQ(QueryOne(**dst, "SELECT extname FROM pg_catalog.pg_extension WHERE "
                            "extnamespace = 'ext'::pg_catalog.regnamespace"),
            "citext");
}

// A function whose body is in quotes (LANGUAGE sql AS '...', plpgsql) records no dependency
// on the tables it uses: the archive keeps it whatever the selection, pg_restore creates it
// (check_function_bodies is off), and it fails only when called. Load names it. A load that
// selects tables itself restores only what they record a dependency on.
TEST_F(ReplicaTest, AQuotedBodyUsingATableLeftOutIsRestoredAndNamed) {
  auto src = PgConn::Connect(source_->conninfo(), 10);
  ASSERT_TRUE(src.ok());
  Status created = (*src)->Exec(
      "CREATE FUNCTION shop.order_count() RETURNS bigint LANGUAGE plpgsql STABLE AS "
      "$$BEGIN RETURN (SELECT count(*) FROM shop.Orders); END$$;"
      "CREATE FUNCTION shop.email_of(i bigint) RETURNS text LANGUAGE sql STABLE AS "
      "$$SELECT email FROM shop.customers WHERE id = i$$");
  ASSERT_TRUE(created.ok()) << created.ToString();
  // Left out by the dump, and by the load of a full dump.
  const std::string part = dir_.Sub("part"), full = dir_.Sub("full");
  ASSERT_EQ(Dump(part, "--tables shop.customers").code, 0);
  ASSERT_EQ(Dump(full).code, 0);
  // A load of the whole dump with --tables: its closure keeps only what the kept tables
  // record a dependency on, so functions with quoted bodies (no recorded dependencies) are
  // not restored at all, and nothing is said of them.
  {
    ScratchDatabase replica(admin_.get());
    RunResult l = Load(full, replica, "--trust-dump --tables shop.customers");
    ASSERT_EQ(l.code, 0) << l.out << l.err;
    auto dst = PgConn::Connect(replica.conninfo(), 10);
    ASSERT_TRUE(dst.ok());
    for (const char* call : {"SELECT shop.email_of(1)", "SELECT shop.order_count()"}) {
      Status called = (*dst)->Exec(call);
      EXPECT_FALSE(called.ok()) << call;
      EXPECT_NE(called.message().find("does not exist"), std::string::npos) << called.ToString();
    }
    EXPECT_EQ(l.err.find("order_count"), std::string::npos) << l.err;
  }
  for (const auto& [dump, selection] : {std::pair{part, ""}}) {
    SCOPED_TRACE(dump);
    ScratchDatabase replica(admin_.get());
    RunResult l = Load(dump, replica, std::string("--trust-dump ") + selection);
    ASSERT_EQ(l.code, 0) << l.out << l.err;
    auto dst = PgConn::Connect(replica.conninfo(), 10);
    ASSERT_TRUE(dst.ok());
    // Restored, and working when what it uses is there.
    EXPECT_EQ(QueryOne(**dst, "SELECT shop.email_of(1)"), "a@x");
    // Restored, and failing when called: shop.orders was left out.
    for (const char* call : {"SELECT shop.order_count()", "SELECT shop.order_total(1)"}) {
      SCOPED_TRACE(call);
      Status called = (*dst)->Exec(call);
      EXPECT_FALSE(called.ok());
      EXPECT_NE(called.message().find("relation \"shop.orders\" does not exist"),
                std::string::npos)
          << called.ToString();
    }
    // One line each, naming the function and the table its body mentions.
    for (const std::string warning :
         {"PostgreSQL function shop.order_count() was restored, but its body (in quotes, no "
          "recorded dependencies) mentions shop.orders, which this load does not restore: it "
          "may fail when called",
          "PostgreSQL function shop.order_total(bigint) was restored, but its body (in quotes, "
          "no recorded dependencies) mentions shop.orders, which this load does not restore: it "
          "may fail when called"}) {
      EXPECT_NE(l.err.find("lakedump: warning: " + warning), std::string::npos) << l.err;
    }
    EXPECT_EQ(l.err.find("email_of"), std::string::npos) << l.err;
  }
}

}  // namespace
}  // namespace lakedump
