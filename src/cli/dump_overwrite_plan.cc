#include "cli/dump_overwrite_plan.h"

#include <cstdio>
#include <memory>

#include "cli/cli_util.h"
#include "cli/unfinished_writes.h"
#include "dump/destination_check.h"
#include "lake/object_keys.h"
#include "lake/run_journal.h"

namespace lakedump::cli {

int RunOverwriteDryRun(const DumpArgs& a, const DumpOptions& options) {
  std::unique_ptr<ObjectStore> store;
  if (int rc = OpenCommandStore(a.dest, a.s3, options.store, &store); rc != kExitOk) return rc;
  const std::string dest = store->Describe();
  auto listing = store->List("");
  if (!listing.ok()) return PrintError(listing.status(), kExitFailed);
  std::erase_if(*listing, [](const ObjectInfo& o) { return o.key == kLeaseKey; });
  auto owners = DestinationOwnership::Read(*store, *listing);
  if (!owners.ok()) return PrintError(owners.status(), kExitFailed);
  if (Status s = CheckDestinationObjects(*owners, options, dest); !s.ok()) {
    return PrintError(s.WithContext("dry run"), kExitUsage);
  }
  size_t objects = 0;
  for (const ObjectInfo& o : owners->listing()) {
    // The new dump replaces every object of lakedump's (the sweep after its manifest).
    if (!MayDeleteObject(&*owners, options, "", o.key)) continue;
    std::printf("would delete %s (%llu bytes)\n", OneLine(o.key).c_str(),
                static_cast<unsigned long long>(o.size));
    ++objects;
  }
  auto writes = CollectUnfinishedWrites(a.dest, *store, options.store, std::chrono::seconds(0),
                                        /*dry_run=*/true, SystemClock());
  if (!writes.ok()) return PrintError(writes.status(), kExitFailed);
  for (const UnfinishedWrite& w : writes->removed) {
    std::printf("would remove unfinished write %s\n", OneLine(w.Describe()).c_str());
  }
  std::printf("dry run: --if-exists overwrite would delete %zu objects and %zu unfinished "
              "writes at %s; nothing was deleted\n",
              objects, writes->removed.size(), dest.c_str());
  return kExitOk;
}

}  // namespace lakedump::cli
