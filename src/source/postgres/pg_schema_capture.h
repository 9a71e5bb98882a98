// The PostgreSQL schema of a dump (docs/dump-format.md, "Schema"), captured at
// the dump's exported snapshot:
//   QueryPgSchemaFacts  on a session of its own that imported the snapshot (not
//                       the coordinator, which planning and the table workers
//                       need meanwhile): every sequence's last_value/is_called, the
//                       indexes of the selected tables (with their columns when
//                       they are on plain columns), the foreign keys with the
//                       tables they reference, and the relations to leave out of
//                       the archive (tables not selected, their partitions, and
//                       the views and materialized views that read any of them);
//   RunPgDumpSchema     pg_dump --schema-only --format=custom --snapshot=ID as a
//                       child process (password in its environment); its table of
//                       contents is read from the archive in process (pg_archive_toc.h).
// Stateless functions; the connection is used by the calling thread only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "source/postgres/pg_conn.h"
#include "source/postgres/pg_tools.h"
#include "source/table_source.h"

namespace lakedump {

struct PgSchemaFacts {
  nlohmann::json sequences = nlohmann::json::array();  // [{schema, name, last_value, is_called}]
  nlohmann::json indexes = nlohmann::json::array();    // [{schema, table, name, unique, primary,
                                                       //   constraint, columns}]
  nlohmann::json partitions = nlohmann::json::array(); // [{schema, name, parent_schema, parent}]
  nlohmann::json fks = nlohmann::json::array();        // [{schema, table, name, ref_schema,
                                                       //   ref_table}]
  // Views, materialized views and functions that need user tables (a view reading them,
  // a SQL-standard function body using them), by the catalog and object OIDs that
  // `pg_restore --list` shows: [{catalog, oid, tables: [{schema, name}]}].
  nlohmann::json dependents = nlohmann::json::array();
  // Functions and procedures with a body in quotes (no pg_depend), with the user tables whose
  // name their body mentions: [{catalog: 1255, oid, tables: [{schema, name}]}].
  nlohmann::json mentions = nlohmann::json::array();
  // Materialized views not populated (relispopulated false: WITH NO DATA): [{schema, name}].
  nlohmann::json unpopulated_matviews = nlohmann::json::array();
  std::vector<TableRef> excluded;  // for pg_dump --exclude-table (tables, partitions, views)
  // A schema none of whose tables is selected is left out with its other objects (views,
  // functions, types): pg_dump --schema for the others; empty = every schema.
  std::vector<std::string> schemas;
  // With `schemas` set: the extensions installed in them (pg_dump --extension for each).
  std::vector<std::string> extensions;
};

// REQUIRES: `conn` is inside a transaction on the dump's snapshot. With
// selected.every_table nothing is left out (`excluded` and `schemas` stay empty, and
// the queries that compute them are not run). `schemas` keeps, beside the schemas of the
// selected tables and those without tables, every schema holding something a selected
// table needs (a function its default or check calls, its column's type, a sequence...).
// Without `for_archive` (--schema-from lakedump) only `indexes` and `partitions` are read:
// the rest serves the archive's pg_dump and its restore only.
Result<PgSchemaFacts> QueryPgSchemaFacts(PgConn& conn, const SchemaSelection& selected,
                                         bool for_archive);

struct PgDumpRequest {
  std::string snapshot_id;
  int server_major = 0;
  std::string tool_dir;  // --pg-bin-dir; empty = search
  PgChildConnection connection;
  std::vector<TableRef> excluded;
  std::vector<std::string> schemas;  // pg_dump --schema for each; empty = every schema
  std::vector<std::string> extensions;  // pg_dump --extension for each (with `schemas` only)
  // pg_dump --lock-wait-timeout, as PostgresOptions::lock_timeout_ms (0: 1 ms; < 0: none).
  int lock_timeout_ms = -1;
};

// Fills capture->archive and capture->info ("archive" without key/checksum,
// which the dump adds when it stores it, and "objects"). Errors: no suitable
// pg_dump (NotFound, one line saying what to do), pg_dump failing (IOError with
// its first error line).
Status RunPgDumpSchema(const PgDumpRequest& request, SchemaCapture* capture);

// One entry of `pg_restore --list`: "218; 1259 16402 TABLE shop customers postgres".
struct PgTocEntry {
  std::string line;    // as listed (for --use-list)
  uint32_t catalog_oid = 0;  // 1259 (pg_class), 1255 (pg_proc), ...; 0 for ACLs, comments
  uint32_t object_oid = 0;
  std::string type;    // "TABLE", "FK CONSTRAINT", "MATERIALIZED VIEW", ...
  std::string schema;  // "-" when none
  std::string name;    // the tag without the owner ("orders orders_pkey" for a constraint)
};
// Parses the listing; comment and blank lines are skipped.
std::vector<PgTocEntry> ParsePgTocListing(std::string_view listing);

}  // namespace lakedump
