// OpenTargetDatabase: the database `lakedump load` restores into, from a URL:
//   sqlite:///abs/path.db, sqlite:rel/path.db, or a plain path ending in
//   .sqlite, .sqlite3 or .db                  -> SQLite (created if missing)
//   postgres://, postgresql://, or a libpq keyword string (host=... dbname=...)
//                                             -> PostgreSQL
// Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "base/status.h"
#include "load/target_database.h"

namespace lakedump {

struct TargetOptions {
  // Connections a target may open (PostgreSQL: one per sink).
  int connections = 4;
  // How long SQLite waits for a lock held by another process.
  int busy_timeout_ms = 10000;
  // PostgreSQL: how long the swap of a loaded table waits for the lock on the existing one
  // (--lock-timeout); 0 = forever.
  int64_t lock_timeout_ms = 30000;
  // PostgreSQL: --disable-triggers (PostgresTargetOptions::disable_triggers).
  bool disable_triggers = false;
};

// InvalidArgument for a URL of no known kind.
Result<std::unique_ptr<TargetDatabase>> OpenTargetDatabase(std::string_view url,
                                                           const TargetOptions& options);

// True for the PostgreSQL forms above.
bool IsPostgresUrl(std::string_view url);

}  // namespace lakedump
