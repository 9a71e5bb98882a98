// The sharded forms of `lakedump dump` (docs/scale-out.md): a worker
// (`--shards N --shard I|auto`), run whole here, and the coordinator's glue
// (`--shards N --coordinate`), which dump_command.cc attaches to its ExportService.
//
// Not thread-safe; one command per process.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "cli/dump_args.h"
#include "dump/export_service.h"
#include "dump/shard/shard_coordinator.h"
#include "dump/shard/snapshot_releasing_database.h"

namespace lakedump::cli {

// A worker: resolves its index, waits for the plan, dumps its units, writes its report.
// Returns the exit code (0 done or nothing to do, 1 failed, 2 bad usage, 3 the coordinator is
// gone). REQUIRES: `options` built from `a` and a.shard non-empty, the flag rules passed.
int RunShardWorkerCommand(const DumpArgs& a, DumpOptions options);

// The coordinator's part of a sharded dump: Run() runs the service as a coordinator
// (ExportService::RunSharded), which hands its plan to RunShardCoordinator (plan, wait, check
// the reports); after the commit the plan, the reports and the losing attempts' files go.
class ShardCoordinatorGlue {
 public:
  // Borrows `store`, `db`, `service` and `trace` (may be null): they must outlive the
  // service's Run(). With --no-snapshot, `db` must be the SnapshotReleasingDatabase the
  // service reads through: its snapshot goes before the plan is written, and the manifest
  // records options.no_snapshot (through the service's manifest hook).
  ShardCoordinatorGlue(const DumpArgs& a, const DumpOptions& options, ObjectStore* store,
                       Database* db, SnapshotReleasingDatabase* no_snapshot_db,
                       ExportService* service, TraceRecorder* trace);
  ShardCoordinatorGlue(const ShardCoordinatorGlue&) = delete;
  ShardCoordinatorGlue& operator=(const ShardCoordinatorGlue&) = delete;

  // The dump, with the shards' workers running its units.
  Result<DumpResult> Run(std::stop_token stop);

  // After the commit of dump `run_id`: deletes the shards' leftovers through `store`; a
  // failure is a warning (the dump is committed), appended to *warnings.
  void SweepAfterCommit(ObjectStore& store, const std::string& run_id,
                        std::vector<std::string>* warnings) const;

 private:
  // The service's remote unit runner: the plan to the workers, their units to `sink`.
  Status RunShards(const DumpPlan& plan, const ExportService::RemoteUnitSink& sink,
                   std::stop_token stop);

  ObjectStore* store_;
  Database* db_;
  SnapshotReleasingDatabase* no_snapshot_db_;  // may be null
  ExportService* service_;
  CoordinatorOptions options_;
  std::set<std::string> taken_files_;  // the files the reports taken name (the manifest's)
};

}  // namespace lakedump::cli
