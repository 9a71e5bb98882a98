// Which increment an append load starts from (FirstIncrementToApply, applied_increments.h):
// the one after the last the target records; --from must agree; a gap, a double apply, an
// increment of another dump, an applied increment replaced in the dump, and a target that
// records nothing without --from are refused in one line. (The table itself and its writes in
// the increment's transaction: IncrementalTest in tests/integration.)
#include "load/postgres/applied_increments.h"

#include <gtest/gtest.h>

namespace lakedump {
namespace {

std::vector<IncrementManifest> Increments(int n) {
  std::vector<IncrementManifest> out;
  for (int i = 1; i <= n; ++i) {
    IncrementManifest m;
    m.sequence = i;
    m.manifest_sha256 = std::string(64, static_cast<char>('a' + i));
    out.push_back(m);
  }
  return out;
}

AppliedState Holding(int last, const std::vector<IncrementManifest>& increments) {
  AppliedState s;
  s.last = AppliedIncrement{"d1", last, "run",
                            last == 0 ? "base" : increments[last - 1].manifest_sha256};
  return s;
}

Status Refusal(const AppliedState& state, int from, const std::vector<IncrementManifest>& incs) {
  bool unrecorded = false;
  auto first = FirstIncrementToApply(state, "d1", from, incs, &unrecorded);
  if (first.ok()) return Status::OK();
  EXPECT_EQ(first.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(first.status().message().find('\n'), std::string::npos);
  return first.status();
}

TEST(AppliedIncrementsTest, FromDefaultsToTheOneAfterTheLastRecorded) {
  const auto incs = Increments(5);
  bool unrecorded = true;
  EXPECT_EQ(*FirstIncrementToApply(Holding(0, incs), "d1", 0, incs, &unrecorded), 1);
  EXPECT_FALSE(unrecorded);
  EXPECT_EQ(*FirstIncrementToApply(Holding(3, incs), "d1", 0, incs, &unrecorded), 4);
  EXPECT_EQ(*FirstIncrementToApply(Holding(3, incs), "d1", 4, incs, &unrecorded), 4);
  // Every one applied: nothing to do (N+1).
  EXPECT_EQ(*FirstIncrementToApply(Holding(5, incs), "d1", 0, incs, &unrecorded), 6);
}

TEST(AppliedIncrementsTest, GapDoubleApplyAndForeignDumpAreRefused) {
  const auto incs = Increments(5);
  EXPECT_NE(Refusal(Holding(3, incs), 3, incs).message().find("already"), std::string::npos);
  EXPECT_NE(Refusal(Holding(3, incs), 1, incs).message().find("already"), std::string::npos);
  EXPECT_NE(Refusal(Holding(3, incs), 5, incs).message().find("4 to 4 would be skipped"),
            std::string::npos);
  AppliedState other;
  other.other_dumps = {"d0"};
  EXPECT_NE(Refusal(other, 0, incs).message().find("holds dump d0"), std::string::npos);
  EXPECT_NE(Refusal(other, 2, incs).message().find("holds dump d0"), std::string::npos);
}

TEST(AppliedIncrementsTest, AnAppliedIncrementReplacedInTheDumpIsRefused) {
  auto incs = Increments(5);
  const AppliedState state = Holding(3, incs);
  incs[2].manifest_sha256 = std::string(64, 'z');
  EXPECT_NE(Refusal(state, 0, incs).message().find("not the one the target applied"),
            std::string::npos);
  // More applied than the dump holds (the dump rolled back).
  EXPECT_NE(Refusal(Holding(3, Increments(5)), 0, Increments(2)).message().find("only 2"),
            std::string::npos);
}

TEST(AppliedIncrementsTest, NoRecordNeedsAnExplicitFrom) {
  const auto incs = Increments(5);
  EXPECT_NE(Refusal(AppliedState{}, 0, incs).message().find("give --from N"), std::string::npos);
  bool unrecorded = false;
  EXPECT_EQ(*FirstIncrementToApply(AppliedState{}, "d1", 3, incs, &unrecorded), 3);
  EXPECT_TRUE(unrecorded);
}

}  // namespace
}  // namespace lakedump
