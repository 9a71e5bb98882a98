// The SQLite TableSource: streams one table (or a rowid range of it, or a
// --query) as RowBatches, decoding each SQLite value by its storage class into
// the column's mapped type (see sqlite_types.h).
//
// A source borrows a SqliteConnection shared with other sources (see
// sqlite_connection.h); it holds the connection's mutex only inside Next() and
// its destructor, so sources on one connection may run on different threads.
// A single source is not thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "source/sqlite/sqlite_connection.h"
#include "source/table_source.h"

namespace lakedump {

// What the database knows about one table before reading it.
struct SqliteTablePlan {
  TableDefinition definition;
  std::string select_sql;  // SELECT "c1","c2"[,_rowid_] FROM "main"."t"
  std::string rowid_name;  // rowid / _rowid_ / oid, or empty (WITHOUT ROWID, views, queries)
};

// Reads a table's columns, DDL and primary key. With lax_types, columns whose
// declared type is not a known name become string. `known_ddl`, when given, is
// the table's CREATE statement already read from sqlite_schema (which has no
// index: looking one table up scans every entry, a cost per table that adds up
// over thousands of tables).
// REQUIRES: the connection's mutex is held.
Result<SqliteTablePlan> PlanSqliteTable(sqlite3* db, const TableRef& ref, bool lax_types,
                                        const std::string* known_ddl = nullptr);

// With lax types: which columns of `plan` hold at least one value that does not
// fit the column's type (those become string). Reads the whole table.
// REQUIRES: the connection's mutex is held.
Result<std::vector<bool>> FindMismatchedColumns(sqlite3* db, const SqliteTablePlan& plan);

// Which columns of a table (its plan's, with lax types' string columns in `schema`) keep their
// exact SQLite values in the values column (sqlite_values.h): one flag per column, or empty
// when the table gets no values column. Reads at most kExactValuesScanRows + 1 rows: none of
// them holds a value `load` would write back otherwise and that was all of them, no column;
// else the columns that could drift.
// REQUIRES: the connection's mutex is held.
Result<std::vector<uint8_t>> PlanExactValues(sqlite3* db, const SqliteTablePlan& plan,
                                             const Schema& schema, bool lax_types);

// Describes a --query: prepares it and derives its schema from declared types,
// or from the first row's storage classes for expressions.
// REQUIRES: the connection's mutex is held.
Result<TableDefinition> DescribeSqliteQuery(sqlite3* db, const TableInfo& query, bool lax_types);

class SqliteTableSource final : public TableSource {
 public:
  // Opens a source over `unit` (a table, a rowid range, or a query).
  // `as_string[i]` forces column i of a table to string (lax types; may be empty).
  // `exact`: PlanExactValues's answer for the table (empty: no values column).
  // `plan`: the table's plan when the caller has it (planned with the same
  // lax_types); null plans it on `conn`.
  static Result<std::unique_ptr<SqliteTableSource>> Open(std::shared_ptr<SqliteConnection> conn,
                                                         const WorkUnit& unit, bool lax_types,
                                                         const std::vector<bool>& as_string,
                                                         const std::vector<uint8_t>& exact,
                                                         const SqliteTablePlan* plan = nullptr);
  ~SqliteTableSource() override;

  const Schema& schema() const override { return schema_; }
  Status Next(size_t max_rows, RowBatch* batch) override;

 private:
  SqliteTableSource(std::shared_ptr<SqliteConnection> conn, std::string label)
      : conn_(std::move(conn)), label_(std::move(label)) {}
  Status DecodeRow(RowBatch* batch, uint64_t ordinal);

  std::shared_ptr<SqliteConnection> conn_;
  std::string label_;      // "main.orders" or "query NAME", for messages
  Schema schema_;
  SqliteStmt stmt_;        // finalized under conn_->mu
  bool has_rowid_ = false; // the last result column is the rowid (for messages)
  bool lax_ = false;
  size_t columns_ = 0;           // the table's own columns (the values column follows them)
  std::vector<uint8_t> drifts_;  // per column: its exact values are kept (empty: none are)
  std::string cell_;             // scratch: the row's exact values (sqlite_values.h)
  bool pending_row_ = false;  // queries: the first row was stepped by Open()
  bool done_ = false;
  uint64_t rows_read_ = 0;
  std::string why_;        // scratch for decode errors
};

}  // namespace lakedump
