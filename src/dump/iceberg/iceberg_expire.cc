#include "dump/iceberg/iceberg_expire.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "lake/dump_lease.h"
#include "dump/iceberg/iceberg_commit.h"
#include "lake/iceberg_snapshot_objects.h"
#include "lake/manifest.h"
#include "lake/object_keys.h"

namespace lakedump {
namespace {

// The snapshots of `h` that expire: beyond the newest `retain_last` (by time, then
// position), older than the cut-off if there is one, never the current one.
std::vector<size_t> Expiring(const iceberg::TableHistory& h, const ExpireOptions& o) {
  std::vector<size_t> order(h.snapshot_ids.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto& snapshots = h.metadata["snapshots"];
  auto time = [&](size_t i) { return snapshots[i]["timestamp-ms"].get<int64_t>(); };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return time(a) != time(b) ? time(a) > time(b) : a > b;
  });
  std::vector<size_t> out;
  for (size_t rank = static_cast<size_t>(o.retain_last); rank < order.size(); ++rank) {
    const size_t i = order[rank];
    if (h.snapshot_ids[i] == h.current_snapshot_id) continue;
    if (o.older_than && time(i) >= o.now_ms - o.older_than->count()) continue;
    out.push_back(i);
  }
  return out;
}

// True when a snapshot of `h` is an increment's (docs/iceberg.md, "Increments").
bool HasIncrementSnapshots(const iceberg::TableHistory& h) {
  for (const auto& s : h.metadata["snapshots"]) {
    if (s.contains("summary") && s["summary"].is_object() &&
        s["summary"].contains("lakedump.increment")) {
      return true;
    }
  }
  return false;
}

// The objects of the table that only the snapshots `expiring` (indices into the history's
// snapshots) need, none that a retained snapshot or the dump's own table names, and only
// under the table's folder (never an increment's re-dumped files, which loads read).
Result<std::vector<std::string>> OnlyExpiredNeed(ObjectStore& store, const TableManifest& table,
                                                 const iceberg::TableHistory& h,
                                                 const std::vector<size_t>& expiring) {
  SnapshotObjects objects(&store, table.table);
  std::set<std::string> kept, expired;
  const std::set<size_t> gone(expiring.begin(), expiring.end());
  size_t i = 0;
  for (const auto& s : h.metadata["snapshots"]) {
    LD_RETURN_IF_ERROR(objects.Add(s, gone.count(i++) ? &expired : &kept));
  }
  for (const DataFile& f : table.files) kept.insert(f.key);
  // The dump's own snapshot's manifest and list, which verify expects with its _table.json.
  for (const std::string& k : IcebergMetadataKeys(table)) kept.insert(k);
  const std::string prefix = TablePrefix(table.table);
  std::vector<std::string> doomed;
  for (const std::string& k : expired) {
    if (k.starts_with(prefix) && !kept.count(k)) doomed.push_back(k);
  }
  return doomed;
}

// Trims one table: v<N+1>, the hint, then the objects only the expired snapshots named.
Status ExpireTable(ObjectStore& store, const TableManifest& table,
                   const std::vector<ObjectInfo>& listing, const ExpireOptions& options,
                   ExpireResult* result) {
  LD_ASSIGN_OR_RETURN(IcebergHistoryRead read, ReadIcebergHistory(store, table.table));
  if (!read.history) {
    if (!read.problem.empty()) {
      result->warnings.push_back(fmt::format("Iceberg table {} left as it is: {}",
                                             table.table.QualifiedName(), read.problem));
    }
    return Status::OK();
  }
  const iceberg::TableHistory& h = *read.history;
  const std::vector<size_t> expiring = Expiring(h, options);
  if (expiring.empty()) return Status::OK();
  // Snapshots of increments (and compactions) share files: what goes is found by reference.
  std::optional<std::vector<std::string>> shared;
  if (HasIncrementSnapshots(h)) {
    auto found = OnlyExpiredNeed(store, table, h, expiring);
    if (!found.ok()) {
      result->warnings.push_back(fmt::format("Iceberg table {} left as it is: {}",
                                             table.table.QualifiedName(),
                                             found.status().message()));
      return Status::OK();
    }
    shared = std::move(*found);
  }
  std::vector<int64_t> ids;
  std::set<std::string> gone_runs;
  for (size_t i : expiring) {
    ids.push_back(h.snapshot_ids[i]);
    gone_runs.insert(h.run_ids[i]);
  }
  LD_ASSIGN_OR_RETURN(std::string text,
                      iceberg::ExpireSnapshots(h, ids, options.now_ms,
                                               IcebergTableLocation(store, table.table)));
  const std::string next = IcebergMetadataFileKey(table.table, h.version + 1);
  LD_RETURN_IF_ERROR(store.PutObject(next, text).WithContext(next));
  const std::string hint = IcebergHintKey(table.table);
  LD_RETURN_IF_ERROR(store.PutObject(hint, std::to_string(h.version + 1)).WithContext(hint));
  result->tables += 1;
  result->snapshots_expired += ids.size();

  if (shared) {
    LD_RETURN_IF_ERROR(store.Delete(*shared));
    for (std::string& k : *shared) result->deleted.push_back(std::move(k));
    return Status::OK();
  }
  // Now no snapshot names them: the objects of the expired runs, but for any that a kept
  // snapshot or the dump's own table names too.
  IcebergTableKeep kept = KeepOfHistory(table.table, h);
  std::erase_if(kept.run_ids, [&](const std::string& r) { return gone_runs.count(r) > 0; });
  kept.keys.push_back(next);
  std::set<std::string> named;
  for (const DataFile& f : table.files) named.insert(f.key);
  IcebergTableKeep expired;
  expired.prefix = kept.prefix;
  expired.run_ids.assign(gone_runs.begin(), gone_runs.end());
  std::vector<std::string> doomed;
  for (const ObjectInfo& o : listing) {
    if (expired.KeepsObject(o.key) && !kept.KeepsObject(o.key) && !named.count(o.key)) {
      doomed.push_back(o.key);
    }
  }
  LD_RETURN_IF_ERROR(store.Delete(doomed));
  for (std::string& k : doomed) result->deleted.push_back(std::move(k));
  return Status::OK();
}

}  // namespace

Result<ExpireResult> ExpireIcebergSnapshots(ObjectStore& store, const ExpireOptions& options) {
  if (options.retain_last < 1) {
    return Status::InvalidArgument("--retain-last must be at least 1 (the current snapshot)");
  }
  LD_ASSIGN_OR_RETURN(std::unique_ptr<DumpLease> lease,
                      DumpLease::Acquire(&store, NewRunId(), LeaseOptions{}));
  ExpireResult result;
  Status status = [&]() -> Status {
    LD_ASSIGN_OR_RETURN(DumpManifest manifest, ReadDumpManifest(store));
    LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> listing, store.List(""));
    for (const TableSummary& s : manifest.tables) {
      LD_ASSIGN_OR_RETURN(TableManifest table, ReadTableManifest(store, s.key));
      LD_RETURN_IF_ERROR(lease->CheckHeld());
      LD_RETURN_IF_ERROR(ExpireTable(store, table, listing, options, &result)
                             .WithContext(table.table.QualifiedName()));
    }
    return Status::OK();
  }();
  Status released = lease->Release();
  if (!status.ok()) return status;
  if (!released.ok()) {
    result.warnings.push_back(fmt::format("could not delete the lease {}: {}", kLeaseKey,
                                          released.message()));
  }
  return result;
}

}  // namespace lakedump
