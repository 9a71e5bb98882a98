// The coordinator side of a sharded dump's commit (docs/scale-out.md): what the workers
// reported for their units, checked against the plan and gathered per table, ready for
// ExportService to commit each table exactly as a single-machine dump commits it. The
// reports arrive one shard at a time; a table is ready as soon as every one of its units is
// in, so the coordinator commits it while other shards still run.
//
// UnitOutputGatherer: one caller at a time (the coordinator's thread); GatherUnitOutputs: a
// function of its arguments, thread-safe.
#pragma once

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
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

// Gathers the units of the planned `tables` (borrowed; must outlive it) report by report.
class UnitOutputGatherer {
 public:
  explicit UnitOutputGatherer(std::vector<const PlannedTable*> tables);

  // Adds one report's outputs. Returns the indexes (into `tables`) of the tables whose last
  // unit this call brought in, ascending. Corruption, naming the table, when an output names
  // a unit the plan does not have (another table, an index out of range) or one already
  // reported, or when the units of a table read different columns (names or types); after an
  // error the gatherer takes nothing more.
  Result<std::vector<size_t>> Add(std::vector<UnitOutput> outputs);
  // Table `table` is committed already (--if-exists resume reused it): no unit of it is
  // expected, and any reported is refused as not planned.
  void MarkCommitted(size_t table);
  // The table's gathered units, moved out. REQUIRES: `table` returned by Add, taken once.
  GatheredTable Take(size_t table);
  // Corruption naming the first table with a planned unit nobody reported.
  Status CheckAllReported() const;

 private:
  std::vector<const PlannedTable*> tables_;
  std::map<std::pair<std::string, std::string>, size_t> by_table_;
  std::vector<GatheredTable> gathered_;
  std::vector<size_t> reported_;  // units in, per table
  std::vector<bool> committed_;   // per table: reused, expects no unit
  std::set<std::tuple<std::string, std::string, int>> seen_;
  Status failed_;
};

// One GatheredTable per entry of `tables` (in that order) from every unit the shards
// reported: UnitOutputGatherer's checks, and Corruption, naming the table, when a planned
// unit was not reported.
Result<std::vector<GatheredTable>> GatherUnitOutputs(
    const std::vector<const PlannedTable*>& tables, std::vector<UnitOutput> outputs);

}  // namespace lakedump
