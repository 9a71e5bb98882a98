// Incremental dumps end to end (issue 15, docs/incremental.md) against the test PostgreSQL
// (wal_level=logical, scripts/start-postgres): a base and increments taken while pgbench
// writes, replicas loaded from base + increments compared with the source by pg_dump
// --data-only; a killed increment re-run; tables dropped, truncated and altered between
// increments; bad input. Every test drops the replication slots of its databases (a slot
// left behind holds WAL on the shared server).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/pg_test_util.h"

namespace lakedump {
namespace {

using testing_cli::ExpectOneLineError;
using testing_cli::Quote;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_pg::AdminConn;
using testing_pg::ScratchDatabase;

std::string PgBin() {
  const char* bin = std::getenv("LD_TEST_PG_BIN");
  return bin && *bin ? bin : "/usr/lib/postgresql/15/bin";
}

// Drops the replication slots of a database when the test ends (before the database goes:
// a database with a slot cannot be dropped).
class SlotCleanup {
 public:
  SlotCleanup(PgConn* admin, std::string db) : admin_(admin), db_(std::move(db)) {}
  ~SlotCleanup() {
    for (int i = 0; i < 50; ++i) {
      auto r = admin_->Query(
          "SELECT count(pg_drop_replication_slot(slot_name)) FILTER (WHERE NOT active), "
          "count(*) FILTER (WHERE active) FROM pg_replication_slots WHERE database = $1",
          {db_});
      if (!r.ok() || PgValue(r->get(), 0, 1) == "0") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

 private:
  PgConn* admin_;
  std::string db_;
};

// The rows of every table as pg_dump --data-only prints them, sorted (physical order
// differs between a source and its replica).
std::string DataOf(const std::string& conninfo) {
  TempDir tmp;
  const std::string out = tmp.Sub("data.sql");
  const std::string cmd = fmt::format("{}/pg_dump --data-only -d {} > {} 2>&1", PgBin(),
                                      Quote(conninfo), out);
  EXPECT_EQ(std::system(cmd.c_str()), 0) << testing_cli::ReadFile(out);
  std::istringstream in(testing_cli::ReadFile(out));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.starts_with("--") || line.starts_with("\\restrict") ||
        line.starts_with("\\unrestrict") || line.starts_with("SET ") ||
        line.starts_with("SELECT pg_catalog.set_config")) {
      continue;
    }
    lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  std::string joined;
  for (const std::string& l : lines) joined += l + "\n";
  return joined;
}

void Sql(const std::string& conninfo, const std::string& sql) {
  auto c = PgConn::Connect(conninfo, 10);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  Status s = (*c)->Exec("SET search_path = public; " + sql);
  ASSERT_TRUE(s.ok()) << sql << ": " << s.ToString();
}

class IncrementalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LD_REQUIRE_PG();
    admin_ = AdminConn();
    ASSERT_NE(admin_, nullptr);
    if (testing_pg::QueryOne(*admin_, "SHOW wal_level") != "logical") {
      GTEST_SKIP() << "the test server runs without wal_level=logical";
    }
    src_ = std::make_unique<ScratchDatabase>(admin_.get());
    slots_ = std::make_unique<SlotCleanup>(admin_.get(), src_->name());
    dest_ = tmp_.Sub("dest");
  }
  void TearDown() override {
    slots_.reset();
    replicas_.clear();
    src_.reset();
  }
  RunResult Dump(const std::string& extra = "") {
    return RunLakedump(fmt::format("dump {} {} --incremental --progress none {}",
                                   Quote(src_->conninfo()), Quote(dest_), extra),
                       tmp_, 600);
  }
  // A new empty database loaded from DEST with `args`.
  std::string Replica(const std::string& args = "") {
    replicas_.push_back(std::make_unique<ScratchDatabase>(admin_.get()));
    const std::string conninfo = replicas_.back()->conninfo();
    RunResult r = RunLakedump(fmt::format("load {} {} --trust-dump --progress none {}",
                                          Quote(dest_), Quote(conninfo), args),
                              tmp_, 600);
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    return conninfo;
  }
  bool Committed(int n) {
    return std::filesystem::exists(fmt::format("{}/_increments/{:06d}/_manifest.json", dest_, n));
  }

  std::unique_ptr<PgConn> admin_;
  std::unique_ptr<ScratchDatabase> src_;
  std::unique_ptr<SlotCleanup> slots_;
  std::vector<std::unique_ptr<ScratchDatabase>> replicas_;
  TempDir tmp_;
  std::string dest_;
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
  RunResult rest = RunLakedump(fmt::format("load {} {} --if-exists append --from 3",
                                           Quote(dest_), Quote(until_two)),
                               tmp_, 600);
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
  setenv("LAKEDUMP_FAULT", "increment-before-advance", 1);
  RunResult crashed = Dump();
  unsetenv("LAKEDUMP_FAULT");
  EXPECT_NE(crashed.code, 0);
  Sql(src_->conninfo(), "INSERT INTO t VALUES (-1, 'after')");
  // The re-runs: a stale lease of a killed run on this host is taken over.
  RunResult again = Dump("--wait-for-lock 60s");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_TRUE(DataOf(Replica()) == DataOf(src_->conninfo()));
  EXPECT_EQ(RunLakedump("verify " + Quote(dest_), tmp_).code, 0);
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
  EXPECT_NE(one.out.find("public.b: truncated"), std::string::npos) << one.out;
  EXPECT_NE(one.out.find("public.c: its columns"), std::string::npos) << one.out;
  EXPECT_NE(one.out.find("dropped from the source: public.d"), std::string::npos) << one.out;
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
  // Iceberg.
  ExpectOneLineError(Dump("--table-format iceberg"), 2, "not supported yet");
  ASSERT_EQ(Dump().code, 0);
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

// A server without logical WAL: a second throw-away server with wal_level=replica.
TEST_F(IncrementalTest, ServerWithoutLogicalWalIsToldWhatToSet) {
  TempDir dir;
  // initdb runs as the postgres user: it must reach the folder.
  std::filesystem::permissions(dir.Sub(""), std::filesystem::perms::owner_all |
                                                std::filesystem::perms::group_read |
                                                std::filesystem::perms::group_exec |
                                                std::filesystem::perms::others_read |
                                                std::filesystem::perms::others_exec);
  const std::string script = std::string(LAKEDUMP_SOURCE_DIR) + "/scripts/start-postgres";
  if (std::system(fmt::format("LD_PG_WAL_LEVEL=replica PGPORT_BASE=56500 {} {} >{} 2>&1",
                              script, Quote(dir.Sub("pg")), Quote(dir.Sub("start.log")))
                      .c_str()) != 0) {
    GTEST_SKIP() << "could not start a second server: "
                 << testing_cli::ReadFile(dir.Sub("start.log"));
  }
  const std::string env = testing_cli::ReadFile(dir.Sub("pg/env"));
  const size_t at = env.find("PGPORT=");
  const std::string port = env.substr(at + 7, env.find('\n', at) - at - 7);
  RunResult r = RunLakedump(fmt::format("dump 'host=127.0.0.1 port={} user=postgres dbname=postgres' "
                                        "{} --incremental",
                                        port, Quote(dir.Sub("out"))),
                            dir);
  std::system(fmt::format("{}/scripts/stop-postgres {} --purge >/dev/null 2>&1",
                          LAKEDUMP_SOURCE_DIR, Quote(dir.Sub("pg")))
                  .c_str());
  ExpectOneLineError(r, 2, "wal_level=replica: set wal_level = logical");
  EXPECT_FALSE(std::filesystem::exists(dir.Sub("out/_manifest.json")));
}

}  // namespace
}  // namespace lakedump
