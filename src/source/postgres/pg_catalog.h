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
  char relkind = 'r';  // 'r' table, 'p' partitioned (read through the parent), 'm' matview
  TableDefinition definition;
  std::vector<PgFieldSpec> fields;
  std::string select_list;
  std::vector<std::string> text_fallback_columns;  // read through ::text
};

class PgCatalog {
 public:
  // Ordinary and partitioned tables (not their partitions), materialized views
  // when asked; not pg_catalog, information_schema, TOAST or temp schemas.
  // Estimates come from pg_class (relpages, reltuples; partitions summed).
  static Result<std::vector<TableInfo>> ListTables(PgConn& conn, bool materialized_views);

  // Columns, types, keys and DDL of one table.
  Result<PgTablePlan> Describe(PgConn& conn, const TableRef& ref, const PgTypeOptions& options);

 private:
  struct TypeRow {
    std::string name;
    char typtype = 'b';
    char category = 'U';
    uint32_t basetype = 0;
    int32_t typmod = -1;
  };
  Status LoadTypes(PgConn& conn);
  std::unordered_map<uint32_t, TypeRow> types_;
};

// A default expression kept in the DDL: literals, casts of literals and a few
// clock/uuid functions. Sequences (nextval) and user functions are left out.
bool IsSimpleDefault(const std::string& expr);

}  // namespace lakedump
