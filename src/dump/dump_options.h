// DumpOptions: everything a dump run is configured with (the CLI fills it in;
// library users may too). A value; thread-safe to read.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/progress.h"
#include "format/parquet/parquet_writer.h"
#include "store/store_options.h"

namespace lakedump {

class ObjectStore;

enum class IfExists : uint8_t { kFail, kOverwrite, kResume };
// parquet: data files plus lakedump's JSON; iceberg: also an Apache Iceberg v2
// table per table folder (metadata/, docs/iceberg.md).
enum class TableFormat : uint8_t { kParquet, kIceberg };

// "fail" | "overwrite" | "resume" (InvalidArgument otherwise).
Result<IfExists> ParseIfExists(std::string_view text);
std::string_view IfExistsName(IfExists value);
// "parquet" | "iceberg" (InvalidArgument otherwise).
Result<TableFormat> ParseTableFormat(std::string_view text);
std::string_view TableFormatName(TableFormat value);

struct NamedQuery {
  std::string name;  // becomes the table name, under schema "query"
  std::string sql;
};

struct DumpOptions {
  // Table tasks running at once (>= 1).
  int table_parallelism = 4;
  // Globs over "schema.table" or plain "table" ('*', '?'); empty = every table.
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  std::vector<NamedQuery> queries;

  ParquetWriterOptions parquet;
  // A table's file rolls over to the next one past about this many bytes; 0 = never.
  uint64_t file_size = 0;
  // Hive-style col=value/ folders by this column; empty = none.
  std::string partition_by;
  // Open partition writers per table task; past it the dump fails (see docs).
  int max_open_partitions = 1000;

  TableFormat table_format = TableFormat::kParquet;
  // An increment's re-dump over an Iceberg base (docs/iceberg.md, "Increments"): the data
  // files carry the field ids that continue each table's Iceberg history in this store (the
  // base's DEST), as a later Iceberg dump's would, so that the re-dump's overwrite snapshot
  // continues the history (schema evolution). Borrowed; nullptr: ids by position.
  ObjectStore* iceberg_ids_from = nullptr;

  // An incremental base's Iceberg tables followed by their changes: "schema.table" -> the
  // key columns its increments apply changes by. Each such table with a key of one integer
  // column gets a key index (dump/iceberg/key_index.h) written beside its snapshot's
  // metadata, for its first increment.
  std::map<std::string, std::vector<std::string>> iceberg_key_index;

  IfExists if_exists = IfExists::kFail;
  // --delete-foreign (with overwrite): objects at DEST that no run journal or manifest names
  // are deleted too, instead of refusing the destination (lake/run_journal.h).
  bool delete_foreign = false;
  // The destination's lease (docs/dump-format.md): how long to wait for
  // another run's lease to go (0 = refuse at once, nullopt = no limit), and how
  // often this run renews its own (stale after 3 intervals without renewal).
  std::optional<std::chrono::milliseconds> wait_for_lock{std::chrono::milliseconds(0)};
  std::chrono::milliseconds lease_renew_interval{10'000};
  // Rows asked from a source per Next().
  size_t batch_rows = 16384;
  // Batches a big work unit's reader thread may fill ahead of its encoder
  // (memory: this many batches per such unit); < 2 = read and encode in turn.
  // 8 batches of 16,384 rows cover one default row group (122,880 rows), so the
  // reader keeps going while the encoder flushes a row group: with 3 it stalled,
  // and a 10M-row SQLite table took 6.2-6.6 s instead of 5.2 (docs/performance.md).
  int read_ahead_batches = 8;
  // Big tables are split into work units of about this many bytes (Database::Split).
  uint64_t split_bytes = 1ull << 30;
  // split_bytes is the default (`--split-size auto`): a sharded dump's planner may lower it so
  // that the units balance over the workers (planner.cc, ShardSplitBytes).
  bool split_bytes_auto = false;

  // The schema beyond the tables (docs/dump-format.md, "Schema"): true = the source's
  // own tool records it (PostgreSQL: pg_dump's schema-only archive; `--schema-from
  // pg_dump`, the default); false = lakedump's per-table DDL only (`--schema-from
  // lakedump`). Where pg_dump/pg_restore are (`--pg-bin-dir`); empty = search.
  bool schema_from_source_tool = true;
  std::string pg_bin_dir;

  ProgressMode progress = ProgressMode::kAuto;
  std::string trace_file;  // Chrome trace-event JSON; empty = none

  // A sharded dump's coordinator: the number of workers (recorded in the manifest's
  // options); 0 = an ordinary dump (docs/scale-out.md).
  int shards = 0;

  StoreOptions store;
  // --sign-key-file's bytes (never recorded or printed); empty = an unsigned dump. Signed:
  // SHA-256 of every object in the metadata, and _manifest.sig (dump/signature.h).
  std::string sign_key;
  // The lease's renewals and waits read this clock (borrowed; tests pass a FakeClock).
  Clock* clock = &SystemClock();
};

// The options as recorded in _manifest.json (no credentials).
nlohmann::json DumpOptionsToJson(const DumpOptions& options);

}  // namespace lakedump
