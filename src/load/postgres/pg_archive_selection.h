// Which entries of the dump's pg_dump archive a load restores, chosen by identity: the
// entries' dump ids and the dependency ids pg_dump recorded for each (what an object needs:
// its schema, the types of its columns, the functions and sequences its defaults call, the
// tables a view reads, the table an index, constraint, trigger, comment or grant is on), the
// manifest's exact table names, and the catalog OIDs of its "dependents" and "fks" -- never
// names parsed out of `pg_restore --list` text (docs/dump-format.md "Schema").
//
//   Left out  the tables the load does not restore (--exclude, not among --tables/-t/-n, in
//             a -N schema, or left out of the dump) and everything that depends on them,
//             directly or through other entries (their indexes, constraints, column grants,
//             partitions; the views, functions, types and foreign keys that need them), and
//             the views --exclude names. Each object that would have been restored but
//             breaks is named in one warning line; what hangs on a table left out goes with
//             it without a word.
//   Kept      without a subset: everything else (a -N schema's objects only when something
//             kept needs them). With a subset (--tables, -t, -n): the kept tables, the views
//             and sequences -t names, every object of a -n schema, then the closure: what
//             each kept entry needs, and what hangs on a kept table or view (its indexes,
//             constraints, triggers, policies, comments, grants, the views and functions
//             reading only kept tables). No event trigger, extension or other object that
//             nothing kept needs.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "load/target_database.h"
#include "source/postgres/pg_archive_toc.h"

namespace lakedump {

// Indices into `entries` to restore, in archive (dependency) order; one line per object
// left out that would break in `skipped` when given.
std::vector<size_t> SelectArchiveEntries(const std::vector<PgArchiveTocEntry>& entries,
                                         const SchemaRestorePlan& plan,
                                         std::vector<std::string>* skipped = nullptr);

// One line per function or procedure among the entries to restore whose body is in quotes
// and mentions a table this load does not restore (the manifest's "mentions": pg_restore
// creates it, it may fail when called).
std::vector<std::string> QuotedBodyWarnings(const std::vector<PgArchiveTocEntry>& entries,
                                            const std::vector<size_t>& restored,
                                            const SchemaRestorePlan& plan);

}  // namespace lakedump
