#include "format/parquet/parallel_for.h"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "base/thread_pool.h"

namespace lakedump::parquet {
namespace {

struct ForState {
  std::atomic<size_t> next{0};
  size_t n = 0;
  const std::function<void(size_t)>* fn = nullptr;  // valid while !closed
  std::mutex mu;
  std::condition_variable cv;
  bool closed = false;  // GUARDED_BY(mu): the caller returned or is about to
  size_t active = 0;    // GUARDED_BY(mu): helpers inside fn's loop

  void Drain() {
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) (*fn)(i);
  }
};

}  // namespace

void ParallelFor(ThreadPool* pool, size_t helpers, size_t n,
                 const std::function<void(size_t)>& fn) {
  if (pool == nullptr || helpers == 0 || n < 2) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  auto state = std::make_shared<ForState>();
  state->n = n;
  state->fn = &fn;
  for (size_t h = 0; h < helpers && h + 1 < n; ++h) {
    pool->Submit([state] {
      {
        std::lock_guard<std::mutex> lock(state->mu);
        if (state->closed || state->next.load() >= state->n) return;
        ++state->active;
      }
      state->Drain();
      std::lock_guard<std::mutex> lock(state->mu);
      if (--state->active == 0) state->cv.notify_all();
    });
  }
  state->Drain();
  std::unique_lock<std::mutex> lock(state->mu);
  state->closed = true;
  state->cv.wait(lock, [&] { return state->active == 0; });
}

}  // namespace lakedump::parquet
