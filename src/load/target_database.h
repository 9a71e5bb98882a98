// The target seam of `lakedump load`: a database to restore tables into, and a
// sink that takes one table's rows as RowBatches (ARCHITECTURE.md: ParquetReader
// ──► TableSink).
//
// Protocol for one table (LoadService drives it):
//   1. PrepareTable(plan)            creates the table (or checks it for append /
//                                    drops it for replace) under a name where a
//                                    failure leaves nothing half-loaded behind;
//   2. OpenSink(plan) per stream of rows (a stream takes several data files or
//      row groups), possibly several at once on their own connections; each
//      sink gets Append()s then Finish() (its own commit) or is destroyed
//      without Finish() (rolled back);
//   3. CommitTable(plan)             after every file's sink finished: builds the
//                                    primary key and indexes, moves the table to
//                                    its final name, ANALYZE; atomically, so a
//                                    reader sees either no table or all of it;
//   4. AbortTable(plan) on any failure instead of 3: removes what PrepareTable
//      and the sinks left (best effort; returns the first error).
// A target that cannot load files of one table in parallel says so with
// max_sinks_per_table() == 1; LoadService then loads them one after another.
//
// Thread-safety: TargetDatabase is thread-safe (LoadService calls it from many
// table tasks). A TableSink is used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <utility>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "load/restore_filter.h"
#include "source/table_source.h"
#include "table/row_batch.h"
#include "table/schema.h"

namespace lakedump {

enum class LoadIfExists { kFail, kReplace, kAppend };

// Everything a target needs to rebuild one table, from its _table.json.
struct TablePlan {
  TableRef source;                  // as recorded in the dump
  TableRef target;                  // after --schema-map
  TableDefinition definition;       // schema (with source types), DDL, primary key
  std::string source_kind;          // "sqlite", "postgres", ... (manifest source.kind)
  LoadIfExists if_exists = LoadIfExists::kFail;
  uint64_t rows = 0;                // expected, from the manifest
  size_t file_count = 0;
  // The dump's schema code may run (LoadOptions::trust_schema): DEFAULT expressions, CHECK
  // constraints, recorded DDL. Without it a target creates the table from the logical types
  // and the structured metadata only (names, nullability, key column lists).
  bool trust_schema = false;
  // The dump records UNIQUE keys structured (definition.unique_keys); false for dumps of an
  // older lakedump, whose UNIQUE keys exist only as DDL text.
  bool structured_keys = false;
  // Set by LoadService before the first OpenSink: exactly one sink loads the
  // whole table (the target may then load it in the same transaction that
  // empties its staging table, e.g. PostgreSQL's COPY FREEZE).
  bool single_sink = false;
  // Set by LoadService for a table that RestoreSchemaBefore created in this load (listed in
  // SchemaRestoreOutcome::created): it exists, is empty and has no indexes, constraints or
  // triggers yet (post-data comes after the data). The target may load straight into it,
  // without a staging table; if_exists is then kAppend.
  bool restored_empty = false;
  // --data-only: rows appended into an existing table are not moved in by CommitTable but by
  // CommitTogether, with every other such table, in one transaction (set by LoadService).
  bool commit_together = false;
  // The dump is a SQLite one whose files carry the exact SQLite values of the table in one
  // more column after definition.schema's (source/sqlite/sqlite_values.h): a target that
  // takes them (takes_sqlite_values()) gets batches with that column last, others without.
  bool sqlite_values = false;
};

// The dump's schema beyond its tables (manifest "schema", docs/dump-format.md), for a
// target to restore around the data (RestoreSchemaBefore, the tables, RestoreSchemaAfter).
struct SchemaRestorePlan {
  nlohmann::json schema;            // the manifest's "schema" object
  std::string source_kind;          // manifest source.kind
  std::string archive;              // the PostgreSQL archive's bytes (checked), or empty
  bool trusted = false;             // may run the dump's schema code
  std::vector<TableRef> tables;     // dump tables selected (source names)
  std::vector<TableRef> excluded;   // dump tables not selected
  std::vector<std::string> exclude_patterns;  // --exclude (also drops views by name)
  std::vector<std::pair<std::string, std::string>> schema_map;
  bool with_data = true;            // false: --schema-only
  LoadIfExists if_exists = LoadIfExists::kFail;
  int jobs = 2;                     // parallel post-data jobs
  std::string tool_dir;             // --pg-bin-dir
  RestoreFilter filter;             // -t/-n/-N, and whether the load is a subset
  RestoreRoles roles;               // --no-owner, --no-privileges, --role, --role-map
};

// A schema object of the dump that the target does not get (load/cross_engine_skips.h).
struct SkippedSchemaObject {
  std::string engine;  // the dump's: "SQLite", "PostgreSQL"
  std::string kind;    // "foreign key", "check", "default", "comment", "grant", ...
  std::string table;   // the table it belongs to (target name), or its schema
  std::string name;    // the object within it ("(a) REFERENCES t (b)", a column...), or empty
  std::string reason;
};

struct SchemaRestoreOutcome {
  std::string method;               // "pg_restore", "sqlite_schema", "indexes", "none"
  std::vector<TableRef> created;    // dump tables the restore created (loaded by appending)
  std::vector<TableRef> skip_data;  // dump tables whose data the restore rebuilds (matviews)
  uint64_t restored = 0;            // schema objects restored
  std::vector<std::string> warnings;  // one line each: objects skipped or not restored
  std::vector<SkippedSchemaObject> skipped;  // what cannot cross engines, one per object
};

class TableSink {
 public:
  virtual ~TableSink() = default;  // without Finish(): rolled back
  // Appends every row of the batch. REQUIRES: batch matches plan.definition.schema.
  virtual Status Append(const RowBatch& batch) = 0;
  // Commits this sink's rows (into the staging table); returns rows written.
  virtual Result<uint64_t> Finish() = 0;
};

// What targets left out or changed while loading (printed after the load's summary).
// Thread-safe.
class LoadNotes {
 public:
  // One line, no "warning:" prefix.
  void Warn(std::string line) {
    std::lock_guard lock(mu_);
    warnings_.push_back(std::move(line));
  }
  // Warn(line) the first time `key` is seen (a property of the dump, not of one table).
  void WarnOnce(const std::string& key, std::string line) {
    std::lock_guard lock(mu_);
    if (once_.insert(key).second) warnings_.push_back(std::move(line));
  }
  // Schema items of the dump (defaults, constraints, recorded DDL) not applied because the
  // dump is not trusted.
  void SkipSchemaItems(uint64_t n) {
    std::lock_guard lock(mu_);
    skipped_schema_items_ += n;
  }
  std::vector<std::string> warnings() const {
    std::lock_guard lock(mu_);
    return warnings_;
  }
  uint64_t skipped_schema_items() const {
    std::lock_guard lock(mu_);
    return skipped_schema_items_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> warnings_;  // guarded by mu_
  std::set<std::string> once_;         // guarded by mu_
  uint64_t skipped_schema_items_ = 0;  // guarded by mu_
};

class TargetDatabase {
 public:
  virtual ~TargetDatabase() = default;
  // Names longer than this many bytes are refused before anything loads (PostgreSQL cuts
  // identifiers to 63 bytes, so two long names could become one table); 0 = no limit.
  virtual size_t max_identifier_bytes() const { return 0; }
  LoadNotes& notes() { return notes_; }
  // "postgres" / "sqlite": for messages and the summary. Never credentials.
  virtual std::string Describe() const = 0;
  virtual int max_sinks_per_table() const = 0;
  // Whether tables live in schemas (SQLite: one, whatever the dump's schema).
  virtual bool has_schemas() const { return true; }
  // Whether its sinks take TablePlan::sqlite_values's column.
  virtual bool takes_sqlite_values() const { return false; }

  virtual Status PrepareTable(const TablePlan& plan) = 0;
  virtual Result<std::unique_ptr<TableSink>> OpenSink(const TablePlan& plan) = 0;
  virtual Status CommitTable(const TablePlan& plan) = 0;
  virtual Status AbortTable(const TablePlan& plan) = 0;

  // Before any table: what the data needs (PostgreSQL: pg_restore --section=pre-data
  // in one transaction). An object that already exists fails naming it, with
  // nothing created. Default: nothing.
  virtual Status RestoreSchemaBefore(const SchemaRestorePlan& /*plan*/,
                                     SchemaRestoreOutcome* /*out*/) {
    return Status::OK();
  }
  // After every table committed: indexes, constraints, triggers, sequence values,
  // materialized views (or their cross-engine subset). Default: nothing.
  virtual Status RestoreSchemaAfter(const SchemaRestorePlan& /*plan*/,
                                    SchemaRestoreOutcome* /*out*/) {
    return Status::OK();
  }
  // --data-only, after every table's CommitTable: moves in the rows of the tables that
  // CommitTable left staged (TablePlan::commit_together), all in one transaction or none
  // (PostgreSQL: in foreign-key order, then the dump's populated materialized views refreshed;
  // pg_append_together.h). AbortTogether, after a failed table instead, removes what they
  // left. Default: nothing (CommitTable committed each).
  virtual Status CommitTogether(const SchemaRestorePlan& /*plan*/) { return Status::OK(); }
  virtual Status AbortTogether() { return Status::OK(); }
 private:
  LoadNotes notes_;
};

}  // namespace lakedump
