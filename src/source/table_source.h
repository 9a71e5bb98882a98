// The source seam: a database to dump, and streams of its tables as RowBatches.
//
// Database is thread-safe: the export service opens sources from many tasks.
// TableSource is not thread-safe; each task owns its source (and, where the
// backend has them, its own connection). Every source opened from one Database
// after BeginSnapshot() reads the same consistent state.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "table/row_batch.h"
#include "table/schema.h"

namespace lakedump {

struct TableRef {
  std::string schema;  // "main" for SQLite, "public" etc. for PostgreSQL, "query" for --query
  std::string name;
  std::string QualifiedName() const { return schema + "." + name; }
  bool operator==(const TableRef&) const = default;
};

struct TableInfo {
  TableRef ref;
  uint64_t estimated_rows = 0;   // for largest-first scheduling
  uint64_t estimated_bytes = 0;
  std::string query;             // non-empty for --query NAME=SQL
};

// One unit of export work: a whole table or a range of a big one.
struct WorkUnit {
  TableInfo table;
  int index = 0;                 // 0..count-1 within the table
  int count = 1;
  std::string range_predicate;   // backend-specific; empty = whole table
};

// What `load` needs to rebuild a table, recorded in _table.json.
struct TableDefinition {
  Schema schema;                 // with source_type per column
  std::string ddl;               // CREATE TABLE in the source's dialect
  std::vector<std::string> primary_key;
  // UNIQUE constraints, each its columns in key order (PostgreSQL sources; empty elsewhere).
  // Recorded structured so that `load` can rebuild them without running the DDL text.
  std::vector<std::vector<std::string>> unique_keys;
};

// Which tables CaptureSchema records the schema of.
struct SchemaSelection {
  // True: every table ListTables() lists (no --tables/--exclude), known before planning, so
  // the capture can start as soon as the snapshot exists; `tables` is then unused.
  bool every_table = false;
  std::vector<TableRef> tables;  // otherwise: the tables selected (not --query ones)
};

// How CaptureSchema records the schema (dump --schema-from, --pg-bin-dir).
struct SchemaCaptureOptions {
  bool use_source_tool = true;  // false (--schema-from lakedump): no pg_dump archive
  std::string tool_dir;         // where pg_dump is; empty = search (see pg_tools.h)
};

// The schema beyond the tables' own definitions, at the dump's snapshot: the
// manifest's "schema" object (docs/dump-format.md, "Schema") and, for
// PostgreSQL, the bytes of pg_dump's schema-only archive (held in memory:
// schema-only archives are small, about 100 KB per 1000 tables).
struct SchemaCapture {
  nlohmann::json info = nlohmann::json::object();
  std::string archive;  // empty: none
};

class TableSource {
 public:
  virtual ~TableSource() = default;
  virtual const Schema& schema() const = 0;
  // Replaces *batch with up to max_rows rows; an empty batch means end of data.
  // Values that do not fit their column fail with a message naming table,
  // column and row.
  virtual Status Next(size_t max_rows, RowBatch* batch) = 0;
};

class Database {
 public:
  virtual ~Database() = default;
  // Pins one consistent state for every source opened afterwards; held until
  // the Database is destroyed.
  virtual Status BeginSnapshot() = 0;
  virtual Result<std::vector<TableInfo>> ListTables() = 0;
  // Locks the tables about to be dumped (after filtering) against concurrent
  // DDL, for as long as the snapshot lives. REQUIRES: BeginSnapshot() first.
  // Default: nothing to lock. Backends lock lazily in Open()/Split() too.
  virtual Status LockTables(const std::vector<TableInfo>& /*tables*/) { return Status::OK(); }
  virtual Result<TableDefinition> DescribeTable(const TableInfo& table) = 0;
  // Splits a table into units of about target_bytes; default: one unit.
  virtual Result<std::vector<WorkUnit>> Split(const TableInfo& table, uint64_t target_bytes);
  virtual Result<std::unique_ptr<TableSource>> Open(const WorkUnit& unit) = 0;
  // Records the source's schema objects (sequences and their values, indexes,
  // views, functions...) for the tables selected, at the snapshot; tables not in
  // `selected` are left out of it. May run while tables are planned and sources stream
  // (thread-safe), and must not hold up either for long.
  // REQUIRES: BeginSnapshot() first. Default: {"schema_from": "lakedump"}.
  virtual Result<SchemaCapture> CaptureSchema(const SchemaSelection& selected,
                                              const SchemaCaptureOptions& options);
  // Kind, version, snapshot id...: for the manifest. Never credentials.
  virtual nlohmann::json Describe() const = 0;
  // OK while whatever makes the snapshot safe is still held (PostgreSQL: the
  // session holding the exported snapshot and the tables' ACCESS SHARE locks is
  // alive). Called before each table commit and before the dump commit: a
  // failure means rows read since may be wrong, and nothing may be committed.
  virtual Status CheckSnapshotHeld() { return Status::OK(); }
  // Sharded dumps (docs/scale-out.md). A worker reads the coordinator's snapshot instead of
  // taking one: every source opened afterwards reads it. kUnavailable with a message saying
  // the snapshot is gone when the session that exported it has ended; Unimplemented where no
  // snapshot can be shared between processes (default).
  virtual Status ImportSnapshot(const std::string& /*snapshot_id*/) {
    return Status::Unimplemented("this source cannot share a snapshot between processes");
  }
  // What must be equal between a coordinator's and a worker's source (PostgreSQL: the
  // cluster's system identifier and the database OID): never a host, user or password.
  // Default: {"kind": Describe()["kind"]}.
  virtual nlohmann::json Identity() const;
  // OK when a unit another process planned can be read safely here: its range predicate is
  // one this backend makes (the plan is not trusted to carry SQL). Default: no predicate.
  virtual Status CheckUnit(const WorkUnit& unit) const;
  // Identifies what a table is read from, for resume: equal fingerprints mean
  // the same database, the same relation and the same options shaping its data
  // (PostgreSQL: system identifier, database OID, relation OID and relfilenode;
  // SQLite: the file's device, inode, size and mtime). Excludes the column
  // list, which the dump hashes from DescribeTable(). Default: null (never reused).
  virtual Result<nlohmann::json> Fingerprint(const TableInfo& /*table*/) {
    return nlohmann::json();
  }
};

}  // namespace lakedump
