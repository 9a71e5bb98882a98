// Small metadata reads and writes (a _table.json each, Iceberg metadata objects): how many a
// run keeps in flight, and a bounded fan-out to run them. They are latency-bound, not
// CPU-bound, so they run wider than the table tasks, on a pool of their own.
//
// Functions; thread-safe.
#pragma once

#include <cstddef>
#include <functional>
#include <stop_token>

#include "base/status.h"

namespace lakedump {

// The most metadata requests in flight of one kind: a store answers small requests about as
// fast at 32 as at more, and each one in flight holds a thread.
inline constexpr size_t kMaxMetadataIoWidth = 32;

// `per_task` requests per table task (`table_parallelism`, at least 1), at least `at_least`
// and at most kMaxMetadataIoWidth. The defaults are a run's own metadata reads and writes
// (its _table.json commits and any read-back before the commit: 4 x table parallelism,
// 8 to 32; 1000 tables at 2 in flight cost a sharded dump's coordinator about 30 s on the
// simulated links of bench/scaleout.sh).
size_t MetadataIoWidth(int table_parallelism, size_t per_task = 4, size_t at_least = 8);

// Runs io(0) .. io(count - 1), at most `width` at a time, on a pool of its own (min(width,
// count) threads); returns the first error (the calls not started yet are not started),
// Cancelled when `stop` fires first, or OK. `io` is called from the pool's threads,
// concurrently.
Status ForEachMetadataIo(size_t count, size_t width, const std::function<Status(size_t)>& io,
                         std::stop_token stop = {});

}  // namespace lakedump
