// MemoryBudget: a global cap on bytes held in flight (part buffers, row groups
// being uploaded). Acquire() blocks the producer while the budget is full: this
// is the dump's backpressure. Thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <stop_token>

#include "base/status.h"

namespace lakedump {

class MemoryBudget {
 public:
  explicit MemoryBudget(uint64_t capacity) : capacity_(capacity) {}

  // Blocks until `bytes` fit (a request larger than the capacity is granted when
  // nothing else is held, so it can never deadlock). Returns Cancelled on stop.
  Status Acquire(uint64_t bytes, std::stop_token stop = {});
  void Release(uint64_t bytes);

  uint64_t capacity() const { return capacity_; }
  uint64_t in_use() const;
  uint64_t peak() const;

 private:
  const uint64_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable_any cv_;
  uint64_t in_use_ = 0;  // GUARDED_BY(mu_)
  uint64_t peak_ = 0;    // GUARDED_BY(mu_)
};

// Holds bytes of a budget; releases them when destroyed.
class BudgetLease {
 public:
  BudgetLease() = default;
  BudgetLease(MemoryBudget* budget, uint64_t bytes) : budget_(budget), bytes_(bytes) {}
  BudgetLease(BudgetLease&& o) noexcept : budget_(o.budget_), bytes_(o.bytes_) { o.budget_ = nullptr; }
  BudgetLease& operator=(BudgetLease&& o) noexcept {
    if (this != &o) {
      Reset();
      budget_ = o.budget_;
      bytes_ = o.bytes_;
      o.budget_ = nullptr;
    }
    return *this;
  }
  ~BudgetLease() { Reset(); }
  void Reset() {
    if (budget_ != nullptr) budget_->Release(bytes_);
    budget_ = nullptr;
  }

 private:
  MemoryBudget* budget_ = nullptr;
  uint64_t bytes_ = 0;
};

}  // namespace lakedump
