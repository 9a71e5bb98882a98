// The commit point (lake/fenced_commit.h): a conditional write of _manifest.json, read back.
// A second first commit and a commit over a manifest that changed are refused and name the
// winner; a write answered OK that stored nothing is not a commit; a store that ignores the
// conditions is found out by the probe, and a stale lease is not taken over on it.
#include "lake/fenced_commit.h"

#include <gtest/gtest.h>

#include <future>
#include <optional>
#include <stop_token>

#include "fakes/commit_stores.h"
#include "fakes/fake_clock.h"
#include "lake/dump_lease.h"
#include "lake/object_keys.h"
#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

using std::chrono::milliseconds;

std::string Manifest(const CommitRecord& r) {
  nlohmann::json j = {{"format", "lakedump-dump"}, {"dump_id", r.run_id}, {"commit", ToJson(r)}};
  return j.dump(2) + "\n";
}

const CommitRecord kA{"run-a", 1, "host-a"};
const CommitRecord kB{"run-b", 2, "host-b"};

TEST(FencedCommitTest, ASecondFirstCommitIsRefusedAndNamesTheWinner) {
  MemoryStore store("fenced1");
  auto pre = CommitPrecondition(store, nullptr);
  ASSERT_TRUE(pre.ok());
  EXPECT_TRUE(pre->create_only);
  ManifestCommit won = CommitManifest(store, Manifest(kB), *pre, kB);
  ASSERT_TRUE(won.status.ok()) << won.status.ToString();
  // run-a saw no manifest either, and its write comes late.
  ManifestCommit lost = CommitManifest(store, Manifest(kA), *pre, kA);
  EXPECT_EQ(lost.status.code(), Code::kAlreadyExists) << lost.status.ToString();
  const std::string msg(lost.status.message());
  EXPECT_NE(msg.find("another run committed"), std::string::npos) << msg;
  EXPECT_NE(msg.find("run run-b (fencing token 2, host host-b)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("deletes nothing"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
  EXPECT_FALSE(lost.may_delete_own);
  EXPECT_EQ(*store.GetObject(kManifestKey), Manifest(kB));
}

TEST(FencedCommitTest, ALaterCommitMustMatchTheManifestItStartedFrom) {
  MemoryStore store("fenced2");
  const std::string old = Manifest(CommitRecord{"run-old", 1, "h"});
  ASSERT_TRUE(store.PutObject(kManifestKey, old).ok());
  auto listed = store.Head(kManifestKey);
  ASSERT_TRUE(listed.ok());
  auto pre = CommitPrecondition(store, &*listed);
  ASSERT_TRUE(pre.ok());
  EXPECT_EQ(pre->if_match, Md5Etag(old));
  ASSERT_TRUE(CommitManifest(store, Manifest(kB), *pre, kB).status.ok());
  ManifestCommit lost = CommitManifest(store, Manifest(kA), *pre, kA);
  EXPECT_EQ(lost.status.code(), Code::kAlreadyExists) << lost.status.ToString();
  EXPECT_NE(lost.status.message().find("run run-b (fencing token 2"), std::string::npos);
  EXPECT_EQ(*store.GetObject(kManifestKey), Manifest(kB));
  // Committing the same bytes again (a retry whose first attempt landed) is this run's commit.
  EXPECT_TRUE(CommitManifest(store, Manifest(kB), *pre, kB).status.ok());
}

TEST(FencedCommitTest, AWriteAnsweredOkThatStoredNothingIsNotACommit) {
  MemoryStore target("fenced3");
  DropsWritesStore store(&target, std::string(kManifestKey));
  ManifestCommit commit =
      CommitManifest(store, Manifest(kA), WriteOptions{.create_only = true}, kA);
  ASSERT_FALSE(commit.status.ok());
  const std::string msg(commit.status.message());
  EXPECT_NE(msg.find("with success but holds no manifest"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did not commit"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
  EXPECT_FALSE(commit.may_delete_own);
  // A store that ignores the condition lets a late write replace the winner's manifest, and
  // the read-back cannot tell: why no stale lease is taken over on such a store (below).
  ASSERT_TRUE(target.PutObject(kManifestKey, Manifest(kB)).ok());
  IgnoresConditionsStore ignoring(&target);
  ASSERT_TRUE(CommitManifest(ignoring, Manifest(kA), WriteOptions{.create_only = true}, kA)
                  .status.ok());  // it did replace it: the read-back holds run-a's bytes
  EXPECT_EQ(*target.GetObject(kManifestKey), Manifest(kA));
}

TEST(FencedCommitTest, CommitRecordOfHostileOrOldManifests) {
  EXPECT_EQ(CommitRecordOf("not json").run_id, "(unreadable)");
  CommitRecord old = CommitRecordOf(R"({"dump_id": "run-old"})");
  EXPECT_EQ(old.Describe(), "run run-old");
  CommitRecord evil = CommitRecordOf(
      R"({"dump_id": "x", "commit": {"run_id": "a\nb", "fencing_token": "7", "host": 5}})");
  EXPECT_EQ(evil.run_id, "a?b");
  EXPECT_EQ(evil.fencing_token, 0);
  EXPECT_EQ(evil.Describe(), "run a?b");
}

TEST(FencedCommitTest, TheProbeFindsAStoreThatIgnoresConditions) {
  MemoryStore target("fenced4");
  ASSERT_TRUE(target.PutObject(kLeaseKey, "lease bytes").ok());
  auto honours = StoreHonoursConditions(target, kLeaseKey);
  ASSERT_TRUE(honours.ok());
  EXPECT_TRUE(*honours);
  IgnoresConditionsStore ignoring(&target);
  auto ignored = StoreHonoursConditions(ignoring, kLeaseKey);
  ASSERT_TRUE(ignored.ok()) << ignored.status().ToString();
  EXPECT_FALSE(*ignored);
  EXPECT_EQ(*target.GetObject(kLeaseKey), "lease bytes");  // written back unchanged
}

// A store that does not enforce conditions itself (like S3) but whose endpoint honours them.
class HonouringRemoteStore final : public ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  bool create_only_is_atomic() const override { return false; }
};

LeaseOptions Fast(FakeClock* clock) {
  LeaseOptions o;
  o.renew_interval = milliseconds(50);
  o.settle = milliseconds(20);
  o.clock = clock;
  o.take_over_stale = true;
  return o;
}

// A stale lease of a run on another host, as an older lakedump (no token) or this one wrote it.
void PlantStaleLease(ObjectStore& store, Clock& clock, std::optional<int64_t> token) {
  LeaseHolder h{"run-dead", "other-host", 4242, "2026-12-01T00:00:00.000Z", 0, 10'000};
  h.renewed_unix_ms =
      std::chrono::duration_cast<milliseconds>(clock.WallNow().time_since_epoch()).count() -
      31'000;
  nlohmann::json j = ToJson(h);
  if (token) {
    j["token"] = *token;
  } else {
    j.erase("token");
  }
  ASSERT_TRUE(store.PutObject(kLeaseKey, j.dump()).ok());
}

Result<std::unique_ptr<DumpLease>> TakeOver(ObjectStore& store, FakeClock& clock) {
  const LeaseOptions o = Fast(&clock);
  std::stop_source done;
  auto taking = std::async(std::launch::async, [&] {
    auto lease = DumpLease::Acquire(&store, "run-new", o);
    done.request_stop();
    return lease;
  });
  // A takeover settles, then reads back; a refusal ends without sleeping.
  if (clock.WaitForSleepers(1, done.get_token())) clock.Advance(o.settle);
  return taking.get();
}

TEST(FencedCommitTest, EachTakeoverGrowsTheFencingToken) {
  FakeClock clock;
  MemoryStore store("fenced5");
  auto fresh = DumpLease::Acquire(&store, "run-first", Fast(&clock));
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ((*fresh)->token(), 1);
  EXPECT_EQ(ParseLease(*store.GetObject(kLeaseKey))->token, 1);
  ASSERT_TRUE((*fresh)->Release().ok());

  PlantStaleLease(store, clock, 6);
  auto taken = TakeOver(store, clock);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  EXPECT_EQ((*taken)->token(), 7);
  EXPECT_EQ(ParseLease(*store.GetObject(kLeaseKey))->token, 7);
  ASSERT_TRUE((*taken)->Release().ok());

  // A lease of an older lakedump has no token: read as 0, taken over with 1.
  PlantStaleLease(store, clock, std::nullopt);
  EXPECT_EQ(ParseLease(*store.GetObject(kLeaseKey))->token, 0);
  auto from_old = TakeOver(store, clock);
  ASSERT_TRUE(from_old.ok()) << from_old.status().ToString();
  EXPECT_EQ((*from_old)->token(), 1);
}

TEST(FencedCommitTest, NoTakeoverWhereTheStoreIgnoresConditions) {
  FakeClock clock;
  MemoryStore target("fenced6");
  PlantStaleLease(target, clock, 3);
  IgnoresConditionsStore ignoring(&target);
  auto refused = TakeOver(ignoring, clock);
  ASSERT_FALSE(refused.ok());
  const std::string msg(refused.status().message());
  EXPECT_NE(msg.find("ignores conditional writes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("run run-dead"), std::string::npos) << msg;
  EXPECT_NE(msg.find("delete _lease.json"), std::string::npos) << msg;
  EXPECT_EQ(ParseLease(*target.GetObject(kLeaseKey))->run_id, "run-dead");
  // The same endpoint honouring them: taken over.
  HonouringRemoteStore honouring(&target);
  auto taken = TakeOver(honouring, clock);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  EXPECT_EQ((*taken)->token(), 4);
}

}  // namespace
}  // namespace lakedump
