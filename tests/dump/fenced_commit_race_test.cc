// One committer (docs/dump-format.md, "Commit protocol"): a run cut off from the store while
// it sends _manifest.json loses its stale lease to an --if-exists resume run, which commits
// and sweeps; then the first run's manifest PUT lands. The late write is refused by its
// precondition, the first run exits non-zero naming the winner and deletes nothing, and the
// destination holds the winner's dump, whole. A write of _manifest.json answered OK that
// stored nothing fails the run.
#include <gtest/gtest.h>

#include "fakes/partitioned_commit.h"
#include "lake/signature.h"
#include "lake/signature_commit.h"
#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

using namespace testing_commit;  // NOLINT: the trial's helpers

TEST(FencedCommitRaceTest, ALateManifestOfATakenOverRunIsRefusedAndTheWinnerStandsWhole) {
  int wrong_zero_exits = 0;
  for (int trial = 0; trial < 10; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    MemoryStore store("fenced-race-" + std::to_string(trial));
    // Even trials: a first commit (If-None-Match: *); odd ones: over a committed dump (If-Match).
    Trial t = PartitionedCommit(store, /*over_committed_dump=*/trial % 2 == 1);
    wrong_zero_exits += CheckTrial(store, t);
  }
  EXPECT_EQ(wrong_zero_exits, 0);
}

// Signed: the first run is cut off while it sends _manifest.sig (which goes before the
// manifest), and its signature lands after the takeover committed. It is written only over the
// object it read, so it fails, is built again over the winner's, and the winner's dump stays
// signed; the first run's manifest is then refused as above.
TEST(FencedCommitRaceTest, ALateSignatureOfATakenOverRunLeavesTheWinnersDumpSigned) {
  const std::string key(40, 'k');
  int wrong_zero_exits = 0;
  for (int trial = 0; trial < 10; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    MemoryStore store("fenced-signed-" + std::to_string(trial));
    Trial t = PartitionedCommit(store, /*over_committed_dump=*/trial % 2 == 1, key,
                                std::string(kSignatureKey));
    wrong_zero_exits += CheckTrial(store, t);
    auto manifest = store.GetObject(kManifestKey);
    ASSERT_TRUE(manifest.ok());
    Status sig = CheckManifestSignature(store, key, *manifest);
    EXPECT_TRUE(sig.ok()) << sig.ToString();
  }
  EXPECT_EQ(wrong_zero_exits, 0);
}

// Runs that sign and never commit (killed after their signature) leave the committed dump
// verifiable, however many in a row.
TEST(FencedCommitRaceTest, SignaturesOfRunsThatNeverCommittedKeepTheCommittedEntry) {
  const std::string key(40, 'k');
  MemoryStore store("signed-uncommitted");
  FakeDatabase db = Source(300);
  FakeClock clock;
  ASSERT_TRUE(ExportService(&db, &store, Options(IfExists::kFail, &clock, key)).Run().ok());
  auto committed = store.GetObject(kManifestKey);
  ASSERT_TRUE(committed.ok());
  for (int run = 0; run < 9; ++run) {
    const std::string other = "{\"uncommitted\": " + std::to_string(run) + "}\n";
    ASSERT_TRUE(PutSignatureAhead(store, kSignatureKey, kManifestKey, key, other).ok());
    Status sig = CheckManifestSignature(store, key, *committed);
    EXPECT_TRUE(sig.ok()) << "after " << run + 1 << " runs: " << sig.ToString();
    EXPECT_TRUE(CheckManifestSignature(store, key, other).ok());
  }
}

TEST(FencedCommitRaceTest, AManifestWriteAnsweredOkThatStoredNothingFailsTheRun) {
  MemoryStore store("fenced-dropped");
  DropsWritesStore dropping(&store, std::string(kManifestKey));
  FakeDatabase db = Source(600);
  FakeClock clock;
  Result<DumpResult> r = ExportService(&db, &dropping, Options(IfExists::kFail, &clock)).Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().code(), Code::kInvalidArgument);  // exit 1, not a usage error
  const std::string msg(r.status().message());
  EXPECT_NE(msg.find("_manifest.json with success but holds no manifest"), std::string::npos)
      << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_FALSE(store.Head(kManifestKey).ok());
}

TEST(FencedCommitRaceTest, TheManifestNamesItsCommitter) {
  MemoryStore store("fenced-record");
  FakeDatabase db = Source(300);
  FakeClock clock;
  Result<DumpResult> r = ExportService(&db, &store, Options(IfExists::kFail, &clock)).Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto text = store.GetObject(kManifestKey);
  ASSERT_TRUE(text.ok());
  const nlohmann::json j = nlohmann::json::parse(*text);
  EXPECT_EQ(j["commit"]["run_id"], r->manifest.dump_id);
  EXPECT_EQ(j["commit"]["fencing_token"], 1);
  EXPECT_FALSE(j["commit"]["host"].get<std::string>().empty());
}

}  // namespace
}  // namespace lakedump
