// The parsed arguments of `lakedump dump` and what the dump's command files build from them:
// the DumpOptions, the source's options, the options a sharded dump's processes must share,
// and the rules that refuse option combinations (CheckDumpFlagRules). Shared by
// dump_command.cc (single machine and coordinator), dump_shard_command.cc (a worker) and
// dump_increment_command.cc (incremental dumps).
//
// Values and pure functions; thread-compatible.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "cli/cli_util.h"
#include "cli/numeric_option.h"
#include "dump/dump_options.h"

namespace lakedump::cli {

struct DumpArgs {
  std::string source;
  std::string dest;
  int table_parallelism = DefaultParallelism();
  std::vector<std::string> tables;
  std::vector<std::string> exclude;
  std::vector<std::string> queries;
  std::string compression = "snappy";
  int compression_level = 0;
  uint64_t row_group_rows = 122880;
  std::string row_group_bytes = "64MiB";
  std::string file_size = "0";
  std::string split_size = "auto";
  std::string partition_by;
  int max_partitions = 1000;
  std::string if_exists = "fail";
  bool delete_foreign = false;  // --delete-foreign (with --if-exists overwrite)
  bool dry_run = false;         // --dry-run (with --if-exists overwrite)
  std::string wait_for_lock = "0";  // --wait-for-lock alone: "forever"
  std::string table_format = "parquet";
  std::string progress = "auto";
  bool json = false;
  std::string trace;
  size_t batch_rows = DumpOptions{}.batch_rows;
  int read_ahead = DumpOptions{}.read_ahead_batches;
  std::string sqlite_type_mismatch = "fail";
  int source_connections = 0;
  std::string pg_numeric = "string", pg_infinity = "clamp", pg_numeric_nan = "error";
  bool pg_materialized_views = false;
  std::string lock_wait_timeout = "10m";  // --lock-wait-timeout DURATION|forever
  std::string sign_key_file;
  std::string schema_from = "pg_dump";
  std::string pg_bin_dir;
  // Sharded dumps (docs/scale-out.md).
  int shards = 0;
  bool coordinate = false;
  std::string shard;  // I or "auto"; empty: not a worker
  std::string shard_timeout = "24h";
  std::string plan_timeout = "10m";
  bool no_snapshot = false;  // --no-snapshot: the workers read the source each on their own
  bool incremental = false;
  S3Flags s3;

  // Any of the sharding flags: this process is a coordinator or a worker (or misused them).
  bool sharded() const { return shards > 0 || coordinate || !shard.empty(); }
};

// A worker whose coordinator (and so the snapshot it exported) is gone.
inline constexpr int kExitCoordinatorGone = 3;

// --wait-for-lock: a duration, or "forever" (the flag alone).
NumericRange WaitForLockRange();

// The options of a dump run; InvalidArgument naming the flag that is wrong.
Result<DumpOptions> BuildOptions(const DumpArgs& a);

// The source's options (type policies, connections) for OpenDatabase.
NumericRange LockWaitTimeoutRange();  // --lock-wait-timeout: 0 to 24h, or "forever"
SourceOptions BuildSourceOptions(const DumpArgs& a, const DumpOptions& options);

// What a sharded dump's coordinator and workers must agree on (dump/shard/shard_plan.h),
// --no-snapshot included (dump/no_snapshot.h).
nlohmann::json MatchingOptions(const DumpArgs& a, const DumpOptions& options);

// Progress lines on stderr ("lakedump: ..."), or none with --progress none.
std::function<void(const std::string&)> LogLines(ProgressMode mode);

// One refusal of an option combination: when `refuses` holds, the dump stops before any
// work with `message` and `exit_code`.
struct DumpFlagRule {
  bool (*refuses)(const DumpArgs& a, const DumpOptions& options);
  const char* message;
  int exit_code;
};

// Every option-combination rule of `lakedump dump`, in the order they are checked.
const std::vector<DumpFlagRule>& DumpFlagRules();

// The first rule of DumpFlagRules() that refuses `a`: its message as InvalidArgument and its
// exit code in *exit_code. OK when none does.
Status CheckDumpFlagRules(const DumpArgs& a, const DumpOptions& options, int* exit_code);

}  // namespace lakedump::cli
