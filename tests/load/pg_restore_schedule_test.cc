// When the archive's entries are restored around the table loads (issue 31's performance
// item): pre-data before the tables without the grants; a table's indexes, keys, constraints
// and triggers as soon as the tables they are on or reference are loaded (a foreign key also
// after the key it references); grants, event triggers and what is on a materialized view
// only after the last table; without sections, pg_restore's own split.
#include "load/postgres/pg_restore_schedule.h"

#include <gtest/gtest.h>

namespace lakedump {
namespace {

// One archive entry: its dump id, section, type, schema, tag and dependencies.
PgArchiveTocEntry E(int id, int section, std::string desc, std::string schema, std::string tag,
                    std::vector<int> deps) {
  PgArchiveTocEntry a;
  a.dump_id = id;
  a.section = section;
  a.desc = std::move(desc);
  a.has_schema = true;
  a.schema = std::move(schema);
  a.tag = std::move(tag);
  a.has_definition = true;
  a.dependencies = std::move(deps);
  return a;
}

constexpr int kNone = 1, kPre = 2, kPost = 4;

// pg_dump's order: pre-data (each object's grant right after it), then post-data.
std::vector<PgArchiveTocEntry> Shop() {
  return {
      E(6, kPre, "SCHEMA", "", "shop", {}),
      E(10, kPre, "TABLE", "shop", "customers", {6}),
      E(11, kNone, "COMMENT", "shop", "TABLE customers", {10}),
      E(12, kNone, "ACL", "shop", "TABLE customers", {10}),
      E(20, kPre, "TABLE", "shop", "orders", {6}),
      E(21, kNone, "ACL", "shop", "TABLE orders", {20}),
      E(30, kPre, "MATERIALIZED VIEW", "shop", "totals", {20}),
      E(40, kPost, "CONSTRAINT", "shop", "customers customers_pkey", {10}),
      E(41, kPost, "INDEX", "shop", "orders_day", {20}),
      E(42, kNone, "COMMENT", "shop", "INDEX orders_day", {41}),
      E(43, kPost, "FK CONSTRAINT", "shop", "orders orders_customer_fkey", {20, 10, 40}),
      E(44, kPost, "INDEX", "shop", "totals_status", {30}),
      E(45, kPost, "EVENT TRIGGER", "", "audit", {}),
      E(46, kPost, "PUBLICATION", "", "pub", {}),
  };
}

std::vector<int> Ids(const std::vector<PgArchiveTocEntry>& toc, const std::vector<size_t>& list) {
  std::vector<int> out;
  for (size_t i : list) out.push_back(toc[i].dump_id);
  return out;
}

std::vector<size_t> All(const std::vector<PgArchiveTocEntry>& toc) {
  std::vector<size_t> out;
  for (size_t i = 0; i < toc.size(); ++i) out.push_back(i);
  return out;
}

TEST(PgRestoreScheduleTest, PreDataLeavesTheGrantsForAfterTheData) {
  const auto toc = Shop();
  PgRestoreSchedule schedule(toc, All(toc));
  ASSERT_TRUE(schedule.known());
  EXPECT_EQ(Ids(toc, schedule.PreData()), (std::vector<int>{6, 10, 11, 20, 30}));
}

TEST(PgRestoreScheduleTest, ATablesKeysComeAsSoonAsItIsLoaded) {
  const auto toc = Shop();
  PgRestoreSchedule schedule(toc, All(toc));
  EXPECT_TRUE(schedule.TakeReady().empty());  // nothing loaded yet
  schedule.TableLoaded("shop", "orders");
  // The index on orders (and its comment); not the key to customers, not yet loaded.
  EXPECT_EQ(Ids(toc, schedule.TakeReady()), (std::vector<int>{41, 42}));
  EXPECT_TRUE(schedule.TakeReady().empty());  // taken once
  schedule.TableLoaded("shop", "customers");
  // The referenced key first, then the foreign key, in one batch.
  EXPECT_EQ(Ids(toc, schedule.TakeReady()), (std::vector<int>{40, 43}));
  // The grants, the matview's index (refreshed after) and the event trigger wait for the end.
  EXPECT_EQ(Ids(toc, schedule.TakeRest()), (std::vector<int>{12, 21, 44, 45, 46}));
  EXPECT_TRUE(schedule.TakeRest().empty());
}

TEST(PgRestoreScheduleTest, AForeignKeyWaitsForTheKeyItReferencesAndBothTables) {
  const auto toc = Shop();
  PgRestoreSchedule schedule(toc, All(toc));
  schedule.TableLoaded("shop", "customers");
  EXPECT_EQ(Ids(toc, schedule.TakeReady()), (std::vector<int>{40}));
  schedule.TableLoaded("shop", "orders");
  EXPECT_EQ(Ids(toc, schedule.TakeReady()), (std::vector<int>{41, 42, 43}));
}

TEST(PgRestoreScheduleTest, OnlySelectedEntriesAndWhatIsNotRestoredCountsAsDone) {
  const auto toc = Shop();
  // Without the customers' key (say, --exclude of what it needs): the foreign key's other
  // needs decide.
  std::vector<size_t> selected;
  for (size_t i = 0; i < toc.size(); ++i) {
    if (toc[i].dump_id != 40 && toc[i].dump_id != 12) selected.push_back(i);
  }
  PgRestoreSchedule schedule(toc, selected);
  schedule.TableLoaded("shop", "orders");
  schedule.TableLoaded("shop", "customers");
  EXPECT_EQ(Ids(toc, schedule.TakeReady()), (std::vector<int>{41, 42, 43}));
  EXPECT_EQ(Ids(toc, schedule.TakeRest()), (std::vector<int>{21, 44, 45, 46}));
}

TEST(PgRestoreScheduleTest, WithoutSectionsPgRestoreSplitsAndNothingIsEarly) {
  auto toc = Shop();
  for (PgArchiveTocEntry& e : toc) e.section = 0;  // read through pg_restore --list
  PgRestoreSchedule schedule(toc, All(toc));
  EXPECT_FALSE(schedule.known());
  EXPECT_EQ(schedule.PreData().size(), toc.size());
  schedule.TableLoaded("shop", "orders");
  schedule.TableLoaded("shop", "customers");
  EXPECT_TRUE(schedule.TakeReady().empty());
  EXPECT_EQ(schedule.TakeRest().size(), toc.size());
}

TEST(PgRestoreScheduleTest, AnEntryOnATableNeverLoadedWaitsForTheEnd) {
  const auto toc = Shop();
  PgRestoreSchedule schedule(toc, All(toc));
  schedule.TableLoaded("shop", "other");  // some other table: nothing of the shop's is ready
  EXPECT_TRUE(schedule.TakeReady().empty());
  EXPECT_EQ(Ids(toc, schedule.TakeRest()), (std::vector<int>{12, 21, 40, 41, 42, 43, 44, 45, 46}));
}

// The index of the entry with dump id `id`.
size_t At(const std::vector<PgArchiveTocEntry>& toc, int id) {
  for (size_t i = 0; i < toc.size(); ++i) {
    if (toc[i].dump_id == id) return i;
  }
  ADD_FAILURE() << "no entry " << id;
  return 0;
}

// The entries handed out start as pg_restore --jobs starts them: after what they depend on,
// and never beside an entry on a table they lock (a key, a foreign key) or that locks theirs.
TEST(PgEntryQueueTest, DependenciesAndTableLocksDecideWhatStarts) {
  const auto toc = Shop();
  PgEntryQueue queue(toc);
  EXPECT_TRUE(queue.idle());
  queue.Add({At(toc, 40), At(toc, 41), At(toc, 42), At(toc, 43)});
  EXPECT_EQ(queue.Start(), At(toc, 40));  // customers' key (locks customers)
  EXPECT_EQ(queue.Start(), At(toc, 41));  // orders' index: another table
  // The comment waits for its index, the foreign key for the key it references.
  EXPECT_EQ(queue.Start(), std::nullopt);
  queue.Finish(At(toc, 40));
  // The foreign key locks orders, which the index running is on.
  EXPECT_EQ(queue.Start(), std::nullopt);
  queue.Finish(At(toc, 41));
  EXPECT_EQ(queue.Start(), At(toc, 42));
  EXPECT_EQ(queue.Start(), At(toc, 43));  // a comment locks nothing
  EXPECT_EQ(queue.Start(), std::nullopt);
  EXPECT_FALSE(queue.idle());
  queue.Finish(At(toc, 43));
  queue.Finish(At(toc, 42));
  EXPECT_TRUE(queue.idle());
}

TEST(PgEntryQueueTest, IndexesOfOneTableRunSideBySideKeysDoNot) {
  std::vector<PgArchiveTocEntry> toc = {
      E(10, kPre, "TABLE", "s", "t", {}),
      E(40, kPost, "INDEX", "s", "t_a", {10}),
      E(41, kPost, "INDEX", "s", "t_b", {10}),
      E(42, kPost, "CONSTRAINT", "s", "t t_pkey", {10}),
      E(43, kPost, "CHECK CONSTRAINT", "s", "t t_check", {10}),
  };
  PgEntryQueue queue(toc);
  queue.Add({1, 2, 3, 4});
  EXPECT_EQ(queue.Start(), 1u);
  EXPECT_EQ(queue.Start(), 2u);
  EXPECT_EQ(queue.Start(), std::nullopt);  // the key locks t, which the indexes are on
  queue.Finish(1);
  queue.Finish(2);
  EXPECT_EQ(queue.Start(), 3u);
  EXPECT_EQ(queue.Start(), std::nullopt);  // two keys on t: one after the other
  queue.Finish(3);
  EXPECT_EQ(queue.Start(), 4u);
}

// An entry handed out later waits for one handed out earlier that it depends on and that
// still runs; entries in a dependency cycle (not from pg_dump) still all run, in order.
TEST(PgEntryQueueTest, LaterBatchesAndCyclesStillRunEverything) {
  const auto toc = Shop();
  PgEntryQueue queue(toc);
  queue.Add({At(toc, 40)});
  EXPECT_EQ(queue.Start(), At(toc, 40));
  queue.Add({At(toc, 43), At(toc, 40)});  // 40 again: ignored
  EXPECT_EQ(queue.Start(), std::nullopt);
  queue.Finish(At(toc, 40));
  EXPECT_EQ(queue.Start(), At(toc, 43));
  queue.Finish(At(toc, 43));
  EXPECT_TRUE(queue.idle());

  std::vector<PgArchiveTocEntry> cycle = {E(1, kPost, "INDEX", "s", "a", {2}),
                                          E(2, kPost, "INDEX", "s", "b", {1})};
  PgEntryQueue loop(cycle);
  loop.Add({0, 1});
  EXPECT_EQ(loop.Start(), 0u);  // nothing runs, nothing is free: the first
  EXPECT_EQ(loop.Start(), std::nullopt);
  loop.Finish(0);
  EXPECT_EQ(loop.Start(), 1u);
}

TEST(PgRestoreScriptAsQueryTest, DropsTheRestrictLinesAroundTheScript) {
  EXPECT_EQ(PgRestoreScriptAsQuery("--\n\\restrict k3Y\nBEGIN;\nGRANT SELECT ON t TO r;\n"
                                   "COMMIT;\n\\unrestrict k3Y\n"),
            "--\nBEGIN;\nGRANT SELECT ON t TO r;\nCOMMIT;\n");
  // Older pg_restore writes none.
  EXPECT_EQ(PgRestoreScriptAsQuery("BEGIN;\nCOMMIT;\n"), "BEGIN;\nCOMMIT;\n");
}

TEST(PgRestoreScriptAsQueryTest, AnyOtherPsqlCommandIsForPsqlOnly) {
  EXPECT_EQ(PgRestoreScriptAsQuery("\\connect db\nGRANT SELECT ON t TO r;\n"), std::nullopt);
  EXPECT_EQ(PgRestoreScriptAsQuery("\\restrict a\nGRANT x;\n\\unrestrict b\n"), std::nullopt);
  EXPECT_EQ(PgRestoreScriptAsQuery("\\restrict a\n\\restrict a\n"), std::nullopt);
  EXPECT_EQ(PgRestoreScriptAsQuery("GRANT x;\n\\unrestrict a\n"), std::nullopt);
}

}  // namespace
}  // namespace lakedump
