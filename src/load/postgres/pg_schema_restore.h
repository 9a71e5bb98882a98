// The schema of a PostgreSQL dump restored into PostgreSQL with PostgreSQL's own tool
// (docs/dump-format.md "Schema", README "A replica"):
//   Before  pg_restore --section=pre-data --single-transaction --exit-on-error of the
//           archive (types, domains, enums, sequences, tables, functions, views): an
//           object that exists already fails the load naming it, with nothing created;
//   After   pg_restore --section=post-data --jobs N (indexes, constraints, foreign keys,
//           triggers), every sequence set to its value at the dump's snapshot, then
//           REFRESH of the materialized views in dependency order.
// --tables/--exclude become a pg_restore --use-list: the entries of dump tables not
// selected (and of their partitions, indexes, constraints, triggers...) are left out,
// and so are foreign keys to tables not restored (one warning line each).
// Without trust (LoadOptions::trust_schema) or from another engine only the indexes
// on plain columns are built (schema_subset.h) and the rest is reported.
//
// One restorer per load; Before and After are called from one thread, in order. It
// owns temporary files (the archive, the list), removed on destruction.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "load/target_database.h"
#include "source/postgres/pg_conn.h"
#include "source/postgres/pg_schema_capture.h"

namespace lakedump {

class PgSchemaRestorer {
 public:
  PgSchemaRestorer();
  ~PgSchemaRestorer();
  PgSchemaRestorer(const PgSchemaRestorer&) = delete;
  PgSchemaRestorer& operator=(const PgSchemaRestorer&) = delete;

  // `conn` is an idle connection to the target (its parameters go to pg_restore).
  Status Before(PgConn& conn, const SchemaRestorePlan& plan, SchemaRestoreOutcome* out);
  Status After(PgConn& conn, const SchemaRestorePlan& plan, SchemaRestoreOutcome* out);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The archive entries to restore for the selection (exposed for tests): entries of
// dump tables in plan.excluded (through their partitions, indexes, constraints,
// triggers, defaults, comments, grants) and views matching plan.exclude_patterns
// are dropped, and so is each foreign key (by the manifest's "fks") that references
// a table not among plan.tables (left out of the dump or excluded at load), with one
// line naming it in `skipped` when given; everything else is kept.
std::vector<PgTocEntry> SelectTocEntries(const std::vector<PgTocEntry>& toc,
                                         const SchemaRestorePlan& plan,
                                         std::vector<std::string>* skipped = nullptr);

// One line per function or procedure among the entries to restore whose body is in quotes
// and mentions a table this load does not restore (the manifest's "mentions": pg_restore
// creates it, it may fail when called).
std::vector<std::string> QuotedBodyWarnings(const std::vector<PgTocEntry>& restored_entries,
                                            const SchemaRestorePlan& plan);

}  // namespace lakedump
