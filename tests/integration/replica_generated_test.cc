// Stored generated columns (GENERATED ALWAYS AS (...) STORED) through dump and load: COPY with
// a column list refuses them, so the dump reads such a table through COPY (SELECT ...) and
// keeps the computed values in its Parquet file; a load into the table the schema archive
// restored leaves them out of its COPY and the target computes them again; a load with the
// tables' own DDL (--schema-from lakedump) gets plain columns holding the dumped values; an
// append into an existing table (through the staging table) leaves them out as well.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "integration/replica_fixture.h"

namespace lakedump::testing_replica {
namespace {

constexpr const char* kGeneratedSql = R"SQL(
CREATE SCHEMA gen;
CREATE TABLE gen.items (
  id int PRIMARY KEY,
  price numeric(10,2) NOT NULL,
  qty int NOT NULL,
  total numeric(12,2) GENERATED ALWAYS AS (price * qty) STORED,
  label text GENERATED ALWAYS AS ('item ' || id::text) STORED
);
INSERT INTO gen.items (id, price, qty) SELECT g, g * 1.5, g % 7 FROM generate_series(1, 3000) g;
)SQL";

class ReplicaGeneratedTest : public ReplicaTest {
 protected:
  void SetUp() override {
    ReplicaTest::SetUp();
    if (Stopped()) return;
    ASSERT_TRUE(testing_pg::RunSqlIn(*source_, kGeneratedSql));
  }
  // dump --tables 'gen.*' into `dump`, then load --trust-dump of it into `replica`.
  void DumpAndRestore(const std::string& dump, const ScratchDatabase& replica) {
    RunResult d = Dump(dump, "--tables 'gen.*'");
    ASSERT_EQ(d.code, 0) << d.out << d.err;
    RunResult l = Load(dump, replica, "--trust-dump");
    ASSERT_EQ(l.code, 0) << l.out << l.err;
  }
  std::string Query(const ScratchDatabase& db, const std::string& sql) {
    auto conn = testing_pg::AdminConn(db.conninfo());
    EXPECT_TRUE(conn);
    return conn ? testing_pg::QueryOne(*conn, sql) : "";
  }
};

TEST_F(ReplicaGeneratedTest, DumpedThenRecomputedByTheRestoredTable) {
  const std::string dump = dir_.Sub("d");
  ScratchDatabase replica(admin_.get());
  DumpAndRestore(dump, replica);
  if (HasFatalFailure()) return;
  ExpectSameDump(PgDumpLines(source_->conninfo(), "--schema-only -n gen"),
                 PgDumpLines(replica.conninfo(), "--schema-only -n gen"));
  ExpectSameDump(PgDumpLines(source_->conninfo(), "--data-only -n gen"),
                 PgDumpLines(replica.conninfo(), "--data-only -n gen"));
  const std::string sums = "SELECT count(*) || ' ' || sum(total) || ' ' || max(label) FROM gen.items";
  EXPECT_EQ(Query(replica, sums), Query(*source_, sums));
  EXPECT_EQ(Query(replica, sums), "3000 " + Query(*source_, "SELECT sum(price * qty) FROM gen.items") +
                                      " item 999");
  // Still generated: a new row gets its computed values.
  EXPECT_EQ(Query(replica, "INSERT INTO gen.items (id, price, qty) VALUES (5000, 2.50, 4) "
                           "RETURNING total || ' ' || label"),
            "10.00 item 5000");
  RunResult v = RunLakedump(fmt::format("verify {} --deep", Quote(dump)), dir_);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
}

TEST_F(ReplicaGeneratedTest, WithTheTablesOwnDdlTheValuesArriveAsPlainColumns) {
  const std::string dump = dir_.Sub("d");
  RunResult d = Dump(dump, "--tables 'gen.*' --schema-from lakedump");
  ASSERT_EQ(d.code, 0) << d.out << d.err;
  ScratchDatabase replica(admin_.get());
  RunResult l = Load(dump, replica);
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  const std::string sums = "SELECT count(*) || ' ' || sum(total) || ' ' || max(label) FROM gen.items";
  EXPECT_EQ(Query(replica, sums), Query(*source_, sums));
}

// Appending into an existing table goes through a staging table and INSERT ... SELECT, which
// must leave the generated columns out too (PostgreSQL refuses a value for them: "cannot
// insert a non-DEFAULT value into column"). Here the table the archive restored, emptied and
// appended into again with --data-only.
TEST_F(ReplicaGeneratedTest, AppendedThroughTheStagingTableIntoTheRestoredTable) {
  const std::string dump = dir_.Sub("d");
  ScratchDatabase replica(admin_.get());
  DumpAndRestore(dump, replica);
  if (HasFatalFailure()) return;
  ASSERT_TRUE(testing_pg::RunSqlIn(replica, "TRUNCATE gen.items"));
  RunResult a = Load(dump, replica, "--data-only --if-exists append");
  ASSERT_EQ(a.code, 0) << a.out << a.err;
  ExpectSameDump(PgDumpLines(source_->conninfo(), "--data-only -n gen"),
                 PgDumpLines(replica.conninfo(), "--data-only -n gen"));
  EXPECT_EQ(Query(replica, "SELECT count(*) FROM pg_catalog.pg_tables WHERE tablename LIKE "
                           "'\\_lakedump\\_load\\_%'"),
            "0");
  EXPECT_EQ(Query(replica, "INSERT INTO gen.items (id, price, qty) VALUES (5000, 2.50, 4) "
                           "RETURNING total || ' ' || label"),
            "10.00 item 5000");
}

// The target computes its own generated columns, whatever the dump holds for them: an existing
// table whose expressions differ from the source's gets its own values, beside its own rows.
TEST_F(ReplicaGeneratedTest, AppendedIntoATableOfItsOwnTheTargetsExpressionsCount) {
  const std::string dump = dir_.Sub("d");
  RunResult d = Dump(dump, "--tables 'gen.*'");
  ASSERT_EQ(d.code, 0) << d.out << d.err;
  ScratchDatabase target(admin_.get());
  ASSERT_TRUE(testing_pg::RunSqlIn(target, R"SQL(
CREATE SCHEMA gen;
CREATE TABLE gen.items (
  id int PRIMARY KEY,
  price numeric(10,2) NOT NULL,
  qty int NOT NULL,
  total numeric(12,2) GENERATED ALWAYS AS (price * qty * 2) STORED,
  label text GENERATED ALWAYS AS ('own ' || id::text) STORED,
  note text DEFAULT 'appended'
);
INSERT INTO gen.items (id, price, qty, note) VALUES (9000, 1.00, 3, 'mine');
)SQL"));
  RunResult a = Load(dump, target, "--data-only --if-exists append");
  ASSERT_EQ(a.code, 0) << a.out << a.err;
  EXPECT_EQ(Query(target, "SELECT count(*) FROM gen.items"), "3001");
  EXPECT_EQ(Query(target, "SELECT sum(total) FROM gen.items WHERE id <= 3000"),
            Query(*source_, "SELECT sum(price * qty * 2) FROM gen.items"));
  EXPECT_EQ(Query(target, "SELECT total || ' ' || label || ' ' || note FROM gen.items "
                          "WHERE id = 42"),
            Query(*source_, "SELECT (price * qty * 2)::numeric(12,2) || ' own 42 appended' "
                            "FROM gen.items WHERE id = 42"));
  EXPECT_EQ(Query(target, "SELECT total || ' ' || label || ' ' || note FROM gen.items "
                          "WHERE id = 9000"),
            "6.00 own 9000 mine");
}

}  // namespace
}  // namespace lakedump::testing_replica
