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
// refresh at a time), wave after wave. The first failure, naming its view, once the
// refreshes running are over; no refresh starts after it.
Status RefreshMatviewWaves(const std::vector<PgConn*>& conns,
                           const std::vector<PgArchiveTocEntry>& entries,
                           const std::vector<std::vector<size_t>>& waves);

}  // namespace lakedump
