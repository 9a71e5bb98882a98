// The store seam owns the cleanup of unfinished writes: a writer destroyed without a
// successful Close() aborts, whatever the backend, and leaves nothing behind. S3's abort
// (AbortMultipartUpload) is tested in s3_multipart_writer_test.cc and the integration tests.
#include "store/object_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "fakes/fault_injection_store.h"
#include "fakes/temp_dir.h"
#include "store/local/local_store.h"
#include "store/memory/memory_store.h"
#include "store/prefix_store.h"

namespace lakedump {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// A backend that logs the protocol's calls.
class LoggingWriter : public ObjectWriter {
 public:
  LoggingWriter(std::vector<std::string>* log, Status close) : log_(log), close_(close) {}
  Status Append(std::string_view data) override {
    log_->push_back("append " + std::string(data));
    return Status::OK();
  }
  uint64_t bytes_written() const override { return 0; }

 protected:
  Status DoClose() override {
    log_->push_back("close");
    return close_;
  }
  void Abort() override { log_->push_back("abort"); }

 private:
  std::vector<std::string>* const log_;
  const Status close_;
};

// A backend cannot be created without the final class that aborts it.
static_assert(std::is_abstract_v<LoggingWriter>);
static_assert(!std::is_abstract_v<AbortOnDestroy<LoggingWriter>>);

TEST(ObjectWriterTest, DestroyedUnclosedAbortsOnce) {
  std::vector<std::string> log;
  {
    auto writer = MakeObjectWriter<LoggingWriter>(&log, Status::OK());
    ASSERT_TRUE(writer->Append("x").ok());
  }
  EXPECT_THAT(log, ElementsAre("append x", "abort"));
}

TEST(ObjectWriterTest, ClosedWriterClosesOnceAndNeverAborts) {
  std::vector<std::string> log;
  {
    auto writer = MakeObjectWriter<LoggingWriter>(&log, Status::OK());
    ASSERT_TRUE(writer->Close().ok());
    ASSERT_TRUE(writer->Close().ok());
  }
  EXPECT_THAT(log, ElementsAre("close"));
}

TEST(ObjectWriterTest, FailedCloseThenDestroyedAborts) {
  std::vector<std::string> log;
  {
    auto writer = MakeObjectWriter<LoggingWriter>(&log, Status::IOError("disk"));
    EXPECT_EQ(writer->Close().code(), Code::kIOError);
  }
  EXPECT_THAT(log, ElementsAre("close", "abort"));
}

// Each backend reachable in unit tests, by name.
class ObjectWriterBackendTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string& backend = GetParam();
    if (backend == "local") {
      auto local = LocalStore::Open(dir_.path());
      ASSERT_TRUE(local.ok()) << local.status().ToString();
      local_ = std::move(*local);
      store_ = local_.get();
    } else if (backend == "memory") {
      store_ = &memory_;
    } else if (backend == "prefix") {
      wrapper_ = std::make_unique<PrefixStore>(&memory_, "inc/");
      store_ = wrapper_.get();
    } else {
      auto fault = std::make_unique<FaultInjectionStore>(&memory_);
      fault_ = fault.get();
      wrapper_ = std::move(fault);
      store_ = wrapper_.get();
    }
  }

  // What the backend holds besides the objects the store lists: the folder's files
  // (hidden temp files included), the memory store's keys, its writers still open.
  std::vector<std::string> Leftovers() {
    auto listed = store_->List("");
    EXPECT_TRUE(listed.ok()) << listed.status().ToString();
    std::set<std::string> visible;
    const std::string prefix = GetParam() == "prefix" ? "inc/" : "";
    for (const ObjectInfo& o : *listed) visible.insert(prefix + o.key);
    std::vector<std::string> out;
    for (const std::string& f : dir_.Files()) {
      if (!visible.contains(f)) out.push_back("file " + f);
    }
    for (const std::string& k : memory_.Keys()) {
      if (!visible.contains(k)) out.push_back("memory " + k);
    }
    if (memory_.open_writers() != 0) out.push_back("open writers in memory");
    return out;
  }

  // The writers the backend counted as aborted are `n` (the local folder counts none).
  void ExpectAborted(int n) const {
    if (fault_ != nullptr) {
      EXPECT_EQ(fault_->aborted_writers(), n);
    }
    if (local_ == nullptr) {
      EXPECT_EQ(memory_.aborted_writers(), n);
    }
  }

  TempDir dir_;
  MemoryStore memory_;
  std::unique_ptr<LocalStore> local_;
  std::unique_ptr<ObjectStore> wrapper_;
  FaultInjectionStore* fault_ = nullptr;
  ObjectStore* store_ = nullptr;
};

TEST_P(ObjectWriterBackendTest, DestroyedAfterAppendWithoutCloseLeavesNothing) {
  {
    auto writer = store_->NewWriter("t/a.bin");
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    // More than the local writer's buffer, so that its temp file holds bytes.
    ASSERT_TRUE((*writer)->Append(std::string(LocalStore::kWriteBufferSize + 10, 'x')).ok());
    EXPECT_EQ(store_->Head("t/a.bin").status().code(), Code::kNotFound);
  }
  EXPECT_THAT(*store_->List(""), IsEmpty());
  EXPECT_THAT(Leftovers(), IsEmpty());
  ExpectAborted(1);
}

TEST_P(ObjectWriterBackendTest, FailedCloseThenDestroyedLeavesOnlyTheExistingObject) {
  ASSERT_TRUE(store_->PutObject("t/a.bin", "old").ok());
  {
    WriteOptions options;
    options.create_only = true;
    auto writer = store_->NewWriter("t/a.bin", options);
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    ASSERT_TRUE((*writer)->Append("new").ok());
    EXPECT_EQ((*writer)->Close().code(), Code::kAlreadyExists);
  }
  EXPECT_EQ(*store_->GetObject("t/a.bin"), "old");
  EXPECT_THAT(Leftovers(), IsEmpty());
  ExpectAborted(1);
}

TEST_P(ObjectWriterBackendTest, ClosedWriterIsNotAborted) {
  {
    auto writer = store_->NewWriter("t/a.bin");
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    ASSERT_TRUE((*writer)->Append("abc").ok());
    ASSERT_TRUE((*writer)->Close().ok());
  }
  EXPECT_EQ(*store_->GetObject("t/a.bin"), "abc");
  EXPECT_THAT(Leftovers(), IsEmpty());
  ExpectAborted(0);
}

INSTANTIATE_TEST_SUITE_P(Backends, ObjectWriterBackendTest,
                         ::testing::Values("local", "memory", "prefix", "fault"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace lakedump
