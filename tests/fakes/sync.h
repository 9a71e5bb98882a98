// Waiting on events in tests, instead of sleeping on the wall clock: a thread
// blocks until something the code under test does has happened, never for a
// fixed time. Each wait has a generous limit (kEventLimit), so that a
// regression fails the test instead of hanging the suite; the limit is a guard,
// not a duration the test asserts. Header-only; thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <stop_token>
#include <thread>

namespace lakedump {

inline constexpr std::chrono::seconds kEventLimit{60};

// Blocks until `stop` is requested (a task that runs until it is cancelled).
inline void WaitForStop(std::stop_token stop) {
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, stop, [] { return false; });
}

// A condition the test's threads wait for; Notify() after changing what it reads.
class Event {
 public:
  // True once `ready` holds (checked under the event's mutex at each Notify()); false after
  // kEventLimit.
  bool WaitUntil(const std::function<bool()>& ready) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kEventLimit, ready);
  }
  // Runs `change` under the mutex, then wakes the waiters.
  void Notify(const std::function<void()>& change = {}) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (change) change();
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
};

// A gate closed until Open(); Wait() blocks while it is closed (at most kEventLimit: false).
class Gate {
 public:
  void Open() { event_.Notify([this] { open_ = true; }); }
  bool Wait() { return event_.WaitUntil([this] { return open_; }); }

 private:
  Event event_;
  bool open_ = false;
};

// Holds the threads that Arrive() until `n` distinct threads have arrived, then lets every
// later caller through at once: proves that `n` of them ran at the same time.
class Rendezvous {
 public:
  explicit Rendezvous(size_t n) : n_(n) {}
  // False when the n-th thread did not come within kEventLimit.
  bool Arrive() {
    event_.Notify([this] { arrived_.insert(std::this_thread::get_id()); });
    return event_.WaitUntil([this] { return arrived_.size() >= n_; });
  }

 private:
  const size_t n_;
  Event event_;
  std::set<std::thread::id> arrived_;
};

}  // namespace lakedump
