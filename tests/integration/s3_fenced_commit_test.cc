// One committer against the real S3 endpoint (radosgw): skipped unless LD_TEST_S3_* are set.
// The endpoint must refuse what the commit relies on (If-None-Match: * on an existing key,
// If-Match with a wrong ETag: 412), and the partition of issue 30 (a run held at its manifest
// PUT while a resume takes its stale lease over and commits) must end with the resume's dump
// committed and whole, and the first run failing with the winner's name.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

#include "fakes/partitioned_commit.h"
#include "lake/fenced_commit.h"
#include "store/s3/s3_store.h"

namespace lakedump {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

class S3FencedCommitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (Env("LD_TEST_S3_ENDPOINT").empty()) GTEST_SKIP() << "LD_TEST_S3_* not set";
    static int counter = 0;
    const std::string url = "s3://" + Env("LD_TEST_S3_BUCKET") + "/it-fenced-commit-" +
                            std::to_string(::getpid()) + "-" + std::to_string(++counter);
    StoreOptions o;
    o.s3.endpoint = Env("LD_TEST_S3_ENDPOINT");
    o.s3.region = Env("LD_TEST_S3_REGION");
    o.s3.access_key_id = Env("LD_TEST_S3_ACCESS_KEY");
    o.s3.secret_access_key = Env("LD_TEST_S3_SECRET_KEY");
    o.s3.max_attempts = 3;
    auto store = OpenS3Store(url, o);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
  }
  void TearDown() override {
    if (store_ == nullptr) return;
    auto left = store_->List("");
    if (!left.ok()) return;
    std::vector<std::string> keys;
    for (const ObjectInfo& o : *left) keys.push_back(o.key);
    store_->Delete(keys).IgnoreError();
  }

  std::unique_ptr<ObjectStore> store_;
};

TEST_F(S3FencedCommitTest, TheEndpointRefusesConditionalWritesItMustRefuse) {
  ObjectStore& s = *store_;
  EXPECT_FALSE(s.create_only_is_atomic());  // S3: not assumed, probed
  ASSERT_TRUE(s.PutObject("k", "first", WriteOptions{.create_only = true}).ok());
  Status again = s.PutObject("k", "second", WriteOptions{.create_only = true});
  EXPECT_EQ(again.code(), Code::kAlreadyExists) << again.ToString();
  Status wrong = s.PutObject("k", "third", WriteOptions{.if_match = Md5Etag("not it")});
  EXPECT_EQ(wrong.code(), Code::kAlreadyExists) << wrong.ToString();
  EXPECT_EQ(*s.GetObject("k"), "first");
  Status missing = s.PutObject("absent", "x", WriteOptions{.if_match = Md5Etag("x")});
  EXPECT_EQ(missing.code(), Code::kAlreadyExists) << missing.ToString();
  EXPECT_EQ(s.Head("absent").status().code(), Code::kNotFound);
  const std::string etag = s.Head("k")->etag;
  ASSERT_TRUE(s.PutObject("k", "fourth", WriteOptions{.if_match = etag}).ok());
  EXPECT_EQ(*s.GetObject("k"), "fourth");
  Status stale = s.PutObject("k", "late", WriteOptions{.if_match = etag});
  EXPECT_EQ(stale.code(), Code::kAlreadyExists) << stale.ToString();
  EXPECT_EQ(*s.GetObject("k"), "fourth");
  auto honours = StoreHonoursConditions(s, "k");
  ASSERT_TRUE(honours.ok()) << honours.status().ToString();
  EXPECT_TRUE(*honours);
  EXPECT_EQ(*s.GetObject("k"), "fourth");  // the probe left it as it was
}

TEST_F(S3FencedCommitTest, ALateManifestOfATakenOverRunIsRefused) {
  int wrong_zero_exits = 0;
  for (bool over_committed_dump : {false, true}) {
    SCOPED_TRACE(over_committed_dump ? "over a committed dump" : "first commit");
    TearDown();  // an empty destination for each trial
    testing_commit::Trial t = testing_commit::PartitionedCommit(*store_, over_committed_dump);
    wrong_zero_exits += testing_commit::CheckTrial(*store_, t);
  }
  EXPECT_EQ(wrong_zero_exits, 0);
}

}  // namespace
}  // namespace lakedump
