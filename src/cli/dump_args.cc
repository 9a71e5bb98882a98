#include "cli/dump_args.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "base/units.h"
#include "lake/no_snapshot.h"
#include "dump/shard/shard_plan.h"
#include "lake/signature.h"

namespace lakedump::cli {

// The numeric options' ranges are checked while parsing (numeric_option.h).
NumericRange WaitForLockRange() {
  return {NumericRange::Kind::kDuration, 0, 30LL * 86'400'000, "", "forever"};
}

NumericRange LockWaitTimeoutRange() {
  return {NumericRange::Kind::kDuration, 0, kMaxLockWaitMs, "", "forever"};
}

Result<DumpOptions> BuildOptions(const DumpArgs& a) {
  DumpOptions o;
  o.table_parallelism = a.table_parallelism;
  o.include = a.tables;
  o.exclude = a.exclude;
  for (const std::string& q : a.queries) {
    const size_t eq = q.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == q.size()) {
      return Status::InvalidArgument(
          fmt::format("--query \"{}\": expected NAME=SQL, e.g. --query 'big=SELECT * FROM t "
                      "WHERE x > 10'",
                      q));
    }
    o.queries.push_back(NamedQuery{q.substr(0, eq), q.substr(eq + 1)});
  }
  auto codec = ParseCodec(a.compression);
  if (!codec.ok()) {
    return Status::InvalidArgument(fmt::format(
        "--compression \"{}\": expected none, snappy, zstd, gzip or lz4_raw", a.compression));
  }
  o.parquet.codec = *codec;
  o.parquet.compression_level = a.compression_level;
  o.parquet.row_group_rows = a.row_group_rows;
  LD_ASSIGN_OR_RETURN(o.parquet.row_group_bytes, ParseSize(a.row_group_bytes));
  auto file_size = ParseSize(a.file_size);
  if (!file_size.ok()) return file_size.status().WithContext("--file-size");
  o.file_size = *file_size;
  if (a.split_size == "auto") {
    // Measured (docs/performance.md): PostgreSQL gains from 2 ranges per big
    // table on 2 cores. SQLite keeps 1GiB: a 10M-row, 1 GiB table read as one
    // range with read-ahead (reader and encoder on two threads) beat 4 ranges
    // of 256MiB in every paired run on a busy 2-core machine, for 20% less CPU
    // and half the RSS.
    if (IsPostgresSource(a.source)) o.split_bytes = 256ull << 20;
    o.split_bytes_auto = true;
  } else {
    auto split = ParseSize(a.split_size);
    if (!split.ok()) return split.status().WithContext("--split-size");
    o.split_bytes = *split;
  }
  o.partition_by = a.partition_by;
  o.max_open_partitions = a.max_partitions;
  LD_ASSIGN_OR_RETURN(o.if_exists, ParseIfExists(a.if_exists));
  o.delete_foreign = a.delete_foreign;
  // CLI11 does not run the range check on an empty value ("--wait-for-lock ''"): run it here.
  if (Status s = WaitForLockRange().Check(a.wait_for_lock); !s.ok()) {
    return Status::InvalidArgument("--wait-for-lock: " + s.message());
  }
  if (a.wait_for_lock == "forever") {
    o.wait_for_lock.reset();
  } else {
    auto wait = ParseDuration(a.wait_for_lock);
    if (!wait.ok()) return wait.status().WithContext("--wait-for-lock");
    o.wait_for_lock = *wait;
  }
  LD_RETURN_IF_ERROR(ParseLockWaitTimeout(a.lock_wait_timeout).status());
  LD_ASSIGN_OR_RETURN(o.table_format, ParseTableFormat(a.table_format));
  LD_ASSIGN_OR_RETURN(o.progress, ParseProgressMode(a.progress));
  if (a.json && a.progress == "auto") o.progress = ProgressMode::kNone;
  o.trace_file = a.trace;
  o.batch_rows = a.batch_rows;
  o.read_ahead_batches = a.read_ahead;
  if (a.sqlite_type_mismatch != "fail" && a.sqlite_type_mismatch != "string") {
    return Status::InvalidArgument("--sqlite-type-mismatch: expected fail or string");
  }
  if (a.schema_from != "pg_dump" && a.schema_from != "lakedump") {
    return Status::InvalidArgument(
        fmt::format("--schema-from \"{}\": expected pg_dump or lakedump", a.schema_from));
  }
  o.schema_from_source_tool = a.schema_from == "pg_dump";
  o.shards = a.coordinate ? a.shards : 0;
  o.pg_bin_dir = a.pg_bin_dir;
  // Local folders: one batch of fsyncs before the manifest instead of two per file.
  o.store.local_deferred_sync = true;
  LD_RETURN_IF_ERROR(ApplyS3Flags(a.s3, &o.store.s3));
  if (!a.sign_key_file.empty()) {
    LD_ASSIGN_OR_RETURN(o.sign_key, ReadSigningKey(a.sign_key_file));
  }
  return o;
}

SourceOptions BuildSourceOptions(const DumpArgs& a, const DumpOptions& options) {
  SourceOptions source_options;
  source_options.sqlite_lax_types = a.sqlite_type_mismatch == "string";
  source_options.sqlite_exact_values = options.table_format != TableFormat::kIceberg;
  source_options.pg_numeric = a.pg_numeric;
  source_options.pg_infinity = a.pg_infinity;
  source_options.pg_numeric_nan = a.pg_numeric_nan;
  source_options.pg_materialized_views = a.pg_materialized_views;
  source_options.pg_lock_wait_timeout = a.lock_wait_timeout;
  source_options.connections =
      a.source_connections > 0 ? a.source_connections : std::max(1, options.table_parallelism);
  return source_options;
}

nlohmann::json MatchingOptions(const DumpArgs& a, const DumpOptions& options) {
  nlohmann::json m =
      ShardMatchingOptions(options, {{"pg_numeric", a.pg_numeric},
                                     {"pg_infinity", a.pg_infinity},
                                     {"pg_numeric_nan", a.pg_numeric_nan},
                                     {"pg_materialized_views", a.pg_materialized_views}});
  // Every process of the dump has it or none (a worker importing a snapshot that the
  // coordinator released would read nothing consistent, and say nothing of it).
  if (a.no_snapshot) m[kNoSnapshotKey] = true;
  return m;
}

std::function<void(const std::string&)> LogLines(ProgressMode mode) {
  if (mode == ProgressMode::kNone) return {};
  return [](const std::string& line) {
    std::fprintf(stderr, "lakedump: %s\n", OneLine(line).c_str());
  };
}

const std::vector<DumpFlagRule>& DumpFlagRules() {
  using A = const DumpArgs&;
  using O = const DumpOptions&;
  static const std::vector<DumpFlagRule> kRules = {
      // The sharding flags make sense together (docs/scale-out.md).
      {[](A a, O) { return a.coordinate && !a.shard.empty(); },
       "--coordinate and --shard exclude each other: the coordinator runs no shard", kExitUsage},
      {[](A a, O) { return a.coordinate && a.shards == 0; },
       "--coordinate needs --shards N (the number of workers)", kExitUsage},
      {[](A a, O) { return a.shards > 0 && !a.coordinate && a.shard.empty(); },
       "--shards N: add --coordinate (the coordinator) or --shard I|auto (a worker)", kExitUsage},
      {[](A a, O o) { return a.sharded() && o.table_format == TableFormat::kIceberg; },
       "--table-format iceberg cannot be combined with --shards", kExitUsage},
      {[](A a, O) { return a.no_snapshot && !a.sharded(); },
       "--no-snapshot is for sharded dumps (--shards N): a dump on one machine reads one "
       "snapshot",
       kExitUsage},
      // What an overwrite may delete (docs/dump-format.md, "The run journal").
      {[](A a, O o) { return a.delete_foreign && o.if_exists != IfExists::kOverwrite; },
       "--delete-foreign goes with --if-exists overwrite only", kExitUsage},
      {[](A a, O o) { return a.dry_run && o.if_exists != IfExists::kOverwrite; },
       "--dry-run goes with --if-exists overwrite (it prints what the overwrite would delete)",
       kExitUsage},
      // Incremental dumps (docs/incremental.md).
      {[](A a, O) { return a.incremental && a.sharded(); },
       "--incremental cannot be combined with --shards (a sharded incremental dump is not "
       "supported yet)",
       kExitUsage},
      {[](A a, O) { return a.incremental && !IsPostgresSource(a.source); },
       "--incremental needs a PostgreSQL source (it reads a logical replication slot); SQLite "
       "has no change stream: dump it whole, without --incremental",
       kExitUsage},
      {[](A a, O o) {
         return a.incremental && o.table_format == TableFormat::kIceberg &&
                !o.partition_by.empty();
       },
       "--incremental with --table-format iceberg cannot be combined with --partition-by "
       "(increments of partitioned Iceberg tables are not supported yet)",
       kExitUsage},
      {[](A a, O o) { return a.incremental && !o.queries.empty(); },
       "--incremental cannot follow --query results: dump tables", kExitUsage},
  };
  return kRules;
}

Status CheckDumpFlagRules(const DumpArgs& a, const DumpOptions& options, int* exit_code) {
  for (const DumpFlagRule& rule : DumpFlagRules()) {
    if (rule.refuses(a, options)) {
      *exit_code = rule.exit_code;
      return Status::InvalidArgument(rule.message);
    }
  }
  return Status::OK();
}

}  // namespace lakedump::cli
