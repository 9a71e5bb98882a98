// DumpOptions small enough for unit tests: many batches and row groups out of a few thousand
// rows, no progress line. A value; each test file sets what it varies.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dump/dump_options.h"

namespace lakedump {

inline DumpOptions SmallDumpOptions(int table_parallelism = 2, size_t batch_rows = 500,
                                    uint64_t row_group_rows = 1000) {
  DumpOptions o;
  o.table_parallelism = table_parallelism;
  o.batch_rows = batch_rows;
  o.parquet.row_group_rows = row_group_rows;
  o.progress = ProgressMode::kNone;
  return o;
}

}  // namespace lakedump
