// Logical replication slots for incremental dumps (docs/incremental.md): their state, the
// changes they hold (read without consuming them), moving them forward, dropping them.
// Every function runs SQL on the caller's ordinary (non-replication) connection.
// Functions; thread-safety is the connection's (one thread at a time).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "source/postgres/pg_conn.h"

namespace lakedump {

struct PgSlotState {
  bool exists = false;
  bool active = false;        // a connection streams from it (or holds it)
  std::string plugin;         // "pgoutput"
  std::string database;       // the database it decodes
  uint64_t confirmed_flush = 0;
  uint64_t restart_lsn = 0;
  uint64_t retained_wal_bytes = 0;  // pg_current_wal_lsn() - restart_lsn
};

Result<PgSlotState> QueryPgSlot(PgConn& conn, const std::string& slot);
// pg_current_wal_insert_lsn(), once the WAL up to it is on disk (pg_current_wal_flush_lsn(),
// waited for up to 10 s, else the flushed position). Not pg_current_wal_lsn() (the *written*
// position): a transaction committed asynchronously (synchronous_commit = off) is visible
// before its commit record is written. And logical decoding reads only flushed WAL: a commit
// past the flush point would be neither decoded now nor, once the slot moved, later.
Result<uint64_t> PgCurrentWalLsn(PgConn& conn, Clock& clock = SystemClock());
// pg_replication_slot_advance(slot, lsn): the slot's changes before `lsn` are gone.
Status AdvancePgSlot(PgConn& conn, const std::string& slot, uint64_t lsn);
// Drops the slot once no connection holds it (waits up to `wait_seconds`); a slot that does
// not exist is fine.
Status DropPgSlot(PgConn& conn, const std::string& slot, int wait_seconds = 30,
                  Clock& clock = SystemClock());

// Calls fn(lsn, message) for each pgoutput message (binary tuples, protocol version 1) of
// the transactions the slot holds that committed before `upto`, in commit order, with
// pg_logical_slot_peek_binary_changes: the slot does not move. Rows arrive one at a time
// (single-row mode): memory does not grow with the number of changes. An error from fn
// stops the stream (the query is cancelled) and is returned.
Status PeekPgSlotChanges(PgConn& conn, const std::string& slot, const std::string& publication,
                         uint64_t upto,
                         const std::function<Status(uint64_t, std::string_view)>& fn);

}  // namespace lakedump
