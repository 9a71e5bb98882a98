// PgConnectionPool: at most `max` worker connections to one server, opened on
// demand and reused across tables. Acquire() blocks while all `max` are
// leased. A connection comes back through Release(): kept when it is idle (no
// transaction, no COPY in progress) or idle inside the snapshot transaction it
// names in open_snapshot(); closed otherwise.
//
// Thread-safe. REQUIRES: every leased connection is released before the pool
// is destroyed (the destructor closes the idle ones).
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "source/postgres/pg_conn.h"

namespace lakedump {

class PgConnectionPool {
 public:
  PgConnectionPool(std::string conninfo, int max_connections, int connect_timeout_s);
  ~PgConnectionPool();
  PgConnectionPool(const PgConnectionPool&) = delete;
  PgConnectionPool& operator=(const PgConnectionPool&) = delete;

  Result<std::unique_ptr<PgConn>> Acquire();
  // An idle connection, or nullptr when none is idle (never opens one, never waits).
  std::unique_ptr<PgConn> TryAcquireIdle();
  void Release(std::unique_ptr<PgConn> conn);

  int max_connections() const { return max_; }
  // Connections opened so far (reuse shows as opened() < sources opened).
  int opened() const;

 private:
  const std::string conninfo_;
  const int max_;
  const int connect_timeout_s_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<PgConn>> idle_;  // guarded by mu_
  int live_ = 0;                               // leased + idle + connecting; guarded by mu_
  int opened_ = 0;                             // guarded by mu_
};

}  // namespace lakedump
