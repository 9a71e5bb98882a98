// PostgresTableSink: one data file's rows into one table (its staging table)
// over one pooled connection: BEGIN; COPY ... FROM STDIN (FORMAT binary);
// COMMIT in Finish(). The encoded stream is buffered to about
// `buffer_bytes` and handed to libpq with PQputCopyData. Destroyed without
// Finish(): the COPY is cancelled and the transaction rolled back.
//
// Ownership: owns its connection while alive and gives it back to the pool
// (borrowed; must outlive the sink). Used by one thread at a time.
#pragma once

#include <memory>
#include <vector>
#include <string>

#include "load/postgres/pg_copy_encoder.h"
#include "load/target_database.h"
#include "source/postgres/pg_connection_pool.h"

namespace lakedump {

class PostgresTableSink final : public TableSink {
 public:
  // Starts the transaction (`begin`: "BEGIN" and maybe more, one statement each) and the COPY
  // (`copy_sql`) on `conn`. Batches must match `schema` (the dump's), whose
  // columns `encoder` encodes.
  static Result<std::unique_ptr<PostgresTableSink>> Start(PgConnectionPool* pool,
                                                          std::unique_ptr<PgConn> conn,
                                                          const std::vector<std::string>& begin,
                                                          const std::string& copy_sql,
                                                          PgCopyEncoder encoder,
                                                          size_t buffer_bytes, Schema schema);
  ~PostgresTableSink() override;

  Status Append(const RowBatch& batch) override;
  Result<uint64_t> Finish() override;

 private:
  PostgresTableSink(PgConnectionPool* pool, std::unique_ptr<PgConn> conn, PgCopyEncoder encoder,
                    size_t buffer_bytes, Schema schema);
  Status Flush();
  Status Fail(Status s);  // aborts the COPY, keeps the first error
  void Abort();

  PgConnectionPool* pool_;
  std::unique_ptr<PgConn> conn_;
  PgCopyEncoder encoder_;
  size_t buffer_bytes_;
  Schema schema_;  // what every batch must match
  std::string buffer_;
  bool in_copy_ = false;
  bool done_ = false;
  Status failed_;
};

}  // namespace lakedump
