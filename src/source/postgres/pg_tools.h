// PostgreSQL's own client programs (pg_dump, pg_restore) as lakedump runs them:
// finding one recent enough for a server, and the connection it gets.
//
// Stateless functions; thread-safe.
#pragma once

#include <libpq-fe.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace lakedump {

struct PgTool {
  std::string path;     // absolute or as found in PATH
  int major = 0;        // 15 for "15.18"
  std::string version;  // "15.18"
};

// Finds program `name` of PostgreSQL major version `min_major` or later: in
// `bin_dir` only when it is not empty, else in PATH and the Debian layout
// /usr/lib/postgresql/<N>/bin; the newest one wins. Each candidate's version
// is asked with `--version`. NotFound with one line naming the versions found,
// the version needed and `hint` (what the user can do instead) otherwise.
Result<PgTool> FindPgTool(std::string_view name, int min_major, std::string_view bin_dir,
                          std::string_view hint);

// "pg_dump (PostgreSQL) 15.18 (Debian ...)" -> {15, "15.18"}; major 0 if unparsable.
std::pair<int, std::string> ParsePgToolVersion(std::string_view version_output);

// The connection parameters of an open connection, for a child program: a
// libpq keyword string without the password, which goes into `env` as
// PGPASSWORD (so it is never on a command line).
struct PgChildConnection {
  std::string conninfo;
  std::vector<std::pair<std::string, std::string>> env;
};
PgChildConnection ChildConnectionOf(PGconn* conn);

}  // namespace lakedump
