// A sharded dump's shared documents (docs/scale-out.md): the plan the coordinator writes
// create-only at DEST/_plan.json, the report each worker attempt writes at
// DEST/_shards/<I>/report-<attempt>.json.zst (or failed-<attempt>.json.zst), and the progress
// object it keeps at DEST/_shards/<I>/progress-<attempt>.json.zst while it runs (those two:
// zstd-compressed JSON; the plan: plain JSON). Also the assignment of
// work units to shards and the shard index read from a scheduler's environment.
//
// All of them are read by another process: their parsers treat them as hostile (size,
// nesting, types, ranges, keys). None carries credentials: the plan holds the source's
// identity (no host, no user, no password) and the options that must match, never a URL.
//
// Pure functions and values; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "dump/dump_options.h"
#include "lake/manifest.h"
#include "source/table_source.h"

namespace lakedump {

inline constexpr std::string_view kShardPlanKey = "_plan.json";
inline constexpr std::string_view kShardReportsPrefix = "_shards/";
inline constexpr int kMaxShards = 10000;
// Largest _plan.json, report or progress object read (a plan of ~100K units); for a report or
// progress object, both its stored (compressed) and its JSON size.
inline constexpr uint64_t kMaxShardDocumentBytes = 32ull << 20;
// A report's or progress object's name ends so: its JSON is stored zstd-compressed (its units
// repeat the same names and columns: a report of 500 small tables is 880 KB of JSON, 4 KB
// compressed, on the worker's link and again on the coordinator's).
inline constexpr std::string_view kShardDocumentSuffix = ".json.zst";

// One unit as the plan names it: a table (or --query NAME) and a range of it.
struct PlannedUnit {
  TableRef table;
  int index = 0;  // 0..count-1 within the table
  int count = 1;
  std::string range_predicate;  // backend-specific (checked by the worker's Database)
  uint64_t estimated_rows = 0;  // of the whole table
  uint64_t estimated_bytes = 0;
  bool is_query = false;  // --query NAME (its SQL comes from the worker's own options)
};

struct ShardPlan {
  std::string dump_id;      // the coordinator's run id: files, _table.json and manifest
  std::string created_at;   // ISO 8601 UTC
  std::string snapshot_id;  // what workers import (PostgreSQL: pg_export_snapshot())
  nlohmann::json source;    // Database::Identity(): what a worker's source must equal
  nlohmann::json options;   // ShardMatchingOptions(): what a worker's options must equal
  std::vector<std::vector<PlannedUnit>> shards;  // units per shard, largest first
  // Per shard, the attempt token the coordinator hands out with this plan (16 hex digits,
  // fresh for each plan): every attempt of the shard carries it in its report and progress
  // objects, and the coordinator (and a retry taking units over) accepts only documents that
  // carry the one handed out for their shard in the plan they work for.
  std::vector<std::string> attempt_tokens;
};

// A fresh attempt token (16 hex digits).
std::string NewAttemptToken();

// The work units of a table (WorkUnit) as plan entries.
PlannedUnit ToPlannedUnit(const WorkUnit& unit);

// Assigns units to `shards` shards balanced by estimated bytes: largest first, each to the
// shard with the fewest bytes so far (ties: the lower index). A unit's bytes are its table's
// estimated bytes divided by the table's unit count (at least 1, so that many empty tables
// spread too). Deterministic. REQUIRES: shards >= 1.
std::vector<std::vector<PlannedUnit>> AssignUnits(std::vector<PlannedUnit> units, int shards);

nlohmann::json ToJson(const ShardPlan& plan);
// The stored form of the plan (JSON). With `key` (a signed dump's --sign-key-file bytes), it
// carries "mac": HMAC-SHA256 under the key of the plan without it, so that a worker holding
// the key knows the plan is its coordinator's.
Result<std::string> SerializeShardPlan(const ShardPlan& plan, std::string_view key = {});
// Corruption naming `what` and the field for anything malformed: not JSON, another format,
// shards outside 1..kMaxShards, a unit index outside its count, a unit named twice, an id
// with characters other than [0-9A-Za-z-], a table name that is empty or not UTF-8, an
// attempt token missing for a shard. With `key`: PermissionDenied when its "mac" is missing or
// not the key's.
Result<ShardPlan> ParseShardPlan(std::string_view text, std::string_view what,
                                 std::string_view key = {});

// The options that shape the dump's data and that every worker must share with the
// coordinator: table selection, queries, compression, row groups, file size, partitioning,
// table format, signing (on/off, never the key) and `source_options` (the source's type
// policies, e.g. PostgreSQL's numeric mapping). Not the parallelism, which is each machine's.
nlohmann::json ShardMatchingOptions(const DumpOptions& options,
                                    const nlohmann::json& source_options);

// "" when `worker` (the worker's ShardMatchingOptions) equals the plan's; else the first
// option that differs, e.g. "compression (the plan: zstd; this worker: snappy)".
std::string OptionsMismatch(const nlohmann::json& plan, const nlohmann::json& worker);

// What one attempt of one shard produced for one unit: the files it wrote (keys under the
// table's folder, carrying the attempt's id) and the schema it read.
struct UnitOutput {
  TableRef table;
  int unit = 0;
  Schema schema;
  std::vector<DataFile> files;
};

struct ShardReport {
  std::string dump_id;
  int shard = 0;
  std::string attempt;  // the attempt's run id: "<dump_id>-s<I>-<8 hex>"
  std::string finished_at;
  bool failed = false;
  std::string error;  // failed: the worker's one-line error
  std::vector<UnitOutput> units;
  std::string token;  // the plan's attempt token for this shard (ShardPlan::attempt_tokens)
};

// "_shards/<I>/report-<attempt>.json.zst" or "_shards/<I>/failed-<attempt>.json.zst".
std::string ShardReportKey(int shard, std::string_view attempt, bool failed);
// A fresh attempt id for shard `shard` of dump `dump_id`.
std::string NewAttemptId(std::string_view dump_id, int shard);

// "_shards/<I>/progress-<attempt>.json.zst": what an attempt has finished so far (not a report).
std::string ShardProgressKey(int shard, std::string_view attempt);
// "<dump_id>-s<I>-": how every attempt id of shard I of dump `dump_id` begins.
std::string ShardAttemptPrefix(std::string_view dump_id, int shard);
// The attempt id in a data file's key of dump `dump_id` ("" when it carries none).
std::string AttemptOfKey(std::string_view key, std::string_view dump_id);
// "<schema>.<table>#<unit>": a unit's name in messages and sets.
std::string UnitName(const TableRef& table, int unit);

// The stored form of a report (compact JSON, zstd-compressed: kShardDocumentSuffix). With
// `key` (a signed dump), the JSON carries "mac", as the plan's (SerializeShardPlan).
Result<std::string> SerializeShardReport(const ShardReport& report, std::string_view key = {});
// Of the stored form, bounded (kMaxShardDocumentBytes, stored and decompressed) before it is
// decompressed; then as ParseShardPlan; the attempt must be one of the report's shard and
// dump, and each unit's files must lie under its table's folder and carry, in their names,
// the id of an attempt of the same shard of the same dump: this one's, or an earlier one's
// whose units this attempt took over (a retry resumes). No attempt can claim another shard's
// or another dump's files. With `key`: PermissionDenied when the "mac" is missing or not the
// key's (a report written by someone who does not hold the dump's key).
Result<ShardReport> ParseShardReport(std::string_view text, std::string_view what,
                                     std::string_view key = {});

// A progress object (ShardProgressKey): the units an attempt has finished so far, written
// while it runs and when it stops, so that a retry of the shard can take them over. The same
// shape as a report (format "lakedump-shard-progress", "written_at" for "finished_at"); its
// files must all carry its own attempt's id.
Result<std::string> SerializeShardProgress(const ShardReport& progress,
                                           std::string_view key = {});
Result<ShardReport> ParseShardProgress(std::string_view text, std::string_view what,
                                       std::string_view key = {});

// The shard index from the first of JOB_COMPLETION_INDEX (Kubernetes Indexed Job),
// SLURM_ARRAY_TASK_ID (Slurm job array), AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch) that is set.
// `getenv` is injectable for tests. InvalidArgument when none is set or it is not a number.
using GetEnvFn = char* (*)(const char*);
Result<int> ShardIndexFromEnv(GetEnvFn getenv_fn);
// SLURM_ARRAY_TASK_COUNT, when set (nullopt otherwise); InvalidArgument when not a number.
Result<std::optional<int>> ShardCountFromEnv(GetEnvFn getenv_fn);

}  // namespace lakedump
