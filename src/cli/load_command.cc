// `lakedump load DUMP TARGET`: the load service driven from the command line.
#include <fmt/format.h>
#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <thread>

#include <CLI/CLI.hpp>

#include "base/sha256.h"
#include "base/units.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/load_restore_flags.h"
#include "cli/numeric_option.h"
#include "lake/manifest.h"
#include "lake/signature.h"
#include "lake/increment_signature.h"
#include "lake/incremental_state.h"
#include "load/cross_engine_skips.h"
#include "load/load_service.h"
#include "load/postgres/increment_load.h"
#include "source/postgres/pg_conn.h"
#include "load/open_target.h"

namespace lakedump::cli {
namespace {

struct LoadArgs {
  std::string dump;
  std::string target;
  std::vector<std::string> tables;
  std::vector<std::string> exclude;
  std::vector<std::string> schema_map;
  RestoreFlags restore;  // -t, -n, -N, --no-owner, --no-privileges, --role, --role-map
  std::string if_exists = "fail";
  int table_parallelism = DefaultParallelism();
  int file_parallelism = 2;
  size_t batch_rows = 16384;
  std::string progress = "auto";
  bool json = false;
  bool trust_dump = false;
  std::string require_signature;  // key file
  std::string lock_timeout = "30s";
  bool schema_only = false;
  bool data_only = false;
  bool disable_triggers = false;
  std::string pg_bin_dir;
  int restore_jobs = 0;
  int until = -1;  // incremental dumps: the last increment to apply (-1: all)
  int from = 0;    // the first increment to apply (0: the base too)
  S3Flags s3;
};

// "0" = wait forever, else a duration ("30s", "2m").
Result<int64_t> ParseLockTimeout(const std::string& text) {
  if (text == "0") return int64_t{0};
  auto d = ParseDuration(text);
  if (!d.ok()) return d.status().WithContext("--lock-timeout");
  return static_cast<int64_t>(d->count());
}

// Warnings go to stderr, one line each, after the load (the summary stays on stdout).
void PrintWarnings(const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) std::fprintf(stderr, "warning: %s\n", OneLine(w).c_str());
}

Result<LoadOptions> BuildOptions(const LoadArgs& a) {
  LoadOptions o;  // the numeric options' ranges are checked while parsing
  o.table_parallelism = a.table_parallelism;
  o.file_parallelism = a.file_parallelism;
  o.batch_rows = a.batch_rows;
  o.include = a.tables;
  o.exclude = a.exclude;
  LD_RETURN_IF_ERROR(ApplyRestoreFlags(a.restore, &o.filter, &o.roles));
  for (const std::string& m : a.schema_map) {
    LD_ASSIGN_OR_RETURN(auto mapping, ParseSchemaMapping(m));
    o.schema_map.push_back(std::move(mapping));
  }
  LD_ASSIGN_OR_RETURN(o.if_exists, ParseLoadIfExists(a.if_exists));
  if (a.schema_only && a.data_only) {
    return Status::InvalidArgument("--schema-only and --data-only exclude each other");
  }
  o.schema_only = a.schema_only;
  o.data_only = a.data_only;
  if (a.disable_triggers && !a.data_only) {
    return Status::InvalidArgument("--disable-triggers goes with --data-only (as pg_restore's)");
  }
  o.pg_bin_dir = a.pg_bin_dir;
  o.restore_jobs = a.restore_jobs;
  LD_ASSIGN_OR_RETURN(o.progress, ParseProgressMode(a.progress));
  if (a.json && a.progress == "auto") o.progress = ProgressMode::kNone;
  LD_RETURN_IF_ERROR(ApplyS3Flags(a.s3, &o.store.s3));
  if (!a.require_signature.empty()) {
    LD_ASSIGN_OR_RETURN(o.signing_key, ReadSigningKey(a.require_signature));
  }
  // A dump whose signature verifies is one the user trusts (the load refuses it otherwise,
  // before any of its schema is used).
  o.trust_schema = a.trust_dump || !o.signing_key.empty();
  return o;
}

// schema.skipped: one line per schema object the target did not get, as the warnings print
// them (what cannot cross engines: "skipped SQLite check on public.t: <reason>").
nlohmann::json SkippedJson(const SchemaRestoreOutcome& schema) {
  nlohmann::json out = schema.warnings;
  for (const SkippedSchemaObject& s : schema.skipped) out.push_back(SkippedLine(s));
  return out;
}

nlohmann::json Summary(const LoadResult& r, const std::string& dump, const std::string& target) {
  nlohmann::json tables = nlohmann::json::array();
  for (const LoadedTable& t : r.tables) {
    tables.push_back({{"source", t.source.QualifiedName()},
                      {"target", t.target.QualifiedName()},
                      {"rows", t.rows},
                      {"files", t.files},
                      {"bytes", t.bytes},
                      {"seconds", t.seconds}});
  }
  return {{"status", "ok"},
          {"warnings", r.warnings},
          {"dump_id", r.dump_id},
          {"dump", dump},
          {"target", target},
          {"tables", r.tables.size()},
          {"rows", r.rows},
          {"files", r.files},
          {"bytes", r.bytes},
          {"large_objects", r.large_objects},
          {"seconds", r.seconds},
          {"rows_per_second", r.seconds > 0 ? r.rows / r.seconds : 0.0},
          {"loaded", tables},
          {"schema",
           {{"method", r.schema.method},
            {"restored", r.schema.restored},
            {"skipped", SkippedJson(r.schema)}}}};
}

// Keeps freed buffers in the process instead of returning them to the kernel: a load
// allocates and frees the same large buffers (column chunks, pages, COPY data) per file, and
// memory handed back is page-faulted and zero-filled again on the next use (most of the
// client's CPU on some VMs). Peak memory is unchanged; it is just not given back early.
void KeepFreedMemory() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's maximum: big buffers come from the heap
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

// What the load asks of the increments (docs/incremental.md, "Load").
IncrementLoadRequest IncrementRequest(const LoadArgs& a, const LoadOptions& o, int until) {
  IncrementLoadRequest r;
  r.from = a.from;
  r.until = until;
  r.scope = IncrementScope{o.include, o.exclude, o.schema_map};
  // --trust-dump, or (set by the caller) each increment's own verified signature: the base's
  // signature alone does not cover the increments.
  r.trust.trust_dump = a.trust_dump;
  return r;
}

// Applies the planned increments, each in one transaction that records it.
int ApplyIncrements(PgConn& conn, ObjectStore& store, const DumpManifest& base,
                    const std::vector<IncrementManifest>& increments,
                    const IncrementLoadPlan& plan, const IncrementLoadRequest& request,
                    InterruptWatcher& interrupt) {
  auto report = [&request](const IncrementManifest& m, const IncrementApplyStats& stats) {
    const SignedIncrementChain* chain = request.trust.chain;
    std::printf("applied increment %d%s: %llu inserted, %llu updated, %llu deleted (%llu tables "
                "set-based), %zu tables re-dumped (%llu rows), %zu dropped\n",
                m.sequence,
                chain != nullptr && chain->SignatureVerified(m.sequence) ? " (signature verified)"
                : request.trust.trust_dump                               ? " (trusted: --trust-dump)"
                                                                         : "",
                static_cast<unsigned long long>(stats.inserted),
                static_cast<unsigned long long>(stats.updated),
                static_cast<unsigned long long>(stats.deleted),
                static_cast<unsigned long long>(stats.set_based_tables), m.redumped.size(),
                static_cast<unsigned long long>(stats.redumped_rows), m.dropped.size());
  };
  Status s = ApplyPlannedIncrements(conn, store, base, increments, plan, request,
                                    interrupt.token(), report);
  // Refused (an altered file of a signed increment, DDL without trust): nothing of it stays.
  if (s.ok()) return kExitOk;
  return PrintError(s, IsSignatureRefusal(s) ? kExitUsage : ExitCodeForStatus(s));
}

// --if-exists append onto a target holding an earlier state: the increments after the one it
// records (or --from), checked before the first is applied.
int AppendIncrements(const LoadArgs& a, ObjectStore& store, const DumpManifest& base,
                     const std::vector<IncrementManifest>& increments,
                     const IncrementLoadRequest& request, InterruptWatcher& interrupt) {
  auto conn = PgConn::Connect(a.target, 10);
  if (!conn.ok()) return PrintError(conn.status(), kExitFailed);
  auto plan = PlanIncrementsToAppend(**conn, store, base, increments, request);
  if (!plan.ok()) return PrintError(plan.status(), ExitCodeForStatus(plan.status()));
  if (!plan->note.empty()) std::fprintf(stderr, "lakedump: warning: %s\n", plan->note.c_str());
  if (plan->first > plan->until) {
    std::printf("nothing to apply: the target holds increment %d of %d\n", plan->first - 1,
                static_cast<int>(increments.size()));
    return kExitOk;
  }
  return ApplyIncrements(**conn, store, base, increments, *plan, request, interrupt);
}

// After a base load into PostgreSQL: records the base (unless only some tables were loaded),
// then applies the planned increments.
int AfterBaseLoad(const LoadArgs& a, ObjectStore& store, const DumpManifest& base,
                  const std::vector<IncrementManifest>& increments,
                  const std::optional<IncrementLoadPlan>& plan,
                  const IncrementLoadRequest& request, InterruptWatcher& interrupt) {
  if (a.schema_only || !a.tables.empty() || !a.exclude.empty() || !a.restore.filter.Empty()) {
    return kExitOk;
  }
  auto conn = PgConn::Connect(a.target, 10);
  if (!conn.ok()) return PrintError(conn.status(), kExitFailed);
  auto text = ReadDumpManifestText(store);
  if (!text.ok()) return PrintError(text.status(), kExitFailed);
  Status recorded = RecordBaseLoaded(**conn, BaseRecord(base, Sha256Hex(*text)));
  if (!recorded.ok()) return PrintError(recorded, kExitFailed);
  if (!plan) return kExitOk;
  return ApplyIncrements(**conn, store, base, increments, *plan, request, interrupt);
}

// The last increment to apply (--until, else every one), checked with --from, the
// target and --tables; InvalidArgument for a usage error.
Result<int> IncrementsUntil(const LoadArgs& a, bool incremental, int available,
                            LoadIfExists if_exists, const std::string& dump) {
  if (!incremental && (a.until >= 0 || a.from > 0)) {
    return Status::InvalidArgument(
        fmt::format("--until/--from: {} is not an incremental dump", dump));
  }
  const int until = a.until < 0 ? available : a.until;
  if (until > available) {
    return Status::InvalidArgument(
        fmt::format("--until {}: {} holds {} increments", a.until, dump, available));
  }
  if (a.from > 0 && (if_exists != LoadIfExists::kAppend || a.from > until)) {
    return Status::InvalidArgument(
        fmt::format("--from {} needs --if-exists append (the target holds what increment "
                    "{} left) and at most --until ({})",
                    a.from, a.from - 1, until));
  }
  const bool apply = incremental && until >= std::max(1, a.from);
  if (apply && !IsPostgresSource(a.target)) {
    if (a.until >= 0 || a.from > 0) {
      return Status::InvalidArgument("increments are applied to PostgreSQL targets only");
    }
  }
  if (apply && (!a.tables.empty() || !a.exclude.empty() || !a.restore.filter.Empty())) {
    return Status::InvalidArgument(
        "--tables/--exclude/-t/-n/-N cannot be used with an incremental dump: its "
        "increments change every table");
  }
  return until;
}

// The load's warnings (stderr) and its summary (stdout: text, or JSON with --json).
void PrintLoadResult(const LoadArgs& a, const LoadResult& r, const std::string& dump,
                     const std::string& target_name) {
  PrintWarnings(r.warnings);
  // One line per schema object not restored (stderr: stdout stays the summary).
  for (const std::string& w : r.schema.warnings) {
    std::fprintf(stderr, "lakedump: warning: %s\n", OneLine(w).c_str());
  }
  for (const SkippedSchemaObject& s : r.schema.skipped) {
    std::fprintf(stderr, "lakedump: warning: %s\n", OneLine(SkippedLine(s)).c_str());
  }
  if (a.json) {
    std::printf("%s\n", DisplayJson(Summary(r, dump, target_name)).c_str());
    return;
  }
  const double rate = r.seconds > 0 ? r.rows / r.seconds : 0.0;
  std::printf(
      "loaded %zu tables, %s rows, %llu files, %s in %s (%s rows/s) "
      "into %s\n",
      r.tables.size(), FormatCount(static_cast<double>(r.rows)).c_str(),
      static_cast<unsigned long long>(r.files), FormatBytes(r.bytes).c_str(),
      FormatSeconds(r.seconds).c_str(), FormatCount(rate).c_str(), target_name.c_str());
  if (r.large_objects > 0) {
    std::printf("large objects: %llu restored\n",
                static_cast<unsigned long long>(r.large_objects));
  }
  if (r.schema.method != "none" || !r.schema.skipped.empty()) {
    std::printf("schema: %llu objects restored (%s), %zu skipped\n",
                static_cast<unsigned long long>(r.schema.restored), r.schema.method.c_str(),
                r.schema.warnings.size() + r.schema.skipped.size());
  }
}

// The error of a load that failed: one line (and the JSON error with --json); its exit code.
int LoadFailed(const LoadArgs& a, Status s, bool interrupted, bool started_loading) {
  if (interrupted) s = Status::Cancelled("interrupted: tables not yet committed were rolled back");
  // A refused input (a bad option, or a signature refusal) before anything was loaded: 2.
  const int code =
      (s.code() == Code::kInvalidArgument || IsSignatureRefusal(s)) && !started_loading
          ? kExitUsage
          : kExitFailed;
  if (a.json) {
    std::printf(
        "%s\n",
        DisplayJson(nlohmann::json({{"status", "error"}, {"error", OneLine(s.message())}}))
            .c_str());
  }
  return PrintError(s, code);
}

// The committed increments of an incremental dump (none for a plain dump).
int ReadIncrementsOf(ObjectStore& store, const DumpManifest& manifest, const LoadOptions& options,
                     std::vector<IncrementManifest>* increments) {
  if (manifest.incremental.is_null()) return kExitOk;
  auto read = ReadIncrements(store, manifest);
  if (!read.ok()) {
    // Under --require-signature a broken chain is a refused input (forged, reordered).
    const bool refused =
        !options.signing_key.empty() && read.status().code() == Code::kCorruption;
    return PrintError(read.status(), refused ? kExitUsage : kExitFailed);
  }
  *increments = std::move(*read);
  return kExitOk;
}

// --require-signature holds in every mode: the base's signature and, from it, the chain of
// every increment up to `until` (for --from N too), checked before anything is written. The
// increments checked replace those read before (the same objects, parsed from the bytes
// checked); the load then takes only the base manifest checked.
int CheckSignedChain(ObjectStore& store, int until, LoadOptions* options,
                     std::vector<IncrementManifest>* increments,
                     std::optional<SignedIncrementChain>* chain) {
  if (options->signing_key.empty()) return kExitOk;
  auto checked = ReadSignedIncrementChain(store, options->signing_key, until);
  if (!checked.ok()) {
    return PrintError(checked.status(),
                      IsSignatureRefusal(checked.status()) ? kExitUsage : kExitFailed);
  }
  *chain = std::move(*checked);
  options->manifest_sha256 = (*chain)->base_sha256;
  std::copy((*chain)->increments.begin(), (*chain)->increments.end(), increments->begin());
  return kExitOk;
}

int RunLoad(const LoadArgs& a) {
  KeepFreedMemory();
  InterruptWatcher interrupt("tables not yet committed are rolled back");
  auto options = BuildOptions(a);
  if (!options.ok()) return PrintError(options.status(), kExitUsage);

  options->store.stop = interrupt.token();
  std::unique_ptr<ObjectStore> store;
  if (int rc = OpenCommandStore(a.dump, a.s3, options->store, &store); rc != kExitOk) return rc;
  const std::string dump = store->Describe();
  // Refuse a missing or unreadable dump before creating the target file.
  auto manifest = ReadDumpManifest(*store);
  if (!manifest.ok()) return PrintError(manifest.status(), kExitFailed);
  // Incremental dumps: the increments to apply after the base.
  std::vector<IncrementManifest> increments;
  if (int rc = ReadIncrementsOf(*store, *manifest, *options, &increments); rc != kExitOk) {
    return rc;
  }
  const int available = static_cast<int>(increments.size());
  const bool incremental = !manifest->incremental.is_null();
  auto until_checked = IncrementsUntil(a, incremental, available, options->if_exists, dump);
  if (!until_checked.ok()) return PrintError(until_checked.status(), kExitUsage);
  const int until = *until_checked;
  const bool apply = incremental && until >= std::max(1, a.from);
  std::optional<SignedIncrementChain> chain;
  if (int rc = CheckSignedChain(*store, apply ? until : 0, &*options, &increments, &chain);
      rc != kExitOk) {
    return rc;
  }
  const bool pg_target = IsPostgresSource(a.target);
  IncrementLoadRequest request = IncrementRequest(a, *options, until);
  request.trust.chain = chain ? &*chain : nullptr;
  if (incremental && pg_target && options->if_exists == LoadIfExists::kAppend && a.until != 0) {
    return AppendIncrements(a, *store, *manifest, increments, request, interrupt);
  }
  std::optional<IncrementLoadPlan> plan;  // checked before the base is loaded
  if (apply && pg_target) {
    auto planned = PlanIncrementsAfterBase(*store, *manifest, increments, request);
    if (!planned.ok()) return PrintError(planned.status(), ExitCodeForStatus(planned.status()));
    plan = *planned;
  }

  auto lock_timeout = ParseLockTimeout(a.lock_timeout);
  if (!lock_timeout.ok()) return PrintError(lock_timeout.status(), kExitUsage);
  TargetOptions target_options;
  target_options.lock_timeout_ms = *lock_timeout;
  target_options.disable_triggers = a.disable_triggers;
  target_options.connections = options->table_parallelism * std::max(1, options->file_parallelism);
  auto target = OpenTargetDatabase(a.target, target_options);
  if (!target.ok()) return PrintError(target.status(), ExitCodeForStatus(target.status()));
  const std::string target_name = (*target)->Describe();

  LoadService service(store.get(), target->get(), *options);
  ProgressReporter reporter(&service.progress(), options->progress);
  reporter.Start();
  Result<LoadResult> result = service.Run(interrupt.token());
  reporter.Stop();
  if (!result.ok()) {
    return LoadFailed(a, result.status(), interrupt.interrupted(), service.started_loading());
  }
  PrintLoadResult(a, *result, dump, target_name);
  if (!manifest->incremental.is_null() && !IsPostgresSource(a.target)) {
    if (available > 0) {
      std::fprintf(stderr,
                   "lakedump: warning: the base was loaded; its %d increments were not applied "
                   "(increments are applied to PostgreSQL targets only)\n",
                   available);
    }
    return kExitOk;
  }
  if (incremental) {
    target->reset();  // its connections; the increments use one of their own
    return AfterBaseLoad(a, *store, *manifest, increments, plan, request, interrupt);
  }
  return kExitOk;
}

// --data-only and what goes with it (README "Schema now, data later").
void AddDataOnlyOptions(CLI::App* app, LoadArgs* a) {
  app->add_flag("--data-only", a->data_only,
                "the data only: no schema archive (tables created from the dump's types, or "
                "appended to with --if-exists append: every existing table's rows in one "
                "transaction, in foreign-key order)");
  app->add_flag("--disable-triggers", a->disable_triggers,
                "with --data-only, as pg_restore's: move the rows into existing tables with "
                "triggers and foreign-key checks off (session_replication_role = replica; "
                "superuser only)");
}

}  // namespace

CommandEntry AddLoadCommand(CLI::App& parent) {
  auto a = std::make_shared<LoadArgs>();
  CLI::App* app =
      parent.add_subcommand("load", "Load a dump (Parquet files plus manifest) into a database.");
  app->add_option("DUMP", a->dump, "file:///dir, a plain directory path, or s3://bucket/prefix")
      ->required();
  app->add_option("TARGET", a->target,
                  "sqlite:///path/db.sqlite, a path ending in .sqlite or .db "
                  "(created if "
                  "missing), or postgres://...")
      ->required();
  app->add_option("--tables", a->tables, "only these tables: globs over schema.table or table")
      ->delimiter(',');
  app->add_option("--exclude", a->exclude, "skip these tables (globs)")->delimiter(',');
  AddRestoreFlags(app, &a->restore);
  app->add_option("--schema-map", a->schema_map,
                  "load tables of dump schema OLD into schema NEW (repeatable; a SQLite "
                  "dump's schema is main, loaded into public unless mapped)")
      ->type_name("OLD=NEW");
  AddIntOption(app, "--until", &a->until, 0, 999999,
               "incremental dumps: apply the increments up to N only (0: the base alone)");
  AddIntOption(app, "--from", &a->from, 1, 999999,
               "incremental dumps: with --if-exists append, the first increment to apply (no "
               "base load); it must be the one after the last the target records in "
               "lakedump.applied_increments, which is the default");
  app->add_option("--if-exists", a->if_exists,
                  "fail | replace | append, when a target table already exists")
      ->capture_default_str();
  AddIntOption(app, "--table-parallelism,-j", &a->table_parallelism, 1, kMaxThreads,
               "table tasks at once (default: number of cores)");
  AddIntOption(app, "--file-parallelism", &a->file_parallelism, 1, 64,
               "streams (connections) loading one table at once; 1 = one transaction "
               "per table (PostgreSQL: COPY FREEZE) (SQLite: always 1)");
  AddIntOption(app, "--batch-rows", &a->batch_rows, 1, kMaxBatchRows,
               "rows read from a Parquet file at a time");
  app->add_option("--progress", a->progress, "auto | plain | none")->capture_default_str();
  app->add_flag("--json", a->json, "print one JSON summary object on stdout");
  app->add_flag("--trust-dump", a->trust_dump,
                "apply the dump's schema code too (DEFAULT expressions, CHECK constraints, "
                "recorded DDL, pg_restore of its pg_dump archive: views, functions, triggers, "
                "types, indexes; SQLite's recorded statements); only for a dump you trust: see "
                "'Threat model' in README");
  app->add_option("--require-signature", a->require_signature,
                  "refuse the dump unless it is signed with the key in this file (dump "
                  "--sign-key-file) and every object's SHA-256 matches: the base and every "
                  "increment applied (their chain, with --until and --from too); a verified "
                  "dump is trusted (as --trust-dump), each increment by its own signature")
      ->type_name("KEYFILE");
  AddSizeOption(app, "--lock-timeout", &a->lock_timeout,
                {NumericRange::Kind::kDuration, 1, 86'400'000, "forever", ""},
                "PostgreSQL: how long --if-exists replace/append waits for the lock on the "
                "existing table before giving up");
  app->add_flag("--schema-only", a->schema_only, "restore the schema (tables empty), no data (nor large objects)");
  AddDataOnlyOptions(app, a.get());
  app->add_option("--pg-bin-dir", a->pg_bin_dir,
                  "directory of the pg_restore to use (default: the newest suitable one in "
                  "PATH or /usr/lib/postgresql/*/bin)");
  AddIntOption(app, "--restore-jobs", &a->restore_jobs, 0, kMaxThreads,
               "connections restoring indexes, keys, triggers as pg_restore --jobs (0 = as -j)");
  AddS3Flags(app, &a->s3, /*with_upload=*/false);
  app->footer(
      "Examples:\n"
      "  lakedump load ./lakedump-demo restored.sqlite\n"
      "  lakedump load ./out sqlite:///data/copy.db --tables 'store_*' "
      "--if-exists replace\n"
      "  lakedump load s3://bucket/dumps/app app.db --endpoint http://127.0.0.1:7480\n"
      "  lakedump load ./out postgres://user@host/db --schema-map "
      "main=public -j 8\n\n"
      "By default a dump is untrusted: tables are made from its column types, names,\n"
      "nullability and key columns, and nothing of its schema text is executed.\n"
      "--trust-dump (or a signature verified by --require-signature) applies the rest.\n\n"
      "PostgreSQL large objects are data: restored with their OIDs (owners and grants from\n"
      "a trusted dump), not with --schema-only, -t/--table, --tables or -n/--schema.\n\n"
      "Each table is loaded whole or not at all. After a failure, "
      "tables already loaded\n"
      "stay: re-run with --if-exists replace, or with "
      "--tables/--exclude for the rest.\n"
      "Exit codes: 0 complete, 1 failed, 2 bad usage.");
  return {app, [a] { return RunLoad(*a); }};
}

}  // namespace lakedump::cli
