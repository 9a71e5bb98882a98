// `lakedump dump SOURCE DEST --if-exists overwrite --dry-run`: what the overwrite would delete
// at DEST (the objects of lakedump runs and of the committed dump, by the run journals and the
// manifest; with --delete-foreign everything else too; the unfinished writes of dead runs),
// printed one per line; nothing is deleted, the source is not read.
#pragma once

#include "cli/dump_args.h"
#include "dump/dump_options.h"

namespace lakedump::cli {

// Returns the exit code: 0, 2 when the overwrite would be refused (foreign objects without
// --delete-foreign), 1 when DEST could not be read.
int RunOverwriteDryRun(const DumpArgs& a, const DumpOptions& options);

}  // namespace lakedump::cli
