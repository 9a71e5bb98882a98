// `lakedump dump SOURCE DEST`: the export service driven from the command line.
#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <set>
#include <memory>
#include <optional>
#include <thread>

#include "base/units.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/dump_failure.h"
#include "cli/unfinished_writes.h"
#include "dump/signature.h"
#include "cli/numeric_option.h"
#include "dump/export_service.h"
#include "dump/manifest.h"
#include "dump/progress.h"
#include "dump/shard/shard_coordinator.h"
#include "dump/shard/shard_worker.h"
#include "dump/trace.h"
#include "dump/incremental/incremental_base.h"
#include "dump/incremental/increment_runner.h"
#include "source/postgres/pgoutput.h"

namespace lakedump::cli {
namespace {

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
  std::string wait_for_lock = "0";  // --wait-for-lock alone: "forever"
  std::string table_format = "parquet";
  std::string progress = "auto";
  bool json = false;
  std::string trace;
  size_t batch_rows = 16384;
  int read_ahead = 3;
  std::string sqlite_type_mismatch = "fail";
  int source_connections = 0;
  std::string pg_numeric = "string", pg_infinity = "clamp", pg_numeric_nan = "error";
  bool pg_materialized_views = false;
  std::string sign_key_file;
  std::string schema_from = "pg_dump";
  std::string pg_bin_dir;
  // Sharded dumps (docs/scale-out.md).
  int shards = 0;
  bool coordinate = false;
  std::string shard;  // I or "auto"; empty: not a worker
  std::string shard_timeout = "24h";
  std::string plan_timeout = "10m";
  bool incremental = false;
  S3Flags s3;
};

// A worker whose coordinator (and so the snapshot it exported) is gone.
constexpr int kExitCoordinatorGone = 3;

// The numeric options' ranges are checked while parsing (numeric_option.h).
// --wait-for-lock: a duration, or "forever" (the flag alone).
NumericRange WaitForLockRange() {
  return {NumericRange::Kind::kDuration, 0, 30LL * 86'400'000, "", "forever"};
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
    // Measured (docs/benchmarks.md): PostgreSQL gains from 2 ranges per big
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

nlohmann::json Summary(const DumpResult& r, const std::string& dest, const StoreStats& stats) {
  const DumpManifest& m = r.manifest;
  return {{"status", "ok"},
          {"retries", stats.retries},
          {"throttles", stats.throttles},
          {"dump_id", m.dump_id},
          {"destination", dest},
          {"tables", m.tables.size()},
          {"reused_tables", r.reused_tables},
          {"removed_unfinished_writes", r.removed_unfinished},
          {"rows", m.total_rows},
          {"files", m.total_files},
          {"bytes", m.total_bytes},
          {"seconds", m.seconds},
          {"signed", m.sha256},
          {"rows_per_second", m.seconds > 0 ? m.total_rows / m.seconds : 0.0}};
}

SourceOptions BuildSourceOptions(const DumpArgs& a, const DumpOptions& options) {
  SourceOptions source_options;
  source_options.sqlite_lax_types = a.sqlite_type_mismatch == "string";
  source_options.pg_numeric = a.pg_numeric;
  source_options.pg_infinity = a.pg_infinity;
  source_options.pg_numeric_nan = a.pg_numeric_nan;
  source_options.pg_materialized_views = a.pg_materialized_views;
  source_options.connections =
      a.source_connections > 0 ? a.source_connections : std::max(1, options.table_parallelism);
  return source_options;
}

// What coordinator and workers must agree on (dump/shard/shard_plan.h).
nlohmann::json MatchingOptions(const DumpArgs& a, const DumpOptions& options) {
  return ShardMatchingOptions(options, {{"pg_numeric", a.pg_numeric},
                                        {"pg_infinity", a.pg_infinity},
                                        {"pg_numeric_nan", a.pg_numeric_nan},
                                        {"pg_materialized_views", a.pg_materialized_views}});
}

// The sharding flags make sense together; InvalidArgument (exit 2) otherwise.
Status CheckShardFlags(const DumpArgs& a, const DumpOptions& options) {
  if (a.shards == 0 && !a.coordinate && a.shard.empty()) return Status::OK();
  if (a.coordinate && !a.shard.empty()) {
    return Status::InvalidArgument("--coordinate and --shard exclude each other: the "
                                   "coordinator runs no shard");
  }
  if (a.coordinate && a.shards == 0) {
    return Status::InvalidArgument("--coordinate needs --shards N (the number of workers)");
  }
  if (!a.coordinate && a.shard.empty()) {
    return Status::InvalidArgument(
        "--shards N: add --coordinate (the coordinator) or --shard I|auto (a worker)");
  }
  if (!IsPostgresSource(a.source)) {
    return Status::InvalidArgument(
        "--shards: only PostgreSQL sources can be dumped by several workers (SQLite has no "
        "snapshot that other processes can import): dump it on one machine");
  }
  if (options.table_format == TableFormat::kIceberg) {
    return Status::InvalidArgument("--table-format iceberg cannot be combined with --shards");
  }
  if (a.coordinate && options.if_exists == IfExists::kResume) {
    return Status::InvalidArgument(
        "--if-exists resume cannot be combined with --shards (use fail or overwrite)");
  }
  return Status::OK();
}

std::function<void(const std::string&)> LogLines(ProgressMode mode) {
  if (mode == ProgressMode::kNone) return {};
  return [](const std::string& line) {
    std::fprintf(stderr, "lakedump: %s\n", OneLine(line).c_str());
  };
}

int RunWorker(const DumpArgs& a) {
  InterruptWatcher interrupt("this attempt reports nothing; the shard can be run again");
  auto options = BuildOptions(a);
  if (!options.ok()) return PrintError(options.status(), kExitUsage);
  if (Status s = CheckShardFlags(a, *options); !s.ok()) return PrintError(s, kExitUsage);
  WorkerOptions worker;
  if (a.shard == "auto") {
    auto index = ShardIndexFromEnv(&std::getenv);
    if (!index.ok()) return PrintError(index.status(), kExitUsage);
    worker.shard = *index;
    auto count = ShardCountFromEnv(&std::getenv);
    if (!count.ok()) return PrintError(count.status(), kExitUsage);
    worker.shards = a.shards > 0 ? a.shards : count->value_or(0);
    if (worker.shards == 0) {
      return PrintError(Status::InvalidArgument("--shard auto: pass --shards N (only Slurm "
                                                "sets SLURM_ARRAY_TASK_COUNT)"),
                        kExitUsage);
    }
  } else {
    int index = -1;
    const auto [end, ec] = std::from_chars(a.shard.data(), a.shard.data() + a.shard.size(), index);
    if (ec != std::errc() || end != a.shard.data() + a.shard.size() || index < 0) {
      return PrintError(Status::InvalidArgument(fmt::format(
                            "--shard \"{}\": expected a shard index (0 to N-1) or auto", a.shard)),
                        kExitUsage);
    }
    worker.shard = index;
    worker.shards = a.shards;
    if (worker.shards == 0) {
      return PrintError(Status::InvalidArgument("--shard I needs --shards N"), kExitUsage);
    }
  }
  if (worker.shard >= worker.shards) {
    return PrintError(Status::InvalidArgument(fmt::format(
                          "--shard {} is out of range for --shards {} (0 to {})", worker.shard,
                          worker.shards, worker.shards - 1)),
                      kExitUsage);
  }
  worker.plan_timeout = *ParseDuration(a.plan_timeout);
  worker.matching = MatchingOptions(a, *options);
  worker.log = LogLines(options->progress);

  auto db = OpenDatabase(a.source, BuildSourceOptions(a, *options));
  if (!db.ok()) {
    return PrintError(db.status(), db.status().code() == Code::kInvalidArgument ? kExitUsage
                                                                                : kExitFailed);
  }
  options->store.stop = interrupt.token();
  std::unique_ptr<ObjectStore> store;
  if (int rc = OpenCommandStore(a.dest, a.s3, options->store, &store); rc != kExitOk) return rc;
  WorkerFailure failure;
  auto result = RunShardWorker(**db, *store, *options, worker, &failure, interrupt.token());
  if (!result.ok()) {
    const Status& s = result.status();
    const int code = failure.coordinator_gone ? kExitCoordinatorGone
                     : s.code() == Code::kInvalidArgument && !failure.started ? kExitUsage
                                                                              : kExitFailed;
    if (a.json) {
      std::printf("%s\n", DisplayJson(nlohmann::json({{"status", "error"},
                                                       {"shard", worker.shard},
                                                       {"error", OneLine(s.message())}}))
                              .c_str());
    }
    if (interrupt.interrupted()) return PrintError(Status::Cancelled("interrupted"), kExitFailed);
    return PrintError(s, code);
  }
  const WorkerResult& r = *result;
  std::string line;
  switch (r.outcome) {
    case WorkerOutcome::kDone:
      line = fmt::format("shard {} of {} of dump {}: {} units, {} rows, {} files, {} (attempt {})",
                         worker.shard, worker.shards, r.dump_id, r.units,
                         FormatCount(static_cast<double>(r.rows)), r.files,
                         FormatBytes(r.bytes), r.attempt);
      break;
    case WorkerOutcome::kAlreadyReported:
      line = fmt::format("shard {} of dump {} was already dumped by attempt {}: nothing to do",
                         worker.shard, r.dump_id, r.attempt);
      break;
    case WorkerOutcome::kAlreadyCommitted:
      line = fmt::format("dump {} is committed already: nothing to do", r.dump_id);
      break;
  }
  if (a.json) {
    static constexpr const char* kOutcome[] = {"done", "already_reported", "already_committed"};
    std::printf("%s\n", DisplayJson(nlohmann::json(
                                        {{"status", "ok"},
                                         {"outcome", kOutcome[static_cast<int>(r.outcome)]},
                                         {"dump_id", r.dump_id},
                                         {"shard", worker.shard},
                                         {"attempt", r.attempt},
                                         {"units", r.units},
                                         {"rows", r.rows},
                                         {"files", r.files},
                                         {"bytes", r.bytes}}))
                            .c_str());
  } else {
    std::printf("%s\n", line.c_str());
  }
  return kExitOk;
}

std::string TableList(const std::vector<RedumpedTable>& tables) {
  std::string out;
  for (const RedumpedTable& t : tables) {
    out += (out.empty() ? "" : "; ") + t.table.QualifiedName() + ": " + t.reason;
  }
  return out;
}

// The next increment of an incremental dump at DEST (docs/incremental.md).
int RunIncrement(const DumpArgs& a, const DumpOptions& options, SourceOptions source_options,
                 const DumpManifest& base, InterruptWatcher& interrupt) {
  // The increment decodes with the type policies of its base, whatever the flags say.
  if (base.incremental.contains("pg_options")) {
    const nlohmann::json& o = base.incremental["pg_options"];
    source_options.pg_numeric = o.value("numeric", source_options.pg_numeric);
    source_options.pg_infinity = o.value("infinity", source_options.pg_infinity);
    source_options.pg_numeric_nan = o.value("numeric_nan", source_options.pg_numeric_nan);
  }
  auto pg = PostgresOptionsFrom(source_options);
  if (!pg.ok()) return PrintError(pg.status(), kExitUsage);
  DumpOptions dump = options;
  dump.store.stop = interrupt.token();
  std::unique_ptr<ObjectStore> store, lease_store;
  if (int rc = OpenCommandStore(a.dest, a.s3, dump.store, &store); rc != kExitOk) return rc;
  StoreOptions lease_options = dump.store;
  lease_options.stop = {};
  if (int rc = OpenCommandStore(a.dest, a.s3, lease_options, &lease_store); rc != kExitOk) {
    return rc;
  }
  IncrementRequest request{a.source, *pg, dump};
  auto result = RunIncrement(store.get(), lease_store.get(), base, request, interrupt.token());
  if (!result.ok()) {
    Status s = result.status();
    if (interrupt.interrupted()) s = Status::Cancelled("interrupted: the increment was not committed");
    if (a.json) {
      std::printf("%s\n", DisplayJson(nlohmann::json(
                            {{"status", "error"}, {"error", OneLine(s.message())}}))
                            .c_str());
    }
    return PrintError(s.WithContext("increment not committed"),
                      s.code() == Code::kInvalidArgument || s.code() == Code::kNotFound
                          ? kExitUsage
                          : kExitFailed);
  }
  for (const std::string& w : result->warnings) {
    std::fprintf(stderr, "lakedump: warning: %s\n", OneLine(w).c_str());
  }
  const IncrementManifest& m = result->manifest;
  if (a.json) {
    nlohmann::json j = ToJson(m);
    j["status"] = "ok";
    j.erase("tables");
    std::printf("%s\n", DisplayJson(j).c_str());
    return kExitOk;
  }
  std::printf("increment %d: %s changes in %s transactions (%zu change files), WAL %s to %s, "
              "in %s to %s\n",
              m.sequence, FormatCount(static_cast<double>(m.changes)).c_str(),
              FormatCount(static_cast<double>(m.transactions)).c_str(), m.change_files.size(),
              FormatLsn(m.start_lsn).c_str(), FormatLsn(m.end_lsn).c_str(),
              FormatSeconds(m.seconds).c_str(), store->Describe().c_str());
  if (!m.redumped.empty()) {
    std::printf("re-dumped whole (%zu): %s\n", m.redumped.size(), TableList(m.redumped).c_str());
  }
  for (const TableRef& t : m.dropped) {
    std::printf("dropped from the source: %s\n", t.QualifiedName().c_str());
  }
  std::printf("replication slot %s retains %s of WAL (lakedump gc --drop-slot removes it)\n",
              m.slot.c_str(), FormatBytes(m.retained_wal_bytes).c_str());
  return kExitOk;
}

int RunDump(const DumpArgs& a) {
  if (!a.shard.empty()) return RunWorker(a);
  InterruptWatcher interrupt;
  auto options = BuildOptions(a);
  if (!options.ok()) return PrintError(options.status(), kExitUsage);
  if (Status s = CheckShardFlags(a, *options); !s.ok()) return PrintError(s, kExitUsage);

  if (a.incremental && (a.shards > 0 || a.coordinate)) {
    return PrintError(Status::InvalidArgument("--incremental cannot be combined with --shards "
                                              "(a sharded incremental dump is not supported yet)"),
                      kExitUsage);
  }
  std::optional<IncrementalBasePlan> base_plan;
  SourceOptions incremental_source;
  if (a.incremental) {
    if (!IsPostgresSource(a.source)) {
      return PrintError(Status::InvalidArgument(
                            "--incremental needs a PostgreSQL source (it reads a logical "
                            "replication slot); SQLite has no change stream: dump it whole, "
                            "without --incremental"),
                        kExitUsage);
    }
    if (options->table_format != TableFormat::kParquet) {
      return PrintError(Status::InvalidArgument(
                            "--incremental with --table-format iceberg is not supported yet "
                            "(docs/incremental.md): use --table-format parquet"),
                        kExitUsage);
    }
    if (!options->queries.empty()) {
      return PrintError(Status::InvalidArgument(
                            "--incremental cannot follow --query results: dump tables"),
                        kExitUsage);
    }
    std::unique_ptr<ObjectStore> probe;
    if (int rc = OpenCommandStore(a.dest, a.s3, options->store, &probe); rc != kExitOk) return rc;
    auto manifest = ReadDumpManifest(*probe);
    if (manifest.ok() && !manifest->incremental.is_null() &&
        options->if_exists != IfExists::kOverwrite) {
      SourceOptions so;
      so.connections = a.source_connections > 0 ? a.source_connections
                                                : std::max(1, options->table_parallelism);
      so.pg_numeric = a.pg_numeric;
      so.pg_infinity = a.pg_infinity;
      so.pg_numeric_nan = a.pg_numeric_nan;
      return RunIncrement(a, *options, so, *manifest, interrupt);
    }
    if (manifest.ok() && options->if_exists != IfExists::kOverwrite) {
      return PrintError(Status::InvalidArgument(fmt::format(
                            "{} holds a dump that is not the base of incremental dumps (use "
                            "--if-exists overwrite to replace it with one)",
                            probe->Describe())),
                        kExitUsage);
    }
    if (!manifest.ok() && manifest.status().code() != Code::kNotFound) {
      return PrintError(manifest.status(), kExitFailed);
    }
    PgTypeOptions types;
    if (Status s = ParsePgNumericPolicy(a.pg_numeric, &types); !s.ok()) {
      return PrintError(s.WithContext("--pg-numeric"), kExitUsage);
    }
    auto plan = PrepareIncrementalBase(
        a.source, 10, *options, types,
        {{"numeric", a.pg_numeric}, {"infinity", a.pg_infinity}, {"numeric_nan", a.pg_numeric_nan}},
        probe->Describe());
    if (!plan.ok()) {
      return PrintError(plan.status(), plan.status().code() == Code::kInvalidArgument
                                           ? kExitUsage
                                           : kExitFailed);
    }
    base_plan = std::move(*plan);
  }

  SourceOptions source_options = BuildSourceOptions(a, *options);
  if (base_plan) source_options.pg_slot_name = base_plan->base.slot;
  auto db = OpenDatabase(a.source, source_options);
  // A base that does not commit takes its slot and publication with it.
  auto abandon_base = [&] {
    if (!base_plan) return;
    if (db.ok()) db->reset();  // closes the replication connection holding the slot
    if (Status s = AbandonIncrementalBase(a.source, 10, *base_plan); !s.ok()) {
      std::fprintf(stderr, "lakedump: warning: %s\n", OneLine(s.message()).c_str());
    }
  };
  if (!db.ok()) {
    abandon_base();
    return PrintError(db.status(), db.status().code() == Code::kInvalidArgument ? kExitUsage
                                                                                : kExitFailed);
  }
  options->store.stop = interrupt.token();  // SIGINT aborts uploads in flight too
  std::unique_ptr<ObjectStore> store;
  if (int rc = OpenCommandStore(a.dest, a.s3, options->store, &store); rc != kExitOk) return rc;
  const std::string dest = store->Describe();
  // The lease goes through a second handle that SIGINT does not cancel, so an
  // interrupted run still deletes it.
  StoreOptions lease_store_options = options->store;
  lease_store_options.stop = {};
  S3Flags lease_s3_flags = a.s3;
  lease_s3_flags.max_connections = 2;
  lease_store_options.s3.max_connections = 2;
  std::unique_ptr<ObjectStore> lease_store;
  if (int rc = OpenCommandStore(a.dest, lease_s3_flags, lease_store_options, &lease_store);
      rc != kExitOk) {
    return rc;
  }

  std::unique_ptr<TraceRecorder> trace;
  if (!a.trace.empty()) trace = std::make_unique<TraceRecorder>();
  ExportService service(db->get(), store.get(), *options);
  service.set_trace(trace.get());
  service.set_lease_store(lease_store.get());
  if (base_plan) {
    service.set_manifest_hook(
        [&](DumpManifest* d) { return AddIncrementalBlock(*base_plan, d); });
  }
  service.set_unfinished_write_cleaner([&](std::vector<std::string>* removed) {
    return RemoveUnfinishedWrites(a.dest, *lease_store, lease_store_options, removed);
  });
  std::set<std::string> winners;  // --coordinate: the attempt taken for each shard
  CoordinatorOptions coordinator;
  if (a.coordinate) {
    coordinator.shards = a.shards;
    coordinator.shard_timeout = *ParseDuration(a.shard_timeout);
    coordinator.matching = MatchingOptions(a, *options);
    coordinator.log = LogLines(options->progress);
    service.set_remote_units([&](const DumpPlan& plan, std::stop_token stop) {
      return RunShardCoordinator(*store, **db, service.run_id(), plan, coordinator, &winners,
                                 stop);
    });
  }
  ProgressReporter reporter(&service.progress(),
                            a.coordinate ? ProgressMode::kNone : options->progress);
  reporter.Start();
  Result<DumpResult> result = service.Run(interrupt.token());
  reporter.Stop();
  if (trace) {
    Status ts = trace->WriteFile(a.trace);
    if (!ts.ok()) PrintError(ts, kExitFailed);
  }
  if (!result.ok()) {
    abandon_base();
    // Through the store handle that the interrupt does not cancel.
    Status s = DumpFailureStatus(result.status(), interrupt.interrupted(), *lease_store,
                                 service.run_id(), store->Stats().unaborted_uploads, a.dest);
    const int code = (s.code() == Code::kInvalidArgument && !service.started_writing())
                         ? kExitUsage
                         : kExitFailed;
    if (a.json) {
      std::printf("%s\n", DisplayJson(nlohmann::json(
                            {{"status", "error"}, {"error", OneLine(s.message())}}))
                            .c_str());
    }
    return PrintError(s, code);
  }
  if (a.coordinate) {
    // Committed: the plan, the reports and the losing attempts' files go (a loser still
    // running may add more: lakedump gc removes them).
    uint64_t swept = 0;
    Status s = SweepShardLeftovers(*lease_store, service.run_id(), winners, &swept);
    if (!s.ok()) {
      result->warnings.push_back(fmt::format(
          "the dump is committed, but its plan, shard reports or losing attempts' files "
          "could not all be deleted ({}): lakedump gc deletes them",
          s.message()));
    }
  }
  for (const std::string& w : result->warnings) {
    std::fprintf(stderr, "lakedump: warning: %s\n", OneLine(w).c_str());
  }
  if (const uint64_t n = store->Stats().unaborted_uploads; n > 0) {
    std::fprintf(stderr, "lakedump: warning: %s\n", UnabortedUploadsHint(n, a.dest).c_str());
  }
  if (a.json) {
    std::printf("%s\n", DisplayJson(Summary(*result, dest, store->Stats())).c_str());
  } else {
    const DumpManifest& m = result->manifest;
    std::printf("dumped %zu tables (%llu reused), %s rows, %llu files, %s in %s to %s\n",
                m.tables.size(), static_cast<unsigned long long>(result->reused_tables),
                FormatCount(static_cast<double>(m.total_rows)).c_str(),
                static_cast<unsigned long long>(m.total_files), FormatBytes(m.total_bytes).c_str(),
                FormatSeconds(m.seconds).c_str(), dest.c_str());
    if (result->removed_unfinished > 0) {
      std::printf("removed %llu unfinished writes of earlier runs\n",
                  static_cast<unsigned long long>(result->removed_unfinished));
    }
    const StoreStats stats = store->Stats();
    if (stats.retries > 0) {
      std::printf("store: %llu requests retried (%llu throttled by the server)\n",
                  static_cast<unsigned long long>(stats.retries),
                  static_cast<unsigned long long>(stats.throttles));
    }
  }
  return kExitOk;
}

}  // namespace

CommandEntry AddDumpCommand(CLI::App& parent) {
  auto a = std::make_shared<DumpArgs>();
  CLI::App* app = parent.add_subcommand("dump", "Dump a database to Parquet files plus a manifest.");
  app->add_option("SOURCE", a->source,
                  "sqlite:///path/db.sqlite, a path to a SQLite file, or postgres://...")
      ->required();
  app->add_option("DEST", a->dest, "file:///dir, a plain directory path, or s3://bucket/prefix")
      ->required();
  AddIntOption(app, "--table-parallelism,-j", &a->table_parallelism, 1, kMaxThreads,
               "table tasks at once (default: number of cores)");
  app->add_option("--tables", a->tables, "only these tables: globs over schema.table or table")
      ->delimiter(',');
  app->add_option("--exclude", a->exclude, "skip these tables (globs)")->delimiter(',');
  app->add_option("--query", a->queries, "export a query result as table query.NAME (repeatable)")
      ->type_name("NAME=SQL");
  app->add_option("--compression", a->compression, "none, snappy, zstd, gzip, lz4_raw")
      ->capture_default_str();
  AddIntOption(app, "--compression-level", &a->compression_level, -7, 22,
               "0 = the codec's default; zstd -7..22, gzip 1..9");
  AddIntOption(app, "--row-group-size", &a->row_group_rows, 1, 1'000'000'000,
               "rows per row group");
  AddSizeOption(app, "--row-group-bytes", &a->row_group_bytes,
                {NumericRange::Kind::kSize, 64 * kKiB, 4 * kGiB, "", ""},
                "row group ends past this size");
  AddSizeOption(app, "--file-size", &a->file_size,
                {NumericRange::Kind::kSize, 64 * kKiB, kTiB, "one file per table", ""},
                "start a new file past this size, e.g. 256MiB");
  AddSizeOption(app, "--split-size", &a->split_size,
                {NumericRange::Kind::kSize, kMiB, kTiB, "never", "auto"},
                "export a table bigger than this as several ranges in parallel (auto = 256MiB "
                "for PostgreSQL, 1GiB for SQLite; with --shards N, at most a 2N-th of the "
                "dump, 32MiB at least)");
  app->add_option("--partition-by", a->partition_by, "Hive-style COLUMN=value/ folders");
  AddIntOption(app, "--max-partitions", &a->max_partitions, 1, 100'000,
               "distinct --partition-by values allowed per table task");
  app->add_option("--if-exists", a->if_exists,
                  "fail | overwrite | resume, when DEST already holds something")
      ->capture_default_str();
  AddSizeOption(app, "--wait-for-lock", &a->wait_for_lock,
                WaitForLockRange(),
                "when another run holds DEST's lease (_lease.json), wait up to DURATION for "
                "it (alone: without limit) instead of failing at once")
      ->expected(0, 1)
      ->default_str("forever")
      ->type_name("[=DURATION]");
  app->add_option("--table-format", a->table_format,
                  "parquet | iceberg: iceberg also writes each table as an Apache Iceberg v2 "
                  "table (metadata/ in its folder; docs/iceberg.md)")
      ->capture_default_str();
  app->add_option("--progress", a->progress, "auto | plain | none")->capture_default_str();
  app->add_flag("--json", a->json, "print one JSON summary object on stdout");
  app->add_option("--sign-key-file", a->sign_key_file,
                  "sign the dump with the key in this file (>= 32 bytes): SHA-256 of every "
                  "object plus an HMAC-SHA256 of the manifest in _manifest.sig; check it with "
                  "verify/load --require-signature")
      ->type_name("FILE");
  app->add_option("--trace", a->trace, "write a Chrome trace-event JSON file (open in Perfetto)");
  AddIntOption(app, "--read-ahead", &a->read_ahead, 0, 64,
               "batches a big table's reader thread may fill while the encoder works "
               "(0 or 1 = read and encode in turn)");
  AddIntOption(app, "--batch-rows", &a->batch_rows, 1, kMaxBatchRows,
               "rows read from the source at a time");
  app->add_option("--sqlite-type-mismatch", a->sqlite_type_mismatch,
                  "fail | string: what to do with SQLite values that do not fit their column")
      ->capture_default_str();
  AddIntOption(app, "--source-connections", &a->source_connections, 0, kMaxThreads,
               "source connections (0 = table parallelism)");
  app->add_option("--pg-numeric", a->pg_numeric,
                  "PostgreSQL numeric without precision (or wider than 38 digits): string "
                  "(exact text), double, or decimal(38,S)")
      ->capture_default_str();
  app->add_option("--pg-infinity", a->pg_infinity,
                  "PostgreSQL date/timestamp ±infinity: clamp (to the extreme values), null, "
                  "error")
      ->capture_default_str();
  app->add_option("--pg-numeric-nan", a->pg_numeric_nan,
                  "PostgreSQL numeric NaN/±Infinity in a decimal column: error or null")
      ->capture_default_str();
  app->add_option("--schema-from", a->schema_from,
                  "PostgreSQL: pg_dump (store pg_dump's schema-only archive: views, functions, "
                  "types, sequences, indexes...) or lakedump (tables only)")
      ->capture_default_str();
  app->add_option("--pg-bin-dir", a->pg_bin_dir,
                  "directory of the pg_dump to use (default: the newest in PATH or "
                  "/usr/lib/postgresql/*/bin that is at least the server's version)");
  app->add_flag("--incremental", a->incremental,
                "PostgreSQL: on a DEST without a dump, a base dump read from the snapshot of a new "
                "logical replication slot; on a DEST holding such a base, the next increment: "
                "the changes since the last one (docs/incremental.md)");
  app->add_flag("--pg-materialized-views", a->pg_materialized_views,
                "also dump PostgreSQL materialized views");
  AddIntOption(app, "--shards", &a->shards, 0, kMaxShards,
               "split the dump over N workers (docs/scale-out.md): with --coordinate, this "
               "process plans and commits; with --shard, it is one worker");
  app->add_flag("--coordinate", a->coordinate,
                "the coordinator of a sharded dump: holds the snapshot, writes DEST/_plan.json, "
                "waits for the workers' reports, commits the manifest");
  app->add_option("--shard", a->shard,
                  "run shard I of a sharded dump (a worker); auto = from JOB_COMPLETION_INDEX, "
                  "SLURM_ARRAY_TASK_ID or AWS_BATCH_JOB_ARRAY_INDEX")
      ->type_name("I|auto");
  AddSizeOption(app, "--shard-timeout", &a->shard_timeout,
                {NumericRange::Kind::kDuration, 1000, 30LL * 86'400'000, "", ""},
                "coordinator: fail when the shards have not all reported within this time");
  AddSizeOption(app, "--plan-timeout", &a->plan_timeout,
                {NumericRange::Kind::kDuration, 0, 30LL * 86'400'000, "", ""},
                "worker: fail when DEST/_plan.json has not appeared within this time");
  AddS3Flags(app, &a->s3, /*with_upload=*/true);
  app->footer(
      "Examples:\n"
      "  lakedump dump demo.sqlite ./out\n"
      "  lakedump dump sqlite:///data/app.db file:///backups/app --table-parallelism 8 "
      "--compression zstd\n"
      "  lakedump dump app.db ./out --tables 'store_*,main.customer_dimension' --exclude '*_tmp'\n"
      "  lakedump dump app.db ./out --query 'recent=SELECT * FROM orders WHERE day > 20000'\n"
      "  lakedump dump app.db ./out --file-size 256MiB --partition-by region\n"
      "  lakedump dump app.db ./out --if-exists resume      # after an interrupted run\n"
      "  lakedump dump app.db ./out --if-exists overwrite --wait-for-lock=10m\n"
      "  lakedump dump app.db s3://bucket/lake --table-format iceberg   # Iceberg tables\n"
      "  lakedump dump app.db s3://bucket/dumps/app --endpoint http://127.0.0.1:7480\n\n"
      "One run at a time per DEST: a run holds DEST/_lease.json while it lives (renewed every "
      "10 s); a second run fails naming the holder, or waits with --wait-for-lock. A lease "
      "not renewed for 30 s (or whose process is gone on this host) is stale: only "
      "--if-exists resume takes it over.\n"
      "Sharded (docs/scale-out.md; PostgreSQL):\n"
      "  lakedump dump postgres://db/app s3://b/app --shards 4 --coordinate   # one of these\n"
      "  lakedump dump postgres://db/app s3://b/app --shards 4 --shard auto   # and N workers\n\n"
      "Exit codes: 0 complete, 1 failed (nothing committed by this run: an earlier dump at "
      "DEST stays as it was), 2 bad usage, 3 (a worker) the coordinator and its snapshot are "
      "gone.");
  return {app, [a] { return RunDump(*a); }};
}

}  // namespace lakedump::cli
