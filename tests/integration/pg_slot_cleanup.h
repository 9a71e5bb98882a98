// Drops the replication slots of a test database when a test ends (before the database goes:
// a database with a slot cannot be dropped; a slot left behind holds WAL on the shared
// server). Header-only; for tests.
#pragma once

#include <chrono>
#include <string>
#include <thread>

#include "source/postgres/pg_conn.h"

namespace lakedump::testing_pg {

class SlotCleanup {
 public:
  SlotCleanup(PgConn* admin, std::string db) : admin_(admin), db_(std::move(db)) {}
  ~SlotCleanup() {
    for (int i = 0; i < 50; ++i) {
      auto r = admin_->Query(
          "SELECT count(pg_drop_replication_slot(slot_name)) FILTER (WHERE NOT active), "
          "count(*) FILTER (WHERE active) FROM pg_replication_slots WHERE database = $1",
          {db_});
      if (!r.ok() || PgValue(r->get(), 0, 1) == "0") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  SlotCleanup(const SlotCleanup&) = delete;
  SlotCleanup& operator=(const SlotCleanup&) = delete;

 private:
  PgConn* admin_;
  std::string db_;
};

}  // namespace lakedump::testing_pg
