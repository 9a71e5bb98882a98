#include "source/postgres/postgres_table_source.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>
#include <vector>

namespace lakedump {

Result<std::unique_ptr<TableSource>> PostgresTableSource::Start(PgConnectionPool* pool,
                                                                PgReadSpec spec) {
  LD_ASSIGN_OR_RETURN(std::unique_ptr<PgConn> conn, pool->Acquire());
  // With a snapshot, the connection's transaction stays open from table to table
  // (imported once per connection, like pg_dump's workers; the table locks it takes
  // stay until the end, as the coordinator's do). Everything a table needs goes in one
  // query string, one round trip: [BEGIN; SET TRANSACTION SNAPSHOT;] LOCK; COPY.
  // libpq runs the statements in order and returns at the COPY, or with the first error.
  const bool in_snapshot = !spec.snapshot_id.empty() &&
                           conn->open_snapshot() == spec.snapshot_id &&
                           PQtransactionStatus(conn->raw()) == PQTRANS_INTRANS;
  std::vector<std::string> statements;
  if (!in_snapshot) {
    if (PQtransactionStatus(conn->raw()) != PQTRANS_IDLE) {
      LD_RETURN_IF_ERROR(conn->Exec("ROLLBACK").WithContext("opening table " + spec.table_name));
    }
    conn->set_open_snapshot("");
    statements.push_back("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY");
    if (!spec.snapshot_id.empty()) {
      statements.push_back("SET TRANSACTION SNAPSHOT " + QuoteLiteral(spec.snapshot_id));
    }
  }
  if (spec.lock) {
    if (spec.lock_timeout_ms != 0) {
      // < 0: no limit (the connection's lock_timeout is 0).
      statements.push_back(
          fmt::format("SET LOCAL lock_timeout = {}", std::max(0, spec.lock_timeout_ms)));
      statements.push_back(fmt::format("LOCK TABLE {} IN ACCESS SHARE MODE", spec.qualified));
    } else {
      statements.push_back(
          fmt::format("LOCK TABLE {} IN ACCESS SHARE MODE NOWAIT", spec.qualified));
    }
  }
  statements.push_back(
      spec.copy_table
          ? fmt::format("COPY {} ({}) TO STDOUT (FORMAT binary)", spec.qualified,
                        spec.select_list)
          : fmt::format("COPY (SELECT {} FROM {}{}{}) TO STDOUT (FORMAT binary)",
                        spec.select_list, spec.qualified,
                        spec.range_predicate.empty() ? "" : " WHERE ", spec.range_predicate));
  const std::string sql = fmt::format("{}", fmt::join(statements, "; "));
  PgResult r(PQexec(conn->raw(), sql.c_str()));
  if (!r || PQresultStatus(r.get()) != PGRES_COPY_OUT) {
    Status err = r && PQresultStatus(r.get()) == PGRES_COMMAND_OK
                     ? Status::Internal("the server answered the COPY without its data")
                     : conn->ErrorStatus(r.get());
    r.reset();  // PQexec has already read every result when it stops short of a COPY
    if (!conn->broken()) conn->Exec("ROLLBACK").IgnoreError();
    conn->set_open_snapshot("");
    pool->Release(std::move(conn));
    if (err.message().find("could not obtain lock") != std::string::npos ||
        err.message().find("lock timeout") != std::string::npos) {
      return Status(err.code(), fmt::format("table {} is locked by another session ({}): {}",
                                            spec.table_name,
                                            spec.lock_timeout_ms != 0 ? "lock_timeout" : "NOWAIT",
                                            err.message()));
    }
    return err.WithContext(fmt::format("reading table {}", spec.table_name));
  }
  conn->set_open_snapshot(spec.snapshot_id);
  return std::unique_ptr<TableSource>(
      new PostgresTableSource(pool, std::move(conn), std::move(spec)));
}

PostgresTableSource::PostgresTableSource(PgConnectionPool* pool, std::unique_ptr<PgConn> conn,
                                         PgReadSpec spec)
    : pool_(pool),
      conn_(std::move(conn)),
      spec_(std::move(spec)),
      decoder_(spec_.fields, spec_.decode) {}

PostgresTableSource::~PostgresTableSource() {
  if (message_ != nullptr) PQfreemem(message_);
  // Mid-COPY the connection is not idle: Release() closes it, which ends the
  // server's transaction (a cancel and drain would cost more than a reconnect).
  if (conn_) pool_->Release(std::move(conn_));
}

Status PostgresTableSource::StreamError(Status s) const {
  return s.WithContext(fmt::format("reading table {}", spec_.table_name));
}

Status PostgresTableSource::Finish() {
  // After PQgetCopyData returned -1 the COPY's own result follows.
  PgResult r(PQgetResult(conn_->raw()));
  const bool ok = r && PQresultStatus(r.get()) == PGRES_COMMAND_OK;
  Status err = ok ? Status::OK() : conn_->ErrorStatus(r.get());
  r.reset();
  while (PGresult* extra = PQgetResult(conn_->raw())) PQclear(extra);
  if (!err.ok()) return StreamError(err);
  if (!decoder_.finished()) {
    return StreamError(Status::Corruption("COPY stream ended without its trailer"));
  }
  // A snapshot transaction stays open for the connection's next table.
  if (conn_->open_snapshot().empty()) LD_RETURN_IF_ERROR(StreamError(conn_->Exec("COMMIT")));
  pool_->Release(std::move(conn_));
  done_ = true;
  return Status::OK();
}

Status PostgresTableSource::Next(size_t max_rows, RowBatch* batch) {
  bool same_shape = batch->num_columns() == spec_.schema.num_columns();
  for (size_t i = 0; same_shape && i < batch->num_columns(); ++i) {
    same_shape = batch->column(i).type() == spec_.schema.column(i).type &&
                 batch->column(i).nullable() == spec_.schema.column(i).nullable;
  }
  if (same_shape) {
    batch->Clear();
  } else {
    batch->Reset(spec_.schema);
  }
  if (failed_) return StreamError(Status::Internal("Next() after an error"));
  while (!done_ && batch->num_rows() < max_rows) {
    if (decoder_.needs_input()) {
      if (message_ != nullptr) {
        PQfreemem(message_);
        message_ = nullptr;
      }
      const int n = PQgetCopyData(conn_->raw(), &message_, /*async=*/0);
      if (n > 0) {
        decoder_.Feed(std::string_view(message_, static_cast<size_t>(n)));
      } else if (n == -1) {
        Status s = Finish();
        if (!s.ok()) failed_ = true;
        return s;
      } else {
        failed_ = true;
        return StreamError(conn_->ErrorStatus(nullptr));
      }
    }
    if (decoder_.finished()) {
      if (!decoder_.needs_input()) {
        failed_ = true;
        return StreamError(Status::Corruption("bytes after the COPY trailer"));
      }
      continue;  // the next PQgetCopyData returns -1
    }
    Status s = decoder_.Decode(batch, max_rows);
    if (!s.ok()) {
      failed_ = true;
      return s;
    }
  }
  return Status::OK();
}

}  // namespace lakedump
