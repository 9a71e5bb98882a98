#include "source/postgres/pg_slot.h"

#include <fmt/format.h>

#include <chrono>

#include "source/postgres/pgoutput.h"

namespace lakedump {

Result<PgSlotState> QueryPgSlot(PgConn& conn, const std::string& slot) {
  LD_ASSIGN_OR_RETURN(
      PgResult r,
      conn.Query("SELECT s.active, s.plugin::text, s.database::text, "
                 "coalesce(s.confirmed_flush_lsn, '0/0')::text, coalesce(s.restart_lsn, '0/0')::text, "
                 "coalesce(pg_catalog.pg_wal_lsn_diff(pg_catalog.pg_current_wal_lsn(), "
                 "s.restart_lsn), 0)::int8::text "
                 "FROM pg_catalog.pg_replication_slots s WHERE s.slot_name = $1",
                 {slot}));
  PgSlotState st;
  if (PQntuples(r.get()) == 0) return st;
  st.exists = true;
  st.active = PgValue(r.get(), 0, 0) == "t";
  st.plugin = std::string(PgValue(r.get(), 0, 1));
  st.database = std::string(PgValue(r.get(), 0, 2));
  LD_ASSIGN_OR_RETURN(st.confirmed_flush, ParseLsn(PgValue(r.get(), 0, 3)));
  LD_ASSIGN_OR_RETURN(st.restart_lsn, ParseLsn(PgValue(r.get(), 0, 4)));
  st.retained_wal_bytes = std::stoull(std::string(PgValue(r.get(), 0, 5)));
  return st;
}

Result<uint64_t> PgCurrentWalLsn(PgConn& conn, Clock& clock) {
  LD_ASSIGN_OR_RETURN(PgResult w, conn.Query("SELECT pg_catalog.pg_current_wal_insert_lsn()::text"));
  LD_ASSIGN_OR_RETURN(const uint64_t written, ParseLsn(PgValue(w.get(), 0, 0)));
  // Asynchronous commits reach the disk within a few wal_writer_delay: wait for them.
  const auto deadline = clock.Now() + std::chrono::seconds(10);
  for (;;) {
    LD_ASSIGN_OR_RETURN(PgResult f, conn.Query("SELECT pg_catalog.pg_current_wal_flush_lsn()::text"));
    LD_ASSIGN_OR_RETURN(const uint64_t flushed, ParseLsn(PgValue(f.get(), 0, 0)));
    if (flushed >= written) return written;
    if (clock.Now() > deadline) return flushed;
    clock.SleepFor(std::chrono::milliseconds(20), {});
  }
}

Status AdvancePgSlot(PgConn& conn, const std::string& slot, uint64_t lsn) {
  return conn.ExecOne("SELECT pg_catalog.pg_replication_slot_advance($1, $2::pg_lsn)",
                      {slot, FormatLsn(lsn)});
}

Status DropPgSlot(PgConn& conn, const std::string& slot, int wait_seconds, Clock& clock) {
  const auto deadline = clock.Now() + std::chrono::seconds(wait_seconds);
  for (;;) {
    LD_ASSIGN_OR_RETURN(PgSlotState st, QueryPgSlot(conn, slot));
    if (!st.exists) return Status::OK();
    if (!st.active) {
      Status s = conn.ExecOne("SELECT pg_catalog.pg_drop_replication_slot($1)", {slot});
      if (s.ok()) return s;
      // Taken by a connection meanwhile, or dropped by another session: look again.
    }
    if (clock.Now() > deadline) {
      return Status::Unavailable(fmt::format(
          "replication slot {} is still in use after {} s; drop it with SELECT "
          "pg_drop_replication_slot('{}') once its connection is gone",
          slot, wait_seconds, slot));
    }
    clock.SleepFor(std::chrono::milliseconds(200), {});
  }
}

Status PeekPgSlotChanges(PgConn& conn, const std::string& slot, const std::string& publication,
                         uint64_t upto,
                         const std::function<Status(uint64_t, std::string_view)>& fn) {
  const std::string sql =
      "SELECT lsn, data FROM pg_catalog.pg_logical_slot_peek_binary_changes($1, $2::pg_lsn, "
      "NULL, 'proto_version', '1', 'publication_names', $3, 'binary', 'true')";
  const std::string upto_text = FormatLsn(upto);
  // The publication list is parsed as identifiers by the server: quote ours.
  const std::string pubs = QuoteIdent(publication);
  const char* values[3] = {slot.c_str(), upto_text.c_str(), pubs.c_str()};
  PGconn* c = conn.raw();
  // Binary results: lsn as 8 bytes, data as its raw bytes (no hex to decode).
  if (!PQsendQueryParams(c, sql.c_str(), 3, nullptr, values, nullptr, nullptr, 1)) {
    return conn.ErrorStatus(nullptr).WithContext("reading the replication slot's changes");
  }
  if (!PQsetSingleRowMode(c)) {
    return Status::Internal("libpq refused single-row mode");
  }
  Status failed;
  for (;;) {
    PgResult r(PQgetResult(c));
    if (!r) break;
    const ExecStatusType st = PQresultStatus(r.get());
    if (st == PGRES_SINGLE_TUPLE) {
      if (!failed.ok()) continue;  // draining after a cancel
      if (PQgetlength(r.get(), 0, 0) != 8) {
        failed = Status::Corruption("pg_logical_slot_peek_binary_changes: bad lsn");
      } else {
        uint64_t lsn = 0;
        const auto* p = reinterpret_cast<const uint8_t*>(PQgetvalue(r.get(), 0, 0));
        for (int i = 0; i < 8; ++i) lsn = (lsn << 8) | p[i];
        failed = fn(lsn, std::string_view(PQgetvalue(r.get(), 0, 1), PQgetlength(r.get(), 0, 1)));
      }
      if (!failed.ok()) {
        // Stop the server's work; the rest of the results are drained above.
        if (PGcancel* cancel = PQgetCancel(c)) {
          char err[256];
          PQcancel(cancel, err, sizeof err);
          PQfreeCancel(cancel);
        }
      }
      continue;
    }
    if (st == PGRES_TUPLES_OK) continue;  // the end of the rows
    if (failed.ok()) failed = conn.ErrorStatus(r.get()).WithContext(
        fmt::format("reading the changes of replication slot {}", slot));
  }
  return failed;
}

}  // namespace lakedump
