// Catalog queries of the PostgreSQL source: the dumpable tables with size
// estimates, and one table's columns, keys and CREATE TABLE text. All run on
// the caller's connection (the coordinator, inside the snapshot) and never
// take relation locks, so they cannot queue behind another session's lock.
// Functions; a PgCatalog instance caches pg_type and is not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "source/postgres/pg_conn.h"
#include "source/postgres/pg_type_map.h"
#include "source/table_source.h"

namespace lakedump {

struct PgTablePlan {
  TableRef ref;
  uint32_t oid = 0;
  char relkind = 'r';  // 'r' table, 'p' partitioned (read through the parent), 'm' matview,
                       // 'q' a --query result (nothing to lock, never split)
  std::string query;   // relkind 'q': the query's SQL, trailing semicolons removed
  TableDefinition definition;
  std::vector<PgFieldSpec> fields;
  std::string select_list;
  bool plain_select_list = true;  // select_list is the columns' names only (no casts)
  std::vector<std::string> text_fallback_columns;  // read through ::text
  std::vector<std::string> select_exprs;  // per column: its part of select_list
  // Array columns read as their text because a value has several dimensions or other
  // bounds (PgColumnInfo::array_as_text): their form in a dump depends on the values.
  std::vector<std::string> shape_text_columns;
  int64_t relation_bytes = -1;  // pg_relation_size once locked (plain tables); -1 unknown
  std::string relfilenode;      // pg_class.relfilenode as read by Describe*/DescribeMany
};

class PgCatalog {
 public:
  // Ordinary and partitioned tables (not their partitions), materialized views
  // when asked; not pg_catalog, information_schema, TOAST or temp schemas.
  // Estimates come from pg_class (relpages, reltuples; partitions summed).
  static Result<std::vector<TableInfo>> ListTables(PgConn& conn, bool materialized_views);

  // Columns, types, keys and DDL of one table.
  Result<PgTablePlan> Describe(PgConn& conn, const TableRef& ref, const PgTypeOptions& options);
  // The same for many tables in a constant number of round trips; plans in the
  // order of `refs`. NotFound names the first table that does not exist.
  Result<std::vector<PgTablePlan>> DescribeMany(PgConn& conn, const std::vector<TableRef>& refs,
                                                const PgTypeOptions& options);

  // Columns of a query's result (prepared and described, never run), under the
  // name `ref`. The DDL declares each column with its result type, nullable.
  // A query that does not parse, or whose columns share a name, is
  // InvalidArgument naming `ref`. Runs inside a savepoint, so a failure leaves
  // the caller's transaction usable.
  Result<PgTablePlan> DescribeQuery(PgConn& conn, const TableRef& ref, std::string_view sql,
                                    const PgTypeOptions& options);

 private:
  struct TypeRow {
    std::string name;
    char typtype = 'b';
    char category = 'U';
    uint32_t basetype = 0;
    int32_t typmod = -1;
    uint32_t elem = 0;  // arrays: the element type
  };
  Status LoadTypes(PgConn& conn);
  // Fills info.base_* (and for arrays info.element_*) from a declared type, resolving domains
  // to their base type.
  Status ResolveType(PgConn& conn, uint32_t type_oid, int32_t typmod, std::string_view what,
                     PgColumnInfo* info);
  // Sets array_as_text on the array columns of `infos` holding a value of several dimensions
  // or with a lower bound other than 1 (one query over the table, or the --query's result),
  // or as `options` knows them for the table.
  static Status CheckArrayShapes(PgConn& conn, const PgTablePlan& plan,
                                 const PgTypeOptions& options, std::vector<PgColumnInfo>* infos);
  std::unordered_map<uint32_t, TypeRow> types_;
};

// A default expression kept in the DDL: literals, casts of literals and a few
// clock/uuid functions. Sequences (nextval) and user functions are left out.
bool IsSimpleDefault(const std::string& expr);

}  // namespace lakedump
