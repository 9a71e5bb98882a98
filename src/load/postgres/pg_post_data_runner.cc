#include "load/postgres/pg_post_data_runner.h"

#include <utility>

namespace lakedump {

PgPostDataRunner::PgPostDataRunner(const std::vector<PgArchiveTocEntry>& entries,
                                   size_t workers, RunFn run)
    : run_(std::move(run)), queue_(entries) {
  for (size_t w = 0; w < workers; ++w) workers_.emplace_back([this, w] { Work(w); });
}

PgPostDataRunner::~PgPostDataRunner() { Stop(); }

void PgPostDataRunner::Add(const std::vector<size_t>& list) {
  if (list.empty()) return;
  {
    std::lock_guard lock(mu_);
    if (stopping_ || !error_.ok()) return;
    queue_.Add(list);
  }
  changed_.notify_all();
}

Status PgPostDataRunner::Wait() {
  std::unique_lock lock(mu_);
  changed_.wait(lock, [this] { return !error_.ok() || stopping_ || queue_.idle(); });
  if (error_.ok() && !queue_.idle()) {
    return Status::Cancelled("the restore of the dump's post-data entries was stopped");
  }
  return error_;
}

void PgPostDataRunner::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : workers_) {
    if (t.joinable()) t.join();
  }
}

void PgPostDataRunner::Work(size_t worker) {
  std::unique_lock lock(mu_);
  for (;;) {
    std::optional<size_t> next;
    changed_.wait(lock, [&] {
      if (stopping_ || !error_.ok()) return true;
      next = queue_.Start();
      return next.has_value();
    });
    if (!next) return;  // stopping, or a failure
    lock.unlock();
    Status s = run_(worker, *next);
    lock.lock();
    queue_.Finish(*next);
    if (!s.ok() && error_.ok()) error_ = std::move(s);
    changed_.notify_all();
  }
}

}  // namespace lakedump
