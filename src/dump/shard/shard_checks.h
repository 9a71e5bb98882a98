// The checks that keep a sharded dump's shared documents data, never commands
// (docs/scale-out.md, "Trust"): a worker dumps only what its own command line selects, and a
// coordinator commits only files it read back and found as reported.
//
// Functions of their arguments over a store or a database; thread-safe when those are.
#pragma once

#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "dump/dump_options.h"
#include "dump/shard/shard_plan.h"
#include "lake/manifest.h"
#include "source/table_source.h"
#include "store/object_store.h"

namespace lakedump {

// True for a table of a database's own catalog, which no dump reads: PostgreSQL's pg_catalog,
// information_schema, pg_toast* and pg_temp* schemas, SQLite's sqlite_* tables (in main or
// temp).
bool IsCatalogTable(const TableRef& table);

// OK when every unit of `plan` (every shard's, not only this worker's) is one this worker's
// own selection allows: a --query of its own, or a table that its source lists (at the
// snapshot it reads) and that its --tables/--exclude select, never a catalog table.
// InvalidArgument naming the first unit that is not, and the plan. REQUIRES: the snapshot
// taken (ListTables reads at it).
Status CheckPlanWithinSelection(Database& db, const DumpOptions& options, const ShardPlan& plan);

// OK when every file of `files` reads back from `store` as `what` (a shard report or progress
// object) records it: its size, its XXH64 (and, with `sha256`, its SHA-256) over the bytes
// read, and the row count of its Parquet footer. Reads up to `width` files at once.
// Corruption naming `what`, the file and what differs; the store's errors.
Status CheckFilesReadBack(ObjectStore& store, const std::vector<const DataFile*>& files,
                          bool sha256, size_t width, std::string_view what,
                          std::stop_token stop);

}  // namespace lakedump
