// ParallelFor: runs fn(0..n-1) on the calling thread, helped by up to
// `helpers` pool threads that happen to be free, and returns once every call
// has returned. The caller always works too, so it never waits on a pool task
// that has not started (no deadlock when the pool is busy, or when the caller
// is a pool thread itself). A helper task that starts after the caller
// returned does nothing and touches nothing but its own shared state.
//
// Thread-safety: fn is called concurrently for different indices.
#pragma once

#include <cstddef>
#include <functional>

namespace lakedump {
class ThreadPool;
}

namespace lakedump::parquet {

void ParallelFor(ThreadPool* pool, size_t helpers, size_t n,
                 const std::function<void(size_t)>& fn);

}  // namespace lakedump::parquet
