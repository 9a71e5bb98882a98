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
  // The referenced key first, then the foreign key, in one pg_restore.
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
