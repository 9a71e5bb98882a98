// PumpBatches: reads a TableSource on its own thread while the calling thread
// consumes the batches (encodes them), so that reading and encoding one table
// overlap on two cores instead of taking turns. The two stages hand batches
// over through a bounded set of `depth` RowBatches that are recycled: memory
// is depth batches, never the table.
//
// The source is used by the reader thread only (one thread at a time, as
// TableSource requires); `consume` runs on the calling thread, in order.
// Thread-safe to call from any thread; blocks until both stages are done.
#pragma once

#include <cstddef>
#include <functional>
#include <stop_token>

#include "source/table_source.h"
#include "table/row_batch.h"

namespace lakedump {

// Reads `source` to its end in batches of up to `batch_rows` rows and calls
// `consume` on each non-empty batch. Returns the first error: the consumer's
// (the reader then stops after its current batch) or the source's; Cancelled
// when `stop` is requested. REQUIRES: depth >= 2.
Status PumpBatches(TableSource& source, size_t batch_rows, size_t depth, std::stop_token stop,
                   const std::function<Status(const RowBatch&)>& consume);

}  // namespace lakedump
