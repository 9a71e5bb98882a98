#include "base/thread_pool.h"

#include <new>

#include <algorithm>

namespace lakedump {

ThreadPool::ThreadPool(size_t threads) {
  threads = std::max<size_t>(threads, 1);
  threads_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void ThreadPool::Submit(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(fn));
  }
  cv_.notify_one();
}

void ThreadPool::WorkerLoop() {
  for (;;) {
    std::function<void()> fn;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      fn = std::move(queue_.front());
      queue_.pop_front();
    }
    fn();
  }
}

TaskGroup::TaskGroup(ThreadPool* pool, size_t max_in_flight, std::stop_token parent)
    : pool_(pool), max_in_flight_(std::max<size_t>(max_in_flight, 1)) {
  if (parent.stop_possible()) {
    parent_cb_.emplace(parent, std::function<void()>([this] { Cancel(); }));
  }
}

TaskGroup::~TaskGroup() {
  parent_cb_.reset();
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return in_flight_ == 0; });
}

Status OutOfMemoryStatus() {
  return Status::Internal(
      "out of memory (an allocation failed): the input needs more memory than this process may "
      "use; lower the parallelism options or raise the memory limit");
}

bool TaskGroup::Spawn(Task task) {
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return in_flight_ < max_in_flight_ || stop_.stop_requested(); });
    if (stop_.stop_requested()) return false;
    ++in_flight_;
  }
  pool_->Submit([this, task = std::move(task)] {
    Status s;
    try {
      s = stop_.stop_requested() ? Status::Cancelled("cancelled before start")
                                 : task(stop_.get_token());
    } catch (const std::bad_alloc&) {
      // An allocation that failed on a pool thread would otherwise end the process through
      // std::terminate; as a Status it stops the group and reaches the command's one line.
      s = OutOfMemoryStatus();
    }
    Finish(std::move(s));
  });
  return true;
}

void TaskGroup::Finish(Status s) {
  bool request_stop = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!s.ok()) {
      // A real error wins over a cancellation that it caused in a sibling.
      if (first_error_.ok() ||
          (first_error_.code() == Code::kCancelled && s.code() != Code::kCancelled)) {
        first_error_ = s;
      }
      request_stop = true;
    }
  }
  if (request_stop) stop_.request_stop();
  // Notify under the lock: the waiter may destroy the group as soon as it sees 0.
  // Only the two changes a waiter waits for wake anyone: 0 left (Wait) and
  // room again below the cap (Spawn). Waking the spawner on every finished
  // task would cost a context switch per task for nothing.
  std::lock_guard<std::mutex> lock(mu_);
  --in_flight_;
  if (in_flight_ == 0 || in_flight_ + 1 == max_in_flight_) cv_.notify_all();
}

Status TaskGroup::Wait() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return in_flight_ == 0; });
  if (!first_error_.ok()) return first_error_;
  if (stop_.stop_requested()) return Status::Cancelled("cancelled");
  return Status::OK();
}

void TaskGroup::Cancel() {
  stop_.request_stop();
  std::lock_guard<std::mutex> lock(mu_);
  cv_.notify_all();
}

}  // namespace lakedump
