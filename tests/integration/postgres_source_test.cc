// The PostgreSQL source against a real server: snapshot consistency under
// concurrent writes, splitting, connection pooling, identifiers, catalog and
// the failure paths (bad connection parameters, locks, a killed backend).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "integration/pg_test_util.h"

namespace lakedump {
namespace {

using testing_pg::AdminConn;
using testing_pg::ConninfoWith;
using testing_pg::QueryOne;
using testing_pg::ScratchSchema;

struct Totals {
  int64_t rows = 0;
  int64_t sum0 = 0;  // sum of column 0 (int64)
  int64_t sum1 = 0;  // sum of column 1 (int64), when there is one
};

Status ReadUnit(Database& db, const WorkUnit& unit, Totals* totals, size_t batch_rows = 997) {
  LD_ASSIGN_OR_RETURN(auto source, db.Open(unit));
  RowBatch batch;
  while (true) {
    LD_RETURN_IF_ERROR(source->Next(batch_rows, &batch));
    if (batch.empty()) return Status::OK();
    for (size_t r = 0; r < batch.num_rows(); ++r) {
      totals->sum0 += batch.column(0).ValueAt<int64_t>(r);
      if (batch.num_columns() > 1 && batch.column(1).type().id == TypeId::kInt64) {
        totals->sum1 += batch.column(1).ValueAt<int64_t>(r);
      }
    }
    totals->rows += static_cast<int64_t>(batch.num_rows());
  }
}

WorkUnit Whole(const std::string& schema, const std::string& table) {
  return WorkUnit{TableInfo{TableRef{schema, table}}, 0, 1, ""};
}

TEST(PostgresSourceTest, SnapshotHoldsUnderConcurrentTransfers) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  ScratchSchema schema(admin.get());
  const std::string s = schema.q();
  // Money moves from a row of a to a new row of b: the total across both tables is
  // constant, and b's row count grows with every transfer.
  ASSERT_TRUE(admin->Exec(fmt::format(
      "CREATE TABLE {0}.a (id int8 PRIMARY KEY, bal int8); CREATE TABLE {0}.b (id int8 PRIMARY "
      "KEY, bal int8); INSERT INTO {0}.a SELECT g, 1000 FROM generate_series(1, 100000) g; "
      "INSERT INTO {0}.b SELECT g, 1000 FROM generate_series(1, 100000) g",
      s)).ok());
  const int64_t total = 200000 * 1000;
  std::atomic<bool> stop{false};
  std::atomic<int64_t> commits{0};
  std::thread writer([&] {
    auto conn = AdminConn();
    int64_t next = 1'000'000;
    while (!stop.load()) {
      const int64_t from = 1 + next % 100000;
      Status st = conn->Exec(fmt::format(
          "BEGIN; UPDATE {0}.a SET bal = bal - 7 WHERE id = {1}; "
          "INSERT INTO {0}.b VALUES ({2}, 7); COMMIT", s, from, next));
      ASSERT_TRUE(st.ok()) << st.ToString();
      ++next;
      ++commits;
    }
  });
  while (commits.load() < 20) std::this_thread::sleep_for(std::chrono::milliseconds(5));

  PostgresOptions options;
  options.max_connections = 3;
  auto db = OpenPostgresDatabase(testing_pg::TestDsn(), options);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_TRUE((*db)->BeginSnapshot().ok());
  const nlohmann::json info = (*db)->Describe();
  const std::string snapshot = info["snapshot_id"];
  ASSERT_FALSE(snapshot.empty());
  EXPECT_FALSE(info["wal_lsn"].get<std::string>().empty());
  // What the snapshot sees, from an independent session that imports it.
  auto probe = AdminConn();
  ASSERT_TRUE(probe->Exec("BEGIN ISOLATION LEVEL REPEATABLE READ; SET TRANSACTION SNAPSHOT " +
                          QuoteLiteral(snapshot)).ok());
  const int64_t b_rows = std::stoll(QueryOne(*probe, "SELECT count(*) FROM " + s + ".b"));
  ASSERT_TRUE(probe->Exec("COMMIT").ok());
  const int64_t commits_at_snapshot = commits.load();
  while (commits.load() < commits_at_snapshot + 50) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE((*db)->LockTables({TableInfo{{schema.name(), "a"}}, TableInfo{{schema.name(), "b"}}})
                  .ok());
  // Read a in 3 ranges and b whole, in parallel, while the writer goes on.
  auto units = (*db)->Split(TableInfo{{schema.name(), "a"}}, 1 << 20);
  ASSERT_TRUE(units.ok());
  EXPECT_GE(units->size(), 2u);
  units->push_back(Whole(schema.name(), "b"));
  std::vector<Totals> totals(units->size());
  std::vector<std::thread> readers;
  std::vector<Status> results(units->size());
  for (size_t i = 0; i < units->size(); ++i) {
    readers.emplace_back([&, i] { results[i] = ReadUnit(**db, (*units)[i], &totals[i], 128); });
  }
  for (auto& t : readers) t.join();
  stop = true;
  writer.join();
  int64_t sum = 0, a_rows = 0;
  for (size_t i = 0; i < units->size(); ++i) {
    ASSERT_TRUE(results[i].ok()) << results[i].ToString();
    sum += totals[i].sum1;
    if (i + 1 < units->size()) a_rows += totals[i].rows;
  }
  EXPECT_EQ(sum, total);
  EXPECT_EQ(a_rows, 100000);
  EXPECT_EQ(totals.back().rows, b_rows);
  const int64_t b_now = std::stoll(QueryOne(*admin, "SELECT count(*) FROM " + s + ".b"));
  EXPECT_GT(b_now, b_rows + 40);  // writes happened after the snapshot and were not seen
}

TEST(PostgresSourceTest, SplitUnitsCoverEveryRowOnce) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  ScratchSchema schema(admin.get());
  const std::string s = schema.q();
  // Holes from deletes and a partitioned table whose ranges apply to each partition.
  ASSERT_TRUE(admin->Exec(fmt::format(
      "CREATE TABLE {0}.big (id int8, pad text); "
      "INSERT INTO {0}.big SELECT g, repeat('x', 80) FROM generate_series(1, 150000) g; "
      "DELETE FROM {0}.big WHERE id % 7 = 0; "
      "CREATE TABLE {0}.parted (id int8, pad text) PARTITION BY RANGE (id); "
      "CREATE TABLE {0}.parted_1 PARTITION OF {0}.parted FOR VALUES FROM (0) TO (50000); "
      "CREATE TABLE {0}.parted_2 PARTITION OF {0}.parted FOR VALUES FROM (50000) TO (MAXVALUE); "
      "INSERT INTO {0}.parted SELECT g, repeat('y', 80) FROM generate_series(1, 120000) g; "
      "ANALYZE {0}.big; ANALYZE {0}.parted",
      s)).ok());
  auto db = OpenPostgresDatabase(testing_pg::TestDsn(), PostgresOptions{});
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE((*db)->BeginSnapshot().ok());
  auto tables = (*db)->ListTables();
  ASSERT_TRUE(tables.ok());
  std::vector<std::string> mine;
  for (const auto& t : *tables) {
    if (t.ref.schema == schema.name()) {
      mine.push_back(t.ref.name);
      EXPECT_GT(t.estimated_bytes, 1u << 20) << t.ref.name;
      EXPECT_GT(t.estimated_rows, 100000u) << t.ref.name;
    }
  }
  EXPECT_EQ(mine, (std::vector<std::string>{"big", "parted"}));  // partitions are read via parent

  struct Case {
    std::string table;
    int64_t rows, sum;
  };
  int64_t big_rows = 0, big_sum = 0;
  for (int64_t i = 1; i <= 150000; ++i) {
    if (i % 7) {
      ++big_rows;
      big_sum += i;
    }
  }
  for (const Case& c : {Case{"big", big_rows, big_sum}, Case{"parted", 120000, 120000LL * 120001 / 2}}) {
    auto units = (*db)->Split(TableInfo{{schema.name(), c.table}}, 1 << 20);
    ASSERT_TRUE(units.ok()) << units.status().ToString();
    ASSERT_GE(units->size(), 4u) << c.table;
    EXPECT_TRUE(units->front().range_predicate.find(">=") == std::string::npos);
    EXPECT_TRUE(units->back().range_predicate.find("<") == std::string::npos);
    Totals all;
    for (size_t i = 0; i < units->size(); ++i) {
      EXPECT_EQ((*units)[i].index, static_cast<int>(i));
      EXPECT_EQ((*units)[i].count, static_cast<int>(units->size()));
      Totals t;
      Status st = ReadUnit(**db, (*units)[i], &t);
      ASSERT_TRUE(st.ok()) << st.ToString();
      EXPECT_GT(t.rows, 0) << c.table << " unit " << i;
      all.rows += t.rows;
      all.sum0 += t.sum0;
    }
    EXPECT_EQ(all.rows, c.rows) << c.table;
    EXPECT_EQ(all.sum0, c.sum) << c.table;
  }
  // A table below the target is one unit.
  auto one = (*db)->Split(TableInfo{{schema.name(), "big"}}, 1ull << 40);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->size(), 1u);
}

TEST(PostgresSourceTest, WorkerConnectionsAreCappedAndReused) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  ScratchSchema schema(admin.get());
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(admin->Exec(fmt::format("CREATE TABLE {0}.t{1} (id int8); INSERT INTO {0}.t{1} "
                                        "SELECT generate_series(1, 1000)", schema.q(), i)).ok());
  }
  const std::string app = fmt::format("ld_pool_{}", getpid());
  PostgresOptions options;
  options.max_connections = 2;
  auto db = OpenPostgresDatabase(ConninfoWith({{"application_name", app}}), options);
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE((*db)->BeginSnapshot().ok());
  std::vector<std::thread> threads;
  std::atomic<int64_t> rows{0};
  std::atomic<int> max_seen{0};
  for (int i = 0; i < 6; ++i) {
    threads.emplace_back([&, i] {
      Totals t;
      Status st = ReadUnit(**db, Whole(schema.name(), fmt::format("t{}", i)), &t, 100);
      EXPECT_TRUE(st.ok()) << st.ToString();
      rows += t.rows;
    });
  }
  for (int k = 0; k < 20; ++k) {
    const int n = std::stoi(QueryOne(
        *admin, fmt::format("SELECT count(*) FROM pg_stat_activity WHERE application_name = '{}'",
                            app)));
    max_seen = std::max(max_seen.load(), n);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(rows.load(), 6000);
  EXPECT_LE(max_seen.load(), 3);  // coordinator + 2 workers
  const int after = std::stoi(QueryOne(
      *admin, fmt::format("SELECT count(*) FROM pg_stat_activity WHERE application_name = '{}'", app)));
  EXPECT_LE(after, 3);  // idle workers kept for reuse
  db->reset();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(QueryOne(*admin, fmt::format("SELECT count(*) FROM pg_stat_activity WHERE "
                                         "application_name = '{}'", app)), "0");
}

TEST(PostgresSourceTest, QuotedIdentifiersAndCatalog) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  ScratchSchema schema(admin.get(), "ld \"Wéird\" Sch");
  const std::string s = schema.q();
  ASSERT_TRUE(admin->Exec(fmt::format(
      "CREATE TABLE {0}.\"Tab \"\"1\"\" ✓ Mixed\" (\"Col \"\"x\"\"\" int8 NOT NULL DEFAULT 42, "
      "\"spaced col\" text DEFAULT 'it''s', \"ÜnïCode\" int4 GENERATED BY DEFAULT AS IDENTITY, "
      "serialish serial, ts timestamptz DEFAULT now(), tag varchar(5) UNIQUE, "
      "PRIMARY KEY (\"Col \"\"x\"\"\", \"ÜnïCode\")); "
      "INSERT INTO {0}.\"Tab \"\"1\"\" ✓ Mixed\" (\"Col \"\"x\"\"\", \"spaced col\") VALUES (1, 'a'), (2, NULL); "
      "CREATE MATERIALIZED VIEW {0}.mv AS SELECT 1::int8 AS one; "
      "CREATE VIEW {0}.v AS SELECT 1 AS one",
      s)).ok());
  const std::string table = "Tab \"1\" ✓ Mixed";
  auto db = OpenPostgresDatabase(testing_pg::TestDsn(), PostgresOptions{});
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE((*db)->BeginSnapshot().ok());
  auto tables = (*db)->ListTables();
  ASSERT_TRUE(tables.ok());
  std::vector<std::string> mine;
  for (const auto& t : *tables) {
    EXPECT_NE(t.ref.schema, "pg_catalog");
    EXPECT_NE(t.ref.schema, "information_schema");
    if (t.ref.schema == schema.name()) mine.push_back(t.ref.name);
  }
  EXPECT_EQ(mine, std::vector<std::string>{table});  // no view, no matview by default
  auto def = (*db)->DescribeTable(TableInfo{{schema.name(), table}});
  ASSERT_TRUE(def.ok()) << def.status().ToString();
  EXPECT_EQ(def->primary_key, (std::vector<std::string>{"Col \"x\"", "ÜnïCode"}));
  const std::string& ddl = def->ddl;
  EXPECT_TRUE(ddl.starts_with("CREATE TABLE " + QuoteQualified(schema.name(), table) + " (")) << ddl;
  EXPECT_NE(ddl.find("\"Col \"\"x\"\"\" bigint DEFAULT 42 NOT NULL"), std::string::npos) << ddl;
  EXPECT_NE(ddl.find("\"spaced col\" text DEFAULT 'it''s'::text"), std::string::npos) << ddl;
  EXPECT_NE(ddl.find("\"ÜnïCode\" integer GENERATED BY DEFAULT AS IDENTITY NOT NULL"),
            std::string::npos) << ddl;
  // A serial column is recorded as an identity column (no nextval of a source sequence).
  EXPECT_NE(ddl.find("\"serialish\" integer GENERATED BY DEFAULT AS IDENTITY NOT NULL"),
            std::string::npos) << ddl;
  EXPECT_NE(ddl.find("\"ts\" timestamp with time zone DEFAULT now()"), std::string::npos) << ddl;
  EXPECT_NE(ddl.find("PRIMARY KEY"), std::string::npos) << ddl;
  EXPECT_NE(ddl.find("UNIQUE (tag)"), std::string::npos) << ddl;
  // The DDL recreates the table.
  ScratchSchema copy(admin.get());
  std::string moved = ddl;
  moved.replace(moved.find(s), s.size(), copy.q());
  EXPECT_TRUE(admin->Exec(moved).ok()) << moved;

  Totals t;
  ASSERT_TRUE(ReadUnit(**db, Whole(schema.name(), table), &t).ok());
  EXPECT_EQ(t.rows, 2);
  EXPECT_EQ(t.sum0, 3);

  PostgresOptions with_mv;
  with_mv.include_materialized_views = true;
  auto db2 = OpenPostgresDatabase(testing_pg::TestDsn(), with_mv);
  ASSERT_TRUE(db2.ok());
  ASSERT_TRUE((*db2)->BeginSnapshot().ok());
  tables = (*db2)->ListTables();
  ASSERT_TRUE(tables.ok());
  bool has_mv = false;
  for (const auto& x : *tables) has_mv |= x.ref.schema == schema.name() && x.ref.name == "mv";
  EXPECT_TRUE(has_mv);
  Totals m;
  ASSERT_TRUE((*db2)->LockTables({TableInfo{{schema.name(), "mv"}}}).ok());
  ASSERT_TRUE(ReadUnit(**db2, Whole(schema.name(), "mv"), &m).ok());
  EXPECT_EQ(m.rows, 1);

  auto missing = (*db)->DescribeTable(TableInfo{{schema.name(), "nope"}});
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  EXPECT_NE(missing.status().message().find(schema.name() + ".nope"), std::string::npos);
}

TEST(PostgresSourceTest, DescribeNamesServerAndSnapshotNeverThePassword) {
  LD_REQUIRE_PG();
  // Trust authentication ignores the password, which must still never show.
  auto db = OpenPostgresDatabase(ConninfoWith({{"password", "s3cr3t-pw"}}), PostgresOptions{});
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_TRUE((*db)->BeginSnapshot().ok());
  const nlohmann::json j = (*db)->Describe();
  EXPECT_EQ(j["kind"], "postgresql");
  EXPECT_TRUE(j["server_version"].get<std::string>().starts_with("1"));
  EXPECT_FALSE(j["snapshot_id"].get<std::string>().empty());
  EXPECT_FALSE(j["wal_lsn"].get<std::string>().empty());
  EXPECT_FALSE(j["database"].get<std::string>().empty());
  EXPECT_EQ(j.dump().find("s3cr3t"), std::string::npos);
}

// --- failure paths -----------------------------------------------------------

TEST(PostgresSourceTest, MissingDatabaseIsNotFoundNamingIt) {
  LD_REQUIRE_PG();
  auto db = OpenPostgresDatabase(ConninfoWith({{"dbname", "ld_no_such_db_42"}}), PostgresOptions{});
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), Code::kNotFound);
  EXPECT_NE(db.status().message().find("ld_no_such_db_42"), std::string::npos)
      << db.status().message();
}

TEST(PostgresSourceTest, ClosedPortFailsFast) {
  LD_REQUIRE_PG();
  // A port that was free a moment ago: nothing listens there.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = ntohs(addr.sin_port);
  close(fd);
  PostgresOptions options;
  options.connect_timeout_seconds = 3;
  const auto start = std::chrono::steady_clock::now();
  auto db = OpenPostgresDatabase(
      ConninfoWith({{"host", "127.0.0.1"}, {"hostaddr", "127.0.0.1"}, {"port", std::to_string(port)}}),
      options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), Code::kUnavailable) << db.status().ToString();
  EXPECT_NE(db.status().message().find(std::to_string(port)), std::string::npos)
      << db.status().message();
  EXPECT_LT(seconds, 4.0);
}

TEST(PostgresSourceTest, WrongPasswordIsPermissionDenied) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  // The role exists with a password; the server may or may not ask for it.
  ASSERT_TRUE(admin->Exec("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = "
                          "'ld_pw_user') THEN CREATE ROLE ld_pw_user LOGIN PASSWORD 'right-pw'; "
                          "END IF; END $$").ok());
  {
    auto db = OpenPostgresDatabase(ConninfoWith({{"user", "ld_no_such_role"}}), PostgresOptions{});
    ASSERT_FALSE(db.ok());
    EXPECT_EQ(db.status().code(), Code::kPermissionDenied) << db.status().ToString();
  }
  auto db = OpenPostgresDatabase(
      ConninfoWith({{"user", "ld_pw_user"}, {"password", "wrong-pw"}, {"host", "127.0.0.1"}}),
      PostgresOptions{});
  if (db.ok()) GTEST_SKIP() << "the test server does not authenticate ld_pw_user by password";
  EXPECT_EQ(db.status().code(), Code::kPermissionDenied) << db.status().ToString();
  EXPECT_NE(db.status().message().find("ld_pw_user"), std::string::npos);
  EXPECT_EQ(db.status().message().find("wrong-pw"), std::string::npos);
  auto good = OpenPostgresDatabase(
      ConninfoWith({{"user", "ld_pw_user"}, {"password", "right-pw"}, {"host", "127.0.0.1"}}),
      PostgresOptions{});
  EXPECT_TRUE(good.ok()) << good.status().ToString();
}

TEST(PostgresSourceTest, ExclusivelyLockedTableFailsAtOnceNamingIt) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  ScratchSchema schema(admin.get());
  ASSERT_TRUE(admin->Exec(fmt::format("CREATE TABLE {0}.locked (id int8); CREATE TABLE {0}.later "
                                      "(id int8); INSERT INTO {0}.locked VALUES (1)",
                                      schema.q())).ok());
  const std::string name = schema.name() + ".locked";
  {
    // Held before the dump starts: the coordinator's NOWAIT lock fails.
    auto locker = AdminConn();
    ASSERT_TRUE(locker->Exec("BEGIN; LOCK TABLE " + schema.q() + ".locked IN ACCESS EXCLUSIVE MODE").ok());
    auto db = OpenPostgresDatabase(testing_pg::TestDsn(), PostgresOptions{});
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->BeginSnapshot().ok());
    ASSERT_TRUE((*db)->ListTables().ok());
    ASSERT_TRUE((*db)->DescribeTable(TableInfo{{schema.name(), "locked"}}).ok());
    const auto start = std::chrono::steady_clock::now();
    auto source = (*db)->Open(Whole(schema.name(), "locked"));
    ASSERT_FALSE(source.ok());
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
    EXPECT_NE(source.status().message().find("table " + name + " is locked by another session (NOWAIT)"),
              std::string::npos) << source.status().message();
    // The snapshot survives the failed lock: other tables still read.
    Totals t;
    EXPECT_TRUE(ReadUnit(**db, Whole(schema.name(), "later"), &t).ok());
    ASSERT_TRUE(locker->Exec("ROLLBACK").ok());
  }
  {
    // Requested after the coordinator's lock: the exclusive request queues, and
    // a worker's NOWAIT lock fails instead of queueing behind it.
    auto db = OpenPostgresDatabase(testing_pg::TestDsn(), PostgresOptions{});
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->BeginSnapshot().ok());
    ASSERT_TRUE((*db)->LockTables({TableInfo{{schema.name(), "locked"}}}).ok());
    auto locker = AdminConn();
    ASSERT_TRUE(PQsendQuery(locker->raw(), ("BEGIN; LOCK TABLE " + schema.q() +
                                            ".locked IN ACCESS EXCLUSIVE MODE").c_str()));
    for (int i = 0; i < 100; ++i) {
      if (QueryOne(*admin, "SELECT count(*) FROM pg_locks WHERE NOT granted AND mode = "
                           "'AccessExclusiveLock'") != "0") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    auto source = (*db)->Open(Whole(schema.name(), "locked"));
    ASSERT_FALSE(source.ok());
    EXPECT_NE(source.status().message().find("table " + name + " is locked by another session (NOWAIT)"),
              std::string::npos) << source.status().message();
    db->reset();  // releases the coordinator's lock; the locker gets its lock
    while (PGresult* r = PQgetResult(locker->raw())) PQclear(r);
    ASSERT_TRUE(locker->Exec("ROLLBACK").ok());
  }
}

TEST(PostgresSourceTest, KilledBackendMidReadIsAClearError) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  ScratchSchema schema(admin.get());
  ASSERT_TRUE(admin->Exec(fmt::format("CREATE TABLE {0}.t (id int8, pad text); INSERT INTO {0}.t "
                                      "SELECT g, repeat('z', 200) FROM generate_series(1, 200000) g",
                                      schema.q())).ok());
  auto db = OpenPostgresDatabase(testing_pg::TestDsn(), PostgresOptions{});
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE((*db)->BeginSnapshot().ok());
  auto source = (*db)->Open(Whole(schema.name(), "t"));
  ASSERT_TRUE(source.ok());
  RowBatch batch;
  ASSERT_TRUE((*source)->Next(100, &batch).ok());
  ASSERT_EQ(batch.num_rows(), 100u);
  // Only this test's COPY (its scratch schema is in the statement): other tests run their
  // own COPYs on the same server at the same time.
  EXPECT_EQ(QueryOne(*admin, fmt::format("SELECT count(pg_terminate_backend(pid)) FROM "
                                         "pg_stat_activity WHERE query LIKE '%COPY % TO STDOUT%' "
                                         "AND position($${}$$ in query) > 0 AND pid <> "
                                         "pg_backend_pid()",
                                         schema.name())),
            "1");
  Status st;
  int64_t rows = 100;
  for (int i = 0; i < 10000 && st.ok(); ++i) {
    st = (*source)->Next(1000, &batch);
    if (st.ok() && batch.empty()) break;
    rows += static_cast<int64_t>(batch.num_rows());
  }
  ASSERT_FALSE(st.ok()) << "read " << rows << " rows without an error";
  EXPECT_LT(rows, 200000);
  EXPECT_EQ(st.code(), Code::kUnavailable) << st.ToString();
  EXPECT_NE(st.message().find("reading table " + schema.name() + ".t"), std::string::npos)
      << st.message();
  // The server's FATAL "terminating connection ..." is quoted when it arrives before the socket
  // closes; a backend blocked on a full send buffer (a slow client) may not get it out.
  EXPECT_TRUE(st.message().find("terminating connection") != std::string::npos ||
              st.message().find("connection to PostgreSQL lost") != std::string::npos)
      << st.message();
  source->reset();
  // The pool replaces the dead connection.
  Totals t;
  EXPECT_TRUE(ReadUnit(**db, Whole(schema.name(), "t"), &t).ok());
  EXPECT_EQ(t.rows, 200000);
}

}  // namespace
}  // namespace lakedump
