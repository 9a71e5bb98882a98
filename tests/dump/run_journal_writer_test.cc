#include "dump/run_journal_writer.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <set>
#include <thread>

#include "dump/export_service.h"
#include "fakes/fake_database.h"
#include "fakes/small_dump_options.h"
#include "lake/object_keys.h"
#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

constexpr char kRun[] = "20261205T040000Z-0a1b2c3d";

std::vector<std::string> JournalKeys(MemoryStore& store) {
  std::vector<std::string> out;
  for (const std::string& k : store.Keys()) {
    if (k.starts_with(kRunsPrefix)) out.push_back(k);
  }
  return out;
}

FakeDatabase Tables() {
  FakeDatabase db;
  db.AddTable(FakeTable{TableRef{"main", "a"}, 3000});
  db.AddTable(FakeTable{TableRef{"main", "b"}, 10});
  return db;
}

TEST(RunJournalWriterTest, KeyIsJournaledBeforeItsWriterOpens) {
  MemoryStore memory;
  RunJournalWriter journal(&memory, kRun);
  JournalingStore store(&memory, &journal);
  const std::string key = "main/t/_table.json";
  auto writer = store.NewWriter(key);
  ASSERT_TRUE(writer.ok());
  // Before a byte of the object: the journal batch naming it is stored.
  auto text = memory.GetObject(JournalKey(kRun, 1));
  ASSERT_TRUE(text.ok());
  auto batch = ParseJournalBatch(*text, JournalKey(kRun, 1));
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(batch->keys, std::vector<std::string>{key});
  // The lease and the commit objects are not journaled; a recorded key is not again.
  ASSERT_TRUE(store.PutObject(kLeaseKey, "l").ok());
  ASSERT_TRUE(store.PutObject(kManifestKey, "m").ok());
  ASSERT_TRUE(store.PutObject(key, "t").ok());
  EXPECT_EQ(JournalKeys(memory), std::vector<std::string>{JournalKey(kRun, 1)});
}

TEST(RunJournalWriterTest, FolderCoversTheRunsDataFiles) {
  MemoryStore memory;
  RunJournalWriter journal(&memory, kRun);
  ASSERT_TRUE(journal.Record({"main/t/_table.json"}, {"main/t/"}).ok());
  const std::string data = "main/t/part-0000-00003-" + std::string(kRun) + ".parquet";
  ASSERT_TRUE(journal.Record({data}).ok());
  EXPECT_EQ(JournalKeys(memory).size(), 1u);  // no batch for a covered data file
  EXPECT_TRUE(journal.claims().Claims(data));
  // Another run's file in the same folder is not this run's.
  EXPECT_FALSE(journal.claims().Claims("main/t/part-0000-00003-20261205T050000Z-99887766.parquet"));
}

TEST(RunJournalWriterTest, ConcurrentRecordsAllLandAndAreNeverRewritten) {
  MemoryStore memory;
  RunJournalWriter journal(&memory, kRun);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&journal, i] {
      for (int j = 0; j < 20; ++j) {
        ASSERT_TRUE(journal.Record({fmt::format("main/t{}/_table-{}.json", i * 20 + j, kRun)}).ok());
      }
    });
  }
  for (auto& t : threads) t.join();
  std::set<std::string> recorded;
  for (const std::string& k : JournalKeys(memory)) {
    auto batch = ParseJournalBatch(*memory.GetObject(k), k);
    ASSERT_TRUE(batch.ok()) << k;
    for (const std::string& key : batch->keys) EXPECT_TRUE(recorded.insert(key).second) << key;
  }
  EXPECT_EQ(recorded.size(), 160u);
}

// Foreign files in a folder survive overwrite and resume: refused, nothing written.
TEST(RunJournalWriterTest, OverwriteAndResumeRefuseFolderWithForeignFiles) {
  for (IfExists mode : {IfExists::kOverwrite, IfExists::kResume}) {
    FakeDatabase db = Tables();
    MemoryStore store("journal-foreign");
    ASSERT_TRUE(store.PutObject("docs/thesis.txt", "my thesis").ok());
    DumpOptions options = SmallDumpOptions(2);
    options.if_exists = mode;
    ExportService service(&db, &store, options);
    auto r = service.Run();
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << r.status().ToString();
    EXPECT_NE(r.status().message().find("1 object that no lakedump run wrote (e.g. "
                                        "docs/thesis.txt)"),
              std::string::npos)
        << r.status().message();
    EXPECT_EQ(store.Keys(), std::vector<std::string>{"docs/thesis.txt"});
  }
}

TEST(RunJournalWriterTest, FailRefusesForeignFilesWithoutSuggestingOverwrite) {
  FakeDatabase db = Tables();
  MemoryStore store("journal-fail");
  ASSERT_TRUE(store.PutObject("docs/thesis.txt", "my thesis").ok());
  ExportService service(&db, &store, SmallDumpOptions(2));
  auto r = service.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().find("overwrite"), std::string::npos) << r.status().message();
  EXPECT_EQ(store.Keys(), std::vector<std::string>{"docs/thesis.txt"});
}

// Over a committed dump with a foreign file: overwrite refuses; with --delete-foreign it
// replaces the dump and deletes the file; the journal is gone after the commit.
TEST(RunJournalWriterTest, DeleteForeignDeletesThemAfterTheCommit) {
  FakeDatabase db = Tables();
  MemoryStore store("journal-delete-foreign");
  ASSERT_TRUE(ExportService(&db, &store, SmallDumpOptions(2)).Run().ok());
  EXPECT_TRUE(JournalKeys(store).empty());
  ASSERT_TRUE(store.PutObject("main/a/notes.txt", "mine").ok());
  DumpOptions options = SmallDumpOptions(2);
  options.if_exists = IfExists::kOverwrite;
  ASSERT_FALSE(ExportService(&db, &store, options).Run().ok());
  EXPECT_TRUE(store.GetObject("main/a/notes.txt").ok());
  options.delete_foreign = true;
  auto r = ExportService(&db, &store, options).Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(store.GetObject("main/a/notes.txt").ok());
  EXPECT_TRUE(JournalKeys(store).empty());
}

// A killed run's objects (its journal names them) are lakedump's: resume takes the
// destination and its sweep deletes them, the journal too.
TEST(RunJournalWriterTest, ResumeSweepsWhatADeadRunsJournalNames) {
  FakeDatabase db = Tables();
  MemoryStore store("journal-dead-run");
  const std::string dead = "20261101T000000Z-00000001";
  const std::string orphan = "main/zz/part-0000-00000-" + dead + ".parquet";
  RunJournalWriter journal(&store, dead);
  ASSERT_TRUE(journal.Record({}, {"main/zz/"}).ok());
  ASSERT_TRUE(store.PutObject(orphan, "PAR1").ok());
  DumpOptions options = SmallDumpOptions(2);
  options.if_exists = IfExists::kResume;
  auto r = ExportService(&db, &store, options).Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(store.GetObject(orphan).ok());
  EXPECT_TRUE(JournalKeys(store).empty());
}

}  // namespace
}  // namespace lakedump
