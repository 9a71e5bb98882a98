// WriteOptions::if_match on the stores that enforce it themselves (local, memory): a write
// whose expected ETag is not the object's (or whose object is missing) fails AlreadyExists
// and leaves the object as it was; of writers racing with the same expected ETag exactly one
// replaces it. The S3 client sends the conditions as headers and maps 412 to AlreadyExists.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>
#include <vector>

#include "fakes/fake_http_transport.h"
#include "fakes/temp_dir.h"
#include "store/local/local_store.h"
#include "store/memory/memory_store.h"
#include "store/s3_client_test_util.h"

namespace lakedump {
namespace {

void ExpectIfMatch(ObjectStore& store) {
  const WriteOptions wrong{.if_match = Md5Etag("not it")};
  Status missing = store.PutObject("d/m", "x", wrong);
  EXPECT_EQ(missing.code(), Code::kAlreadyExists) << missing.ToString();
  EXPECT_EQ(store.Head("d/m").status().code(), Code::kNotFound);

  ASSERT_TRUE(store.PutObject("d/m", "first").ok());
  Status refused = store.PutObject("d/m", "second", wrong);
  EXPECT_EQ(refused.code(), Code::kAlreadyExists) << refused.ToString();
  EXPECT_NE(refused.message().find("precondition failed"), std::string::npos);
  EXPECT_EQ(*store.GetObject("d/m"), "first");

  ASSERT_TRUE(store.PutObject("d/m", "second", WriteOptions{.if_match = Md5Etag("first")}).ok());
  EXPECT_EQ(*store.GetObject("d/m"), "second");
  // The old ETag no longer matches: a late writer that saw "first" is refused.
  Status late = store.PutObject("d/m", "late", WriteOptions{.if_match = Md5Etag("first")});
  EXPECT_EQ(late.code(), Code::kAlreadyExists) << late.ToString();
  EXPECT_EQ(*store.GetObject("d/m"), "second");

  // Writers racing from the same ETag: exactly one replaces it.
  for (int round = 0; round < 5; ++round) {
    const std::string base = "base" + std::to_string(round);
    ASSERT_TRUE(store.PutObject("d/race", base).ok());
    std::atomic<int> won{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < 8; ++i) {
      threads.emplace_back([&, i] {
        if (store.PutObject("d/race", std::to_string(i), WriteOptions{.if_match = Md5Etag(base)})
                .ok()) {
          ++won;
        }
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(won.load(), 1) << "round " << round;
    EXPECT_NE(*store.GetObject("d/race"), base);
  }
}

TEST(ConditionalWriteTest, LocalStoreIfMatch) {
  TempDir dir;
  auto store = LocalStore::Open(dir.Sub("root"));
  ASSERT_TRUE(store.ok());
  ExpectIfMatch(**store);
  auto temps = (*store)->ListTempFiles();
  ASSERT_TRUE(temps.ok());
  EXPECT_TRUE(temps->empty());  // refused writes leave no temp file
  size_t files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir.Sub("root"))) {
    if (e.is_regular_file()) ++files;
  }
  EXPECT_EQ(files, 2u);  // d/m and d/race
}

TEST(ConditionalWriteTest, LocalStoreDeferredSyncIfMatch) {
  TempDir dir;
  auto store = LocalStore::Open(dir.Sub("root"), nullptr, /*deferred_sync=*/true);
  ASSERT_TRUE(store.ok());
  ExpectIfMatch(**store);
  EXPECT_TRUE((*store)->SyncWritten().ok());
}

TEST(ConditionalWriteTest, MemoryStoreIfMatch) {
  MemoryStore store("if-match");
  ExpectIfMatch(store);
  EXPECT_EQ(store.open_writers(), 0);
}

TEST(ConditionalWriteTest, S3ClientSendsIfMatchAndMaps412ToAlreadyExists) {
  FakeHttpTransport transport;
  transport.Push(412, "<Error><Code>PreconditionFailed</Code></Error>");
  transport.Push(200);
  RetryPolicy retry(FastRetries());
  S3Client client(TestClientOptions(), &transport, &retry);
  const std::string etag = Md5Etag("old");
  Status refused = client.PutObject("d/_manifest.json", "new", {}, WriteOptions{.if_match = etag});
  EXPECT_EQ(refused.code(), Code::kAlreadyExists) << refused.ToString();
  EXPECT_NE(refused.message().find("precondition failed"), std::string::npos);
  ASSERT_TRUE(client.PutObject("d/_manifest.json", "new", {}, WriteOptions{.create_only = true})
                  .ok());
  const std::vector<RecordedRequest> requests = transport.requests();
  ASSERT_EQ(requests.size(), 2u);  // a 412 is an answer: not retried
  EXPECT_EQ(requests[0].Header("If-Match"), etag);  // unquoted: radosgw matches only that
  EXPECT_EQ(requests[0].Header("If-None-Match"), "");
  EXPECT_EQ(requests[1].Header("If-None-Match"), "*");
  EXPECT_EQ(requests[1].Header("If-Match"), "");
}

TEST(ConditionalWriteTest, S3ClientSendsConditionsWithTheMultipartCompletion) {
  FakeHttpTransport transport;
  transport.Push(412, "<Error><Code>PreconditionFailed</Code></Error>");
  RetryPolicy retry(FastRetries());
  S3Client client(TestClientOptions(), &transport, &retry);
  Status s = client.CompleteMultipartUpload("k", "id", {{"\"e1\"", ""}}, 1, {},
                                            WriteOptions{.create_only = true});
  EXPECT_EQ(s.code(), Code::kAlreadyExists) << s.ToString();
  ASSERT_EQ(transport.requests().size(), 1u);
  EXPECT_EQ(transport.requests()[0].Header("If-None-Match"), "*");
}

}  // namespace
}  // namespace lakedump
