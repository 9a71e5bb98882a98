// The order in which a sharded dump's worker runs its units (ExportWorkerUnits, unit_exporter.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>

#include "source/table_source.h"

namespace lakedump {

// A sharded dump's worker bounds its own units by its link (one machine's network), not its
// cores: one large unit (a range of a big table, its parts uploaded several at once) fills the
// link alone, and a second beside it only shares it, while small tables are bound by round
// trips and hardly use it. So while small units remain, a worker runs one large unit at a time
// and its other threads take the small ones; once they are done, every thread takes large ones.
// A unit is large from kLargeUnitBytes of estimated table bytes per unit. Each kind runs in
// the order added.
// Thread-safety: Add() and size() from one thread before the first Next(); Next() and Done()
// are thread-safe. Borrows the states and units added (they must outlive it).
template <typename State>
class WorkerUnitQueue {
 public:
  static constexpr uint64_t kLargeUnitBytes = 32ull << 20;
  struct Item {
    State* state = nullptr;
    const WorkUnit* unit = nullptr;
    bool large = false;
  };

  void Add(State* state, const WorkUnit& unit) {
    const uint64_t per_unit =
        unit.table.estimated_bytes / static_cast<uint64_t>(std::max(1, unit.count));
    Item item{state, &unit, per_unit >= kLargeUnitBytes};
    (item.large ? large_ : small_).push_back(item);
  }
  size_t size() const { return large_.size() + small_.size(); }

  // The unit to run next (nullopt: none left); Done() when it has run.
  std::optional<Item> Next() {
    std::lock_guard<std::mutex> lock(mu_);
    std::deque<Item>* from = nullptr;
    if (!large_.empty() && (large_running_ == 0 || small_.empty())) {
      from = &large_;
    } else if (!small_.empty()) {
      from = &small_;
    } else {
      return std::nullopt;
    }
    Item item = from->front();
    from->pop_front();
    if (item.large) ++large_running_;
    return item;
  }
  void Done(const Item& item) {
    std::lock_guard<std::mutex> lock(mu_);
    if (item.large) --large_running_;
  }

 private:
  std::mutex mu_;
  std::deque<Item> large_;  // GUARDED_BY(mu_) once Next() is called
  std::deque<Item> small_;  // GUARDED_BY(mu_) once Next() is called
  int large_running_ = 0;   // GUARDED_BY(mu_)
};

}  // namespace lakedump
