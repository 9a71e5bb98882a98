// Incremental dumps end to end (issue 15, docs/incremental.md) against the test PostgreSQL
// (wal_level=logical, scripts/start-postgres): a base and increments taken while pgbench
// writes, replicas loaded from base + increments compared with the source by pg_dump
// --data-only; a killed increment re-run; tables dropped, truncated and altered between
// increments; bad input. Every test drops the replication slots of its databases (a slot
// left behind holds WAL on the shared server).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <sstream>
#include <string_view>
#include <thread>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/incremental_fixture.h"
#include "integration/own_pg_server.h"

namespace lakedump {
namespace {

using testing_cli::ExpectOneLineError;
using testing_cli::Quote;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_pg::AdminConn;
using testing_pg::OwnPgServer;
using testing_pg::ScratchDatabase;
using testing_pg::SlotCleanup;

using testing_inc::DataOf;
using testing_inc::PgBin;

// Expects each of `parts` in what `r` printed.
void ExpectSays(const RunResult& r, std::initializer_list<std::string_view> parts) {
  for (std::string_view p : parts) {
    EXPECT_NE(r.out.find(p), std::string::npos) << "\"" << p << "\" not in: " << r.out;
  }
}

class IncrementalTest : public testing_inc::IncrementalFixture {
 protected:
  void Sql(const std::string& conninfo, const std::string& sql) {
    testing_inc::RunSql(conninfo, sql);
  }
  RunResult Dump(const std::string& extra = "") { return DumpFrom(src_->conninfo(), extra); }
  RunResult DumpFrom(const std::string& source, const std::string& extra = "") {
    return RunLakedump(fmt::format("dump {} {} --incremental --progress none {}", Quote(source),
                                   Quote(dest_), extra),
                       tmp_, 600);
  }
  // Applies increments `from`.. to `replica`, which holds what increment from-1 left (their
  // DDL too: a trusted load).
  RunResult CatchUp(const std::string& replica, int from) {
    return Load(replica, fmt::format("--trust-dump --if-exists append --from {}", from));
  }
  // `load DEST replica ARGS`.
  RunResult Load(const std::string& replica, const std::string& args,
                 const std::string& dest = "") {
    return RunLakedump(fmt::format("load {} {} --progress none {}", Quote(dest.empty() ? dest_ : dest),
                                   Quote(replica), args),
                       tmp_, 600);
  }
  std::string IncrementFile(int n, const std::string& rest) {
    return fmt::format("{}/_increments/{:06d}/{}", dest_, n, rest);
  }
  // Edits increment n's _manifest.json with `edit`.
  void EditIncrement(int n, const std::function<void(nlohmann::json&)>& edit) {
    const std::string path = IncrementFile(n, "_manifest.json");
    auto j = nlohmann::json::parse(testing_cli::ReadFile(path));
    edit(j);
    testing_cli::WriteFile(path, j.dump());
  }
  // An increment that dies at fault point `fault` (LAKEDUMP_FAULT): it must fail.
  void DumpDyingAt(const char* fault) {
    setenv("LAKEDUMP_FAULT", fault, 1);
    RunResult died = Dump();
    unsetenv("LAKEDUMP_FAULT");
    EXPECT_NE(died.code, 0) << "the increment did not die at " << fault;
  }
  // The re-run after increments that died (it takes over their stale lease on this host):
  // a replica loaded from the dump has the source's rows, and the dump verifies.
  RunResult RerunMakesATwin() {
    RunResult again = Dump("--wait-for-lock 60s");
    EXPECT_EQ(again.code, 0) << again.err;
    if (again.code != 0) return again;
    EXPECT_TRUE(DataOf(Replica()) == DataOf(src_->conninfo()));
    EXPECT_EQ(RunLakedump("verify " + Quote(dest_), tmp_).code, 0);
    return again;
  }
  bool Committed(int n) {
    return std::filesystem::exists(fmt::format("{}/_increments/{:06d}/_manifest.json", dest_, n));
  }
};

TEST_F(IncrementalTest, IncrementsWhilePgbenchWritesMakeAnExactReplica) {
  const std::string pgbench = PgBin() + "/pgbench";
  ASSERT_EQ(std::system(fmt::format("{} -i -s 1 -q {} >/dev/null 2>&1", pgbench,
                                    Quote(src_->conninfo()))
                            .c_str()),
            0);
  RunResult base = Dump();
  ASSERT_EQ(base.code, 0) << base.err;
  auto bench = [&](int seconds) {
    return std::thread([=, this] {
      std::system(fmt::format("{} -n -c 2 -j 1 -T {} {} >/dev/null 2>&1", pgbench, seconds,
                              Quote(src_->conninfo()))
                      .c_str());
    });
  };
  // Increment 1 while pgbench writes.
  std::thread writers = bench(4);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  RunResult one = Dump();
  writers.join();
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_NE(one.out.find("increment 1:"), std::string::npos) << one.out;
  EXPECT_NE(one.out.find("public.pgbench_history: no primary key"), std::string::npos) << one.out;
  // Increment 2 with the writers paused: the source as it is when it starts, recorded.
  const std::string at_two = DataOf(src_->conninfo());
  RunResult two = Dump();
  ASSERT_EQ(two.code, 0) << two.err;
  // Increment 3 while pgbench writes again.
  writers = bench(4);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  RunResult three = Dump();
  writers.join();
  ASSERT_EQ(three.code, 0) << three.err;
  // The writers stopped: a last increment, then base + all increments equals the source.
  RunResult four = Dump();
  ASSERT_EQ(four.code, 0) << four.err;
  EXPECT_NE(four.out.find("retains"), std::string::npos) << four.out;
  const std::string source = DataOf(src_->conninfo());
  EXPECT_GT(source.size(), 1000u);
  const std::string replica = Replica();
  const std::string replica_data = DataOf(replica);
  EXPECT_TRUE(replica_data == source) << "the replica differs from the source";
  // Stopped at increment 2: the source as it was when increment 2 started.
  const std::string until_two = Replica("--until 2");
  EXPECT_TRUE(DataOf(until_two) == at_two) << "load --until 2 differs from the source then";
  EXPECT_NE(at_two, source);
  // The earlier replica brought up to date.
  RunResult rest = CatchUp(until_two, 3);
  ASSERT_EQ(rest.code, 0) << rest.err;
  EXPECT_TRUE(DataOf(until_two) == source);
  // verify checks base and increments; ls lists them.
  RunResult verify = RunLakedump("verify " + Quote(dest_), tmp_);
  EXPECT_EQ(verify.code, 0) << verify.out << verify.err;
  RunResult ls = RunLakedump("ls " + Quote(dest_), tmp_);
  EXPECT_NE(ls.out.find("4 increments"), std::string::npos) << ls.out;
  EXPECT_NE(ls.out.find("re-dumped whole in every increment"), std::string::npos) << ls.out;
  // gc --drop-slot: slot and publication gone, and an increment then refuses in one line.
  RunResult gc = RunLakedump(fmt::format("gc {} --drop-slot --source {}", Quote(dest_),
                                         Quote(src_->conninfo())),
                             tmp_);
  EXPECT_EQ(gc.code, 0) << gc.err;
  EXPECT_EQ(testing_pg::QueryOne(*admin_, fmt::format("SELECT count(*) FROM pg_replication_slots "
                                                      "WHERE database = '{}'",
                                                      src_->name())),
            "0");
  ExpectOneLineError(Dump(), 2, "is gone");
  EXPECT_FALSE(Committed(5));
}

TEST_F(IncrementalTest, KilledIncrementIsRedoneWithoutLossOrDoubles) {
  Sql(src_->conninfo(), "CREATE TABLE t (id int PRIMARY KEY, v text); "
                        "INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 1000) g");
  ASSERT_EQ(Dump().code, 0);
  // Killed at several points of an increment (reading, writing, re-dumping, committing).
  for (int ms : {50, 200, 600}) {
    Sql(src_->conninfo(),
        fmt::format("INSERT INTO t SELECT g, 'n' FROM generate_series({0}, {0} + 20000) g; "
                    "UPDATE t SET v = v || 'u' WHERE id % 7 = 0; DELETE FROM t WHERE id % 11 = 0",
                    100000 * (ms + 1)));
    Sql(src_->conninfo(), fmt::format("UPDATE t SET v = 'k{}' WHERE id % 5 = 0", ms));
    const std::string cmd =
        fmt::format("timeout -s KILL {}.{:03d} {} dump {} {} --incremental --progress none "
                    ">/dev/null 2>&1",
                    ms / 1000, ms % 1000, LAKEDUMP_BINARY, Quote(src_->conninfo()), Quote(dest_));
    std::system(cmd.c_str());
  }
  // Killed between the commit and the slot's move.
  Sql(src_->conninfo(), "UPDATE t SET v = 'last' WHERE id < 100; DELETE FROM t WHERE id = 500");
  DumpDyingAt("increment-before-advance");
  Sql(src_->conninfo(), "INSERT INTO t VALUES (-1, 'after')");
  RerunMakesATwin();
}

// A run that dies after it took a table that lost its key out of the publication, before
// its commit, is redone: the table is out already, and is re-dumped from then on.
TEST_F(IncrementalTest, IncrementDiedBeforeItsCommitIsRedone) {
  const std::string src = src_->conninfo();
  Sql(src, "CREATE TABLE t (id int CONSTRAINT t_key PRIMARY KEY, v text); "
           "CREATE TABLE u (id int PRIMARY KEY, v text); "
           "INSERT INTO t SELECT g, 't' FROM generate_series(1, 100) g; "
           "INSERT INTO u SELECT g, 'u' FROM generate_series(1, 100) g");
  ASSERT_EQ(Dump().code, 0);
  Sql(src, "ALTER TABLE t DROP CONSTRAINT t_key; INSERT INTO t VALUES (0, 'no key'); "
           "UPDATE u SET v = 'x' WHERE id < 50");
  DumpDyingAt("increment-before-commit");
  EXPECT_FALSE(Committed(1));
  Sql(src, "INSERT INTO t VALUES (-1, 'after'); UPDATE u SET v = 'y' WHERE id < 10");
  ExpectSays(RerunMakesATwin(), {"increment 1:", "public.t: no primary key"});
}

TEST_F(IncrementalTest, DroppedTruncatedAndAlteredTablesBetweenIncrements) {
  Sql(src_->conninfo(),
      "CREATE TABLE a (id int PRIMARY KEY, v text); CREATE TABLE b (id int PRIMARY KEY, v text); "
      "CREATE TABLE c (id int PRIMARY KEY, v text); CREATE TABLE d (id int PRIMARY KEY); "
      "INSERT INTO a SELECT g, 'a' FROM generate_series(1, 100) g; "
      "INSERT INTO b SELECT g, 'b' FROM generate_series(1, 100) g; "
      "INSERT INTO c SELECT g, 'c' FROM generate_series(1, 100) g; "
      "INSERT INTO d SELECT g FROM generate_series(1, 100) g");
  ASSERT_EQ(Dump().code, 0);
  Sql(src_->conninfo(),
      "UPDATE a SET v = 'a2' WHERE id < 10; DROP TABLE d; "
      "INSERT INTO b VALUES (1000, 'x'); TRUNCATE b; INSERT INTO b VALUES (7, 'after'); "
      "UPDATE c SET v = 'before' WHERE id = 1; ALTER TABLE c ADD COLUMN n int DEFAULT 5; "
      "UPDATE c SET n = 9 WHERE id = 2");
  RunResult one = Dump();
  ASSERT_EQ(one.code, 0) << one.err;
  ExpectSays(one, {"public.b: truncated", "public.c: its columns",
                   "dropped from the source: public.d"});
  // After the re-dumps, changes flow again (their skip point honoured).
  Sql(src_->conninfo(), "UPDATE b SET v = 'later' WHERE id = 7; UPDATE c SET n = 1 WHERE id < 5");
  ASSERT_EQ(Dump().code, 0);
  const std::string replica = Replica();
  EXPECT_TRUE(DataOf(replica) == DataOf(src_->conninfo()));
  EXPECT_EQ(testing_pg::QueryOne(*admin_, "SELECT 1"), "1");
}

TEST_F(IncrementalTest, BadInputIsOneLineAndCommitsNothing) {
  Sql(src_->conninfo(), "CREATE TABLE t (id int PRIMARY KEY)");
  // SQLite.
  TempDir tmp;
  testing_cli::WriteFile(tmp.Sub("x.sqlite"), "");
  ExpectOneLineError(RunLakedump(fmt::format("dump {} {} --incremental", Quote(tmp.Sub("x.sqlite")),
                                             Quote(tmp.Sub("out"))),
                                 tmp),
                     2, "needs a PostgreSQL source");
  EXPECT_FALSE(std::filesystem::exists(tmp.Sub("out/_manifest.json")));
  // Iceberg: not partitioned; an increment of a Parquet base is not an Iceberg snapshot.
  ExpectOneLineError(Dump("--table-format iceberg --partition-by id"), 2,
                     "cannot be combined with --partition-by");
  ASSERT_EQ(Dump().code, 0);
  ExpectOneLineError(Dump("--table-format iceberg"), 2, "not an Iceberg dump");
  EXPECT_FALSE(Committed(1));
  // A base of another database.
  ScratchDatabase other(admin_.get());
  SlotCleanup other_slots(admin_.get(), other.name());
  ExpectOneLineError(RunLakedump(fmt::format("dump {} {} --incremental", Quote(other.conninfo()),
                                             Quote(dest_)),
                                 tmp),
                     2, "another database");
  EXPECT_FALSE(Committed(1));
  // The slot gone.
  EXPECT_EQ(testing_pg::QueryOne(*admin_,
                                 fmt::format("SELECT count(pg_drop_replication_slot(slot_name)) "
                                             "FROM pg_replication_slots WHERE database = '{}'",
                                             src_->name())),
            "1");
  ExpectOneLineError(Dump(), 2, "is gone");
  EXPECT_FALSE(Committed(1));
}

// The source restarted between increments, on a server of the test's own (the shared one
// must not be restarted): cleanly (pg_ctl -m fast) and by a crash (-m immediate), the crash
// once right after an increment (which may take the slot back to before that increment's
// end: its move is saved at the next checkpoint) and once with changes the slot has not
// given yet. Base + increments equal the source.
TEST_F(IncrementalTest, SourceRestartedBetweenIncrements) {
  TempDir dir;
  OwnPgServer server(dir, 56700);
  ASSERT_TRUE(server.ok()) << server.StartLog();
  const std::string src = server.dsn();
  Sql(src,
      "CREATE TABLE t (id int PRIMARY KEY, v text, big text); CREATE TABLE nokey (n int); "
      "INSERT INTO t SELECT g, 'v' || g, NULL FROM generate_series(1, 2000) g; "
      "UPDATE t SET big = (SELECT string_agg(md5(id::text || i::text), '') FROM "
      "generate_series(1, 300) i) WHERE id > 1990");
  ASSERT_EQ(DumpFrom(src).code, 0);
  // Each round's commits are waited for: the server runs with synchronous_commit=off, and
  // a crash would otherwise take them away (correct, but nothing of them left to check).
  auto change = [&](int round) {
    Sql(src, fmt::format("SET synchronous_commit = on; "
                         "INSERT INTO t SELECT g, 'r{0}', NULL FROM generate_series({0} * 10000, "
                         "{0} * 10000 + 500) g; "
                         "UPDATE t SET v = v || '.{0}' WHERE id % 7 = {0} % 7; "
                         "DELETE FROM t WHERE id % 13 = {0} AND id < 1990; "
                         "UPDATE t SET v = 'toasted {0}' WHERE id > 1995 AND id < 2001; "
                         "INSERT INTO nokey VALUES ({0})",
                         round));
  };
  auto increment = [&](int n) {
    RunResult r = DumpFrom(src);
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find(fmt::format("increment {}:", n)), std::string::npos) << r.out;
  };
  change(1);
  increment(1);
  change(2);
  ASSERT_EQ(server.Restart("fast"), 0) << server.PgCtlOutput();
  change(3);
  increment(2);
  ASSERT_EQ(server.Restart("immediate"), 0) << server.PgCtlOutput();
  change(4);
  increment(3);
  change(5);
  ASSERT_EQ(server.Restart("immediate"), 0) << server.PgCtlOutput();
  change(6);
  increment(4);
  const std::string source = DataOf(src);
  EXPECT_NE(source.find("toasted 6"), std::string::npos);
  EXPECT_TRUE(DataOf(Replica()) == source) << "the replica differs from the source";
  // The replica loaded up to increment 2, then brought up to date.
  const std::string earlier = Replica("--until 2");
  RunResult rest = CatchUp(earlier, 3);
  ASSERT_EQ(rest.code, 0) << rest.err;
  EXPECT_TRUE(DataOf(earlier) == source);
  EXPECT_EQ(RunLakedump("verify " + Quote(dest_), tmp_).code, 0);
}

// Tables created after the base that its selection covers: not in the publication, so
// re-dumped whole in every increment (said by each increment and by ls) and created in the
// replica by load, in a schema new to it too; a table dropped and created again likewise
// (the drop took it out of the publication). A table the base's --exclude covers stays out.
TEST_F(IncrementalTest, TablesCreatedAfterTheBaseReachTheReplica) {
  const std::string src = src_->conninfo();
  Sql(src, "CREATE TABLE a (id int PRIMARY KEY, v text); CREATE TABLE r (id int PRIMARY KEY, "
           "v text); CREATE SCHEMA other; "
           "INSERT INTO a SELECT g, 'a' FROM generate_series(1, 100) g; "
           "INSERT INTO r SELECT g, 'r' FROM generate_series(1, 100) g");
  ASSERT_EQ(Dump("--exclude 'other.*'").code, 0);
  Sql(src, "CREATE TABLE n (id int PRIMARY KEY, v text NOT NULL, amount numeric(10,2)); "
           "INSERT INTO n SELECT g, 'n' || g, g * 1.5 FROM generate_series(1, 300) g; "
           "CREATE SCHEMA fresh; CREATE TABLE fresh.k (x int); "
           "INSERT INTO fresh.k VALUES (1), (2); "
           "CREATE TABLE other.skip (id int PRIMARY KEY); INSERT INTO other.skip VALUES (1); "
           "DROP TABLE r; CREATE TABLE r (id int PRIMARY KEY, v text); "
           "INSERT INTO r SELECT g, 'again' FROM generate_series(1, 50) g; "
           "UPDATE a SET v = 'a1' WHERE id < 10");
  RunResult one = Dump();
  ASSERT_EQ(one.code, 0) << one.err;
  ExpectSays(one, {"public.n: created after the base", "fresh.k: created after the base",
                   "public.r: dropped and created again"});
  EXPECT_EQ(one.out.find("other.skip"), std::string::npos) << one.out;
  // Changed between increments: the next increment dumps them whole again.
  Sql(src, "UPDATE n SET v = 'changed' WHERE id % 3 = 0; DELETE FROM n WHERE id > 250; "
           "INSERT INTO n VALUES (1000, 'new', 1); INSERT INTO fresh.k VALUES (3); "
           "UPDATE r SET v = 'later' WHERE id < 5; DELETE FROM r WHERE id = 50; "
           "UPDATE a SET v = 'a2' WHERE id < 5; INSERT INTO other.skip VALUES (2)");
  RunResult two = Dump();
  ASSERT_EQ(two.code, 0) << two.err;
  ExpectSays(two, {"public.n: created after the base", "public.r: dropped and created again"});
  const std::string source = DataOf(src, "--exclude-schema other");
  EXPECT_NE(source.find("changed"), std::string::npos);
  EXPECT_TRUE(DataOf(Replica()) == source) << "the replica differs from the source";
  // A replica of the base alone brought up to date: the new tables are created there too.
  const std::string base_only = Replica("--until 0");
  RunResult rest = CatchUp(base_only, 1);
  ASSERT_EQ(rest.code, 0) << rest.err;
  EXPECT_TRUE(DataOf(base_only) == source);
  RunResult ls = RunLakedump("ls " + Quote(dest_), tmp_);
  EXPECT_NE(ls.out.find("public.n: re-dumped whole in every increment (created after the base"),
            std::string::npos)
      << ls.out;
  EXPECT_EQ(RunLakedump("verify " + Quote(dest_), tmp_).code, 0);
}

// Tables with many changes in one increment are applied set-based (docs/incremental.md,
// "Load"): several changes to one key (the last wins), deletes, a delete then an insert of
// the same key, an insert then a delete, a key changed, updates leaving a TOASTed value
// unchanged (its value then from the target, from an insert or from an update earlier in
// the increment); tables a foreign key ties together in the replica stay row by row. The
// replica equals the source; applying the increment again is refused and changes nothing.
TEST_F(IncrementalTest, ManyChangesAreAppliedSetBased) {
  const std::string src = src_->conninfo();
  // A value of about 9.6 kB that compresses poorly: stored out of line (TOASTed).
  auto big = [](const std::string& seed) {
    return fmt::format("(SELECT string_agg(md5(i::text || {}), '') FROM generate_series(1, 300) i)",
                       seed);
  };
  Sql(src, "CREATE TABLE s (id int PRIMARY KEY, v text, n int, big text); "
           "INSERT INTO s SELECT g, 'v' || g, g, NULL FROM generate_series(1, 3000) g; "
           "UPDATE s SET big = " + big("id::text") + " WHERE id <= 20; "
           "CREATE TABLE parent (id int PRIMARY KEY, v text); "
           "INSERT INTO parent SELECT g, 'p' FROM generate_series(1, 2000) g; "
           "CREATE TABLE child (id int PRIMARY KEY, p int REFERENCES parent (id))");
  ASSERT_EQ(Dump().code, 0);
  Sql(src, "UPDATE s SET n = n + 1 WHERE id % 2 = 0; UPDATE s SET n = n + 1 WHERE id % 4 = 0; "
           "UPDATE s SET v = 'x' WHERE id <= 10; "
           "DELETE FROM s WHERE id % 5 = 0; "
           "INSERT INTO s SELECT g, 'again', g, NULL FROM generate_series(5, 1000, 5) g; "
           "INSERT INTO s VALUES (5000, 'fresh', 1, " + big("'f'") + "); "
           "UPDATE s SET v = 'after insert' WHERE id = 5000; "
           "UPDATE s SET big = " + big("'u'") + " WHERE id = 12; "
           "UPDATE s SET v = 'after update' WHERE id = 12; "
           "UPDATE s SET id = id + 10000 WHERE id BETWEEN 100 AND 110; "
           "INSERT INTO s VALUES (6000, 'gone', 1, NULL); DELETE FROM s WHERE id = 6000; "
           "UPDATE parent SET v = 'q' WHERE id <= 1500; "
           "INSERT INTO child SELECT g, g FROM generate_series(1, 1200) g");
  RunResult one = Dump();
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_EQ(one.out.find("re-dumped whole"), std::string::npos) << one.out;
  const std::string source = DataOf(src);
  EXPECT_NE(source.find("after insert"), std::string::npos);

  replicas_.push_back(std::make_unique<ScratchDatabase>(admin_.get()));
  const std::string replica = replicas_.back()->conninfo();
  RunResult load = RunLakedump(fmt::format("load {} {} --trust-dump --progress none",
                                           Quote(dest_), Quote(replica)),
                               tmp_, 600);
  ASSERT_EQ(load.code, 0) << load.out << load.err;
  auto target = PgConn::Connect(replica, 10);
  ASSERT_TRUE(target.ok());
  const bool fk = testing_pg::QueryOne(**target, "SELECT count(*) FROM pg_constraint WHERE "
                                                 "contype = 'f'") != "0";
  // s always; parent and child too when the replica has no foreign key between them.
  EXPECT_NE(load.out.find(fk ? "(1 tables set-based)" : "(3 tables set-based)"),
            std::string::npos)
      << load.out;
  EXPECT_TRUE(DataOf(replica) == source) << "the replica differs from the source";
  // Increment 1 again onto the replica that has it: refused, nothing of it stays.
  ExpectOneLineError(CatchUp(replica, 1), 2, "holds increments up to 1");
  EXPECT_TRUE(DataOf(replica) == source);
  // Its record gone (a target loaded before records existed): the rows' check refuses it.
  Sql(replica, "DROP SCHEMA lakedump CASCADE");
  RunResult again = CatchUp(replica, 1);
  EXPECT_NE(again.code, 0);
  EXPECT_NE(again.err.find("in the target already"), std::string::npos) << again.err;
  EXPECT_TRUE(DataOf(replica) == source);
}

// Issue 29, as an attacker with write access to the bucket: a genuine increment edited. An
// untrusted load refuses an increment carrying DDL (re-dumped or dropped tables) before the
// first is applied (a full load: before the base); a type outside the closed grammar (a
// DEFAULT that writes a file on the server) is refused even with --trust-dump; change files,
// re-dumped and dropped lists naming a table outside the base dump are refused. Each: exit 2,
// one line naming the increment, the target unchanged.
TEST_F(IncrementalTest, ForgedIncrementsAreRefusedAndChangeNothing) {
  const std::string src = src_->conninfo();
  Sql(src, "CREATE TABLE t (id int PRIMARY KEY, v text); CREATE TABLE nokey (n int); "
           "INSERT INTO t SELECT g, 'v' FROM generate_series(1, 50) g; "
           "INSERT INTO nokey VALUES (1)");
  ASSERT_EQ(Dump().code, 0);
  Sql(src, "UPDATE t SET v = 'w' WHERE id < 10; INSERT INTO nokey VALUES (2)");
  ASSERT_EQ(Dump().code, 0);
  // A replica of the base alone (untrusted), and a table of its own the dump does not have.
  const std::string replica = EmptyReplica();
  ASSERT_EQ(Load(replica, "--until 0").code, 0);
  Sql(replica, "CREATE TABLE victim (id int); INSERT INTO victim VALUES (42)");
  const std::string before = DataOf(replica);
  auto unchanged = [&] {
    EXPECT_TRUE(DataOf(replica) == before) << "the target changed";
    EXPECT_EQ(testing_pg::QueryOne(**PgConn::Connect(replica, 10),
                                   "SELECT max(sequence) FROM lakedump.applied_increments"),
              "0");
  };
  // Untrusted, the genuine increment re-dumps nokey: DDL, refused.
  ExpectOneLineError(Load(replica, "--if-exists append"), 2,
                     "increment 1 refused: it carries DDL (re-dumps 1 table(s), public.nokey");
  unchanged();
  ExpectOneLineError(Load(replica, "--data-only --if-exists append --from 1"), 2,
                     "only a trusted load applies");
  unchanged();
  // A full untrusted load: refused before the base is loaded.
  const std::string fresh = EmptyReplica();
  ExpectOneLineError(Load(fresh, ""), 2, "increment 1 refused");
  EXPECT_EQ(testing_pg::QueryOne(**PgConn::Connect(fresh, 10),
                                 "SELECT count(*) FROM pg_class WHERE relnamespace = "
                                 "'public'::regnamespace"),
            "0");
  // A type that would evaluate SQL (a DEFAULT, run for the rows the target has), with
  // --trust-dump: refused by the grammar.
  std::string table_json;
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(IncrementFile(1, "redump"))) {
    if (e.path().filename() == "_table.json") table_json = e.path();
  }
  ASSERT_FALSE(table_json.empty());
  const std::string genuine = testing_cli::ReadFile(table_json);
  nlohmann::json forged = nlohmann::json::parse(genuine);
  int edited = 0;
  std::function<void(nlohmann::json&)> edit = [&](nlohmann::json& j) {
    if (j.is_object() && j.value("source_type", nlohmann::json()) == "integer") {
      j["source_type"] = "integer DEFAULT pg_catalog.lo_export(1, pg_catalog.chr(47))";
      ++edited;
    }
    if (j.is_structured()) {
      for (auto& child : j) edit(child);
    }
  };
  edit(forged);
  ASSERT_GT(edited, 0) << genuine;
  testing_cli::WriteFile(table_json, forged.dump());
  ExpectOneLineError(Load(replica, "--trust-dump --if-exists append"), 2,
                     "increment 1 refused: table public.nokey, column \"n\": type");
  unchanged();
  testing_cli::WriteFile(table_json, genuine);
  // Change files, re-dumped and dropped lists retargeted at the target's own table.
  const std::string manifest = testing_cli::ReadFile(IncrementFile(1, "_manifest.json"));
  for (const char* list : {"change_files", "redumped", "dropped"}) {
    EditIncrement(1, [&](nlohmann::json& j) {
      if (j[list].empty()) j[list].push_back({{"schema", "public"}, {"table", "t"}});
      j[list][0]["table"] = "victim";
    });
    ExpectOneLineError(Load(replica, "--trust-dump --if-exists append"), 2,
                       "names table public.victim, which is not a table of its base dump");
    unchanged();
    testing_cli::WriteFile(IncrementFile(1, "_manifest.json"), manifest);
  }
  // lakedump's own schema is out of reach, even mapped to.
  ExpectOneLineError(Load(replica, "--trust-dump --if-exists append --schema-map public=lakedump"),
                     2, "whose schema in the target is reserved");
  unchanged();
  // The genuine increment, trusted: applied.
  RunResult ok = Load(replica, "--trust-dump --if-exists append");
  ASSERT_EQ(ok.code, 0) << ok.err;
  EXPECT_TRUE(DataOf(replica, "--exclude-table victim") == DataOf(src));
}

// Issue 30: the target records the increments it holds (lakedump.applied_increments), and
// --if-exists append starts after the last one; a gap, a double apply, an increment of another
// dump and an applied increment replaced in the dump are refused, the target unchanged.
TEST_F(IncrementalTest, IncrementsAreAppliedExactlyOnceInOrder) {
  const std::string src = src_->conninfo();
  Sql(src, "CREATE TABLE t (id int PRIMARY KEY, v text); "
           "INSERT INTO t SELECT g, 'v' FROM generate_series(1, 50) g");
  ASSERT_EQ(Dump().code, 0);
  for (int i = 1; i <= 3; ++i) {
    Sql(src, fmt::format("UPDATE t SET v = 'r{0}' WHERE id % 4 = {0}; INSERT INTO t VALUES "
                         "({0} + 100, 'n')",
                         i));
    ASSERT_EQ(Dump().code, 0);
  }
  const std::string replica = EmptyReplica();
  ASSERT_EQ(Load(replica, "--until 1").code, 0);
  auto conn = PgConn::Connect(replica, 10);
  ASSERT_TRUE(conn.ok());
  EXPECT_EQ(testing_pg::QueryOne(**conn, "SELECT string_agg(sequence::text, ',' ORDER BY "
                                         "sequence) FROM lakedump.applied_increments"),
            "0,1");
  const std::string at_one = DataOf(replica);
  ExpectOneLineError(Load(replica, "--if-exists append --from 3"), 2,
                     "increments 2 to 2 would be skipped");
  ExpectOneLineError(Load(replica, "--if-exists append --from 1"), 2, "holds increments up to 1");
  EXPECT_TRUE(DataOf(replica) == at_one);
  // An applied increment replaced in the dump (here: its manifest edited).
  const std::string one = testing_cli::ReadFile(IncrementFile(1, "_manifest.json"));
  EditIncrement(1, [](nlohmann::json& j) { j["seconds"] = 99; });
  ExpectOneLineError(Load(replica, "--if-exists append"), 2, "not the one the target applied");
  testing_cli::WriteFile(IncrementFile(1, "_manifest.json"), one);
  EXPECT_TRUE(DataOf(replica) == at_one);
  // The default: the next one, up to the last.
  RunResult next = Load(replica, "--if-exists append --until 2");
  ASSERT_EQ(next.code, 0) << next.err;
  ExpectSays(next, {"applied increment 2:"});
  RunResult rest = Load(replica, "--if-exists append");
  ASSERT_EQ(rest.code, 0) << rest.err;
  ExpectSays(rest, {"applied increment 3:"});
  EXPECT_TRUE(DataOf(replica) == DataOf(src));
  RunResult none = Load(replica, "--if-exists append");
  EXPECT_EQ(none.code, 0) << none.err;
  ExpectSays(none, {"nothing to apply: the target holds increment 3 of 3"});
  // An increment of another dump (another base of the same source).
  const std::string other = tmp_.Sub("other");
  ASSERT_EQ(RunLakedump(fmt::format("dump {} {} --incremental --progress none", Quote(src),
                                    Quote(other)),
                        tmp_, 600)
                .code,
            0);
  Sql(src, "UPDATE t SET v = 'other' WHERE id = 1");
  ASSERT_EQ(RunLakedump(fmt::format("dump {} {} --incremental --progress none", Quote(src),
                                    Quote(other)),
                        tmp_, 600)
                .code,
            0);
  const std::string done = DataOf(replica);
  ExpectOneLineError(Load(replica, "--if-exists append", other), 2, "the target holds dump");
  ExpectOneLineError(Load(replica, "--if-exists append --from 1", other), 2,
                     "the target holds dump");
  EXPECT_TRUE(DataOf(replica) == done);
  RunResult gc = RunLakedump(fmt::format("gc {} --drop-slot --source {}", Quote(other),
                                         Quote(src)),
                             tmp_);
  EXPECT_EQ(gc.code, 0) << gc.err;
}

// Source columns named as lakedump's own (the change files' meta columns, the load's
// _lakedump_* bookkeeping columns) are escaped in the change files and reach the replica, row
// by row and set-based.
TEST_F(IncrementalTest, ReservedColumnNamesAreEscaped) {
  const std::string src = src_->conninfo();
  Sql(src, "CREATE TABLE r (id int PRIMARY KEY, _op text, _lsn bigint, _lakedump_op text, "
           "_lakedump_lsn int, \"_lakedump__op\" text, v text); "
           "CREATE TABLE few (id int PRIMARY KEY, _unchanged text, _lakedump_exists bool); "
           "INSERT INTO r SELECT g, 'o', g, 'lo', g, 'x', 'v' FROM generate_series(1, 3000) g; "
           "INSERT INTO few VALUES (1, 'a', true)");
  ASSERT_EQ(Dump().code, 0);
  Sql(src, "UPDATE r SET _op = 'o2', _lakedump_op = 'lo2', \"_lakedump__op\" = 'y' WHERE "
           "id % 2 = 0; DELETE FROM r WHERE id % 7 = 0; INSERT INTO r VALUES (9999, 'n', 1, "
           "'n', 2, 'n', 'n'); UPDATE few SET _unchanged = 'b', _lakedump_exists = false; "
           "INSERT INTO few VALUES (2, 'c', NULL)");
  RunResult one = Dump();
  ASSERT_EQ(one.code, 0) << one.err;
  const std::string replica = EmptyReplica();
  RunResult load = Load(replica, "--trust-dump");
  ASSERT_EQ(load.code, 0) << load.out << load.err;
  ExpectSays(load, {"(1 tables set-based)"});
  EXPECT_TRUE(DataOf(replica) == DataOf(src)) << "the replica differs from the source";
}

// A server without logical WAL: a second throw-away server with wal_level=replica.
TEST_F(IncrementalTest, ServerWithoutLogicalWalIsToldWhatToSet) {
  TempDir dir;
  OwnPgServer server(dir, 56500, "LD_PG_WAL_LEVEL=replica");
  if (!server.ok()) GTEST_SKIP() << "could not start a second server: " << server.StartLog();
  RunResult r = RunLakedump(
      fmt::format("dump 'host=127.0.0.1 port={} user=postgres dbname=postgres' {} --incremental",
                  server.port(), Quote(dir.Sub("out"))),
      dir);
  ExpectOneLineError(r, 2, "wal_level=replica: set wal_level = logical");
  EXPECT_FALSE(std::filesystem::exists(dir.Sub("out/_manifest.json")));
}

}  // namespace
}  // namespace lakedump
