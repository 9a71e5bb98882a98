// Issue 17 against a real PostgreSQL (LD_TEST_PG_DSN): the session holding the
// snapshot and the table locks terminated mid-dump while a TRUNCATE waits (the
// dump must fail and commit nothing, where it used to commit the table at 0
// rows), and resume re-dumping a table whose source changed.
#include <gtest/gtest.h>

#include <thread>

#include <nlohmann/json.hpp>

#include "dump/export_service.h"
#include "lake/object_keys.h"
#include "fakes/cli_run.h"
#include "fakes/temp_dir.h"
#include "integration/pg_test_util.h"
#include "store/forwarding_store.h"
#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

using json = nlohmann::json;
using testing_cli::Quote;
using testing_cli::ReadFile;
using testing_cli::RunLakedump;
using testing_cli::RunResult;
using testing_pg::AdminConn;
using testing_pg::QueryOne;
using testing_pg::ScratchSchema;

// Forwards to a MemoryStore; runs `hook` once, at the first writer whose key
// contains `trigger` (from the dump's table task, mid-dump).
class HookStore final : public ForwardingStore {
 public:
  HookStore(ObjectStore* target, std::string trigger, std::function<void()> hook)
      : ForwardingStore(target), trigger_(std::move(trigger)), hook_(std::move(hook)) {}
  Result<std::unique_ptr<ObjectWriter>> NewWriter(std::string_view key,
                                                  WriteOptions options = {}) override {
    if (key.find(trigger_) != std::string_view::npos && !fired_.exchange(true)) hook_();
    return target()->NewWriter(key, options);
  }
  bool fired() const { return fired_; }

 private:
  const std::string trigger_;
  std::function<void()> hook_;
  std::atomic<bool> fired_{false};
};

TEST(PostgresCommitTest, TerminatedSnapshotHolderFailsTheDumpAndCommitsNothing) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  ScratchSchema schema(admin.get());
  const std::string s = schema.q();
  ASSERT_TRUE(admin->Exec(fmt::format(
      "CREATE TABLE {0}.big (id int8, pad text); INSERT INTO {0}.big SELECT g, repeat('x', 50) "
      "FROM generate_series(1, 50000) g; CREATE TABLE {0}.t (id int8); INSERT INTO {0}.t "
      "SELECT g FROM generate_series(1, 5000) g; ANALYZE {0}.big; ANALYZE {0}.t",
      s)).ok());
  PostgresOptions pg;
  pg.max_connections = 1;
  auto db = OpenPostgresDatabase(testing_pg::TestDsn(), pg);
  ASSERT_TRUE(db.ok()) << db.status().ToString();

  std::thread truncate;
  Status truncated = Status::Internal("not run");
  auto kill_holder = [&] {
    // The coordinator is the session holding ACCESS SHARE on t (the worker is
    // still on big): a TRUNCATE of t queues behind it, then the session goes.
    const std::string holder = QueryOne(*admin, fmt::format(
        "SELECT pid FROM pg_locks WHERE relation = '{}.t'::regclass AND mode = "
        "'AccessShareLock' AND granted AND pid <> pg_backend_pid() LIMIT 1",
        s));
    ASSERT_FALSE(holder.empty());
    truncate = std::thread([&] {
      auto other = AdminConn();
      truncated = other->Exec(fmt::format("TRUNCATE {}.t", s));
    });
    // Wait until the TRUNCATE is queued behind the holder's lock.
    for (int i = 0; i < 200; ++i) {
      if (QueryOne(*admin, fmt::format("SELECT count(*) FROM pg_locks WHERE relation = "
                                       "'{}.t'::regclass AND NOT granted",
                                       s)) == "1") {
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    QueryOne(*admin, "SELECT pg_terminate_backend(" + holder + ")");
    truncate.join();  // the TRUNCATE goes through once the holder is gone
  };
  MemoryStore memory("pg-holder");
  HookStore store(&memory, "/big/part-", kill_holder);
  DumpOptions o;
  o.table_parallelism = 1;  // big (largest) first, then t
  o.include = {schema.name() + ".*"};
  o.progress = ProgressMode::kNone;
  ExportService service(db->get(), &store, o);
  auto r = service.Run();
  ASSERT_TRUE(store.fired());
  EXPECT_TRUE(truncated.ok()) << truncated.ToString();
  ASSERT_FALSE(r.ok()) << "the dump committed after its snapshot holder was terminated";
  EXPECT_NE(r.status().message().find("the locks that made the snapshot safe against TRUNCATE "
                                      "and DDL have lapsed"),
            std::string::npos)
      << r.status().message();
  EXPECT_FALSE(memory.Head(kManifestKey).ok());
  EXPECT_FALSE(memory.Head(kLeaseKey).ok());
}

TEST(PostgresCommitTest, ResumeRedumpsTablesWhoseSourceChanged) {
  LD_REQUIRE_PG();
  auto admin = AdminConn();
  ASSERT_TRUE(admin);
  ScratchSchema schema(admin.get());
  const std::string s = schema.q();
  ASSERT_TRUE(admin->Exec(fmt::format(
      "CREATE TABLE {0}.same (id int8); INSERT INTO {0}.same SELECT generate_series(1, 100); "
      "CREATE TABLE {0}.altered (id int8); INSERT INTO {0}.altered SELECT generate_series(1, 100); "
      "CREATE TABLE {0}.truncated (id int8); INSERT INTO {0}.truncated SELECT "
      "generate_series(1, 100)",
      s)).ok());
  TempDir dir;
  const std::string dest = dir.Sub("pg-resume");
  const std::string args = "dump " + Quote(testing_pg::TestDsn()) + " " + dest + " --tables " +
                           Quote(schema.name() + ".*") + " --progress none --json";
  RunResult first = RunLakedump(args, dir);
  ASSERT_EQ(first.code, 0) << first.err;
  // A column added to one table; another truncated and refilled (a new relfilenode).
  ASSERT_TRUE(admin->Exec(fmt::format(
      "ALTER TABLE {0}.altered ADD COLUMN note text DEFAULT 'x'; TRUNCATE {0}.truncated; "
      "INSERT INTO {0}.truncated SELECT generate_series(1, 7)",
      s)).ok());
  RunResult resumed = RunLakedump(args + " --if-exists resume", dir);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_EQ(json::parse(resumed.out)["reused_tables"], 1);  // `same` only
  const json m = json::parse(ReadFile(dest + "/_manifest.json"));
  for (const json& t : m["tables"]) {
    const json tm = json::parse(ReadFile(dest + "/" + t["key"].get<std::string>()));
    if (t["table"] == "truncated") {
      EXPECT_EQ(tm["rows"], 7);
    }
    if (t["table"] == "altered") {
      EXPECT_EQ(tm["columns"].size(), 2u);
    }
    EXPECT_TRUE(tm["source_fingerprint"]["source"].contains("database_oid"));
    EXPECT_TRUE(tm["source_fingerprint"]["source"]["relation"].contains("relfilenode"));
  }
  EXPECT_FALSE(m["single_snapshot"].get<bool>());  // `same` comes from the first run
  RunResult v = RunLakedump("verify " + dest + " --deep", dir);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
}

}  // namespace
}  // namespace lakedump
