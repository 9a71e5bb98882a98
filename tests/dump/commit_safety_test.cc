// Exit 0 means a correct dump: one writer per destination, checks before the
// commit, a watched snapshot, resume that checks its source, and a commit that
// never un-commits a good dump (issue 17).
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "lake/commit_check.h"
#include "dump/export_service.h"
#include "lake/object_keys.h"
#include "lake/signature.h"
#include "fakes/fake_database.h"
#include "fakes/fault_injection_store.h"
#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

DumpOptions Options(IfExists if_exists = IfExists::kFail) {
  DumpOptions o;
  o.table_parallelism = 2;
  o.batch_rows = 500;
  o.parquet.row_group_rows = 1000;
  o.progress = ProgressMode::kNone;
  o.if_exists = if_exists;
  return o;
}

FakeDatabase TwoTables(uint64_t rows, std::string identity = "fake") {
  FakeDatabase db;
  db.AddTable(FakeTable{TableRef{"main", "a"}, rows});
  db.AddTable(FakeTable{TableRef{"main", "b"}, rows / 2});
  db.set_identity(std::move(identity));
  return db;
}

// The committed dump: every _table.json names the manifest's run for it with
// its bytes, every file is there with its size; nothing else but the lease.
// Returns the dump id and total rows.
std::pair<std::string, uint64_t> CommittedDump(MemoryStore& store) {
  auto m = ReadDumpManifest(store);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  if (!m.ok()) return {"", 0};
  std::vector<TableManifest> tables;
  std::vector<CommittedTable> committed;
  for (const TableSummary& s : m->tables) {
    auto t = ReadTableManifest(store, s.key);
    EXPECT_TRUE(t.ok()) << s.key;
    if (!t.ok()) continue;
    EXPECT_EQ(TableEntryMismatch(s, *t), "") << s.key;
    tables.push_back(std::move(*t));
  }
  for (size_t i = 0; i < tables.size(); ++i) {
    committed.push_back(CommittedTable{m->tables[i].key, &tables[i], {}});
  }
  Status s = CheckBeforeCommit(store, committed, 2);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return {m->dump_id, m->total_rows};
}

TEST(CommitSafetyTest, TwoDumpsStartedTogetherOneWinsTheOtherNamesTheHolder) {
  for (int round = 0; round < 10; ++round) {
    MemoryStore store("race" + std::to_string(round));
    FakeDatabase db1 = TwoTables(3000, "one"), db2 = TwoTables(1000, "two");
    ExportService s1(&db1, &store, Options()), s2(&db2, &store, Options());
    Result<DumpResult> r1 = Status::Internal("not run"), r2 = Status::Internal("not run");
    std::thread t1([&] { r1 = s1.Run(); });
    std::thread t2([&] { r2 = s2.Run(); });
    t1.join();
    t2.join();
    ASSERT_NE(r1.ok(), r2.ok()) << "round " << round << ": " << r1.status().ToString() << " / "
                                << r2.status().ToString();
    const Result<DumpResult>& lost = r1.ok() ? r2 : r1;
    EXPECT_EQ(lost.status().code(), Code::kAlreadyExists);
    const std::string msg(lost.status().message());
    EXPECT_TRUE(msg.find("is being written by another lakedump: run ") != std::string::npos ||
                msg.find("is not empty") != std::string::npos ||
                msg.find("already holds a dump") != std::string::npos)
        << msg;
    auto [id, rows] = CommittedDump(store);
    EXPECT_EQ(id, r1.ok() ? s1.run_id() : s2.run_id());
    EXPECT_EQ(rows, r1.ok() ? 4500u : 1500u);  // the winner's own source
    EXPECT_FALSE(store.Head(kLeaseKey).ok()) << "the lease outlived both runs";
  }
}

TEST(CommitSafetyTest, ATableJsonReplacedBeforeTheCommitFailsTheDump) {
  MemoryStore store("replaced");
  FakeDatabase db;
  db.AddTable(FakeTable{TableRef{"main", "a"}, 3000});
  db.AddTable(FakeTable{TableRef{"main", "z"}, 10});
  // When the second table opens, "a" has committed: replace its _table.json
  // as a second writer would (another run id).
  db.set_on_open([&](const WorkUnit& unit) {
    if (unit.table.ref.name != "z") return;
    auto t = ReadTableManifest(store, "main/a/_table.json");
    if (!t.ok()) return;
    t->run_id = "20990101T000000Z-other";
    store.PutObject("main/a/_table.json", ToJson(*t).dump()).IgnoreError();
  });
  DumpOptions o = Options();
  o.table_parallelism = 1;
  auto r = ExportService(&db, &store, o).Run();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kCorruption);
  EXPECT_NE(r.status().message().find("main/a/_table.json was replaced"), std::string::npos)
      << r.status().message();
  EXPECT_FALSE(store.Head(kManifestKey).ok());
}

TEST(CommitSafetyTest, ADataFileDeletedBeforeTheCommitFailsTheDump) {
  MemoryStore store("deleted");
  FakeDatabase db;
  db.AddTable(FakeTable{TableRef{"main", "a"}, 3000});
  db.AddTable(FakeTable{TableRef{"main", "z"}, 10});
  db.set_on_open([&](const WorkUnit& unit) {
    if (unit.table.ref.name != "z") return;
    auto t = ReadTableManifest(store, "main/a/_table.json");
    if (t.ok()) store.Delete(std::vector<std::string>{t->files[0].key}).IgnoreError();
  });
  DumpOptions o = Options();
  o.table_parallelism = 1;
  auto r = ExportService(&db, &store, o).Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("is gone"), std::string::npos) << r.status().message();
  EXPECT_FALSE(store.Head(kManifestKey).ok());
}

TEST(CommitSafetyTest, ALostSnapshotHolderFailsTheDumpAndCommitsNothing) {
  MemoryStore store("holder");
  FakeDatabase db = TwoTables(3000);
  db.set_on_open([&](const WorkUnit&) { db.set_snapshot_lost(true); });
  auto r = ExportService(&db, &store, Options()).Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("fake snapshot holder is gone"), std::string::npos);
  EXPECT_FALSE(store.Head(kManifestKey).ok());
  for (const std::string& k : store.Keys()) {
    EXPECT_FALSE(k.ends_with("_table.json")) << k << " committed after the holder was gone";
  }
}

TEST(CommitSafetyTest, ResumeRedumpsATableOfAnotherSource) {
  MemoryStore store("resume-source");
  FakeDatabase one = TwoTables(3000, "one");
  ASSERT_TRUE(ExportService(&one, &store, Options()).Run().ok());
  // Same tables, another source: nothing may be reused.
  FakeDatabase two = TwoTables(3000, "two");
  auto r = ExportService(&two, &store, Options(IfExists::kResume)).Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->reused_tables, 0u);
  auto m = ReadDumpManifest(store);
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m->single_snapshot());
  CommittedDump(store);
  // The same source again: both reused, and the manifest says which runs'
  // snapshots the tables come from.
  auto again = ExportService(&two, &store, Options(IfExists::kResume)).Run();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->reused_tables, 2u);
}

TEST(CommitSafetyTest, ResumeDoesNotReuseAPlantedTableJsonWithAnotherSchema) {
  MemoryStore store("planted");
  FakeDatabase db = TwoTables(3000);
  ASSERT_TRUE(ExportService(&db, &store, Options()).Run().ok());
  auto m = ReadDumpManifest(store);
  ASSERT_TRUE(m.ok());
  const std::string key = m->tables[0].key;
  auto t = ReadTableManifest(store, key);
  ASSERT_TRUE(t.ok());
  // Same fingerprint, other columns: a planted (or hand-edited) _table.json.
  std::vector<Column> cols = t->schema.columns();
  cols[1].type = LogicalType::Of(TypeId::kInt64);
  t->schema = Schema(std::move(cols));
  ASSERT_TRUE(store.PutObject(key, ToJson(*t).dump()).ok());
  auto r = ExportService(&db, &store, Options(IfExists::kResume)).Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->reused_tables, 1u);  // the other table only
  CommittedDump(store);
}

TEST(CommitSafetyTest, ResumeAcrossRunsRecordsSeveralSnapshots) {
  FakeDatabase failing;
  failing.AddTable(FakeTable{TableRef{"main", "good"}, 2000});
  FakeTable bad{TableRef{"main", "bad"}, 1500};
  bad.fail_at_row = 1200;
  failing.AddTable(bad);
  MemoryStore store("snapshots");
  DumpOptions o = Options();
  o.table_parallelism = 1;
  ASSERT_FALSE(ExportService(&failing, &store, o).Run().ok());
  FakeDatabase fixed;
  fixed.AddTable(FakeTable{TableRef{"main", "good"}, 2000});
  fixed.AddTable(FakeTable{TableRef{"main", "bad"}, 1500});
  o.if_exists = IfExists::kResume;
  auto r = ExportService(&fixed, &store, o).Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->reused_tables, 1u);
  EXPECT_FALSE(r->manifest.single_snapshot());
  EXPECT_EQ(r->manifest.snapshots.size(), 2u);
  auto m = ReadDumpManifest(store);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->snapshots.size(), 2u);
}

// Overwrite and resume keep the committed dump whole until the new manifest
// replaces it: a failure at any point of the new run leaves the old dump.
TEST(CommitSafetyTest, OverwriteFailingAtAnyWriteLeavesTheOldDumpWhole) {
  for (int n = 1; n <= 12; ++n) {
    MemoryStore memory("overwrite-fail");
    FakeDatabase old_db = TwoTables(3000, "old");
    ASSERT_TRUE(ExportService(&old_db, &memory, Options()).Run().ok());
    const auto [old_id, old_rows] = CommittedDump(memory);
    FaultInjectionStore store(&memory);
    store.FailNth(FaultPoint::kAppend, n, Status::IOError("injected: disk full"));
    FakeDatabase new_db;
    new_db.AddTable(FakeTable{TableRef{"main", "a"}, 5000});
    new_db.AddTable(FakeTable{TableRef{"main", "c"}, 700});
    new_db.set_identity("new");
    auto r = ExportService(&new_db, &store, Options(IfExists::kOverwrite)).Run();
    auto [id, rows] = CommittedDump(memory);
    if (r.ok()) {
      EXPECT_EQ(rows, 5700u);
      EXPECT_NE(id, old_id);
    } else {
      EXPECT_EQ(id, old_id) << "failure at append " << n;
      EXPECT_EQ(rows, old_rows);
    }
  }
}

TEST(CommitSafetyTest, SuccessfulOverwriteSweepsTheOldDumpAfterTheCommit) {
  MemoryStore store("overwrite-ok");
  FakeDatabase old_db = TwoTables(3000, "old");
  ASSERT_TRUE(ExportService(&old_db, &store, Options()).Run().ok());
  FakeDatabase new_db = TwoTables(1000, "new");
  auto r = ExportService(&new_db, &store, Options(IfExists::kOverwrite)).Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_GT(r->deleted_objects, 0u);
  CommittedDump(store);
  // Only what the new manifest names is left.
  auto m = ReadDumpManifest(store);
  ASSERT_TRUE(m.ok());
  std::set<std::string> named = {std::string(kManifestKey)};
  for (const TableSummary& s : m->tables) {
    named.insert(s.key);
    auto t = ReadTableManifest(store, s.key);  // named: a range-for over a temporary dangles
    ASSERT_TRUE(t.ok());
    for (const DataFile& f : t->files) named.insert(f.key);
  }
  const auto keys = store.Keys();
  EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()), named);
}

TEST(CommitSafetyTest, FailedSweepAfterTheCommitIsAWarningNotAFailure) {
  MemoryStore memory("sweep-fail");
  FakeDatabase old_db = TwoTables(3000, "old");
  ASSERT_TRUE(ExportService(&old_db, &memory, Options()).Run().ok());
  FaultInjectionStore store(&memory);
  store.FailFrom(FaultPoint::kDelete, 1, Status::IOError("injected delete failure"));
  FakeDatabase new_db = TwoTables(1000, "new");
  auto r = ExportService(&new_db, &store, Options(IfExists::kOverwrite)).Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->warnings.empty());
  EXPECT_NE(r->warnings[0].find("the dump is committed"), std::string::npos);
  EXPECT_EQ(CommittedDump(memory).second, 1500u);
}

// A manifest write the store refuses outright (disk full, access denied) is not
// stored and never will be: the failed run deletes what it wrote, like a failure
// at any earlier write, and the destination holds exactly the old dump.
TEST(CommitSafetyTest, OverwriteWhoseManifestWriteIsRefusedLeavesExactlyTheOldDump) {
  for (const Status& refusal : {Status::IOError("injected: disk full"),
                                Status::PermissionDenied("injected: access denied")}) {
    MemoryStore memory("manifest-refused");
    FakeDatabase old_db = TwoTables(3000, "old");
    ASSERT_TRUE(ExportService(&old_db, &memory, Options()).Run().ok());
    const auto [old_id, old_rows] = CommittedDump(memory);
    const auto before = memory.Keys();
    FaultInjectionStore store(&memory);
    store.FailWritesTo(std::string(kManifestKey), refusal);
    FakeDatabase new_db = TwoTables(1000, "new");
    auto r = ExportService(&new_db, &store, Options(IfExists::kOverwrite)).Run();
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), refusal.code()) << r.status().ToString();
    EXPECT_EQ(CommittedDump(memory), std::make_pair(old_id, old_rows));
    const auto after = memory.Keys();
    EXPECT_EQ(std::set<std::string>(after.begin(), after.end()),
              std::set<std::string>(before.begin(), before.end()))
        << refusal.ToString();
  }
}

// The same over a signed dump: its _manifest.sig (a fixed name, written just before the
// manifest) is put back, so the old dump still verifies with its key.
TEST(CommitSafetyTest, SignedOverwriteWhoseManifestIsRefusedKeepsTheOldSignature) {
  const std::string key(32, 'k');
  MemoryStore memory("manifest-refused-signed");
  FakeDatabase old_db = TwoTables(3000, "old");
  DumpOptions o = Options();
  o.sign_key = key;
  ASSERT_TRUE(ExportService(&old_db, &memory, o).Run().ok());
  ASSERT_TRUE(ReadSignedManifest(memory, key).ok());
  FaultInjectionStore store(&memory);
  store.FailWritesTo(std::string(kManifestKey), Status::IOError("injected: disk full"));
  FakeDatabase new_db = TwoTables(1000, "new");
  o.if_exists = IfExists::kOverwrite;
  ASSERT_FALSE(ExportService(&new_db, &store, o).Run().ok());
  auto still = ReadSignedManifest(memory, key);
  ASSERT_TRUE(still.ok()) << still.status().ToString();
  EXPECT_EQ(still->total_rows, 4500u);
}

// A manifest write that got no answer (kUnavailable: retried, then checked) or was
// interrupted may still land after the run read the old manifest back: its objects
// stay (a manifest naming them may appear), and the next overwrite sweeps them.
TEST(CommitSafetyTest, OverwriteWhoseManifestReplyIsLostKeepsItsObjectsForTheNextRun) {
  for (const Status& lost : {Status::Unavailable("injected: connection reset"),
                             Status::Cancelled("injected: interrupted")}) {
    MemoryStore memory("manifest-lost");
    FakeDatabase old_db = TwoTables(3000, "old");
    ASSERT_TRUE(ExportService(&old_db, &memory, Options()).Run().ok());
    const auto [old_id, old_rows] = CommittedDump(memory);
    FaultInjectionStore store(&memory);
    store.FailWritesTo(std::string(kManifestKey), lost);
    FakeDatabase new_db = TwoTables(1000, "new");
    ExportService failed(&new_db, &store, Options(IfExists::kOverwrite));
    ASSERT_FALSE(failed.Run().ok());
    EXPECT_EQ(CommittedDump(memory), std::make_pair(old_id, old_rows));
    size_t kept = 0;
    for (const std::string& k : memory.Keys()) kept += k.find(failed.run_id()) != std::string::npos;
    EXPECT_GT(kept, 0u) << lost.ToString();
    auto again = ExportService(&new_db, &memory, Options(IfExists::kOverwrite)).Run();
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    for (const std::string& k : memory.Keys()) {
      EXPECT_EQ(k.find(failed.run_id()), std::string::npos) << k;
    }
    EXPECT_EQ(CommittedDump(memory).second, 1500u);
  }
}

// A signed dump written over a signed one: whatever write of the new run fails, the
// committed dump still passes the signature check (the new _manifest.sig, written before
// the new manifest, carries the committed manifest's entry too); after a successful
// overwrite only the new entry is left.
TEST(CommitSafetyTest, OverwritingASignedDumpKeepsTheOldOneVerifiableAtEveryFailure) {
  const std::string key(32, 'k');
  DumpOptions signed_options = Options(IfExists::kOverwrite);
  signed_options.sign_key = key;
  bool failed_after_signature = false;
  for (int n = 1; n <= 40; ++n) {
    MemoryStore memory("signed-overwrite");
    FakeDatabase old_db = TwoTables(3000, "old");
    DumpOptions first = signed_options;
    first.if_exists = IfExists::kFail;
    ASSERT_TRUE(ExportService(&old_db, &memory, first).Run().ok());
    const auto [old_id, old_rows] = CommittedDump(memory);
    FaultInjectionStore store(&memory);
    store.FailNth(FaultPoint::kNewWriter, n, Status::IOError("injected: disk full"));
    FakeDatabase new_db = TwoTables(1000, "new");
    auto r = ExportService(&new_db, &store, signed_options).Run();
    auto m = ReadSignedManifest(memory, key);
    ASSERT_TRUE(m.ok()) << "failure at writer " << n << ": " << m.status().ToString();
    if (r.ok()) {
      EXPECT_NE(m->dump_id, old_id);
      auto sig = memory.GetObject(kSignatureKey);
      ASSERT_TRUE(sig.ok());
      // Only a failed rewrite after the commit (a warning-free best effort) keeps the
      // old entry; without a fault it is gone.
      if (store.calls(FaultPoint::kNewWriter) < n) {
        EXPECT_EQ(sig->find("previous"), std::string::npos);
        break;
      }
      continue;
    }
    EXPECT_EQ(m->dump_id, old_id) << "failure at writer " << n;
    auto sig = memory.GetObject(kSignatureKey);
    if (sig.ok() && sig->find("previous") != std::string::npos) failed_after_signature = true;
  }
  EXPECT_TRUE(failed_after_signature) << "no failure fell between the signature and the manifest";
}

}  // namespace
}  // namespace lakedump
