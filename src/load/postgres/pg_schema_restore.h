// The schema of a PostgreSQL dump restored into PostgreSQL with PostgreSQL's own tool
// (docs/dump-format.md "Schema", README "A replica"):
//   Before  pg_restore --section=pre-data --single-transaction --exit-on-error of the
//           archive (types, domains, enums, sequences, tables, functions, views; their
//           grants wait, as in pg_restore, for after the data): an object that exists
//           already fails the load naming it, with nothing created;
//   tables  as each table is loaded (TableLoaded), the indexes, keys, constraints and
//           triggers that are ready run on lakedump's own connections (--restore-jobs of
//           them), while other tables still load (pg_restore_schedule.h: as pg_restore
//           --jobs schedules each item by its dependencies and locks; pg_post_data_runner.h);
//   After   the rest (what is on tables loaded last, on materialized views), then the grants
//           in one transaction and event triggers, every sequence set to its value at the
//           dump's snapshot, then REFRESH of the materialized views in dependency order,
//           several at once on idle connections of the table streams.
// The SQL of each post-data entry is pg_restore's own: one `pg_restore --file=-` of every
// entry restored after pre-data writes it while pre-data restores, split per entry
// (pg_restore_script.h), each entry then one transaction, a failure naming the entry. When the
// script cannot be split, or the archive is older than pg_dump 10.3 or newer than the
// in-process reader, one pg_restore --jobs N restores post-data after the last table instead.
// The archive's table of contents is read in process (pg_archive_toc.h); the entries to
// restore are chosen by identity (pg_archive_selection.h: --tables/-t/-n/-N/--exclude and
// the dependency closure) and given to pg_restore as a --use-list of dump ids. Before
// anything is created, the roles the kept entries name (owners, grantees, policy roles,
// after --role-map) are looked up in the target: a missing one refuses the load in one line
// naming the option that fixes it (pg_archive_roles.h). --no-owner, --no-privileges and
// --role go to pg_restore (which writes post-data's SQL with them); --role-map rewrites the
// archive's owner fields and grant/policy role tokens. A public schema the target has already is not created again; its owner is
// set as the dump's.
// Without trust (LoadOptions::trust_schema) or from another engine only the indexes
// on plain columns are built (schema_subset.h) and the rest is reported.
//
// One restorer per load; Before and After are called from one thread, in order,
// TableLoaded from any thread in between. It owns temporary files (the archive, the lists),
// removed on destruction, and up to --restore-jobs connections to the target (opened by
// Before, closed by After or the destruction, which waits for the statements running).
#pragma once

#include <functional>
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
  // Opens a connection to the target (for post-data's own connections); without one, post-data
  // runs through pg_restore after the last table.
  using ConnectFn = std::function<Result<std::unique_ptr<PgConn>>()>;
  explicit PgSchemaRestorer(ConnectFn connect = nullptr);
  ~PgSchemaRestorer();
  PgSchemaRestorer(const PgSchemaRestorer&) = delete;
  PgSchemaRestorer& operator=(const PgSchemaRestorer&) = delete;

  // `conn` is an idle connection to the target (its parameters go to pg_restore).
  Status Before(PgConn& conn, const SchemaRestorePlan& plan, SchemaRestoreOutcome* out);
  // `more`: idle connections to the target beside `conn` that refresh materialized views
  // at once with it (pg_matview_refresh.h).
  Status After(PgConn& conn, const SchemaRestorePlan& plan, SchemaRestoreOutcome* out,
               const std::vector<PgConn*>& more = {});
  // A table Before() created is loaded and will not change (thread-safe): its post-data
  // entries (indexes, keys, constraints, triggers) start now, while other tables still load,
  // as pg_restore --jobs does; a no-op when post-data runs through pg_restore.
  void TableLoaded(const TableRef& table);
  // A table failed (thread-safe): no more post-data starts; returns once the entries running
  // are over (the load fails; After() is not called).
  void TableFailed();

 private:
  Status RestorePreData(PgConn& conn, const SchemaRestorePlan& plan,
                        const std::vector<size_t>& selected);
  Status RestoreRest();

  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace lakedump
