// `lakedump load DUMP TARGET`: the load service driven from the command line.
#include <fmt/format.h>
#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <thread>

#include "base/units.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/numeric_option.h"
#include "dump/manifest.h"
#include "load/load_service.h"
#include "load/open_target.h"

namespace lakedump::cli {
namespace {

struct LoadArgs {
  std::string dump;
  std::string target;
  std::vector<std::string> tables;
  std::vector<std::string> exclude;
  std::vector<std::string> schema_map;
  std::string if_exists = "fail";
  int table_parallelism = DefaultParallelism();
  int file_parallelism = 2;
  size_t batch_rows = 16384;
  std::string progress = "auto";
  bool json = false;
  S3Flags s3;
};

Result<LoadOptions> BuildOptions(const LoadArgs& a) {
  LoadOptions o;  // the numeric options' ranges are checked while parsing
  o.table_parallelism = a.table_parallelism;
  o.file_parallelism = a.file_parallelism;
  o.batch_rows = a.batch_rows;
  o.include = a.tables;
  o.exclude = a.exclude;
  for (const std::string& m : a.schema_map) {
    LD_ASSIGN_OR_RETURN(auto mapping, ParseSchemaMapping(m));
    o.schema_map.push_back(std::move(mapping));
  }
  LD_ASSIGN_OR_RETURN(o.if_exists, ParseLoadIfExists(a.if_exists));
  LD_ASSIGN_OR_RETURN(o.progress, ParseProgressMode(a.progress));
  if (a.json && a.progress == "auto") o.progress = ProgressMode::kNone;
  return o;
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
          {"dump_id", r.dump_id},
          {"dump", dump},
          {"target", target},
          {"tables", r.tables.size()},
          {"rows", r.rows},
          {"files", r.files},
          {"bytes", r.bytes},
          {"seconds", r.seconds},
          {"rows_per_second", r.seconds > 0 ? r.rows / r.seconds : 0.0},
          {"loaded", tables}};
}

int ExitCodeFor(const Status& s) {
  return s.code() == Code::kInvalidArgument ? kExitUsage : kExitFailed;
}

// Keeps freed buffers in the process instead of returning them to the kernel: a load
// allocates and frees the same large buffers (column chunks, pages, COPY data) per file, and
// memory handed back is page-faulted and zero-filled again on the next use (most of the
// client's CPU on some VMs). Peak memory is unchanged; it is just not given back early.
void KeepFreedMemory() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's maximum: big buffers come from the heap
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
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
  if (auto manifest = ReadDumpManifest(*store); !manifest.ok()) {
    return PrintError(manifest.status(), kExitFailed);
  }

  TargetOptions target_options;
  target_options.connections = options->table_parallelism * std::max(1, options->file_parallelism);
  auto target = OpenTargetDatabase(a.target, target_options);
  if (!target.ok()) return PrintError(target.status(), ExitCodeFor(target.status()));
  const std::string target_name = (*target)->Describe();

  LoadService service(store.get(), target->get(), *options);
  ProgressReporter reporter(&service.progress(), options->progress);
  reporter.Start();
  Result<LoadResult> result = service.Run(interrupt.token());
  reporter.Stop();
  if (!result.ok()) {
    Status s = result.status();
    if (interrupt.interrupted()) {
      s = Status::Cancelled("interrupted: tables not yet committed were rolled back");
    }
    const int code =
        s.code() == Code::kInvalidArgument && !service.started_loading() ? kExitUsage : kExitFailed;
    if (a.json) {
      std::printf(
          "%s\n",
          nlohmann::json({{"status", "error"}, {"error", OneLine(s.message())}}).dump().c_str());
    }
    return PrintError(s, code);
  }
  if (a.json) {
    std::printf("%s\n", Summary(*result, dump, target_name).dump().c_str());
  } else {
    const double rate = result->seconds > 0 ? result->rows / result->seconds : 0.0;
    std::printf(
        "loaded %zu tables, %s rows, %llu files, %s in %s (%s rows/s) "
        "into %s\n",
        result->tables.size(), FormatCount(static_cast<double>(result->rows)).c_str(),
        static_cast<unsigned long long>(result->files), FormatBytes(result->bytes).c_str(),
        FormatSeconds(result->seconds).c_str(), FormatCount(rate).c_str(), target_name.c_str());
  }
  return kExitOk;
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
  app->add_option("--schema-map", a->schema_map,
                  "load tables of dump schema OLD into schema NEW (repeatable)")
      ->type_name("OLD=NEW");
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
  AddS3Flags(app, &a->s3, /*with_upload=*/false);
  app->footer(
      "Examples:\n"
      "  lakedump load ./lakedump-demo restored.sqlite\n"
      "  lakedump load ./out sqlite:///data/copy.db --tables 'store_*' "
      "--if-exists replace\n"
      "  lakedump load s3://bucket/dumps/app app.db --endpoint "
      "http://127.0.0.1:7480\n"
      "  lakedump load ./out postgres://user@host/db --schema-map "
      "main=public -j 8\n\n"
      "Each table is loaded whole or not at all. After a failure, "
      "tables already loaded\n"
      "stay: re-run with --if-exists replace, or with "
      "--tables/--exclude for the rest.\n"
      "Exit codes: 0 complete, 1 failed, 2 bad usage.");
  return {app, [a] { return RunLoad(*a); }};
}

}  // namespace lakedump::cli
