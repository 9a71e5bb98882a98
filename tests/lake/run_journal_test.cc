#include "lake/run_journal.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "fakes/fake_clock.h"
#include "lake/dump_lease.h"
#include "lake/object_keys.h"
#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

constexpr char kRun[] = "20261205T040000Z-0a1b2c3d";
constexpr char kOther[] = "20261205T050000Z-99887766";

void Put(MemoryStore& store, const std::string& key, const std::string& text = "x") {
  ASSERT_TRUE(store.PutObject(key, text).ok()) << key;
}

void PutJournal(MemoryStore& store, const JournalBatch& b) {
  Put(store, JournalKey(b.run_id, b.seq), SerializeJournalBatch(b));
}

DestinationOwnership ReadOwnership(MemoryStore& store) {
  auto listed = store.List("");
  EXPECT_TRUE(listed.ok());
  auto own = DestinationOwnership::Read(store, *listed);
  EXPECT_TRUE(own.ok()) << own.status().ToString();
  return std::move(own).value();
}

TEST(RunJournalTest, BatchRoundTrips) {
  JournalBatch b{kRun, 3, {"public/t/_table.json"}, {"public/t/"}, {{"public/t/part-0000-00000-" + std::string(kRun) + ".parquet", "upl-1"}}};
  const std::string key = JournalKey(kRun, 3);
  EXPECT_EQ(key, std::string("_runs/") + kRun + "/journal-000003.json");
  EXPECT_EQ(JournalRunOf(key), kRun);
  auto parsed = ParseJournalBatch(SerializeJournalBatch(b), key);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->keys, b.keys);
  EXPECT_EQ(parsed->table_folders, b.table_folders);
  EXPECT_EQ(parsed->uploads, b.uploads);
}

// A journal is untrusted: its keys count only when they are of the shapes this run writes.
TEST(RunJournalTest, HostileKeysAreDropped) {
  const std::string run = kRun;
  JournalBatch b{run, 1,
                 {"docs/thesis.txt", "../etc/passwd", "/abs/part", "a//b/_table.json",
                  "teamB/public/orders/_table.json",                       // 4 segments
                  "teamB/public/orders/part-0000-00000-" + run + ".parquet",  // no partition
                  "public/t/part-0000-00000-" + std::string(kOther) + ".parquet",  // another run
                  "_manifest.json", "_lease.json", "_runs/x/journal-000001.json",
                  "public/t/_table.json", "_schema/postgres.dump",
                  "public/t/region=EU/part-0001-00002-" + run + ".parquet",
                  "public/t/metadata/v1.metadata.json"},
                 {"public/", "a/b/c/", "_runs/x/", "public/t/"},
                 {}};
  size_t dropped = 0;
  auto parsed = ParseJournalBatch(SerializeJournalBatch(b), JournalKey(run, 1), &dropped);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->keys, (std::vector<std::string>{
                              "public/t/_table.json", "_schema/postgres.dump",
                              "public/t/region=EU/part-0001-00002-" + run + ".parquet",
                              "public/t/metadata/v1.metadata.json"}));
  EXPECT_EQ(parsed->table_folders, std::vector<std::string>{"public/t/"});
  EXPECT_EQ(dropped, 13u);
}

TEST(RunJournalTest, BatchUnderAnotherKeyIsRefused) {
  JournalBatch b{kRun, 1, {}, {}, {}};
  EXPECT_FALSE(ParseJournalBatch(SerializeJournalBatch(b), JournalKey(kOther, 1)).ok());
  EXPECT_FALSE(ParseJournalBatch(SerializeJournalBatch(b), JournalKey(kRun, 2)).ok());
  EXPECT_FALSE(ParseJournalBatch("{\"format\":\"other\"}", JournalKey(kRun, 1)).ok());
  EXPECT_FALSE(ParseJournalBatch("not json", JournalKey(kRun, 1)).ok());
  EXPECT_EQ(JournalRunOf("_runs/not-a-run/journal-000001.json"), "");
}

TEST(RunJournalTest, OwnershipTellsForeignFromLakedump) {
  MemoryStore store;
  const std::string run = kRun;
  const std::string data = "main/t/part-0000-00000-" + run + ".parquet";
  PutJournal(store, JournalBatch{run, 1, {"main/t/_table.json"}, {"main/t/"}, {}});
  Put(store, data);
  Put(store, "main/t/_table.json");
  Put(store, "docs/thesis.txt");
  Put(store, "main/t/notes.txt");  // inside a table folder, but no shape of lakedump's
  DestinationOwnership own = ReadOwnership(store);
  EXPECT_EQ(own.OwnerOf(data), DestinationOwnership::Owner::kRun);
  EXPECT_EQ(own.OwnerOf("main/t/_table.json"), DestinationOwnership::Owner::kRun);
  EXPECT_EQ(own.OwnerOf(JournalKey(run, 1)), DestinationOwnership::Owner::kLakedump);
  EXPECT_EQ(own.Foreign(), (std::vector<std::string>{"docs/thesis.txt", "main/t/notes.txt"}));
  EXPECT_FALSE(own.holds_no_dump());
  EXPECT_EQ(DescribeForeign(own.Foreign()),
            "2 objects that no lakedump run wrote (e.g. docs/thesis.txt, main/t/notes.txt)");
}

TEST(RunJournalTest, CommittedDumpOwnsItsTableFolders) {
  MemoryStore store;
  const std::string old_run = kOther;
  DumpManifest m;
  m.dump_id = old_run;
  m.tables.push_back(TableSummary{TableRef{"main", "t"}, "main/t/_table.json", 1, 1, 1, "snappy",
                                  0, old_run, ""});
  Put(store, std::string(kManifestKey), ToJson(m).dump());
  Put(store, "main/t/_table.json");
  Put(store, "main/t/part-0000-00000-" + old_run + ".parquet");
  Put(store, "main/t/part-0000-00001-20261101T000000Z-00000000.parquet");  // a dead run's
  Put(store, "other/u/part-0000-00000-" + old_run + ".parquet");            // no table of it
  DestinationOwnership own = ReadOwnership(store);
  ASSERT_TRUE(own.has_manifest());
  EXPECT_EQ(own.OwnerOf("main/t/part-0000-00001-20261101T000000Z-00000000.parquet"),
            DestinationOwnership::Owner::kDump);
  EXPECT_EQ(own.Foreign(),
            std::vector<std::string>{"other/u/part-0000-00000-" + old_run + ".parquet"});
}

// An Iceberg increment's data, delete and key index files in a table folder of the dump are
// its own (a new base over the DEST deletes them); look-alikes are not.
TEST(RunJournalTest, CommittedDumpOwnsItsIcebergIncrementFiles) {
  MemoryStore store;
  DumpManifest m;
  m.dump_id = kOther;
  m.tables.push_back(TableSummary{TableRef{"main", "t"}, "main/t/_table.json", 1, 1, 1, "snappy",
                                  0, kOther, ""});
  Put(store, std::string(kManifestKey), ToJson(m).dump());
  const std::vector<std::string> own_keys = {
      "main/t/inc-000001-" + std::string(kRun) + ".parquet",
      "main/t/inc-000012-" + std::string(kRun) + "-deletes.parquet",
      "main/t/metadata/keyindex-" + std::string(kRun) + ".parquet",
      "main/t/inc-000003-" + std::string(kRun) + "-cow2.parquet",
      "main/t/compact-" + std::string(kRun) + "-00001.parquet"};
  const std::vector<std::string> foreign = {
      "main/t/inc-000003-" + std::string(kRun) + "-cow.parquet",
      "main/t/compact-" + std::string(kRun) + ".parquet",
      "main/t/compact-notarun-00001.parquet",
      "main/t/inc-1-" + std::string(kRun) + ".parquet",
      "main/t/inc-000001-notarun.parquet",
      "main/t/inc-000001-" + std::string(kRun) + "-deletes.csv",
      "other/u/inc-000001-" + std::string(kRun) + ".parquet"};
  for (const std::string& k : own_keys) Put(store, k);
  for (const std::string& k : foreign) Put(store, k);
  DestinationOwnership own = ReadOwnership(store);
  for (const std::string& k : own_keys) {
    EXPECT_EQ(own.OwnerOf(k), DestinationOwnership::Owner::kDump) << k;
  }
  std::vector<std::string> want = foreign;
  std::sort(want.begin(), want.end());
  EXPECT_EQ(own.Foreign(), want);
}

TEST(RunJournalTest, FolderWithoutDumpHoldsNoDump) {
  MemoryStore store;
  Put(store, "docs/.thesis.txt.tmp-123");
  Put(store, "docs/thesis.txt");
  DestinationOwnership own = ReadOwnership(store);
  EXPECT_TRUE(own.holds_no_dump());
  EXPECT_FALSE(MayRemoveUnfinishedWrite(own, "", "docs/thesis.txt", "", true));
}

TEST(RunJournalTest, UnfinishedWritesOfLiveRunStay) {
  MemoryStore store;
  const std::string live = kRun, dead = kOther;
  const std::string live_key = "main/t/part-0000-00000-" + live + ".parquet";
  const std::string dead_key = "main/u/part-0000-00000-" + dead + ".parquet";
  PutJournal(store, JournalBatch{live, 1, {}, {"main/t/"}, {{live_key, "upload-live"}}});
  PutJournal(store, JournalBatch{dead, 1, {}, {"main/u/"}, {{dead_key, "upload-dead"}}});
  DestinationOwnership own = ReadOwnership(store);
  EXPECT_FALSE(MayRemoveUnfinishedWrite(own, live, live_key, "upload-live", true));
  EXPECT_FALSE(MayRemoveUnfinishedWrite(own, live, live_key, "", true));
  // A dead run's, named by its journal, whatever its age.
  EXPECT_TRUE(MayRemoveUnfinishedWrite(own, live, dead_key, "upload-dead", false));
  EXPECT_TRUE(MayRemoveUnfinishedWrite(own, live, dead_key, "", false));
  // Without a live lease both runs are dead.
  EXPECT_TRUE(MayRemoveUnfinishedWrite(own, "", live_key, "upload-live", false));
  // An upload no journal names and no dump owns: someone else's.
  EXPECT_FALSE(MayRemoveUnfinishedWrite(own, "", "teamB/big.bin", "upload-x", true));
}

// "Live" is the lease's own rule, on the injected clock: renewed within 3 intervals.
TEST(RunJournalTest, LiveLeaseHolderFollowsTheClock) {
  MemoryStore store;
  FakeClock clock;
  auto live = LiveLeaseHolder(store, clock.WallNow());
  ASSERT_TRUE(live.ok());
  EXPECT_EQ(*live, "");
  LeaseHolder h;
  h.run_id = kRun;
  h.host = "another-host";
  h.pid = 4242;
  h.renew_interval_ms = 10'000;
  h.renewed_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          clock.WallNow().time_since_epoch())
                          .count();
  Put(store, std::string(kLeaseKey), ToJson(h).dump());
  live = LiveLeaseHolder(store, clock.WallNow());
  ASSERT_TRUE(live.ok());
  EXPECT_EQ(*live, kRun);
  clock.Advance(std::chrono::seconds(31));
  live = LiveLeaseHolder(store, clock.WallNow());
  ASSERT_TRUE(live.ok());
  EXPECT_EQ(*live, "");
}

}  // namespace
}  // namespace lakedump
