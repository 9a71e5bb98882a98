// `lakedump dump SOURCE DEST`: the export service driven from the command line, on one machine
// or as a sharded dump's coordinator. A worker runs in dump_shard_command.cc, an increment in
// dump_increment_command.cc; the arguments and the rules refusing option combinations are in
// dump_args.cc.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

#include <CLI/CLI.hpp>

#include "base/units.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/dump_args.h"
#include "cli/dump_failure.h"
#include "cli/dump_increment_command.h"
#include "cli/dump_overwrite_plan.h"
#include "cli/dump_shard_command.h"
#include "cli/unfinished_writes.h"
#include "dump/export_service.h"
#include "lake/manifest.h"
#include "base/progress.h"
#include "base/trace.h"
#include "dump/shard/snapshot_releasing_database.h"
#include "source/sqlite/sqlite_database.h"

namespace lakedump::cli {
namespace {

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

// DEST's store, and a second handle on it that SIGINT does not cancel: the lease goes
// through it, so an interrupted run still deletes it. An exit code on failure.
int OpenDumpStores(const DumpArgs& a, const StoreOptions& options,
                   std::unique_ptr<ObjectStore>* store, std::unique_ptr<ObjectStore>* lease_store,
                   StoreOptions* lease_store_options) {
  if (int rc = OpenCommandStore(a.dest, a.s3, options, store); rc != kExitOk) return rc;
  return OpenUncancelledStore(a.dest, a.s3, options, lease_store, lease_store_options);
}

// A committed dump's warnings (stderr) and summary (stdout: text, or JSON with --json).
void PrintDumpResult(const DumpArgs& a, const DumpResult& r, const std::string& dest,
                     ObjectStore& store) {
  for (const std::string& w : r.warnings) {
    std::fprintf(stderr, "lakedump: warning: %s\n", OneLine(w).c_str());
  }
  if (const uint64_t n = store.Stats().unaborted_uploads; n > 0) {
    std::fprintf(stderr, "lakedump: warning: %s\n", UnabortedUploadsHint(n, a.dest).c_str());
  }
  if (a.json) {
    std::printf("%s\n", DisplayJson(Summary(r, dest, store.Stats())).c_str());
  } else {
    const DumpManifest& m = r.manifest;
    std::printf("dumped %zu tables (%llu reused), %s rows, %llu files, %s in %s to %s\n",
                m.tables.size(), static_cast<unsigned long long>(r.reused_tables),
                FormatCount(static_cast<double>(m.total_rows)).c_str(),
                static_cast<unsigned long long>(m.total_files), FormatBytes(m.total_bytes).c_str(),
                FormatSeconds(m.seconds).c_str(), dest.c_str());
    if (r.removed_unfinished > 0) {
      std::printf("removed %llu unfinished writes of earlier runs\n",
                  static_cast<unsigned long long>(r.removed_unfinished));
    }
    const StoreStats stats = store.Stats();
    if (stats.retries > 0) {
      std::printf("store: %llu requests retried (%llu throttled by the server)\n",
                  static_cast<unsigned long long>(stats.retries),
                  static_cast<unsigned long long>(stats.throttles));
    }
  }
}

// A base that does not commit takes its slot and publication with it (nothing without a
// base plan). Closes *db first: its replication connection holds the slot.
void AbandonBase(const DumpArgs& a, const std::optional<IncrementalBasePlan>& base_plan,
                 Result<std::unique_ptr<Database>>* db) {
  if (!base_plan) return;
  if (db->ok()) (*db)->reset();  // closes the replication connection holding the slot
  if (Status s = AbandonIncrementalBase(a.source, 10, *base_plan); !s.ok()) {
    std::fprintf(stderr, "lakedump: warning: %s\n", OneLine(s.message()).c_str());
  }
}

// --coordinate of a SQLite dump with a snapshot: checked before the lease and the plan, as
// WAL mode has no snapshot the workers could share.
Status CheckCoordinatorSource(const DumpArgs& a) {
  if (!a.coordinate || a.no_snapshot || IsPostgresSource(a.source)) return Status::OK();
  return CheckSqliteSnapshotShareable(a.source);
}

// --coordinate --no-snapshot: wraps *db in a SnapshotReleasingDatabase, returned (else
// nullptr).
SnapshotReleasingDatabase* ReleaseSnapshotBeforeWorkers(const DumpArgs& a,
                                                        std::unique_ptr<Database>* db) {
  if (!a.coordinate || !a.no_snapshot) return nullptr;
  auto wrapped = std::make_unique<SnapshotReleasingDatabase>(std::move(*db));
  SnapshotReleasingDatabase* released = wrapped.get();
  *db = std::move(wrapped);
  return released;
}

// A failed dump: the error (also as JSON on stdout with --json) and its exit code.
int ReportDumpFailure(const DumpArgs& a, const Status& s, bool started_writing) {
  const int code =
      (s.code() == Code::kInvalidArgument && !started_writing) ? kExitUsage : kExitFailed;
  if (a.json) {
    std::printf("%s\n", DisplayJson(nlohmann::json(
                          {{"status", "error"}, {"error", OneLine(s.message())}}))
                          .c_str());
  }
  return PrintError(s, code);
}

// The run's trace, the store its lease lives in, the increment's block of the manifest (an
// incremental base) and the cleanup of unfinished writes, as `a` asks. The pointers are
// borrowed and must outlive the service's run.
void ConfigureExportService(const DumpArgs& a,
                            const std::optional<IncrementalBasePlan>& base_plan,
                            TraceRecorder* trace, ObjectStore* lease_store,
                            const StoreOptions& lease_store_options, ExportService* service) {
  service->set_trace(trace);
  service->set_lease_store(lease_store);
  if (base_plan) {
    service->set_run_id(base_plan->dump_id);
    service->set_manifest_hook(
        [&base_plan](DumpManifest* d) { return AddIncrementalBlock(*base_plan, d); });
  }
  service->set_unfinished_write_cleaner(
      [&a, lease_store, &lease_store_options](std::vector<std::string>* removed) {
        return RemoveUnfinishedWrites(a.dest, *lease_store, lease_store_options, removed);
      });
}

// Writes the trace to `path` when one was recorded (a failure is reported, not fatal).
void WriteTrace(TraceRecorder* trace, const std::string& path) {
  if (trace == nullptr) return;
  Status ts = trace->WriteFile(path);
  if (!ts.ok()) PrintError(ts, kExitFailed);
}

// A run that failed: the uploads of this run that its writers could not abort (its journal
// names them) aborted, then its one error line; the exit code.
int DumpFailed(const DumpArgs& a, const Status& status, bool interrupted, ObjectStore& store,
               ObjectStore& lease_store, const StoreOptions& lease_store_options,
               const ExportService& service) {
  size_t aborted = 0;
  AbortRunUploads(a.dest, lease_store_options, service.journal_claims(), &aborted).IgnoreError();
  // Through the store handle that the interrupt does not cancel.
  uint64_t unaborted = store.Stats().unaborted_uploads;
  unaborted -= std::min<uint64_t>(unaborted, aborted);
  Status s = DumpFailureStatus(status, interrupted, lease_store, service.run_id(), unaborted,
                               a.dest);
  return ReportDumpFailure(a, s, service.started_writing());
}

// What an incremental base's plan asks of the dump: the source reads through the slot, each
// followed table's arrays in the form its state records, and an Iceberg base writes each
// followed table's key index for its first increment.
void ApplyBasePlan(const IncrementalBasePlan& plan, DumpOptions* options,
                   SourceOptions* source_options) {
  source_options->pg_slot_name = plan.base.slot;
  for (const IncrementalTable& t : plan.base.tables) {
    if (t.mode != IncrementalMode::kChanges) continue;
    source_options->pg_known_array_text[t.ref.QualifiedName()] = t.text_arrays;
    if (options->table_format == TableFormat::kIceberg) {
      options->iceberg_key_index[t.ref.QualifiedName()] = t.key;
    }
  }
}

int RunDump(const DumpArgs& a) {
  auto options = BuildOptions(a);
  if (!options.ok()) return PrintError(options.status(), kExitUsage);
  int refused = kExitUsage;
  if (Status s = CheckDumpFlagRules(a, *options, &refused); !s.ok()) {
    return PrintError(s, refused);
  }
  if (!a.shard.empty()) return RunShardWorkerCommand(a, std::move(*options));
  if (a.dry_run) return RunOverwriteDryRun(a, *options);
  InterruptWatcher interrupt;

  std::optional<IncrementalBasePlan> base_plan;
  if (a.incremental) {
    if (std::optional<int> done = PrepareIncrementalDump(a, *options, interrupt, &base_plan)) {
      return *done;
    }
  }

  SourceOptions source_options = BuildSourceOptions(a, *options);
  if (base_plan) ApplyBasePlan(*base_plan, &*options, &source_options);
  source_options.stop = interrupt.token();  // SIGINT ends a wait for a table lock
  auto db = OpenDatabase(a.source, source_options);
  // A base that does not commit takes its slot and publication with it.
  auto abandon_base = [&] { AbandonBase(a, base_plan, &db); };
  if (!db.ok()) {
    abandon_base();
    return PrintError(db.status(), db.status().code() == Code::kInvalidArgument ? kExitUsage
                                                                                : kExitFailed);
  }
  if (Status s = CheckCoordinatorSource(a); !s.ok()) {
    return PrintError(s, s.code() == Code::kInvalidArgument ? kExitUsage : kExitFailed);
  }
  // --no-snapshot: the coordinator plans through a wrapper that lets go of the source's
  // snapshot before the workers start.
  SnapshotReleasingDatabase* no_snapshot_db = ReleaseSnapshotBeforeWorkers(a, &*db);
  options->store.stop = interrupt.token();  // SIGINT aborts uploads in flight too
  std::unique_ptr<ObjectStore> store;
  StoreOptions lease_store_options;
  std::unique_ptr<ObjectStore> lease_store;
  if (int rc = OpenDumpStores(a, options->store, &store, &lease_store, &lease_store_options);
      rc != kExitOk) {
    return rc;
  }
  const std::string dest = store->Describe();

  std::unique_ptr<TraceRecorder> trace;
  if (!a.trace.empty()) trace = std::make_unique<TraceRecorder>();
  ExportService service(db->get(), store.get(), *options);
  ConfigureExportService(a, base_plan, trace.get(), lease_store.get(), lease_store_options,
                         &service);
  std::optional<ShardCoordinatorGlue> coordinator;
  if (a.coordinate) {
    coordinator.emplace(a, *options, store.get(), db->get(), no_snapshot_db, &service,
                        trace.get());
  }
  ProgressReporter reporter(&service.progress(),
                            a.coordinate ? ProgressMode::kNone : options->progress);
  reporter.Start();
  Result<DumpResult> result =
      coordinator ? coordinator->Run(interrupt.token()) : service.Run(interrupt.token());
  reporter.Stop();
  WriteTrace(trace.get(), a.trace);
  if (!result.ok()) {
    abandon_base();
    return DumpFailed(a, result.status(), interrupt.interrupted(), *store, *lease_store,
                      lease_store_options, service);
  }
  if (coordinator) {
    coordinator->SweepAfterCommit(*lease_store, service.run_id(), &result->warnings);
  }
  PrintDumpResult(a, *result, dest, *store);
  return kExitOk;
}

}  // namespace

namespace {

// The option groups of `lakedump dump`, in --help order.

// Source, destination and what to dump.
void AddDumpWhatOptions(CLI::App* app, DumpArgs& a) {
  app->add_option("SOURCE", a.source,
                  "sqlite:///path/db.sqlite, a path to a SQLite file, or postgres://...")
      ->required();
  app->add_option("DEST", a.dest, "file:///dir, a plain directory path, or s3://bucket/prefix")
      ->required();
  AddIntOption(app, "--table-parallelism,-j", &a.table_parallelism, 1, kMaxThreads,
               "table tasks at once (default: number of cores)");
  app->add_option("--tables", a.tables, "only these tables: globs over schema.table or table (PostgreSQL large "
                  "objects are then left out, as pg_dump -t)")
      ->delimiter(',');
  app->add_option("--exclude", a.exclude, "skip these tables (globs)")->delimiter(',');
  app->add_option("--query", a.queries, "export a query result as table query.NAME (repeatable)")
      ->type_name("NAME=SQL");
}

// How the Parquet files are written.
void AddDumpFileOptions(CLI::App* app, DumpArgs& a) {
  app->add_option("--compression", a.compression, "none, snappy, zstd, gzip, lz4_raw")
      ->capture_default_str();
  AddIntOption(app, "--compression-level", &a.compression_level, -7, 22,
               "0 = the codec's default; zstd -7..22, gzip 1..9");
  AddIntOption(app, "--row-group-size", &a.row_group_rows, 1, 1'000'000'000,
               "rows per row group");
  AddSizeOption(app, "--row-group-bytes", &a.row_group_bytes,
                {NumericRange::Kind::kSize, 64 * kKiB, 4 * kGiB, "", ""},
                "row group ends past this size");
  AddSizeOption(app, "--file-size", &a.file_size,
                {NumericRange::Kind::kSize, 64 * kKiB, kTiB, "one file per table", ""},
                "start a new file past this size, e.g. 256MiB");
  AddSizeOption(app, "--split-size", &a.split_size,
                {NumericRange::Kind::kSize, kMiB, kTiB, "never", "auto"},
                "export a table bigger than this as several ranges in parallel (auto = 256MiB "
                "for PostgreSQL, 1GiB for SQLite; with --shards N, at most a 2N-th of the "
                "dump, 32MiB at least)");
  app->add_option("--partition-by", a.partition_by, "Hive-style COLUMN=value/ folders");
  AddIntOption(app, "--max-partitions", &a.max_partitions, 1, 100'000,
               "distinct --partition-by values allowed per table task");
}

// How the run behaves and reports.
void AddDumpRunOptions(CLI::App* app, DumpArgs& a) {
  app->add_option("--if-exists", a.if_exists,
                  "fail | overwrite | resume, when DEST already holds a dump (overwrite and "
                  "resume delete only what a lakedump run wrote: DEST holding anything else is "
                  "refused)")
      ->capture_default_str();
  app->add_flag("--delete-foreign", a.delete_foreign,
                "with --if-exists overwrite: also delete the objects at DEST that no lakedump "
                "run wrote (no run journal or manifest names them) instead of refusing DEST");
  app->add_flag("--dry-run", a.dry_run,
                "with --if-exists overwrite: print what the overwrite would delete, delete "
                "nothing and dump nothing");
  AddSizeOption(app, "--wait-for-lock", &a.wait_for_lock,
                WaitForLockRange(),
                "when another run holds DEST's lease (_lease.json), wait up to DURATION for "
                "it (alone: without limit) instead of failing at once")
      ->expected(0, 1)
      ->default_str("forever")
      ->type_name("[=DURATION]");
  app->add_option("--table-format", a.table_format,
                  "parquet | iceberg: iceberg also writes each table as an Apache Iceberg v2 "
                  "table (metadata/ in its folder; docs/iceberg.md)")
      ->capture_default_str();
  app->add_option("--progress", a.progress, "auto | plain | none")->capture_default_str();
  app->add_flag("--json", a.json, "print one JSON summary object on stdout");
  app->add_option("--sign-key-file", a.sign_key_file,
                  "sign the dump with the key in this file (>= 32 bytes): SHA-256 of every "
                  "object plus an HMAC-SHA256 of the manifest in _manifest.sig; check it with "
                  "verify/load --require-signature")
      ->type_name("FILE");
  app->add_option("--trace", a.trace, "write a Chrome trace-event JSON file (open in Perfetto)");
  AddIntOption(app, "--read-ahead", &a.read_ahead, 0, 64,
               "batches a big table's reader thread may fill while the encoder works "
               "(0 or 1 = read and encode in turn)");
  AddIntOption(app, "--batch-rows", &a.batch_rows, 1, kMaxBatchRows,
               "rows read from the source at a time");
}

// How the source is read (SQLite and PostgreSQL).
void AddDumpSourceOptions(CLI::App* app, DumpArgs& a) {
  app->add_option("--sqlite-type-mismatch", a.sqlite_type_mismatch,
                  "fail | string: what to do with SQLite values that do not fit their column")
      ->capture_default_str();
  AddIntOption(app, "--source-connections", &a.source_connections, 0, kMaxThreads,
               "source connections (0 = table parallelism)");
  app->add_option("--pg-numeric", a.pg_numeric,
                  "PostgreSQL numeric without precision (or wider than 38 digits): string "
                  "(exact text), double, or decimal(38,S)")
      ->capture_default_str();
  app->add_option("--pg-infinity", a.pg_infinity,
                  "PostgreSQL date/timestamp ±infinity: clamp (to the extreme values), null, "
                  "error")
      ->capture_default_str();
  app->add_option("--pg-numeric-nan", a.pg_numeric_nan,
                  "PostgreSQL numeric NaN/±Infinity in a decimal column: error or null")
      ->capture_default_str();
  app->add_option("--schema-from", a.schema_from,
                  "PostgreSQL: pg_dump (store pg_dump's schema-only archive: views, functions, "
                  "types, sequences, indexes...) or lakedump (tables only)")
      ->capture_default_str();
  app->add_option("--pg-bin-dir", a.pg_bin_dir,
                  "directory of the pg_dump to use (default: the newest in PATH or "
                  "/usr/lib/postgresql/*/bin that is at least the server's version)");
  app->add_flag("--incremental", a.incremental,
                "PostgreSQL: on a DEST without a dump, a base dump read from the snapshot of a new "
                "logical replication slot; on a DEST holding such a base, the next increment: "
                "the changes since the last one (docs/incremental.md); with --table-format "
                "iceberg, each increment also becomes one Iceberg snapshot per changed table "
                "(docs/iceberg.md)");
  app->add_flag("--pg-materialized-views", a.pg_materialized_views,
                "also dump PostgreSQL materialized views");
  AddSizeOption(app, "--lock-wait-timeout", &a.lock_wait_timeout, LockWaitTimeoutRange(),
                "PostgreSQL: how long the lock on a table waits for another session's "
                "conflicting lock (a migration, VACUUM FULL) to go; 0: fail at once, forever: "
                "without limit (as pg_dump)")
      ->capture_default_str();
}

// Sharded dumps (docs/scale-out.md).
void AddDumpShardOptions(CLI::App* app, DumpArgs& a) {
  AddIntOption(app, "--shards", &a.shards, 0, kMaxShards,
               "split the dump over N workers (docs/scale-out.md): with --coordinate, this "
               "process plans and commits; with --shard, it is one worker");
  app->add_flag("--no-snapshot", a.no_snapshot,
                "sharded dumps (coordinator and every worker): the coordinator releases its "
                "snapshot once it has planned, and each worker reads the source at a time of "
                "its own (the dump is then not one consistent state, and records so); for "
                "SQLite in WAL mode, or to hold nothing on the source for the whole dump");
  app->add_flag("--coordinate", a.coordinate,
                "the coordinator of a sharded dump: holds the snapshot, writes DEST/_plan.json, "
                "waits for the workers' reports, commits the manifest");
  app->add_option("--shard", a.shard,
                  "run shard I of a sharded dump (a worker); auto = from JOB_COMPLETION_INDEX, "
                  "SLURM_ARRAY_TASK_ID or AWS_BATCH_JOB_ARRAY_INDEX")
      ->type_name("I|auto");
  AddSizeOption(app, "--shard-timeout", &a.shard_timeout,
                {NumericRange::Kind::kDuration, 1000, 30LL * 86'400'000, "", ""},
                "coordinator: fail when the shards have not all reported within this time");
  AddSizeOption(app, "--plan-timeout", &a.plan_timeout,
                {NumericRange::Kind::kDuration, 0, 30LL * 86'400'000, "", ""},
                "worker: fail when DEST/_plan.json has not appeared within this time");
}

// Examples, the lease and the exit codes.
const char* DumpFooter() {
  return
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
      "Sharded (docs/scale-out.md; PostgreSQL, or SQLite on a shared filesystem):\n"
      "  lakedump dump postgres://db/app s3://b/app --shards 4 --coordinate   # one of these\n"
      "  lakedump dump postgres://db/app s3://b/app --shards 4 --shard auto   # and N workers\n"
      "  lakedump dump postgres://db/app s3://b/app --shards 4 --coordinate --if-exists resume"
      "   # after a killed coordinator\n\n"
      "Exit codes: 0 complete, 1 failed (nothing committed by this run: an earlier dump at "
      "DEST stays as it was), 2 bad usage, 3 (a worker) the coordinator and its snapshot are "
      "gone.";
}

}  // namespace

CommandEntry AddDumpCommand(CLI::App& parent) {
  auto a = std::make_shared<DumpArgs>();
  CLI::App* app = parent.add_subcommand("dump", "Dump a database to Parquet files plus a manifest.");
  AddDumpWhatOptions(app, *a);
  AddDumpFileOptions(app, *a);
  AddDumpRunOptions(app, *a);
  AddDumpSourceOptions(app, *a);
  AddDumpShardOptions(app, *a);
  AddS3Flags(app, &a->s3, /*with_upload=*/true);
  app->footer(DumpFooter());
  return {app, [a] { return RunDump(*a); }};
}

}  // namespace lakedump::cli
