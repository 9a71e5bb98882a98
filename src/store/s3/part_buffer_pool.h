// PartBufferPool: reusable part buffers for multipart uploads. First touch of
// fresh memory is slow on the machines we run on (~300 MB/s), so buffers are
// recycled instead of allocated per part. Buffers are uninitialised memory.
// Thread-safe.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

namespace lakedump {

struct PartBuffer {
  std::unique_ptr<char[]> data;
  size_t allocated = 0;  // bytes behind data
  size_t capacity = 0;   // usable bytes (<= allocated)
  size_t size = 0;

  std::string_view view() const { return {data.get(), size}; }
  size_t room() const { return capacity - size; }
};

class PartBufferPool {
 public:
  // Keeps at most max_idle_bytes of idle buffers.
  explicit PartBufferPool(size_t max_idle_bytes) : max_idle_bytes_(max_idle_bytes) {}

  // A buffer of exactly `capacity` usable bytes (reused when one of at least
  // that size is idle), size 0.
  PartBuffer Get(size_t capacity);
  void Put(PartBuffer buffer);

  size_t idle_bytes() const;

 private:
  const size_t max_idle_bytes_;
  mutable std::mutex mu_;
  std::vector<PartBuffer> idle_;  // GUARDED_BY(mu_)
  size_t idle_bytes_ = 0;         // GUARDED_BY(mu_)
};

}  // namespace lakedump
