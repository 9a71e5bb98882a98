// dump --lock-wait-timeout against a real PostgreSQL (LD_TEST_PG_DSN): a table another session
// holds ACCESS EXCLUSIVE (a migration, VACUUM FULL) is waited for, up to the timeout, instead of
// failing the dump at once; past the timeout one line names the table; an interrupt ends the
// wait. The waits here are PostgreSQL's own (lock_timeout): the tests release the lock as soon
// as they see the dump waiting in pg_locks, never after a fixed time.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <thread>

#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/lakedump_process.h"
#include "integration/pg_test_util.h"

namespace lakedump {
namespace {

using testing_cli::Background;
using testing_cli::RunLakedump;
using testing_cli::WaitUntil;
using testing_pg::AdminConn;
using testing_pg::QueryOne;
using testing_pg::ScratchSchema;

constexpr std::chrono::seconds kLimit{60};  // a guard against a hang, not a duration asserted

// True once a session waits for a lock on `table` (a regclass text).
bool SomeoneWaitsFor(PgConn& admin, const std::string& table) {
  return QueryOne(admin, fmt::format("SELECT count(*) FROM pg_locks WHERE NOT granted AND "
                                     "relation = '{}'::regclass",
                                     table)) != "0";
}

struct LockedTable {
  explicit LockedTable(PgConn* admin) : schema(admin) {
    EXPECT_TRUE(admin->Exec(fmt::format("CREATE TABLE {0}.busy (id int8); INSERT INTO {0}.busy "
                                        "SELECT generate_series(1, 100); CREATE TABLE {0}.calm "
                                        "(id int8)",
                                        schema.q())).ok());
    locker = AdminConn();
    EXPECT_TRUE(
        locker->Exec("BEGIN; LOCK TABLE " + schema.q() + ".busy IN ACCESS EXCLUSIVE MODE").ok());
  }
  std::string busy() const { return schema.q() + ".busy"; }
  ScratchSchema schema;
  std::unique_ptr<PgConn> locker;
};

std::unique_ptr<Database> Snapshot(PostgresOptions options) {
  auto db = OpenPostgresDatabase(testing_pg::TestDsn(), options);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  if (!db.ok()) return nullptr;
  EXPECT_TRUE((*db)->BeginSnapshot().ok());
  return std::move(*db);
}

TEST(PostgresLockWaitTest, ABrieflyLockedTableIsWaitedFor) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  LockedTable t(admin.get());
  PostgresOptions options;
  options.lock_timeout_ms = 60000;
  auto db = Snapshot(options);
  ASSERT_TRUE(db);
  Status locked;
  std::thread dump([&] {
    locked = db->LockTables(
        {TableInfo{{t.schema.name(), "calm"}}, TableInfo{{t.schema.name(), "busy"}}});
  });
  ASSERT_TRUE(WaitUntil([&] { return SomeoneWaitsFor(*admin, t.busy()); }, kLimit));
  ASSERT_TRUE(t.locker->Exec("COMMIT").ok());  // the migration ends
  dump.join();
  EXPECT_TRUE(locked.ok()) << locked.ToString();
}

TEST(PostgresLockWaitTest, PastTheTimeoutOneLineNamesTheTable) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  LockedTable t(admin.get());
  PostgresOptions options;
  options.lock_timeout_ms = 300;
  auto db = Snapshot(options);
  ASSERT_TRUE(db);
  Status s = db->LockTables(
      {TableInfo{{t.schema.name(), "calm"}}, TableInfo{{t.schema.name(), "busy"}}});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("table " + t.schema.name() +
                             ".busy is locked by another session (waited 300 ms, "
                             "--lock-wait-timeout)"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(s.message().find('\n'), std::string::npos);
  ASSERT_TRUE(t.locker->Exec("ROLLBACK").ok());
}

TEST(PostgresLockWaitTest, AnInterruptEndsAWaitWithoutLimit) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  LockedTable t(admin.get());
  std::stop_source interrupt;
  PostgresOptions options;
  options.lock_timeout_ms = kLockWaitForever;
  options.stop = interrupt.get_token();
  auto db = Snapshot(options);
  ASSERT_TRUE(db);
  Status locked;
  std::thread dump([&] { locked = db->LockTables({TableInfo{{t.schema.name(), "busy"}}}); });
  ASSERT_TRUE(WaitUntil([&] { return SomeoneWaitsFor(*admin, t.busy()); }, kLimit));
  const auto start = std::chrono::steady_clock::now();
  interrupt.request_stop();
  dump.join();
  EXPECT_EQ(locked.code(), Code::kCancelled) << locked.ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));  // a 1 s slice
  ASSERT_TRUE(t.locker->Exec("ROLLBACK").ok());
}

// The CLI: `dump --lock-wait-timeout 60s` waits for the migration and dumps every row.
TEST(PostgresLockWaitTest, DumpWaitsForTheLockAndCompletes) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  LockedTable t(admin.get());
  TempDir tmp;
  const std::string source = testing_cli::Quote(testing_pg::TestDsn());
  Background dump(fmt::format("dump {} {} --tables {}.busy --schema-from lakedump "
                              "--lock-wait-timeout 60s --progress none",
                              source, tmp.Sub("out"), t.schema.name()),
                  tmp, "dump");
  ASSERT_TRUE(WaitUntil([&] { return SomeoneWaitsFor(*admin, t.busy()); }, kLimit));
  ASSERT_TRUE(t.locker->Exec("COMMIT").ok());
  auto r = dump.Wait(std::chrono::seconds(120));
  EXPECT_EQ(r.code, 0) << r.err;
  // Refused at once with 0, naming the table and the option.
  ASSERT_TRUE(t.locker->Exec("BEGIN; LOCK TABLE " + t.busy() + " IN ACCESS EXCLUSIVE MODE").ok());
  auto refused = RunLakedump(fmt::format("dump {} {} --tables {}.busy --schema-from lakedump "
                                         "--lock-wait-timeout 0 --progress none",
                                         source, tmp.Sub("out2"), t.schema.name()),
                             tmp);
  EXPECT_EQ(refused.code, 1) << refused.err;
  EXPECT_NE(refused.err.find(t.schema.name() + ".busy is locked by another session (NOWAIT)"),
            std::string::npos)
      << refused.err;
  ASSERT_TRUE(t.locker->Exec("ROLLBACK").ok());
  auto bad = RunLakedump(fmt::format("dump {} {} --lock-wait-timeout soon", source,
                                     tmp.Sub("out3")),
                         tmp);
  EXPECT_EQ(bad.code, 2) << bad.err;
}

}  // namespace
}  // namespace lakedump
