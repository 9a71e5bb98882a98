#include "dump/batch_pump.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace lakedump {

Status PumpBatches(TableSource& source, size_t batch_rows, size_t depth, std::stop_token stop,
                   const std::function<Status(const RowBatch&)>& consume) {
  std::vector<std::unique_ptr<RowBatch>> batches;
  std::mutex mu;
  std::condition_variable cv;
  std::deque<RowBatch*> empty;  // guarded by mu
  std::deque<RowBatch*> full;   // guarded by mu
  bool reader_done = false;     // guarded by mu
  bool consumer_gone = false;   // guarded by mu
  Status reader_status;         // guarded by mu
  for (size_t i = 0; i < std::max<size_t>(depth, 2); ++i) {
    batches.push_back(std::make_unique<RowBatch>());
    empty.push_back(batches.back().get());
  }

  std::thread reader([&] {
    Status s;
    for (;;) {
      RowBatch* b;
      {
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return consumer_gone || !empty.empty(); });
        if (consumer_gone) break;
        b = empty.front();
        empty.pop_front();
      }
      if (stop.stop_requested()) {
        s = Status::Cancelled("cancelled");
        break;
      }
      s = source.Next(batch_rows, b);
      if (!s.ok() || b->empty()) break;
      {
        std::lock_guard lock(mu);
        full.push_back(b);
      }
      cv.notify_all();
    }
    {
      std::lock_guard lock(mu);
      reader_done = true;
      reader_status = std::move(s);
    }
    cv.notify_all();
  });

  Status result;
  for (;;) {
    RowBatch* b;
    {
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return !full.empty() || reader_done; });
      if (full.empty()) break;  // the reader is done and every batch consumed
      b = full.front();
      full.pop_front();
    }
    result = stop.stop_requested() ? Status::Cancelled("cancelled") : consume(*b);
    {
      std::lock_guard lock(mu);
      empty.push_back(b);
    }
    cv.notify_all();
    if (!result.ok()) break;
  }
  {
    std::lock_guard lock(mu);
    consumer_gone = true;
  }
  cv.notify_all();
  reader.join();
  if (!result.ok()) return result;
  return reader_status;  // the join orders the reader's writes before this read
}

}  // namespace lakedump
