// PostgreSQL's own client programs (pg_dump, pg_restore) as lakedump runs them:
// finding one recent enough for a server, and the connection it gets.
//
// Stateless functions; thread-safe.
#pragma once

#include <libpq-fe.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "base/temp_file.h"

namespace lakedump {

struct PgTool {
  std::string path;     // absolute or as found in PATH
  int major = 0;        // 15 for "15.18"
  std::string version;  // "15.18"
};

// Finds program `name` of PostgreSQL major version `min_major` or later: in
// `bin_dir` only when it is not empty, else in PATH and the Debian layout
// /usr/lib/postgresql/<N>/bin; the newest one wins. A candidate in the Debian
// layout is of the version its folder names (PgToolDirVersion: `version` is then
// that, "15"); any other is asked with `--version`. NotFound with one line naming
// the versions found, the version needed and `hint` (what the user can do instead)
// otherwise.
Result<PgTool> FindPgTool(std::string_view name, int min_major, std::string_view bin_dir,
                          std::string_view hint);

// "/usr/lib/postgresql/15/bin/pg_dump" -> {15, "15"} ("9.6" -> {9, "9.6"}): Debian's
// packages put major N's programs there and nowhere else, so the path tells the version
// without starting the program (a process start per candidate, on the dump's schema
// thread). {0, ""} for any other path.
std::pair<int, std::string> PgToolDirVersion(std::string_view path);

// "pg_dump (PostgreSQL) 15.18 (Debian ...)" -> {15, "15.18"}; major 0 if unparsable.
std::pair<int, std::string> ParsePgToolVersion(std::string_view version_output);

// The connection parameters of an open connection, for a child program (pg_dump,
// pg_restore): a libpq keyword string with no secret in it, so that none is ever on a
// command line (visible in ps). The password goes into `env` as PGPASSWORD; the client
// key's passphrase (sslpassword), which has no environment variable, into a private (0600)
// service file that `env` names (PGSERVICEFILE) and `conninfo` selects, removed when the
// last copy of this object is gone. InvalidArgument when the passphrase cannot be written
// to a service file (a line break, or white space at either end).
struct PgChildConnection {
  std::string conninfo;
  std::vector<std::pair<std::string, std::string>> env;
  std::shared_ptr<TempFile> service_file;
};
Result<PgChildConnection> ChildConnectionOf(PGconn* conn);

}  // namespace lakedump
