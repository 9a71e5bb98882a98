// The demo database: a SQLite file shaped like Vertica's VMart star schema,
// with the store_orders_fact table of the Vertica EXPORT TO PARQUET
// experiment and its dimensions. Deterministic: the same options give the same
// data, row for row, on every machine (splitmix64, no std:: distributions).
// Together the tables use every column type lakedump supports, NULLs, unicode
// text and a few edge values. Thread-safe (no shared state).
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace lakedump {

struct DemoOptions {
  uint64_t rows = 300000;    // store_orders_fact rows
  int small_tables = 0;      // small_table_0000... with 100 rows each
  uint64_t big_rows = 0;     // big_table rows (0: no big_table), for benchmarks
  uint64_t seed = 1;
  bool overwrite = false;    // replace an existing file at path
};

// Writes the database to `path` (through a temporary file renamed into place,
// so a failed run leaves nothing). An existing file without overwrite is
// AlreadyExists.
Status CreateDemoDatabase(const std::string& path, const DemoOptions& options);

}  // namespace lakedump
