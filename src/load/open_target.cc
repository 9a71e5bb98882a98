#include "load/open_target.h"

#include <fmt/format.h>

#include "load/postgres/postgres_target.h"
#include "load/sqlite/sqlite_target.h"

namespace lakedump {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

bool IsPostgresUrl(std::string_view url) {
  return url.starts_with("postgres://") || url.starts_with("postgresql://") ||
         url.find("host=") != std::string_view::npos ||
         url.find("dbname=") != std::string_view::npos;
}

Result<std::unique_ptr<TargetDatabase>> OpenTargetDatabase(std::string_view url,
                                                           const TargetOptions& options) {
  if (IsPostgresUrl(url)) {
    PostgresTargetOptions po;
    po.max_connections = std::max(1, options.connections);
    po.lock_timeout_ms = options.lock_timeout_ms;
    po.disable_triggers = options.disable_triggers;
    return OpenPostgresTarget(std::string(url), po);
  }
  std::string path;
  if (url.starts_with("sqlite://")) {
    path = std::string(url.substr(9));  // sqlite:///abs -> /abs, sqlite://rel -> rel
  } else if (url.starts_with("sqlite:")) {
    path = std::string(url.substr(7));
  } else if (url.find("://") == std::string_view::npos &&
             (EndsWith(url, ".sqlite") || EndsWith(url, ".sqlite3") || EndsWith(url, ".db"))) {
    path = std::string(url);
  } else if (const size_t scheme = url.find("://"); scheme != std::string_view::npos) {
    return Status::InvalidArgument(
        fmt::format("target: unknown kind \"{}://\" (use "
                    "sqlite:///path/db.sqlite, a path ending in "
                    ".sqlite or .db, or postgres://...)",
                    url.substr(0, std::min<size_t>(scheme, 32))));
  } else {
    return Status::InvalidArgument(
        fmt::format("target {}: not a SQLite file name (end it in .sqlite or .db, or write "
                    "sqlite:///path)",
                    url));
  }
  if (path.empty()) return Status::InvalidArgument("target: empty SQLite path");
  SqliteTargetOptions so;
  so.busy_timeout_ms = options.busy_timeout_ms;
  return OpenSqliteTarget(path, so);
}

}  // namespace lakedump
