// The coordinator side of a sharded dump's commit (docs/scale-out.md): what the workers
// reported for their units, checked against the plan and gathered per table, ready for
// ExportService to commit each table exactly as a single-machine dump commits it.
//
// A function of its arguments; thread-safe.
#pragma once

#include <vector>

#include "base/status.h"
#include "dump/planner.h"
#include "dump/shard/shard_plan.h"
#include "table/schema.h"

namespace lakedump {

// What the shards wrote for one planned table.
struct GatheredTable {
  Schema schema;                // the columns its units read (the same in every unit)
  std::vector<DataFile> files;  // every unit's files, in the order reported
};

// One GatheredTable per entry of `tables` (in that order) from the units the shards reported.
// Corruption, naming the table, when an output names a unit the plan does not have (another
// table, an index out of range) or one already reported, when the units of a table read
// different columns (names or types), or when a planned unit was not reported.
Result<std::vector<GatheredTable>> GatherUnitOutputs(
    const std::vector<const PlannedTable*>& tables, std::vector<UnitOutput> outputs);

}  // namespace lakedump
