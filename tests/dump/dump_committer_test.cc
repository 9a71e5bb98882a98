// DumpCommitter on its own: a table is committed with its last unit, never before; the
// manifest names every committed table and comes last; --if-exists fail refuses a
// destination in use.
#include "dump/dump_committer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dump/run_journal_writer.h"
#include "dump/unit_exporter.h"
#include "fakes/fake_database.h"
#include "fakes/small_dump_options.h"
#include "lake/object_keys.h"
#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

DumpOptions Options() { return SmallDumpOptions(2, 100); }

// A destination, a database with table main.big (3 units) and main.small, and their plan.
struct Fixture {
  Fixture() : store("commit") {
    db.AddTable(FakeTable{TableRef{"main", "big"}, 900, -1, {}, /*units=*/3});
    db.AddTable(FakeTable{TableRef{"main", "small"}, 10});
    const TableInfo big{TableRef{"main", "big"}, 900, 900 * 32, ""};
    const TableInfo small{TableRef{"main", "small"}, 10, 320, ""};
    plan.push_back(PlannedTable{big, *db.Split(big, 0)});
    plan.push_back(PlannedTable{small, {WorkUnit{small, 0, 1, ""}}});
  }
  bool Has(const std::string& key) { return store.Head(key).ok(); }

  FakeDatabase db;
  MemoryStore store;
  std::vector<PlannedTable> plan;
  const std::string run_id = NewRunId();
  DumpProgress progress;
};

TEST(DumpCommitterTest, ATableIsCommittedWithItsLastUnitAndTheManifestComesLast) {
  Fixture f;
  DumpCommitter committer(&f.db, &f.store, Options(), f.run_id, /*coordinator=*/false,
                          &f.progress, nullptr);
  ASSERT_TRUE(committer.PrepareDestination().ok());
  committer.SetTables(f.plan, nlohmann::json::object());
  ASSERT_EQ(committer.num_tables(), 2u);
  EXPECT_EQ(f.progress.tables_total.load(), 2u);
  const UnitExporter exporter(&f.db, &f.store, Options(), f.run_id);

  for (size_t i = 0; i < 3; ++i) {
    EXPECT_FALSE(f.Has("main/big/_table.json")) << "committed before unit " << i;
    committer.TableStarted(0);
    auto out = exporter.Export(f.plan[0].units[i], committer.iceberg_slot(0), {});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_TRUE(committer.AddUnit(0, std::move(*out)).ok());
  }
  EXPECT_TRUE(committer.committed(0));
  EXPECT_TRUE(f.Has("main/big/_table.json"));
  EXPECT_FALSE(committer.committed(1));
  auto small = exporter.Export(f.plan[1].units[0], committer.iceberg_slot(1), {});
  ASSERT_TRUE(small.ok());
  ASSERT_TRUE(committer.AddUnit(1, std::move(*small)).ok());
  EXPECT_FALSE(f.Has(std::string(kManifestKey)));

  DumpManifest m = committer.BuildManifest(nlohmann::json::object(), {});
  ASSERT_EQ(m.tables.size(), 2u);
  EXPECT_EQ(m.tables[0].table.name, "big");
  EXPECT_EQ(m.tables[0].rows, 900u);
  EXPECT_EQ(m.total_rows, 910u);
  EXPECT_EQ(m.dump_id, f.run_id);
  auto lease = DumpLease::Acquire(&f.store, f.run_id, LeaseOptions{});
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  ASSERT_TRUE(committer.CheckCommitPoint(**lease, {}).ok());
  std::vector<std::string> warnings;
  ASSERT_TRUE(committer.Commit(m, &warnings).ok());
  auto stored = ReadDumpManifest(f.store);
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  EXPECT_EQ(stored->total_rows, 910u);
  EXPECT_TRUE(warnings.empty());
  EXPECT_TRUE((*lease)->Release().ok());
}

TEST(DumpCommitterTest, ALostSnapshotHolderCommitsNoTable) {
  Fixture f;
  DumpCommitter committer(&f.db, &f.store, Options(), f.run_id, false, &f.progress, nullptr);
  ASSERT_TRUE(committer.PrepareDestination().ok());
  committer.SetTables(f.plan, nlohmann::json::object());
  const UnitExporter exporter(&f.db, &f.store, Options(), f.run_id);
  auto out = exporter.Export(f.plan[1].units[0], nullptr, {});
  ASSERT_TRUE(out.ok());
  f.db.set_snapshot_lost(true);
  EXPECT_FALSE(committer.AddUnit(1, std::move(*out)).ok());
  EXPECT_FALSE(committer.committed(1));
  EXPECT_FALSE(f.Has("main/small/_table.json"));
}

TEST(DumpCommitterTest, IfExistsFailRefusesADestinationThatIsNotEmpty) {
  Fixture f;
  ASSERT_TRUE(f.store.PutObject("left/over.parquet", "x").ok());
  DumpCommitter committer(&f.db, &f.store, Options(), f.run_id, false, &f.progress, nullptr);
  Status s = committer.PrepareDestination();
  EXPECT_EQ(s.code(), Code::kAlreadyExists);
  EXPECT_NE(s.message().find("is not empty"), std::string::npos) << s.message();
  EXPECT_FALSE(committer.old_dump_committed());
}

TEST(DumpCommitterTest, OverwriteOfAnUncommittedDumpRemovesItsTableCommits) {
  Fixture f;
  // An interrupted run's objects, named by its journal.
  const std::string dead = "20261101T000000Z-00000001";
  const std::string old_file = "main/small/part-0000-00000-" + dead + ".parquet";
  RunJournalWriter journal(&f.store, dead);
  ASSERT_TRUE(journal.Record({"main/small/_table.json"}, {"main/small/"}).ok());
  ASSERT_TRUE(f.store.PutObject("main/small/_table.json", "{}").ok());
  ASSERT_TRUE(f.store.PutObject(old_file, "x").ok());
  DumpOptions o = Options();
  o.if_exists = IfExists::kOverwrite;
  DumpCommitter committer(&f.db, &f.store, o, f.run_id, false, &f.progress, nullptr);
  ASSERT_TRUE(committer.PrepareDestination().ok());
  EXPECT_FALSE(committer.old_dump_committed());
  EXPECT_FALSE(f.Has("main/small/_table.json"));
  EXPECT_TRUE(f.Has(old_file));  // the sweep's, after the commit
}

// What no journal or manifest names is not lakedump's: overwrite refuses, deletes nothing.
TEST(DumpCommitterTest, OverwriteRefusesObjectsNoJournalNames) {
  Fixture f;
  ASSERT_TRUE(f.store.PutObject("main/small/_table.json", "{}").ok());
  ASSERT_TRUE(f.store.PutObject("main/small/part-0-old.parquet", "x").ok());
  DumpOptions o = Options();
  o.if_exists = IfExists::kOverwrite;
  DumpCommitter committer(&f.db, &f.store, o, f.run_id, false, &f.progress, nullptr);
  Status s = committer.PrepareDestination();
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("2 objects that no lakedump run wrote (e.g. "
                             "main/small/_table.json, main/small/part-0-old.parquet)"),
            std::string::npos)
      << s.message();
  EXPECT_TRUE(f.Has("main/small/_table.json"));
}

}  // namespace
}  // namespace lakedump
