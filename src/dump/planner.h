// Planner: which tables a dump exports and in what order. Lists the source's
// tables, applies the --tables/--exclude globs, adds --query tables, orders the
// largest first (so the long tasks start early) and splits each into work units.
// Stateless function; uses `db` from the calling thread only.
#pragma once

#include <string>
#include <vector>

#include "dump/dump_options.h"
#include "lake/table_selection.h"
#include "source/table_source.h"

namespace lakedump {

struct PlannedTable {
  TableInfo info;
  std::vector<WorkUnit> units;  // at least one
};

struct DumpPlan {
  std::vector<PlannedTable> tables;  // largest first
};

// Errors (InvalidArgument): an exact name in --tables that names no table ("unknown table
// x"), a glob that matches nothing ("--tables pattern "x*" matches no table"), a bad or
// duplicate --query name. Query tables are described here so a bad SQL fails before
// anything is written.
Result<DumpPlan> PlanDump(Database& db, const DumpOptions& options);

// InvalidArgument naming the table when its schema or table name, a column name or type, a
// primary key column or its DDL is not valid UTF-8 (the metadata is JSON text). PlanDump
// checks every chosen table with it before anything is written.
Status CheckUtf8Names(Database& db, const TableInfo& table);

// The range size PlanDump splits big tables to: options.split_bytes, except for a sharded
// dump's coordinator with `--split-size auto`, where it is at most a 2N-th of the tables'
// estimated bytes (N = options.shards) and at least 32 MiB.
uint64_t ShardSplitBytes(const DumpOptions& options, const std::vector<TableInfo>& tables);

}  // namespace lakedump
