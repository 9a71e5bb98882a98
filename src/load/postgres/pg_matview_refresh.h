// The materialized views a restore refreshes after the data (pg_schema_restore.h), several at
// once as pg_restore --jobs refreshes them: in waves, each wave the views that depend (through
// any chain of the archive's entries: views, functions...) on no view of a later or the same
// wave, a wave's views spread over the connections given, the next wave after the whole wave.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "source/postgres/pg_archive_toc.h"
#include "source/postgres/pg_conn.h"

namespace lakedump {

// `matviews`: indices into `entries` (MATERIALIZED VIEW entries, in the archive's order).
// Returns them in waves: a view comes in a wave after every view it depends on, directly or
// through other entries (the archive's dependencies); the archive's order within a wave.
std::vector<std::vector<size_t>> PgMatviewRefreshWaves(
    const std::vector<PgArchiveTocEntry>& entries, const std::vector<size_t>& matviews);

// REFRESH MATERIALIZED VIEW of each wave's views on `conns` (at least one; each runs one
// refresh at a time), wave after wave. After a wave in which a refresh failed (a view can
// read another through a function's body, which the archive's dependencies do not show), the
// views not refreshed yet are refreshed one by one on conns[0] in the archive's order (the
// order of the indices), and the first failure then, naming its view, fails the refresh.
Status RefreshMatviewWaves(const std::vector<PgConn*>& conns,
                           const std::vector<PgArchiveTocEntry>& entries,
                           const std::vector<std::vector<size_t>>& waves);

}  // namespace lakedump
