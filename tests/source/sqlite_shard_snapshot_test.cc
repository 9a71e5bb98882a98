// The SQLite source's part in sharded dumps (docs/scale-out.md, "SQLite"): in rollback-journal
// mode a content id that other processes check (ImportSnapshot), WAL mode refused, the
// --no-snapshot coordinator's early release (SnapshotReleasingDatabase), and range predicates
// checked as Split() makes them. Several Database objects in one process stand for the processes (SQLite's locks work
// between connections of one process as between processes).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dump/shard/snapshot_releasing_database.h"
#include "source/sqlite/sqlite_database.h"
#include "source/sqlite_test_util.h"

namespace lakedump {
namespace {

using testing_sqlite::TempDir;
using testing_sqlite::Writer;

std::unique_ptr<Database> MustOpen(const std::string& path) {
  auto db = OpenSqliteDatabase(path, {});
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  return db.ok() ? std::move(*db) : nullptr;
}

// One INSERT by a writer that waits at most 100 ms for the locks: SQLite's result code.
int TryInsert(const std::string& path) {
  Writer w(path);
  sqlite3_busy_timeout(w.db(), 100);
  return w.TryExec("INSERT INTO t VALUES (2)");
}

TEST(SqliteShardSnapshotTest, RollbackJournalContentIdIsSharedAndChecked) {
  TempDir dir;
  const std::string path = dir.File("a.sqlite");
  Writer(path).Exec("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1)");
  ASSERT_TRUE(CheckSqliteSnapshotShareable(path).ok());
  auto coordinator = MustOpen(path);
  ASSERT_TRUE(coordinator->BeginSnapshot().ok());
  const std::string id = coordinator->Describe().value("snapshot_id", "");
  ASSERT_EQ(id.rfind("sqlite-", 0), 0u) << coordinator->Describe();
  // Its SHARED lock: no writer commits while it is held.
  EXPECT_EQ(TryInsert(path), SQLITE_BUSY);

  auto worker = MustOpen(path);
  Status imported = worker->ImportSnapshot(id);
  EXPECT_TRUE(imported.ok()) << imported.ToString();
  auto stranger = MustOpen(path);
  Status other = stranger->ImportSnapshot("sqlite-00000007-00000002-00000001");
  EXPECT_EQ(other.code(), Code::kUnavailable);
  EXPECT_NE(other.message().find("not what the coordinator planned from"), std::string::npos)
      << other.ToString();
  worker.reset();
  stranger.reset();
}

TEST(SqliteShardSnapshotTest, NoSnapshotCoordinatorLetsGoOfTheFileOncePlanned) {
  TempDir dir;
  const std::string path = dir.File("n.sqlite");
  Writer(path).Exec("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1)");
  SnapshotReleasingDatabase coordinator(MustOpen(path));
  ASSERT_TRUE(coordinator.BeginSnapshot().ok());
  auto tables = coordinator.ListTables();
  ASSERT_TRUE(tables.ok() && tables->size() == 1u);
  auto def = coordinator.DescribeTable((*tables)[0]);
  ASSERT_TRUE(def.ok()) << def.status().ToString();
  // Planning holds the read lock like any dump...
  EXPECT_EQ(TryInsert(path), SQLITE_BUSY);
  // ...and the snapshot is never named: the dump has none.
  EXPECT_FALSE(coordinator.Describe().contains("snapshot_id"));
  EXPECT_NE(coordinator.Describe().value("snapshot", "").find("--no-snapshot"),
            std::string::npos);

  // Release waits for the schema capture (read inside the planning snapshot).
  std::stop_source stopped;
  stopped.request_stop();
  EXPECT_EQ(coordinator.Release(stopped.get_token()).code(), Code::kCancelled);
  EXPECT_FALSE(coordinator.released());
  ASSERT_TRUE(coordinator.CaptureSchema(SchemaSelection{true, {}}, {}).ok());
  ASSERT_TRUE(coordinator.Release({}).ok());
  EXPECT_TRUE(coordinator.released());

  // Released: a writer commits at once, nothing is held, and what the commit needs remains.
  EXPECT_EQ(TryInsert(path), SQLITE_OK);
  EXPECT_TRUE(coordinator.CheckSnapshotHeld().ok());
  EXPECT_EQ(coordinator.Describe().value("kind", ""), "sqlite");
  EXPECT_FALSE(coordinator.Describe().contains("snapshot_id"));
  EXPECT_EQ(coordinator.Identity(), nlohmann::json({{"kind", "sqlite"}}));
  auto again = coordinator.DescribeTable((*tables)[0]);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->ddl, def->ddl);
  // The workers' files must have the columns planning described (no DDL held off meanwhile).
  UnitOutput as_planned{TableRef{"main", "t"}, 0, again->schema, {}};
  EXPECT_TRUE(coordinator.CheckColumnsAsPlanned({as_planned}).ok());
  std::vector<Column> wider = again->schema.columns();
  wider.push_back(wider[0]);
  wider.back().name = "added";
  UnitOutput changed{TableRef{"main", "t"}, 0, Schema(wider), {}};
  Status s = coordinator.CheckColumnsAsPlanned({as_planned, changed});
  EXPECT_EQ(s.code(), Code::kUnavailable);
  EXPECT_NE(s.message().find("table main.t changed"), std::string::npos) << s.ToString();
  auto fingerprint = coordinator.Fingerprint((*tables)[0]);
  ASSERT_TRUE(fingerprint.ok());
  EXPECT_TRUE(fingerprint->is_null());  // never reused by a resume
  EXPECT_FALSE(coordinator.ListTables().ok());
  EXPECT_FALSE(coordinator.BeginSnapshot().ok());
  TableInfo other;
  other.ref = TableRef{"main", "u"};
  EXPECT_FALSE(coordinator.DescribeTable(other).ok());
  EXPECT_TRUE(coordinator.Release({}).ok());  // idempotent
}

TEST(SqliteShardSnapshotTest, WalModeHasNoSnapshotToShare) {
  TempDir dir;
  const std::string path = dir.File("w.sqlite");
  {
    Writer w(path);
    w.Exec("PRAGMA journal_mode=WAL");
    w.Exec("CREATE TABLE t (a INTEGER)");
  }
  Status s = CheckSqliteSnapshotShareable("sqlite://" + path);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("WAL mode"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("--no-snapshot"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("journal_mode=DELETE"), std::string::npos) << s.ToString();
  auto db = MustOpen(path);
  ASSERT_TRUE(db->BeginSnapshot().ok());
  EXPECT_FALSE(db->Describe().contains("snapshot_id"));
}

TEST(SqliteShardSnapshotTest, CheckUnitTakesOnlyTheRangesSplitMakes) {
  TempDir dir;
  const std::string path = dir.File("r.sqlite");
  Writer(path).Exec(
      "CREATE TABLE t (a INTEGER, b TEXT); WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT "
      "x + 1 FROM g WHERE x < 2000) INSERT INTO t SELECT x, printf('%030d', x) FROM g");
  auto db = MustOpen(path);
  auto tables = db->ListTables();
  ASSERT_TRUE(tables.ok() && tables->size() == 1u);
  auto units = db->Split((*tables)[0], 8 * 1024);
  ASSERT_TRUE(units.ok()) << units.status().ToString();
  ASSERT_GE(units->size(), 3u);
  for (const WorkUnit& u : *units) {
    EXPECT_TRUE(db->CheckUnit(u).ok()) << u.range_predicate;
  }
  const TableInfo t = (*tables)[0];
  for (const char* ok : {"rowid < 5", "_rowid_ >= -3", "oid >= 5 AND oid < 9"}) {
    EXPECT_TRUE(db->CheckUnit(WorkUnit{t, 0, 2, ok}).ok()) << ok;
  }
  for (const char* bad : {"rowid >= 5 AND oid < 9", "1=1", "rowid < 5 OR 1=1",
                          "rowid < 5; DROP TABLE t", "a < 5", "rowid < 99999999999999999999"}) {
    Status s = db->CheckUnit(WorkUnit{t, 0, 2, bad});
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << bad;
  }
  TableInfo query = t;
  query.query = "SELECT 1";
  EXPECT_FALSE(db->CheckUnit(WorkUnit{query, 0, 2, "rowid < 5"}).ok());
}

}  // namespace
}  // namespace lakedump
