#include "load/postgres/postgres_table_sink.h"

#include <fmt/format.h>

namespace lakedump {

Result<std::unique_ptr<PostgresTableSink>> PostgresTableSink::Start(
    PgConnectionPool* pool, std::unique_ptr<PgConn> conn, const std::vector<std::string>& begin,
    const std::string& copy_sql, PgCopyEncoder encoder, size_t buffer_bytes, Schema schema) {
  std::unique_ptr<PostgresTableSink> sink(new PostgresTableSink(
      pool, std::move(conn), std::move(encoder), buffer_bytes, std::move(schema)));
  PgConn& c = *sink->conn_;
  for (const std::string& sql : begin) {
    LD_RETURN_IF_ERROR(c.ExecOne(sql).WithContext("table " + sink->encoder_.table()));
  }
  // PQexecParams: one statement, like everything built with the dump's names.
  PgResult r(PQexecParams(c.raw(), copy_sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0));
  if (!r || PQresultStatus(r.get()) != PGRES_COPY_IN) {
    return c.ErrorStatus(r.get()).WithContext("table " + sink->encoder_.table());
  }
  sink->in_copy_ = true;
  sink->encoder_.Begin(&sink->buffer_);
  return sink;
}

PostgresTableSink::PostgresTableSink(PgConnectionPool* pool, std::unique_ptr<PgConn> conn,
                                     PgCopyEncoder encoder, size_t buffer_bytes, Schema schema)
    : pool_(pool),
      conn_(std::move(conn)),
      encoder_(std::move(encoder)),
      buffer_bytes_(buffer_bytes < 4096 ? 4096 : buffer_bytes),
      schema_(std::move(schema)) {
  buffer_.reserve(buffer_bytes_ + 64 * 1024);
}

PostgresTableSink::~PostgresTableSink() {
  if (!done_) Abort();
  if (conn_) pool_->Release(std::move(conn_));
}

void PostgresTableSink::Abort() {
  done_ = true;
  if (!conn_ || conn_->broken()) return;
  if (in_copy_) {
    in_copy_ = false;
    // Cancels the COPY: the server answers with an error for it.
    PQputCopyEnd(conn_->raw(), "lakedump: load of this file aborted");
    while (PgResult r{PQgetResult(conn_->raw())}) {
    }
  }
  if (PQtransactionStatus(conn_->raw()) != PQTRANS_IDLE) {
    conn_->Exec("ROLLBACK").IgnoreError();
  }
}

Status PostgresTableSink::Fail(Status s) {
  if (failed_.ok()) failed_ = s;
  Abort();
  return s;
}

Status PostgresTableSink::Flush() {
  if (buffer_.empty()) return Status::OK();
  if (PQputCopyData(conn_->raw(), buffer_.data(), static_cast<int>(buffer_.size())) != 1) {
    return conn_->ErrorStatus(nullptr);
  }
  buffer_.clear();
  return Status::OK();
}

Status PostgresTableSink::Append(const RowBatch& batch) {
  if (done_) {
    return failed_.ok() ? Status::Internal("TableSink::Append after Finish") : failed_;
  }
  Status valid = batch.Validate(schema_);
  if (!valid.ok()) return Fail(valid.WithContext("table " + encoder_.table()));
  size_t row = 0;
  while (row < batch.num_rows()) {
    Status s = encoder_.Encode(batch, &row, &buffer_, buffer_bytes_);
    if (!s.ok()) return Fail(s);
    if (buffer_.size() >= buffer_bytes_) {
      s = Flush();
      if (!s.ok()) return Fail(s);
    }
  }
  return Status::OK();
}

Result<uint64_t> PostgresTableSink::Finish() {
  if (done_) {
    return failed_.ok() ? Status::Internal("TableSink::Finish called twice") : failed_;
  }
  encoder_.End(&buffer_);
  Status s = Flush();
  if (!s.ok()) return Fail(s);
  in_copy_ = false;
  if (PQputCopyEnd(conn_->raw(), nullptr) != 1) return Fail(conn_->ErrorStatus(nullptr));
  uint64_t copied = 0;
  Status copy_status;
  while (PgResult r{PQgetResult(conn_->raw())}) {
    if (PQresultStatus(r.get()) == PGRES_COMMAND_OK) {
      copied = std::strtoull(PQcmdTuples(r.get()), nullptr, 10);
    } else if (copy_status.ok()) {
      copy_status = conn_->ErrorStatus(r.get());
    }
  }
  if (!copy_status.ok()) return Fail(copy_status.WithContext("table " + encoder_.table()));
  s = conn_->Exec("COMMIT");
  if (!s.ok()) return Fail(s);
  done_ = true;
  if (copied != encoder_.rows()) {
    return Status::Internal(fmt::format("COPY reported {} rows, {} were sent", copied,
                                        encoder_.rows()));
  }
  pool_->Release(std::move(conn_));
  return copied;
}

}  // namespace lakedump
