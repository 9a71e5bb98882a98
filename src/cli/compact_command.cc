// `lakedump compact DEST [--tables ...] [--target-file-size SIZE]`: rewrites the current
// snapshot of an incremental Iceberg dump's tables into clean files (in key order for a
// table with a key) as a `replace` snapshot (dump/iceberg/iceberg_compact.h; docs/iceberg.md,
// "Compaction").
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/units.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/numeric_option.h"
#include "dump/iceberg/iceberg_compact.h"

namespace lakedump::cli {
namespace {

struct CompactArgs {
  std::string dest;
  std::vector<std::string> tables;
  std::string target = "512MiB";
  S3Flags s3;
};

int RunCompact(const CompactArgs& a) {
  CompactOptions options;
  options.tables = a.tables;
  auto target = ParseSize(a.target);
  if (!target.ok()) return PrintError(target.status().WithContext("--target-file-size"), kExitUsage);
  options.target_file_bytes = *target;
  std::unique_ptr<ObjectStore> store;
  if (int rc = OpenCommandStore(a.dest, a.s3, StoreOptions{}, &store); rc != kExitOk) return rc;
  auto r = CompactIcebergTables(*store, options);
  if (!r.ok()) return PrintError(r.status(), ExitCodeForStatus(r.status()));
  for (const CompactedTable& t : r->compacted) {
    const std::string order =
        t.files_in_key_order + t.files_sorted == 0
            ? ""
            : fmt::format(" in key order ({} of the files were, {} sorted)", t.files_in_key_order,
                          t.files_sorted);
    std::printf("%s: %llu data files and %llu delete files (%llu rows deleted) -> %llu files, "
                "%llu rows%s: replace snapshot %lld\n",
                TerminalSafe(t.table.QualifiedName(), false).c_str(),
                static_cast<unsigned long long>(t.data_files_before),
                static_cast<unsigned long long>(t.delete_files_before),
                static_cast<unsigned long long>(t.deleted_rows),
                static_cast<unsigned long long>(t.files_after),
                static_cast<unsigned long long>(t.rows), order.c_str(),
                static_cast<long long>(t.snapshot_id));
  }
  for (const std::string& s : r->skipped) {
    std::printf("%s\n", TerminalSafe(s, false).c_str());
  }
  std::printf("%zu tables compacted (the files they replaced stay for time travel until "
              "gc --expire-snapshots)\n",
              r->compacted.size());
  return kExitOk;
}

}  // namespace

CommandEntry AddCompactCommand(CLI::App& parent) {
  auto a = std::make_shared<CompactArgs>();
  CLI::App* app = parent.add_subcommand(
      "compact",
      "Rewrite the Iceberg tables of an incremental dump (dump --incremental --table-format "
      "iceberg) into clean data files without delete files, as a replace snapshot of the same "
      "rows, with a new key index for the next increment. A table with a key is written in "
      "key order, so that its key index is a few runs per file again. Holds the dump's lease: "
      "refuses while a dump or gc runs on DEST.");
  app->add_option("DEST", a->dest, "the dump's location (directory, file:// or s3:// URL)")
      ->required();
  app->add_option("--tables", a->tables,
                  "only these tables: globs over schema.table or table (default: all)")
      ->delimiter(',');
  AddSizeOption(app, "--target-file-size", &a->target,
                {NumericRange::Kind::kSize, kMiB, kTiB, "", ""},
                "about how large each new data file is (default 512MiB, as Iceberg's "
                "write.target-file-size-bytes)");
  AddS3Flags(app, &a->s3, /*with_upload=*/false);
  app->footer(
      "Examples:\n"
      "  lakedump compact s3://lake/app\n"
      "  lakedump compact ./replica-dump --tables 'public.orders' --target-file-size 128MiB\n"
      "  lakedump gc s3://lake/app --expire-snapshots   # then remove the replaced files");
  return {app, [a] { return RunCompact(*a); }};
}

}  // namespace lakedump::cli
