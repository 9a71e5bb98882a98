// RunSubprocess: runs an external program (pg_dump, pg_restore) without a shell,
// streams its standard output into a ByteSink and keeps the tail of its standard
// error for the error message. Extra environment variables (a password) go to the
// child only, never into argv. A "/dev/fd/N" (an unnamed TempFile) named in argv, the
// extra environment or stdin_path is open in the child as descriptor N (it is
// close-on-exec in this process, so no other child inherits it).
//
// Thread-safe (each call owns its pipes and child); blocks until the child exits.
#pragma once

#include <chrono>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "base/byte_sink.h"
#include "base/status.h"

namespace lakedump {

struct SubprocessSpec {
  // argv[0] is the program: a path (with '/') or a name searched in PATH.
  std::vector<std::string> argv;
  // Set (or replace) in the child's environment; the parent's stays unchanged.
  std::vector<std::pair<std::string, std::string>> env;
  // Read by the child as its standard input; empty = /dev/null.
  std::string stdin_path;
  // When positive: a child still running after this long (real time) is killed (SIGKILL) and
  // the outcome says timed_out. A requested `stop` kills it too (Cancelled).
  std::chrono::milliseconds timeout{0};
  std::stop_token stop;
};

struct SubprocessOutcome {
  int exit_code = 0;         // the exit status, or 128 + signal number
  std::string stderr_tail;   // at most the last 64 KiB of standard error
  bool timed_out = false;    // killed after spec.timeout (exit_code is then 128 + SIGKILL)
};

// Errors: the program cannot be started (NotFound naming it), a read/write
// failure of the sink, or spec.stop requested (Cancelled: the child is killed). A non-zero exit is not an error here: see exit_code.
// `out` may be null: standard output is then discarded.
Result<SubprocessOutcome> RunSubprocess(const SubprocessSpec& spec, ByteSink* out);

// The first line of `text` that contains "ERROR" or "error" (pg_restore and
// pg_dump report that way), else its last non-empty line; trimmed.
std::string FirstErrorLine(std::string_view text);

}  // namespace lakedump
