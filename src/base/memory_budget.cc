#include "base/memory_budget.h"

#include <algorithm>

namespace lakedump {

Status MemoryBudget::Acquire(uint64_t bytes, std::stop_token stop) {
  std::unique_lock<std::mutex> lock(mu_);
  const bool fits = cv_.wait(lock, stop, [&] {
    return in_use_ == 0 || in_use_ + bytes <= capacity_;
  });
  if (!fits) return Status::Cancelled("cancelled while waiting for memory budget");
  in_use_ += bytes;
  peak_ = std::max(peak_, in_use_);
  return Status::OK();
}

void MemoryBudget::Release(uint64_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    in_use_ -= std::min(bytes, in_use_);
  }
  cv_.notify_all();
}

uint64_t MemoryBudget::in_use() const {
  std::lock_guard<std::mutex> lock(mu_);
  return in_use_;
}

uint64_t MemoryBudget::peak() const {
  std::lock_guard<std::mutex> lock(mu_);
  return peak_;
}

}  // namespace lakedump
