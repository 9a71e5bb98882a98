// `lakedump gc DEST [--older-than 1h] [--dry-run]`: cleans what runs that were killed
// (SIGKILL, power loss) left behind: incomplete multipart uploads under an S3
// prefix, hidden temp files under a local folder; only those that a dead run's journal
// names, or (older than --older-than) of the committed dump's shapes (lake/run_journal.h).
// `lakedump gc DEST --expire-snapshots [--retain-last K] [--older-than D]`: trims
// the history of an Iceberg dump's tables (dump/iceberg_expire.h) instead.
// `lakedump gc DEST --drop-slot`: drops an incremental dump's replication slot.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <set>

#include <CLI/CLI.hpp>

#include "base/units.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/numeric_option.h"
#include "cli/unfinished_writes.h"
#include "lake/dump_lease.h"
#include "dump/iceberg/iceberg_expire.h"
#include "lake/manifest.h"
#include "dump/incremental/incremental_base.h"
#include "lake/incremental_state.h"
#include "dump/shard/shard_coordinator.h"

namespace lakedump::cli {
namespace {

struct GcArgs {
  std::string dest;
  std::string older_than = "1h";
  bool older_than_given = false;
  bool expire_snapshots = false;
  int retain_last = 1;
  bool drop_slot = false;
  bool dry_run = false;
  std::string source;  // --source: where the slot is (required with --drop-slot)
  S3Flags s3;
};

int RunExpire(const GcArgs& a, ObjectStore* store, std::chrono::milliseconds age) {
  ExpireOptions options;
  options.retain_last = a.retain_last;
  if (a.older_than_given) options.older_than = age;
  options.now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  auto r = ExpireIcebergSnapshots(*store, options);
  if (!r.ok()) return PrintError(r.status(), ExitCodeForStatus(r.status()));
  for (const std::string& key : r->deleted) std::printf("deleted %s\n", key.c_str());
  for (const std::string& w : r->warnings) std::fprintf(stderr, "lakedump: warning: %s\n", w.c_str());
  std::printf("%llu snapshots expired in %llu tables, %zu objects deleted under %s\n",
              static_cast<unsigned long long>(r->snapshots_expired),
              static_cast<unsigned long long>(r->tables), r->deleted.size(),
              store->Describe().c_str());
  return kExitOk;
}

// The unfinished writes (S3 multipart uploads, local temp files) that the journal of a dead
// run names, or of a lakedump that wrote no journal that are of the committed dump's shapes
// and older than --older-than: never a live run's, never what lakedump did not write.
int RunUnfinishedGc(const GcArgs& a, ObjectStore& store, std::chrono::seconds age) {
  StoreOptions options;
  if (Status s = ApplyS3Flags(a.s3, &options.s3); !s.ok()) return PrintError(s, kExitUsage);
  auto outcome = CollectUnfinishedWrites(a.dest, store, options, age, a.dry_run, SystemClock());
  if (!outcome.ok()) return PrintError(outcome.status(), ExitCodeForStatus(outcome.status()));
  const std::string where = store.Describe();
  if (outcome->no_dump) {
    std::printf("no lakedump dump, run journal or lease at %s: nothing deleted\n",
                where.c_str());
    return kExitOk;
  }
  const char* verb = a.dry_run ? "would remove" : "removed";
  for (const UnfinishedWrite& w : outcome->removed) {
    std::printf("%s %s %s\n", verb, w.upload_id.empty() ? "temp file" : "upload of",
                OneLine(w.Describe()).c_str());
  }
  std::printf("%zu unfinished writes %s under %s (%zu left: a live run's, not lakedump's, or "
              "younger than %s)%s\n",
              outcome->removed.size(), a.dry_run ? "would be removed" : "removed",
              where.c_str(), outcome->kept, a.older_than.c_str(),
              a.dry_run ? "; dry run: nothing deleted" : "");
  return kExitOk;
}

// A committed sharded dump (docs/scale-out.md): the files of shard attempts that its tables do
// not list (attempts that lost or finished after the commit, units a retry dumped again), and
// a plan, reports or progress objects left behind. Only while no run holds the destination's
// lease (a new coordinator's plan and reports are not leftovers).
int SweepShardAttempts(ObjectStore* store) {
  auto text = ReadDumpManifestText(*store);
  if (!text.ok()) return kExitOk;  // no committed dump: nothing is a leftover yet
  auto manifest = ParseDumpManifest(*text, kManifestKey);
  if (!manifest.ok()) return PrintError(manifest.status(), kExitFailed);
  if (!manifest->options.is_object() || !manifest->options.contains("shards")) return kExitOk;
  if (auto holder = ReadLease(*store);
      holder.ok() && !holder->IsStale(std::chrono::system_clock::now())) {
    std::printf("a lakedump run holds %s: shard attempts left alone\n", store->Describe().c_str());
    return kExitOk;
  }
  // Exactly the files the dump lists stay (a retried shard's may come from two attempts,
  // whose other files are leftovers).
  std::set<std::string> listed;
  for (const TableSummary& t : manifest->tables) {
    auto table = ReadTableManifest(*store, t.key);
    if (!table.ok()) return PrintError(table.status(), kExitFailed);
    for (const DataFile& f : table->files) listed.insert(f.key);
  }
  uint64_t deleted = 0;
  Status s = SweepShardLeftovers(*store, manifest->dump_id, listed, &deleted);
  if (!s.ok()) return PrintError(s, kExitFailed);
  std::printf("%llu objects of shard attempts the dump does not use removed under %s\n",
              static_cast<unsigned long long>(deleted), store->Describe().c_str());
  return kExitOk;
}

// A sharded dump's coordinator that died before its commit: its lease and plan go, so that a
// dump can start there again (docs/scale-out.md).
int RemoveDeadCoordinatorLease(ObjectStore* store) {
  std::string removed;
  if (Status s = RemoveDeadShardLease(*store, SystemClock(), &removed); !s.ok()) {
    return PrintError(s, kExitFailed);
  }
  if (!removed.empty()) {
    std::printf("removed the lease and plan of a dead coordinator: %s\n", removed.c_str());
  }
  return kExitOk;
}

// --drop-slot: the replication slot and publication of the incremental dump at DEST, on the
// source the user names with --source (never a host the manifest names).
int RunDropSlot(const GcArgs& a, ObjectStore& store) {
  if (a.source.empty()) {
    return PrintError(Status::InvalidArgument(
                          "gc --drop-slot needs --source CONNINFO: the database the slot is on "
                          "(lakedump never connects where a dump says)"),
                      kExitUsage);
  }
  auto manifest = ReadDumpManifest(store);
  if (!manifest.ok()) return PrintError(manifest.status(), kExitFailed);
  auto base = ParseIncrementalBase(*manifest);
  if (!base.ok()) {
    return PrintError(base.status().WithContext(store.Describe()), kExitUsage);
  }
  auto dropped = DropIncrementalSlot(a.source, 10, *manifest, *base);
  if (!dropped.ok()) {
    return PrintError(dropped.status(), ExitCodeForStatus(dropped.status()));
  }
  std::printf(*dropped ? "dropped replication slot %s and publication %s: no more increments "
                         "can be made for %s (a new base: dump --incremental --if-exists "
                         "overwrite)\n"
                       : "replication slot %s and publication %s were gone already: nothing "
                         "to drop for %s\n",
              base->slot.c_str(), base->publication.c_str(), store.Describe().c_str());
  return kExitOk;
}

int RunGc(const GcArgs& a) {
  auto age = ParseDuration(a.older_than);
  if (!age.ok()) return PrintError(age.status().WithContext("--older-than"), kExitUsage);
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(*age);
  // Opened as every command opens its store, so a bad URL gets the same answer here.
  std::unique_ptr<ObjectStore> store;
  if (int rc = OpenCommandStore(a.dest, a.s3, StoreOptions{}, &store); rc != kExitOk) return rc;
  if (a.drop_slot) return RunDropSlot(a, *store);
  if (a.expire_snapshots) {
    return RunExpire(a, store.get(),
                     std::chrono::duration_cast<std::chrono::milliseconds>(*age));
  }
  if (!a.dry_run) {
    if (int rc = SweepShardAttempts(store.get()); rc != kExitOk) return rc;
    if (int rc = RemoveDeadCoordinatorLease(store.get()); rc != kExitOk) return rc;
  }
  return RunUnfinishedGc(a, *store, seconds);
}

}  // namespace

CommandEntry AddGcCommand(CLI::App& parent) {
  auto a = std::make_shared<GcArgs>();
  CLI::App* app = parent.add_subcommand(
      "gc",
      "Clean what killed runs left: the incomplete S3 multipart uploads and local temp files "
      "that a dead run's journal names, the files of shard attempts a sharded dump does not "
      "use, and the lease and plan of a sharded dump's dead coordinator. Never a live run's, "
      "never what lakedump did not write.");
  app->add_option("DEST", a->dest, "s3://bucket/prefix, file:///dir or a folder path")
      ->required();
  CLI::Option* older_than = AddSizeOption(
      app, "--older-than", &a->older_than,
      {NumericRange::Kind::kDuration, 0, 3650LL * 86'400'000, "", ""},
      "for what no run journal names (a lakedump before the journal): only uploads started "
      "and temp files written longer ago than this (what a dead run's journal names goes "
      "whatever its age; a live run's never); with --expire-snapshots: only snapshots older "
      "than this expire");
  CLI::Option* expire = app->add_flag("--expire-snapshots", a->expire_snapshots,
                "instead: expire the snapshots of an Iceberg dump's tables (all but the "
                "--retain-last newest, and with --older-than only older ones) and delete the "
                "files only they reference; the current snapshot always stays");
  AddIntOption(app, "--retain-last", &a->retain_last, 1, 1'000'000,
               "with --expire-snapshots: how many of each table's newest snapshots stay")
      ->needs(expire);
  app->add_flag("--drop-slot", a->drop_slot,
                "DEST holds an incremental dump: drop its replication slot and publication "
                "on the source (a slot left behind keeps WAL forever); no more increments")
      ->excludes(expire);
  app->add_option("--source", a->source,
                  "with --drop-slot (required): the source's connection string, as given to "
                  "dump; checked to reach the database the base was dumped from");
  app->add_flag("--dry-run", a->dry_run,
                "print what would be removed, and remove nothing");
  AddS3Flags(app, &a->s3, /*with_upload=*/false);
  app->footer(
      "Examples:\n"
      "  lakedump gc s3://bucket/dumps/app\n"
      "  lakedump gc ./replica-dump --drop-slot --source postgres://app@db/app\n"
      "  lakedump gc ./lakedump-demo --older-than 0s\n"
      "  lakedump gc ./iceberg-dump --expire-snapshots --retain-last 2\n"
      "  lakedump gc s3://bucket/dumps --older-than 10m --endpoint http://127.0.0.1:7480");
  return {app, [a, older_than] {
            a->older_than_given = older_than->count() > 0;
            return RunGc(*a);
          }};
}

}  // namespace lakedump::cli
