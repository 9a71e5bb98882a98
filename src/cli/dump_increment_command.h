// `lakedump dump SRC DEST --incremental` (docs/incremental.md): on a DEST holding the base of
// incremental dumps, the next increment, run whole here; otherwise the plan of a new base
// (its replication slot), which dump_command.cc dumps as an ordinary dump.
//
// Not thread-safe; one command per process.
#pragma once

#include <optional>

#include "cli/cli_util.h"
#include "cli/dump_args.h"
#include "dump/incremental/incremental_base.h"

namespace lakedump::cli {

// An exit code when the command is over (the increment ran, or it failed), or nullopt with
// *base_plan set: go on and dump the base. REQUIRES: a.incremental, the flag rules passed.
std::optional<int> PrepareIncrementalDump(const DumpArgs& a, const DumpOptions& options,
                                          InterruptWatcher& interrupt,
                                          std::optional<IncrementalBasePlan>* base_plan);

}  // namespace lakedump::cli
