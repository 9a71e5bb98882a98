// What a run may do with what it finds at its destination (docs/dump-format.md, "The run
// journal"): --if-exists decides about a dump, and no --if-exists deletes objects that no
// run journal or manifest names (someone else's) unless --delete-foreign says so.
//
// Stateless functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "dump/dump_options.h"
#include "lake/run_journal.h"

namespace lakedump {

// The --if-exists check, before anything is written:
//  - fail: AlreadyExists when DEST holds a dump, or any object (the message suggests
//    resume/overwrite only when every object is lakedump's);
//  - overwrite, resume: InvalidArgument naming up to 3 foreign objects and how many,
//    unless `options.delete_foreign`.
Status CheckDestinationObjects(const DestinationOwnership& own, const DumpOptions& options,
                               const std::string& dest);

// Whether a cleanup of run `run_id` may delete `key` (an object it does not keep): one that is
// lakedump's by `own` (null: nothing known, so only this run's), or this run's own, or any
// with --delete-foreign.
bool MayDeleteObject(const DestinationOwnership* own, const DumpOptions& options,
                     std::string_view run_id, std::string_view key);

}  // namespace lakedump
