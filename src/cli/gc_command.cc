// `lakedump gc DEST [--older-than 1h]`: cleans what runs that were killed
// (SIGKILL, power loss) left behind: incomplete multipart uploads under an S3
// prefix, hidden temp files under a local folder.
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
#include "lake/dump_lease.h"
#include "dump/iceberg/iceberg_expire.h"
#include "lake/manifest.h"
#include "dump/incremental/incremental_base.h"
#include "lake/incremental_state.h"
#include "dump/shard/shard_coordinator.h"
#include "store/local/local_store.h"
#include "store/s3/s3_store.h"

namespace lakedump::cli {
namespace {

struct GcArgs {
  std::string dest;
  std::string older_than = "1h";
  bool older_than_given = false;
  bool expire_snapshots = false;
  int retain_last = 1;
  bool drop_slot = false;
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

int RunLocalGc(const GcArgs& a, ObjectStore* store, std::chrono::seconds age) {
  auto* local = dynamic_cast<LocalStore*>(store);
  if (local == nullptr) {
    return PrintError(Status::InvalidArgument("gc works on s3:// and local destinations, not " +
                                              store->Describe()),
                      kExitUsage);
  }
  std::vector<std::string> removed;
  Status s = local->SweepStaleTempFiles(age, &removed);
  for (const std::string& path : removed) std::printf("removed temp file %s\n", path.c_str());
  if (!s.ok()) return PrintError(s, kExitFailed);
  std::printf("%zu temp files older than %s removed under %s\n", removed.size(),
              a.older_than.c_str(), store->Describe().c_str());
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
  if (int rc = SweepShardAttempts(store.get()); rc != kExitOk) return rc;
  if (int rc = RemoveDeadCoordinatorLease(store.get()); rc != kExitOk) return rc;
  if (!a.dest.starts_with("s3://")) return RunLocalGc(a, store.get(), seconds);
  StoreOptions options;
  if (Status s = ApplyS3Flags(a.s3, &options.s3); !s.ok()) return PrintError(s, kExitUsage);
  std::vector<std::string> aborted;
  Status s = AbortStaleUploads(a.dest, seconds, options, &aborted);
  for (const std::string& key : aborted) std::printf("aborted upload of %s\n", key.c_str());
  if (!s.ok()) return PrintError(s, ExitCodeForStatus(s));
  std::printf("%zu incomplete uploads older than %s aborted under %s\n", aborted.size(),
              a.older_than.c_str(), a.dest.c_str());
  return kExitOk;
}

}  // namespace

CommandEntry AddGcCommand(CLI::App& parent) {
  auto a = std::make_shared<GcArgs>();
  CLI::App* app = parent.add_subcommand(
      "gc",
      "Clean what killed runs left: incomplete S3 multipart uploads, local temp files, "
      "the files of shard attempts a sharded dump does not use, and the lease and plan of a "
      "sharded dump's dead coordinator.");
  app->add_option("DEST", a->dest, "s3://bucket/prefix, file:///dir or a folder path")
      ->required();
  CLI::Option* older_than = AddSizeOption(
      app, "--older-than", &a->older_than,
      {NumericRange::Kind::kDuration, 0, 3650LL * 86'400'000, "", ""},
      "only uploads whose newest part (or start, without parts) is older than "
      "this, and temp files written longer ago (0s = all: make sure no dump is "
      "running there); with --expire-snapshots: only snapshots older than this expire");
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
