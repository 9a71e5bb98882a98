// Restores that lose nothing (issue 31): the schema now and the data later (--schema-only,
// then --data-only into it: foreign keys in order, all or nothing), a materialized view
// created WITH NO DATA stays unpopulated, PostgreSQL's extreme timestamps come back exactly,
// inet/cidr/xml are dumped in PostgreSQL's own output form, and lakedump's own publication is
// not restored. Against the real server (tests/data/replica/rich_schema.sql as the source).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fakes/cli_run.h"
#include "integration/pg_slot_cleanup.h"
#include "integration/pg_test_util.h"
#include "integration/replica_fixture.h"
#include "source/postgres/postgres_database.h"

namespace lakedump {
namespace {

using testing_cli::Quote;
using testing_cli::ReadFile;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_pg::QueryOne;
using testing_pg::ScratchDatabase;
using testing_replica::ExpectSameDump;
using testing_replica::PgDumpLines;
using testing_replica::ReplicaTest;

// Every row of a query's text output (text mode: each type's output function), one line a row.
std::string Rows(const std::string& conninfo, const std::string& sql) {
  auto conn = PgConn::Connect(conninfo, 10);
  EXPECT_TRUE(conn.ok()) << conn.status().ToString();
  if (!conn.ok()) return "";
  EXPECT_TRUE((*conn)->Exec("SET TimeZone = 'UTC'").ok());
  auto r = (*conn)->Query(sql);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return "";
  std::string out;
  for (int i = 0; i < PQntuples(r->get()); ++i) {
    for (int c = 0; c < PQnfields(r->get()); ++c) {
      out += c ? "|" : "";
      out += PQgetisnull(r->get(), i, c) ? "NULL" : PQgetvalue(r->get(), i, c);
    }
    out += "\n";
  }
  return out;
}

class RestoreDataTest : public ReplicaTest {
 protected:
  void Source(const std::string& sql) {
    auto conn = PgConn::Connect(source_->conninfo(), 10);
    ASSERT_TRUE(conn.ok());
    Status s = (*conn)->Exec(sql);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  static std::string Staging(const ScratchDatabase& db) {
    return Rows(db.conninfo(),
                "SELECT count(*) FROM pg_class WHERE relname LIKE '\\_lakedump\\_load\\_%'");
  }
};

TEST_F(RestoreDataTest, SchemaOnlyThenDataOnlyLoadsInForeignKeyOrder) {
  if (Stopped()) return;
  // More rows and a self-reference, so that the tables load in parallel for a while.
  Source(
      "INSERT INTO shop.customers (email) SELECT 'c' || g || '@x' FROM generate_series(1, 3000) g;"
      "INSERT INTO shop.orders (customer_id, qty) SELECT 1 + g % 3000, 1 + g % 7 "
      "FROM generate_series(1, 20000) g;"
      "CREATE TABLE shop.staff (id int PRIMARY KEY, boss int REFERENCES shop.staff(id));"
      "INSERT INTO shop.staff SELECT g, CASE WHEN g > 1 THEN g / 2 END "
      "FROM generate_series(1, 5000) g;"
      "REFRESH MATERIALIZED VIEW shop.order_counts;");
  const std::string dump = dir_.Sub("d");
  RunResult d = Dump(dump);
  ASSERT_EQ(d.code, 0) << d.out << d.err;
  ScratchDatabase replica(admin_.get());
  RunResult schema = Load(dump, replica, "--trust-dump --schema-only");
  ASSERT_EQ(schema.code, 0) << schema.out << schema.err;
  // Tables in parallel, each in two streams; every key is present in the target already.
  RunResult data = Load(dump, replica, "--data-only --if-exists append -j 4 --file-parallelism 2");
  ASSERT_EQ(data.code, 0) << data.out << data.err;
  ExpectSameDump(PgDumpLines(source_->conninfo(), "--data-only --inserts"),
                 PgDumpLines(replica.conninfo(), "--data-only --inserts"));
  ExpectSameDump(PgDumpLines(source_->conninfo(), "--schema-only"),
                 PgDumpLines(replica.conninfo(), "--schema-only"));
  // The materialized view was refreshed, as pg_restore --data-only does.
  EXPECT_EQ(Rows(replica.conninfo(), "SELECT sum(n) FROM shop.order_counts"), "20003\n");
  EXPECT_EQ(Staging(replica), "0\n");
}

TEST_F(RestoreDataTest, ADataOnlyLoadThatBreaksAKeyLoadsNothing) {
  if (Stopped()) return;
  const std::string dump = dir_.Sub("d");
  ASSERT_EQ(Dump(dump).code, 0);
  ScratchDatabase replica(admin_.get());
  ASSERT_EQ(Load(dump, replica, "--trust-dump --schema-only").code, 0);
  // Orders without their customers: the key refuses them, and then no table is loaded (the
  // events and staff would be fine on their own).
  RunResult data =
      Load(dump, replica, "--data-only --if-exists append --exclude shop.customers");
  EXPECT_NE(data.code, 0) << data.out;
  EXPECT_NE(data.err.find("foreign key"), std::string::npos) << data.err;
  EXPECT_NE(data.err.find("none is loaded"), std::string::npos) << data.err;
  EXPECT_EQ(Rows(replica.conninfo(), "SELECT (SELECT count(*) FROM shop.orders), "
                                     "(SELECT count(*) FROM shop.events)"),
            "0|0\n");
  EXPECT_EQ(Staging(replica), "0\n");
  // The same load with the customers goes through afterwards.
  RunResult again = Load(dump, replica, "--data-only --if-exists append");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(Rows(replica.conninfo(), "SELECT count(*) FROM shop.orders"), "3\n");
}

TEST_F(RestoreDataTest, DisableTriggersIsForDataOnly) {
  if (Stopped()) return;
  const std::string dump = dir_.Sub("d");
  ASSERT_EQ(Dump(dump).code, 0);
  ScratchDatabase replica(admin_.get());
  RunResult l = Load(dump, replica, "--disable-triggers");
  EXPECT_EQ(l.code, 2) << l.err;
  EXPECT_NE(l.err.find("--data-only"), std::string::npos) << l.err;
  // As a superuser (the test's role): the orders go in without their customers.
  if (Rows(replica.conninfo(), "SELECT rolsuper FROM pg_roles WHERE rolname = current_user") !=
      "t\n") {
    return;
  }
  ASSERT_EQ(Load(dump, replica, "--trust-dump --schema-only").code, 0);
  RunResult data = Load(dump, replica,
                        "--data-only --if-exists append --disable-triggers --exclude shop.customers");
  ASSERT_EQ(data.code, 0) << data.err;
  EXPECT_EQ(Rows(replica.conninfo(), "SELECT count(*) FROM shop.orders"), "3\n");
}

TEST_F(RestoreDataTest, AMaterializedViewWithNoDataStaysUnpopulated) {
  if (Stopped()) return;
  Source("CREATE MATERIALIZED VIEW shop.later AS SELECT id FROM shop.customers WITH NO DATA;");
  const std::string dump = dir_.Sub("d");
  ASSERT_EQ(Dump(dump).code, 0);
  nlohmann::json manifest = nlohmann::json::parse(ReadFile(dump + "/_manifest.json"));
  EXPECT_EQ(manifest["schema"]["unpopulated_matviews"],
            nlohmann::json::parse(R"([{"schema": "shop", "name": "later"}])"));
  const std::string populated =
      "SELECT relname, relispopulated FROM pg_class WHERE relkind = 'm' ORDER BY 1";
  EXPECT_EQ(Rows(source_->conninfo(), populated), "later|f\norder_counts|t\n");
  ScratchDatabase replica(admin_.get());
  RunResult l = Load(dump, replica, "--trust-dump");
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  EXPECT_EQ(Rows(replica.conninfo(), populated), "later|f\norder_counts|t\n");
  // Schema now, data later: the same.
  ScratchDatabase later(admin_.get());
  ASSERT_EQ(Load(dump, later, "--trust-dump --schema-only").code, 0);
  EXPECT_EQ(Rows(later.conninfo(), populated), "later|f\norder_counts|f\n");
  ASSERT_EQ(Load(dump, later, "--data-only --if-exists append").code, 0);
  EXPECT_EQ(Rows(later.conninfo(), populated), "later|f\norder_counts|t\n");
}

// Materialized views refresh several at once (on the table streams' idle connections), a
// view only after the views it reads, even through a plain view, and through a function's
// body (which the archive does not record: the refresh that fails is tried again in the
// archive's order); a refresh that fails fails the load naming its view.
TEST_F(RestoreDataTest, MaterializedViewsRefreshAfterTheViewsTheyRead) {
  if (Stopped()) return;
  Source(
      "CREATE MATERIALIZED VIEW shop.m_base AS SELECT customer_id, sum(qty) AS q "
      "FROM shop.orders GROUP BY customer_id;"
      "CREATE VIEW shop.v_mid AS SELECT customer_id, q * 2 AS q2 FROM shop.m_base;"
      "CREATE MATERIALIZED VIEW shop.m_top AS SELECT sum(q2) AS total FROM shop.v_mid;"
      "CREATE MATERIALIZED VIEW shop.m_side AS SELECT count(*) AS n FROM shop.customers;"
      "CREATE FUNCTION shop.checked() RETURNS int LANGUAGE plpgsql AS $f$BEGIN "
      "IF current_setting('lakedump_test.refuse', true) = 'on' THEN "
      "RAISE EXCEPTION 'refused by the test'; END IF; RETURN 1; END$f$;"
      "CREATE MATERIALIZED VIEW shop.m_checked AS SELECT shop.checked() AS one;"
      // a_hidden reads m_base through a function's body (no dependency in the archive) and
      // comes before it in the archive: its refresh can only succeed once m_base's has.
      "CREATE FUNCTION shop.base_rows() RETURNS int8 LANGUAGE plpgsql AS $f$BEGIN "
      "RETURN (SELECT count(*) FROM shop.m_base); END$f$;"
      "CREATE MATERIALIZED VIEW shop.a_hidden AS SELECT shop.base_rows() AS n;");
  const std::string dump = dir_.Sub("d");
  ASSERT_EQ(Dump(dump).code, 0);
  const std::string views =
      "SELECT (SELECT total FROM shop.m_top), (SELECT n FROM shop.m_side), "
      "(SELECT count(*) FROM shop.m_base), (SELECT one FROM shop.m_checked), "
      "(SELECT n FROM shop.a_hidden)";
  ScratchDatabase replica(admin_.get());
  RunResult l = Load(dump, replica, "--trust-dump -j 2 --restore-jobs 3");
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  EXPECT_EQ(Rows(replica.conninfo(), views), Rows(source_->conninfo(), views));
  // One connection: the views one by one in the archive's order, a_hidden's first refresh
  // fails (m_base is not populated yet) and is tried again after the others.
  ScratchDatabase serial(admin_.get());
  RunResult one = Load(dump, serial, "--trust-dump -j 1 --restore-jobs 1");
  ASSERT_EQ(one.code, 0) << one.out << one.err;
  EXPECT_EQ(Rows(serial.conninfo(), views), Rows(source_->conninfo(), views));
  // The same restore into a database where one view's refresh raises.
  ScratchDatabase refusing(admin_.get());
  {
    auto admin = PgConn::Connect(refusing.conninfo(), 10);
    ASSERT_TRUE(admin.ok());
    const std::string name = QueryOne(**admin, "SELECT current_database()");
    const std::string sql =
        "ALTER DATABASE " + QuoteIdent(name) + " SET lakedump_test.refuse = 'on'";
    ASSERT_TRUE((*admin)->Exec(sql).ok());
  }
  RunResult refused = Load(dump, refusing, "--trust-dump -j 2 --restore-jobs 3");
  EXPECT_EQ(refused.code, 1) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("refreshing materialized view shop.m_checked"), std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("refused by the test"), std::string::npos) << refused.err;
}

TEST_F(RestoreDataTest, EveryTimestampComesBackExactly) {
  if (Stopped()) return;
  Source(R"SQL(
SET TimeZone = 'UTC';
CREATE TABLE public.times (id int PRIMARY KEY, ts timestamp, tz timestamptz, d date);
INSERT INTO public.times VALUES
  (1, 'infinity', 'infinity', 'infinity'),
  (2, '-infinity', '-infinity', '-infinity'),
  (3, '4713-01-01 00:00:00 BC', '4714-11-24 00:00:00+00 BC', '4714-11-24 BC'),
  (4, '0001-01-01 00:00:00 BC', '0044-03-15 12:00:00+00 BC', '0001-12-31 BC'),
  (5, '10000-01-01 00:00:00', '12345-06-07 08:09:10.123456+00', '5874897-12-31'),
  (6, '294246-12-31 23:59:59.999999', '294247-01-10 04:00:54.775806+00', '294247-01-10'),
  (7, '294247-01-10 04:00:54.775807', '294247-01-10 04:00:54.775808+00', '1999-12-31'),
  (8, '294276-12-31 23:59:59.999999', '294276-12-31 23:59:59.999999+00', '2000-01-01'),
  (9, NULL, NULL, NULL);
)SQL");
  const std::string dump = dir_.Sub("d");
  RunResult d = Dump(dump);
  ASSERT_EQ(d.code, 0) << d.out << d.err;
  const std::string sql = "SELECT id, ts, tz, d FROM public.times ORDER BY id";
  const std::string want = Rows(source_->conninfo(), sql);
  EXPECT_NE(want.find("294276-12-31 23:59:59.999999+00"), std::string::npos) << want;
  // Trusted (straight into the restored table), untrusted (a table made from the dump's
  // types, through a staging table) and data-only into an existing table.
  ScratchDatabase trusted(admin_.get()), untrusted(admin_.get());
  RunResult t = Load(dump, trusted, "--trust-dump");
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_EQ(Rows(trusted.conninfo(), sql), want);
  RunResult u = Load(dump, untrusted, "--tables public.times");
  ASSERT_EQ(u.code, 0) << u.err;
  EXPECT_EQ(Rows(untrusted.conninfo(), sql), want);
  RunResult again = Load(dump, untrusted, "--tables public.times --if-exists replace");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(Rows(untrusted.conninfo(), sql), want);
}

TEST_F(RestoreDataTest, InetCidrAndXmlAreDumpedAsPostgresPrintsThem) {
  if (Stopped()) return;
  Source(R"SQL(
CREATE TABLE public.nets (id int PRIMARY KEY, i inet, c cidr, x xml, ia inet[]);
INSERT INTO public.nets VALUES
  (1, '10.0.0.1/32', '10.0.0.0/8', '<?xml version="1.0" encoding="UTF-8"?><a>1</a>',
   ARRAY['10.0.0.1/32', '10.1.2.3/16']::inet[]),
  (2, '10.0.0.1/24', '192.168.0.0/32', '<?xml version="1.0"?>
<b/>', ARRAY['::ffff:1.2.3.4', NULL]::inet[]),
  (3, '2001:db8:0:0:1:0:0:1/128', '2001:db8::/32', 'just text', '{}'),
  (4, '::ffff:1.2.3.4', '::/0', '<c x="1"/>', ARRAY['2001:0db8:0000:0000:0000:0000:0000:0001/64']::inet[]),
  (5, NULL, NULL, NULL, NULL);
)SQL");
  // What the source reads is what PostgreSQL prints (its output functions), never the cast
  // to text ('10.0.0.1/32', the XML declaration kept).
  auto db = OpenPostgresDatabase(source_->conninfo(), PostgresOptions{});
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto source = (*db)->Open(WorkUnit{TableInfo{{"public", "nets"}}, 0, 1, ""});
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  RowBatch batch;
  ASSERT_TRUE((*source)->Next(100, &batch).ok());
  ASSERT_EQ(batch.num_rows(), 5u);
  auto conn = PgConn::Connect(source_->conninfo(), 10);
  ASSERT_TRUE(conn.ok());
  auto pg = (*conn)->Query("SELECT i, c, x FROM public.nets ORDER BY id");
  ASSERT_TRUE(pg.ok());
  for (int r = 0; r < 5; ++r) {
    for (int c = 0; c < 3; ++c) {
      const ColumnVector& col = batch.column(static_cast<size_t>(c) + 1);
      if (PQgetisnull(pg->get(), r, c)) {
        EXPECT_TRUE(col.IsNull(static_cast<size_t>(r)));
        continue;
      }
      EXPECT_EQ(col.BytesAt(static_cast<size_t>(r)), PQgetvalue(pg->get(), r, c))
          << "row " << r + 1 << " column " << c + 1;
    }
  }
  EXPECT_EQ(batch.column(1).BytesAt(0), "10.0.0.1");
  EXPECT_EQ(batch.column(1).BytesAt(2), "2001:db8::1:0:0:1");
  EXPECT_EQ(batch.column(2).BytesAt(0), "10.0.0.0/8");
  // The array's elements likewise.
  const ColumnVector& ia = batch.column(4);
  ASSERT_TRUE(ia.type().is_list());
  EXPECT_EQ(ia.elements().BytesAt(0), "10.0.0.1");
  EXPECT_EQ(ia.elements().BytesAt(1), "10.1.2.3/16");
  EXPECT_EQ(ia.elements().BytesAt(2), "::ffff:1.2.3.4");
  // And a load gives back the same values.
  const std::string dump = dir_.Sub("d");
  ASSERT_EQ(Dump(dump).code, 0);
  ScratchDatabase replica(admin_.get());
  RunResult l = Load(dump, replica, "--tables public.nets");
  ASSERT_EQ(l.code, 0) << l.err;
  const std::string sql = "SELECT id, i, c, x::text, ia FROM public.nets ORDER BY id";
  EXPECT_EQ(Rows(replica.conninfo(), sql),
            Rows(source_->conninfo(),
                 "SELECT id, i, c, CASE WHEN x IS NOT NULL THEN pg_catalog.format('%s', x) END, ia "
                 "FROM public.nets ORDER BY id"));
}

TEST_F(RestoreDataTest, LakedumpsOwnPublicationIsNotRestored) {
  if (Stopped()) return;
  if (QueryOne(*admin_, "SHOW wal_level") != "logical") {
    GTEST_SKIP() << "the test server runs without wal_level=logical";
  }
  testing_pg::SlotCleanup slots(admin_.get(), source_->name());
  Source("CREATE PUBLICATION app_pub FOR TABLE shop.customers;"
         "COMMENT ON PUBLICATION app_pub IS 'the app''s own';");
  const std::string dump = dir_.Sub("d");
  RunResult d = Dump(dump, "--incremental");
  ASSERT_EQ(d.code, 0) << d.out << d.err;
  const std::string pubs = "SELECT pubname FROM pg_publication ORDER BY 1";
  const std::string in_source = Rows(source_->conninfo(), pubs);
  EXPECT_NE(in_source.find("lakedump_"), std::string::npos) << in_source;
  ScratchDatabase replica(admin_.get());
  RunResult l = Load(dump, replica, "--trust-dump --until 0");
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  EXPECT_EQ(Rows(replica.conninfo(), pubs), "app_pub\n");
  EXPECT_EQ(Rows(replica.conninfo(),
                 "SELECT obj_description(oid, 'pg_publication') FROM pg_publication"),
            "the app's own\n");
  EXPECT_EQ(Rows(replica.conninfo(), "SELECT count(*) FROM pg_replication_slots WHERE database = "
                                     "current_database()"),
            "0\n");
  RunResult gc = RunLakedump(fmt::format("gc {} --drop-slot --source {}", Quote(dump),
                                         Quote(source_->conninfo())),
                             dir_);
  EXPECT_EQ(gc.code, 0) << gc.err;
}

}  // namespace
}  // namespace lakedump
