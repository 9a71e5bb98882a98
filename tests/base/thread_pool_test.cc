#include "base/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <new>

#include "fakes/sync.h"

namespace lakedump {
namespace {

// Issue 16: an allocation that failed on a pool thread ended the process (std::terminate via
// an exception leaving the thread); it is the group's error, one line, and siblings stop.
TEST(TaskGroupTest, FailedAllocationInATaskIsTheGroupsError) {
  ThreadPool pool(2);
  TaskGroup group(&pool, 2);
  ASSERT_TRUE(group.Spawn([](std::stop_token) -> Status { throw std::bad_alloc(); }));
  Status s = group.Wait();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("out of memory"), std::string::npos) << s.ToString();
}

TEST(TaskGroupTest, RunsAllTasksAndBoundsConcurrency) {
  ThreadPool pool(4);
  TaskGroup group(&pool, 2);
  std::atomic<int> running{0}, peak{0}, done{0};
  Rendezvous bound(2);  // the tasks wait until 2 of them run at once
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(group.Spawn([&](std::stop_token) {
      int now = ++running;
      int p = peak.load();
      while (now > p && !peak.compare_exchange_weak(p, now)) {
      }
      bound.Arrive();
      --running;
      ++done;
      return Status::OK();
    }));
  }
  EXPECT_TRUE(group.Wait().ok());
  EXPECT_EQ(done.load(), 20);
  EXPECT_EQ(peak.load(), 2);
}

TEST(TaskGroupTest, FirstErrorCancelsSiblingsAndIsReturned) {
  ThreadPool pool(2);
  TaskGroup group(&pool, 2);
  std::atomic<int> cancelled{0};
  (void)group.Spawn([](std::stop_token) { return Status::IOError("boom"); });
  for (int i = 0; i < 5; ++i) {
    if (!group.Spawn([&](std::stop_token stop) {
          WaitForStop(stop);
          ++cancelled;
          return Status::Cancelled("stopped");
        }))
      break;
  }
  Status s = group.Wait();
  EXPECT_EQ(s.code(), Code::kIOError);
  EXPECT_EQ(s.message(), "boom");
}

TEST(TaskGroupTest, ParentStopCancelsGroup) {
  ThreadPool pool(2);
  std::stop_source root;
  TaskGroup group(&pool, 4, root.get_token());
  ASSERT_TRUE(group.Spawn([](std::stop_token stop) {
    WaitForStop(stop);
    return Status::Cancelled("stopped");
  }));
  root.request_stop();
  EXPECT_EQ(group.Wait().code(), Code::kCancelled);
  EXPECT_FALSE(group.Spawn([](std::stop_token) { return Status::OK(); }));
}

}  // namespace
}  // namespace lakedump
