// Waiting on a child process's files (CLI tests, which run the lakedump binary):
// WaitForFiles() blocks on inotify events under a directory, and on the child's
// exit, until a condition on the files holds. Events, not a timer: the only time
// limit is the generous guard kEventLimit between two events.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>

namespace lakedump {

// Returns true once `done()` holds. `done()` is checked at once and after each batch of
// changes (created, written, renamed or deleted entries) in `dir` (and, if `recursive`, in the
// directories below it, also those created meanwhile; `dir` itself may not exist yet: its
// parent is watched until it does). Returns false when `child` (if > 0) has exited, or when
// nothing changed for kEventLimit. The child is not reaped (waitpid stays the caller's).
bool WaitForFiles(const std::string& dir, bool recursive, pid_t child,
                  const std::function<bool()>& done);

}  // namespace lakedump
