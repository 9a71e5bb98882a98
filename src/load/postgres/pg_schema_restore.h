// The schema of a PostgreSQL dump restored into PostgreSQL with PostgreSQL's own tool
// (docs/dump-format.md "Schema", README "A replica"):
//   Before  pg_restore --section=pre-data --single-transaction --exit-on-error of the
//           archive (types, domains, enums, sequences, tables, functions, views; their
//           grants wait, as in pg_restore, for after the data): an object that exists
//           already fails the load naming it, with nothing created;
//   tables  as each table is loaded (TableLoaded), a thread restores the indexes, keys,
//           constraints and triggers that are ready, one pg_restore --jobs N after another,
//           while other tables still load (pg_restore_schedule.h; as pg_restore --jobs
//           schedules each item by its dependencies);
//   After   pg_restore --jobs N of the rest (what is on tables loaded last, grants, event
//           triggers), every sequence set to its value at the dump's snapshot, then
//           REFRESH of the materialized views in dependency order.
// The archive's table of contents is read in process (pg_archive_toc.h); the entries to
// restore are chosen by identity (pg_archive_selection.h: --tables/-t/-n/-N/--exclude and
// the dependency closure) and given to pg_restore as a --use-list of dump ids. Before
// anything is created, the roles the kept entries name (owners, grantees, policy roles,
// after --role-map) are looked up in the target: a missing one refuses the load in one line
// naming the option that fixes it (pg_archive_roles.h). --no-owner, --no-privileges and
// --role go to pg_restore; --role-map rewrites the archive's owner fields and grant/policy
// role tokens. A public schema the target has already is not created again; its owner is
// set as the dump's.
// Without trust (LoadOptions::trust_schema) or from another engine only the indexes
// on plain columns are built (schema_subset.h) and the rest is reported.
//
// One restorer per load; Before and After are called from one thread, in order,
// TableLoaded from any thread in between. It owns temporary files (the archive, the lists),
// removed on destruction, which waits for a pg_restore still running.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "load/postgres/pg_archive_selection.h"
#include "load/postgres/pg_restore_schedule.h"
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
  // A table Before() created is loaded and will not change (thread-safe): its post-data
  // entries (indexes, keys, constraints, triggers) may be restored now, while other tables
  // still load, as pg_restore --jobs does; a no-op when nothing is restored early.
  void TableLoaded(const TableRef& table);
  // A table failed (thread-safe): no more post-data starts (the load fails; After() is not
  // called).
  void TableFailed();

 private:
  Status RestorePreData(PgConn& conn, const SchemaRestorePlan& plan,
                        const std::vector<size_t>& selected);
  Status RestoreRest(PgConn& conn);
  Status RestoreGrants(PgConn& conn, const std::vector<size_t>& list);

  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace lakedump
