// Runs archive entries (their SQL, on the load's own connections: pg_restore_script.h) on a
// fixed number of worker threads, each entry starting when PgEntryQueue lets it (its
// dependencies done, no lock conflict with an entry running), as pg_restore --jobs runs them.
// The first failure stops the starts: the entries running finish, nothing else starts, Wait()
// returns it.
//
// Thread-safe: Add, Wait and Stop from any thread. The destructor stops and joins the workers.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "base/status.h"
#include "load/postgres/pg_restore_schedule.h"

namespace lakedump {

class PgPostDataRunner {
 public:
  // Runs entry `entry` (an index into the entries) on worker `worker` (0..workers-1; one
  // worker runs one entry at a time, so that it may own a connection).
  using RunFn = std::function<Status(size_t worker, size_t entry)>;

  // REQUIRES: `entries` outlives the runner; workers >= 1.
  PgPostDataRunner(const std::vector<PgArchiveTocEntry>& entries, size_t workers, RunFn run);
  ~PgPostDataRunner();
  PgPostDataRunner(const PgPostDataRunner&) = delete;
  PgPostDataRunner& operator=(const PgPostDataRunner&) = delete;

  // Entries to run (each once); ignored after Stop() or a failure.
  void Add(const std::vector<size_t>& list);
  // Until every entry added ran (OK), one failed (its error, the first), or Stop() came first
  // (Cancelled).
  Status Wait();
  // No more starts; waits for the entries running. Idempotent.
  void Stop();

 private:
  void Work(size_t worker);

  const RunFn run_;
  std::mutex mu_;
  std::condition_variable changed_;
  PgEntryQueue queue_;   // guarded by mu_
  Status error_;         // guarded by mu_: the first failure
  bool stopping_ = false;  // guarded by mu_
  std::vector<std::thread> workers_;
};

}  // namespace lakedump
