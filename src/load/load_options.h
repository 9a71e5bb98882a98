// LoadOptions: everything a `lakedump load` run is configured with (the CLI
// fills it in; library users may too). A value; thread-safe to read.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "base/progress.h"
#include "format/parquet/parquet_reader.h"
#include "load/restore_filter.h"
#include "load/target_database.h"
#include "store/store_options.h"

namespace lakedump {

struct LoadOptions {
  // Table tasks running at once (>= 1).
  int table_parallelism = 4;
  // Data files of one table loaded at once (>= 1), further capped by the
  // target's max_sinks_per_table().
  int file_parallelism = 2;
  // Globs over "schema.table" or plain "table" (as `dump --tables`); empty =
  // all.
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  // --schema-map old=new: tables of dump schema `old` load into schema `new`.
  std::vector<std::pair<std::string, std::string>> schema_map;
  LoadIfExists if_exists = LoadIfExists::kFail;
  // Rows read from a Parquet file per batch (never crossing a row group).
  size_t batch_rows = 16384;
  // One budget for the decompression buffers of every data file read at once
  // (ParquetReaderOptions::budget): a row group declaring more fails its table.
  uint64_t decompression_memory = kDefaultDecompressionMemory;
  ProgressMode progress = ProgressMode::kNone;
  StoreOptions store;  // for opening the dump's store (the CLI does)
  // The dump's schema is code (docs/dump-format.md, "Threat model"): DEFAULT expressions,
  // CHECK constraints, recorded DDL run only when this is true -- `load --trust-dump`, or a
  // dump whose signature verified (--require-signature). False: tables are created from the
  // logical types and the structured metadata only, and nothing of the dump is executed.
  // The same gate holds for the schema archive (pg_restore) and SQLite's recorded CREATE
  // INDEX/VIEW/TRIGGER statements: without it, load says in one line how many schema objects
  // it did not restore and how to restore them.
  bool trust_schema = false;
  // --require-signature's key bytes (never printed): when set, the load refuses a dump whose
  // _manifest.sig, _table.json or data file SHA-256 does not check out (dump/signature.h), each
  // object checked as it is read, every data file before its table commits.
  std::string signing_key;
  // With signing_key: the SHA-256 the signed _manifest.json must have (the one whose
  // increments the load command checked); empty: any manifest whose signature verifies.
  std::string manifest_sha256;

  // --schema-only: the schema without data; --data-only: the data without the dump's
  // schema (tables are created as without an archive, or appended to).
  bool schema_only = false;
  bool data_only = false;
  // Directory of pg_restore (`--pg-bin-dir`); empty = the newest suitable one found.
  std::string pg_bin_dir;
  // pg_restore --jobs for the post-data section (indexes, constraints); 0 = table_parallelism.
  int restore_jobs = 0;
  // pg_restore's -t/-n/-N (restore_filter.h); tables must also pass include/exclude.
  RestoreFilter filter;
  // pg_restore's --no-owner, --no-privileges, --role, and --role-map.
  RestoreRoles roles;
};

// "fail" | "replace" | "append" (InvalidArgument otherwise).
Result<LoadIfExists> ParseLoadIfExists(std::string_view text);
std::string_view LoadIfExistsName(LoadIfExists value);
// "old=new" -> {old, new}; InvalidArgument naming the flag otherwise.
Result<std::pair<std::string, std::string>> ParseSchemaMapping(std::string_view text);

}  // namespace lakedump
