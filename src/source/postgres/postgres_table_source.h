// PostgresTableSource: streams one work unit (a table or a ctid range of it)
// from `COPY (SELECT ...) TO STDOUT (FORMAT binary)` on a pooled worker
// connection, inside a REPEATABLE READ, READ ONLY transaction that imported the
// dump's snapshot and holds an ACCESS SHARE lock (NOWAIT) on the table.
//
// Owns its leased connection and returns it to the pool at the end of the data
// (after COMMIT), or closes it when destroyed mid-stream.
// Not thread-safe. REQUIRES: the pool outlives the source.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "source/postgres/pg_connection_pool.h"
#include "source/postgres/pg_copy_decoder.h"
#include "source/table_source.h"

namespace lakedump {

struct PgReadSpec {
  std::string table_name;        // "schema.table", for messages
  std::string qualified;         // "schema"."table"
  std::string select_list;       // the COPY's SELECT expressions
  std::string range_predicate;   // WHERE clause body, or empty
  // `COPY qualified (select_list) TO` instead of `COPY (SELECT ...) TO`: a plain table
  // read whole whose select_list names columns only (the server plans no query: about
  // half its per-table cost for small tables).
  bool copy_table = false;
  std::string snapshot_id;       // empty: no shared snapshot
  bool lock = true;              // LOCK TABLE ... NOWAIT (not for materialized views)
  int lock_timeout_ms = 0;       // 0: NOWAIT; > 0: wait up to this long; < 0: no limit
  Schema schema;
  std::vector<PgFieldSpec> fields;
  PgDecodeOptions decode;
};

class PostgresTableSource final : public TableSource {
 public:
  // Leases a connection, opens the transaction, locks and starts the COPY.
  static Result<std::unique_ptr<TableSource>> Start(PgConnectionPool* pool, PgReadSpec spec);
  ~PostgresTableSource() override;

  const Schema& schema() const override { return spec_.schema; }
  Status Next(size_t max_rows, RowBatch* batch) override;

 private:
  PostgresTableSource(PgConnectionPool* pool, std::unique_ptr<PgConn> conn, PgReadSpec spec);
  Status Finish();   // end of COPY: check the result, COMMIT, return the connection
  Status StreamError(Status s) const;

  PgConnectionPool* pool_;
  std::unique_ptr<PgConn> conn_;
  PgReadSpec spec_;
  PgCopyDecoder decoder_;
  char* message_ = nullptr;  // current CopyData message (libpq-allocated)
  bool done_ = false;
  bool failed_ = false;
};

}  // namespace lakedump
