#include "store/s3/s3_multipart_writer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <future>
#include <memory>
#include <random>
#include <set>

#include "base/memory_budget.h"
#include "fakes/fake_http_transport.h"
#include "fakes/sync.h"
#include "store/s3/s3_store.h"
#include "store/s3/sigv4.h"

namespace lakedump {
namespace {

constexpr uint64_t kPart = 5ull << 20;

std::string Bytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (size_t i = 0; i < n; i += 8) {
    uint64_t v = rng();
    std::memcpy(s.data() + i, &v, std::min<size_t>(8, n - i));
  }
  return s;
}

class S3WriterTest : public ::testing::Test {
 protected:
  std::unique_ptr<ObjectStore> Open(int parallelism, MemoryBudget* budget = nullptr,
                                    std::stop_token stop = {}) {
    auto transport = std::make_unique<FakeHttpTransport>(server_.AsHandler());
    transport_ = transport.get();
    transport_->set_before_send(before_send_);
    StoreOptions o;
    o.s3.endpoint = "http://fake:1";
    o.s3.access_key_id = "AKID";
    o.s3.secret_access_key = "secret";
    o.s3.part_size = kPart;
    o.s3.upload_parallelism = parallelism;
    o.s3.max_connections = 16;
    o.s3.max_attempts = 2;
    o.budget = budget;
    o.stop = stop;
    auto store = OpenS3StoreWithTransport("s3://bkt/pre", o, std::move(transport));
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return std::move(*store);
  }

  std::vector<RecordedRequest> Parts() const {
    std::vector<RecordedRequest> out;
    for (auto& r : transport_->requests()) {
      if (r.method == "PUT" && r.HasQuery("partNumber")) out.push_back(r);
    }
    return out;
  }

  FakeS3Server server_;
  FakeHttpTransport* transport_ = nullptr;
  // Runs in each request before the fake server answers it (may be empty).
  std::function<void(const RecordedRequest&)> before_send_;
};

// Holds the part uploads until `n` of them are in flight at once.
std::function<void(const RecordedRequest&)> PartsMeet(std::shared_ptr<Rendezvous> parts) {
  return [parts](const RecordedRequest& r) {
    if (r.HasQuery("partNumber")) parts->Arrive();
  };
}

TEST_F(S3WriterTest, SmallObjectIsOnePut) {
  auto store = Open(4);
  ASSERT_TRUE(store->PutObject("t/small", "hello").ok());
  auto reqs = transport_->requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "PUT");
  EXPECT_EQ(reqs[0].url, "http://fake:1/bkt/pre/t/small");
  EXPECT_EQ(server_.objects().at("pre/t/small"), "hello");
  // Exactly one part's worth is still one PUT.
  ASSERT_TRUE(store->PutObject("t/exact", Bytes(kPart, 1)).ok());
  EXPECT_EQ(Parts().size(), 0u);
  ASSERT_TRUE(store->PutObject("t/empty", "").ok());
  EXPECT_EQ(server_.objects().at("pre/t/empty"), "");
}

TEST_F(S3WriterTest, PartsAreNumberedAndCompleteInOrder) {
  for (int p : {0, 1, 3, 16}) {
    auto store = Open(p);
    std::string data = Bytes(3 * kPart + 123, static_cast<uint64_t>(p));
    auto writer = store->NewWriter("obj");
    ASSERT_TRUE(writer.ok());
    for (size_t pos = 0; pos < data.size(); pos += 100'000) {
      ASSERT_TRUE((*writer)->Append(std::string_view(data).substr(pos, 100'000)).ok());
    }
    ASSERT_TRUE((*writer)->Close().ok());
    EXPECT_EQ(server_.objects().at("pre/obj"), data) << p;
    auto parts = Parts();
    ASSERT_EQ(parts.size(), 4u) << p;
    std::set<std::string> numbers;
    for (auto& r : parts) {
      EXPECT_EQ(r.Header("Content-MD5"), "");  // SigV4 covers the payload: no second digest
      for (int n = 1; n <= 4; ++n) {
        if (r.HasQuery("partNumber=" + std::to_string(n))) numbers.insert(std::to_string(n));
      }
    }
    EXPECT_EQ(numbers.size(), 4u);
    // The last request is the HEAD that confirms the size.
    EXPECT_EQ(transport_->requests().back().method, "HEAD");
    EXPECT_EQ(server_.open_uploads(), 0u);
  }
}

TEST_F(S3WriterTest, ParallelismBoundIsRespected) {
  for (int p : {0, 1, 2, 4}) {
    before_send_ = PartsMeet(std::make_shared<Rendezvous>(std::max(p, 1)));
    auto store = Open(p);
    ASSERT_TRUE(store->PutObject("obj", Bytes(5 * kPart + 1, 9)).ok());
    EXPECT_LE(transport_->max_concurrent(), std::max(p, 1)) << p;
    if (p > 0) {
      EXPECT_EQ(transport_->max_concurrent(), p) << p;
    }
  }
}

TEST_F(S3WriterTest, CreateMultipartUploadDoesNotBlockTheProducer) {
  // The server answers nothing until the gate opens.
  Gate server;
  before_send_ = [&server](const RecordedRequest&) { server.Wait(); };
  auto store = Open(2);
  auto writer = store->NewWriter("obj");
  ASSERT_TRUE(writer.ok());
  std::string data = Bytes(3 * kPart + 3, 8);
  // The 2nd and 3rd parts' bytes flush parts 1 and 2: with P = 2 neither waits
  // for CreateMultipartUpload nor for an UploadPart, which are all unanswered here.
  auto append = std::async(std::launch::async, [&] {
    return (*writer)->Append(std::string_view(data).substr(0, 2 * kPart + 1));
  });
  const bool returned = append.wait_for(kEventLimit) == std::future_status::ready;
  server.Open();
  ASSERT_TRUE(returned) << "Append waited for the server";
  ASSERT_TRUE(append.get().ok());
  ASSERT_TRUE((*writer)->Append(std::string_view(data).substr(2 * kPart + 1)).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ(server_.objects().at("pre/obj"), data);
  auto requests = transport_->requests();
  ASSERT_FALSE(requests.empty());
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_TRUE(requests[0].HasQuery("uploads"));
  EXPECT_EQ(Parts().size(), 4u);
  EXPECT_EQ(server_.open_uploads(), 0u);
}

TEST_F(S3WriterTest, BudgetBlocksTheProducer) {
  before_send_ = PartsMeet(std::make_shared<Rendezvous>(2));  // the budget's 2 parts in flight
  MemoryBudget budget(2 * kPart);
  auto store = Open(8, &budget);
  std::string data = Bytes(6 * kPart + 7, 4);
  ASSERT_TRUE(store->PutObject("obj", data).ok());
  EXPECT_LE(budget.peak(), 2 * kPart);
  EXPECT_LE(transport_->max_concurrent(), 2);
  EXPECT_EQ(budget.in_use(), 0u);
  EXPECT_EQ(server_.objects().at("pre/obj"), data);
}

TEST_F(S3WriterTest, FailedPartAbortsTheUpload) {
  server_.FailPart(2, 400);
  auto store = Open(2);
  Status s = store->PutObject("obj", Bytes(4 * kPart, 2));
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kIOError);  // a 4xx reply: a failure, not bad usage (exit 1)
  EXPECT_THAT(s.message(), ::testing::HasSubstr("UploadPart "));  // the 2nd to arrive
  EXPECT_EQ(server_.aborts(), 1);
  EXPECT_EQ(server_.open_uploads(), 0u);
  EXPECT_EQ(server_.objects().count("pre/obj"), 0u);
}

TEST_F(S3WriterTest, RetryablePartFailureIsRetriedFromTheHeldBuffer) {
  server_.FailPart(2, 503);
  auto store = Open(2);
  std::string data = Bytes(3 * kPart + 5, 3);
  ASSERT_TRUE(store->PutObject("obj", data).ok());
  EXPECT_EQ(server_.objects().at("pre/obj"), data);
  EXPECT_EQ(Parts().size(), 5u);  // 4 parts + 1 retry
}

TEST_F(S3WriterTest, DestroyedWithoutCloseAborts) {
  int total_creates = 0;
  for (int p : {0, 3}) {
    auto store = Open(p);
    {
      auto writer = store->NewWriter("obj");
      ASSERT_TRUE((*writer)->Append(Bytes(3 * kPart + 1, 5)).ok());
    }
    EXPECT_EQ(server_.open_uploads(), 0u);
    EXPECT_EQ(server_.objects().count("pre/obj"), 0u);
    // At P > 0 the first part's task creates the upload and the destruction may
    // cancel it before it starts: then there is nothing to abort. Any upload
    // created is aborted, last.
    const auto requests = transport_->requests();
    int creates = 0;
    for (const auto& r : requests) {
      if (r.method == "POST" && r.HasQuery("uploads")) ++creates;
    }
    EXPECT_EQ(creates, p == 0 ? 1 : creates);
    if (creates > 0) {
      ASSERT_FALSE(requests.empty());
      EXPECT_EQ(requests.back().method, "DELETE");
    }
    total_creates += creates;
  }
  EXPECT_EQ(server_.aborts(), total_creates);
}

TEST_F(S3WriterTest, CancellationAborts) {
  std::stop_source stop;
  auto store = Open(2, nullptr, stop.get_token());
  auto writer = store->NewWriter("obj");
  ASSERT_TRUE((*writer)->Append(Bytes(2 * kPart + 1, 5)).ok());
  stop.request_stop();
  EXPECT_EQ((*writer)->Append("x").code(), Code::kCancelled);
  // With P > 0 the upload is created by the first part's task, which the stop
  // may skip: every upload created is aborted, none is left open. Counted by the
  // server: a create the stop cut off before it reached the server created nothing.
  const int creates = server_.creates();
  EXPECT_LE(creates, 1);
  EXPECT_EQ(server_.aborts(), creates);
  EXPECT_EQ(server_.open_uploads(), 0u);
}

TEST_F(S3WriterTest, CompleteWithErrorBodyFailsAndAborts) {
  server_.set_complete_error_body(true);
  auto store = Open(2);
  Status s = store->PutObject("obj", Bytes(2 * kPart + 1, 6));
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), ::testing::HasSubstr("InvalidPart"));
  EXPECT_EQ(server_.aborts(), 1);
  EXPECT_EQ(server_.objects().count("pre/obj"), 0u);
}

TEST_F(S3WriterTest, StoreListReadDelete) {
  auto store = Open(2);
  for (const char* k : {"a/1", "a/2", "a/3", "b/1", "a/4"}) {
    ASSERT_TRUE(store->PutObject(k, std::string("data-") + k).ok());
  }
  auto list = store->List("a/");  // the fake pages by 2: exercises continuation tokens
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 4u);
  EXPECT_EQ((*list)[3].key, "a/4");
  EXPECT_EQ((*list)[3].size, 8u);
  auto reader = store->NewReader("a/2");
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->size(), 8u);
  std::string out;
  ASSERT_TRUE((*reader)->ReadAt(5, 3, &out).ok());
  EXPECT_EQ(out, "a/2");
  std::vector<std::string> keys = {"a/1", "a/2"};
  ASSERT_TRUE(store->Delete(keys).ok());
  EXPECT_EQ(store->List("a/")->size(), 2u);
  EXPECT_EQ(store->Describe(), "s3://bkt/pre");
  EXPECT_EQ(store->NewReader("zzz").status().code(), Code::kNotFound);
}

TEST(PartSizeTest, GrowthKeepsPartsUnderTheLimit) {
  EXPECT_EQ(PartSizeFor(kDefaultPartSize, 1, false), kDefaultPartSize);
  EXPECT_EQ(PartSizeFor(kDefaultPartSize, 1000, false), kDefaultPartSize);
  EXPECT_EQ(PartSizeFor(kDefaultPartSize, 1001, false), 2 * kDefaultPartSize);
  EXPECT_EQ(PartSizeFor(kDefaultPartSize, 10000, false), 512 * kDefaultPartSize);
  EXPECT_EQ(PartSizeFor(kDefaultPartSize, 10000, true), kDefaultPartSize);
  EXPECT_EQ(PartSizeFor(1, 1, false), kMinPartSize);           // clamped up
  EXPECT_EQ(PartSizeFor(1ull << 40, 1, false), kMaxPartSize);  // clamped down
  // 10,000 parts of a growing size hold at least S3's 5 TiB maximum object.
  for (uint64_t base : {kMinPartSize, kDefaultPartSize, uint64_t{16} << 20}) {
    long double total = 0;
    for (int n = 1; n <= kMaxParts; ++n) {
      uint64_t size = PartSizeFor(base, n, false);
      EXPECT_LE(size, kMaxPartSize);
      total += static_cast<long double>(size);
    }
    EXPECT_GE(total, 4.8L * (1ull << 40)) << base;
  }
}

TEST(S3UrlTest, Parsing) {
  auto u = ParseS3Url("s3://bucket/a/b/");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->bucket, "bucket");
  EXPECT_EQ(u->prefix, "a/b/");
  EXPECT_EQ(ParseS3Url("s3://bucket")->prefix, "");
  EXPECT_EQ(ParseS3Url("s3:/bucket").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(ParseS3Url("s3:///x").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(ParseS3Url("s3://b/a//c").status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace lakedump
