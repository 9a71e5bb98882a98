#include "store/s3/part_buffer_pool.h"

namespace lakedump {

PartBuffer PartBufferPool::Get(size_t capacity) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Smallest idle buffer that fits.
    size_t best = idle_.size();
    for (size_t i = 0; i < idle_.size(); ++i) {
      if (idle_[i].allocated >= capacity &&
          (best == idle_.size() || idle_[i].allocated < idle_[best].allocated)) {
        best = i;
      }
    }
    if (best != idle_.size()) {
      PartBuffer b = std::move(idle_[best]);
      idle_.erase(idle_.begin() + static_cast<std::ptrdiff_t>(best));
      idle_bytes_ -= b.allocated;
      b.size = 0;
      b.capacity = capacity;
      return b;
    }
  }
  PartBuffer b;
  b.data.reset(new char[capacity]);
  b.allocated = capacity;
  b.capacity = capacity;
  return b;
}

void PartBufferPool::Put(PartBuffer buffer) {
  if (!buffer.data) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (idle_bytes_ + buffer.allocated > max_idle_bytes_) return;  // freed
  idle_bytes_ += buffer.allocated;
  buffer.size = 0;
  idle_.push_back(std::move(buffer));
}

size_t PartBufferPool::idle_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return idle_bytes_;
}

}  // namespace lakedump
