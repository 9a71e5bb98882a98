// What of a dump's schema cannot cross from one engine to the other, one entry per object, for
// load's summary and `--json` (`schema.skipped`): nothing is dropped without a word.
//   - SQLite to PostgreSQL: per table, from its recorded CREATE TABLE (load/sqlite/
//     sqlite_ddl_facts.h): CHECK constraints, DEFAULTs other than literals, collations (NOCASE...)
//     and generated columns (loaded as plain columns with their dumped values); and foreign
//     keys, literal DEFAULTs and AUTOINCREMENT when the target did not carry them over.
//   - PostgreSQL to SQLite: per table, its CHECK constraints, DEFAULTs and identity columns
//     (from its recorded CREATE TABLE), and the COMMENTs and GRANTs of the dump's archive.
// Pure functions; thread-safe.
#pragma once

#include <vector>

#include "load/target_database.h"

namespace lakedump {

// `target`: SQLite when it has no schemas, else PostgreSQL. `tables`: the plans of the tables
// this load restores. `carried`: the PostgreSQL target restored the schema after the data (not
// --data-only), and with it a SQLite dump's foreign keys, literal DEFAULTs and AUTOINCREMENT
// (load/postgres/sqlite_schema_to_pg.h), reporting itself those it could not.
// Appends one entry per object to *out.
void CrossEngineSkips(const SchemaRestorePlan& plan, const std::vector<const TablePlan*>& tables,
                      const TargetDatabase& target, bool carried,
                      std::vector<SkippedSchemaObject>* out);

// "skipped SQLite foreign key on public.t (a) REFERENCES u (b): <reason>".
std::string SkippedLine(const SkippedSchemaObject& s);

}  // namespace lakedump
