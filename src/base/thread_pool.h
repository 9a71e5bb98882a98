// ThreadPool: a fixed set of worker threads draining one FIFO queue.
// TaskGroup: a bounded fan-out of Status-returning tasks on a pool, with
// first-error propagation and cooperative cancellation (std::stop_token).
//
// Thread-safety: both are thread-safe. Never call TaskGroup::Wait() (or Spawn()
// on a full group) from a thread of the group's own pool: the pool can deadlock.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"

namespace lakedump {

// The Status of a failed allocation (std::bad_alloc), caught where tasks run and at the
// command boundary: one line, exit 1.
Status OutOfMemoryStatus();

class ThreadPool {
 public:
  explicit ThreadPool(size_t threads);
  ~ThreadPool();  // runs what is queued, then joins
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Submit(std::function<void()> fn);
  size_t size() const { return threads_.size(); }

 private:
  void WorkerLoop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;  // GUARDED_BY(mu_)
  bool stopping_ = false;                    // GUARDED_BY(mu_)
  std::vector<std::thread> threads_;
};

class TaskGroup {
 public:
  using Task = std::function<Status(std::stop_token)>;

  // At most max_in_flight tasks of this group run or wait in the pool at once.
  // A stop requested on `parent` cancels the group.
  TaskGroup(ThreadPool* pool, size_t max_in_flight, std::stop_token parent = {});
  ~TaskGroup();  // waits for tasks in flight; their statuses are dropped
  TaskGroup(const TaskGroup&) = delete;
  TaskGroup& operator=(const TaskGroup&) = delete;

  // Blocks while max_in_flight tasks are in flight. Returns false without
  // running the task when the group has already failed or been cancelled.
  bool Spawn(Task task);
  // Waits for every spawned task. Returns the first error (a task's error
  // beats a cancellation), or Cancelled if the group was cancelled, or OK.
  Status Wait();
  // Asks every task to stop (their stop_token fires); new spawns are refused.
  void Cancel();
  std::stop_token stop_token() const { return stop_.get_token(); }
  bool stopped() const { return stop_.stop_requested(); }

 private:
  void Finish(Status s);

  ThreadPool* pool_;
  const size_t max_in_flight_;
  std::stop_source stop_;
  std::optional<std::stop_callback<std::function<void()>>> parent_cb_;
  std::mutex mu_;
  std::condition_variable cv_;
  size_t in_flight_ = 0;  // GUARDED_BY(mu_)
  Status first_error_;    // GUARDED_BY(mu_)
};

}  // namespace lakedump
