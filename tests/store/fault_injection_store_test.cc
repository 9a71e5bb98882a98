#include "fakes/fault_injection_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store/memory/memory_store.h"

namespace lakedump {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(FaultInjectionStoreTest, FailsTheNthAppendAndTheWriterAborts) {
  MemoryStore memory;
  FaultInjectionStore store(&memory);
  store.FailNth(FaultPoint::kAppend, 3, Status::IOError("injected"));
  {
    auto w = store.NewWriter("t/part-0");
    ASSERT_TRUE(w.ok());
    EXPECT_TRUE((*w)->Append("1").ok());
    EXPECT_TRUE((*w)->Append("2").ok());
    Status s = (*w)->Append("3");
    EXPECT_EQ(s.code(), Code::kIOError);
    EXPECT_EQ(s.message(), "injected");
    EXPECT_EQ((*w)->Append("4").code(), Code::kIOError) << "sticky";
    EXPECT_EQ((*w)->Close().code(), Code::kIOError);
  }
  EXPECT_THAT(memory.Keys(), IsEmpty());
  EXPECT_EQ(store.aborted_writers(), 1);
  EXPECT_EQ(memory.aborted_writers(), 1);
  EXPECT_EQ(store.opened_writers(), 1);
  EXPECT_EQ(store.calls(FaultPoint::kAppend), 3) << "calls after the failure stay in the writer";
}

TEST(FaultInjectionStoreTest, FailedCloseLeavesNoObject) {
  MemoryStore memory;
  FaultInjectionStore store(&memory);
  store.FailNth(FaultPoint::kClose, 2, Status::Unavailable("503"));
  ASSERT_TRUE(store.PutObject("a", "1").ok());
  Status s = store.PutObject("b", "2");
  EXPECT_TRUE(s.retryable());
  ASSERT_TRUE(store.PutObject("c", "3").ok());
  EXPECT_THAT(memory.Keys(), ElementsAre("a", "c"));
  EXPECT_EQ(store.committed_writers(), 2);
  EXPECT_EQ(store.aborted_writers(), 1);
}

TEST(FaultInjectionStoreTest, ZeroNeverFailsAndFailFromKeepsFailing) {
  MemoryStore memory;
  FaultInjectionStore store(&memory);
  store.FailNth(FaultPoint::kNewWriter, 0, Status::IOError("never"));
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(store.PutObject("k" + std::to_string(i), "x").ok());
  store.FailFrom(FaultPoint::kNewWriter, 5, Status::IOError("from 5"));
  EXPECT_TRUE(store.NewWriter("a").ok());  // call 4
  EXPECT_FALSE(store.NewWriter("b").ok());
  EXPECT_FALSE(store.NewWriter("c").ok());
  store.Clear(FaultPoint::kNewWriter);
  EXPECT_TRUE(store.NewWriter("d").ok());
  EXPECT_EQ(store.calls(FaultPoint::kNewWriter), 7);
  EXPECT_EQ(store.aborted_writers(), 2) << "writers a and d were dropped unclosed";
}

TEST(FaultInjectionStoreTest, ReadListHeadAndDeleteFaults) {
  MemoryStore memory;
  FaultInjectionStore store(&memory);
  ASSERT_TRUE(store.PutObject("k", "value").ok());
  store.FailNth(FaultPoint::kRead, 1, Status::IOError("read"));
  store.FailNth(FaultPoint::kNewReader, 2, Status::NotFound("reader"));
  store.FailNth(FaultPoint::kList, 1, Status::IOError("list"));
  store.FailNth(FaultPoint::kHead, 1, Status::IOError("head"));
  store.FailNth(FaultPoint::kDelete, 1, Status::IOError("delete"));
  EXPECT_EQ(store.GetObject("k").status().message(), "read");
  EXPECT_EQ(store.GetObject("k").status().message(), "reader");
  EXPECT_EQ(*store.GetObject("k"), "value");
  EXPECT_EQ(store.List("").status().message(), "list");
  EXPECT_EQ(store.List("")->size(), 1u);
  EXPECT_EQ(store.Head("k").status().message(), "head");
  EXPECT_EQ(store.Head("k")->size, 5u);
  std::vector<std::string> keys = {"k"};
  EXPECT_EQ(store.Delete(keys).message(), "delete");
  EXPECT_THAT(memory.Keys(), ElementsAre("k"));
  EXPECT_TRUE(store.Delete(keys).ok());
  EXPECT_THAT(memory.Keys(), IsEmpty());
}

}  // namespace
}  // namespace lakedump
