// IcebergTableCommitter: the Iceberg side of one dump run's table commits
// (--table-format iceberg), beside ExportService. Before a table's data files,
// PrepareSchema() gives its columns their Iceberg field ids (over a committed dump,
// those that continue the table's history). At a table's commit, Schedule()
// writes the table's Iceberg metadata (WriteIcebergTable) on a small writer pool of
// its own, beside the table tasks, so that a table's few extra round trips overlap
// the next tables instead of delaying them; an incremental base's table first gets its
// key index there (key_index.h; a key of one integer column), from its data files' key
// columns, one table at a time.
// Over a committed dump, the objects that must wait for the new manifest (each table's
// v<N+1>.metadata.json, then its version-hint.text) are kept here and written by
// WriteDeferred() after it.
// See docs/iceberg.md for the commit order.
//
// Ownership: borrows the store, which must outlive the committer; owns its writer
// threads. Each table's IcebergTableSlot belongs to the caller (its per-table state)
// and must outlive Wait().
// Thread-safety: PrepareSchema() and Schedule() are called from table tasks, on any
// thread, concurrently (never from a writer thread of this committer). Wait(),
// WriteDeferred() and TakeWarnings() are called from the one thread that runs the
// dump, after the table tasks ended. The destructor waits for the writes in flight.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "base/thread_pool.h"
#include "dump/iceberg/iceberg_commit.h"
#include "lake/manifest.h"
#include "store/object_store.h"

namespace lakedump {

// One table's Iceberg state in a run. `keep` and `written`, its objects as the sweep and
// the commit check know them, are set by the table's metadata write (read them only after
// IcebergTableCommitter::Wait()) or by ReuseIcebergTable for a table of an earlier run.
struct IcebergTableSlot {
  std::optional<IcebergTableKeep> keep;  // what the sweep keeps of the table's history
  std::vector<std::string> written;      // metadata keys written before the manifest

  // The table's history as its first unit read it (over a committed dump), for the
  // field ids of every unit and then for the commit.
  std::mutex mu;
  bool history_read = false;                  // GUARDED_BY(mu)
  std::optional<IcebergHistoryRead> history;  // GUARDED_BY(mu)
};

// --if-exists resume: true, with `slot` filled, when every Iceberg object of the
// committed `table` is there and its current snapshot is the table's run's
// (IcebergMetadataPresent); false when the table is to be dumped again.
Result<bool> ReuseIcebergTable(ObjectStore& store, const TableManifest& table,
                               IcebergTableSlot* slot);

// `schema` with the field ids that continue the Iceberg history of `table` in `store`
// (iceberg::EvolveSchema), or as it is (ids by position) when the table has no history that
// opens and checks. Errors only when the store fails.
Result<Schema> ContinuingFieldIds(ObjectStore& store, const TableRef& table, Schema schema);

class IcebergTableCommitter {
 public:
  // `after_committed_dump`: the destination holds a committed dump, whose tables'
  // histories are continued and whose fixed-name objects wait for the new manifest.
  // A stop requested on `stop` cancels the writes.
  // `key_index`: the tables ("schema.table") whose snapshot gets a key index, by their key
  // columns (DumpOptions::iceberg_key_index); borrowed, it must outlive the committer.
  IcebergTableCommitter(ObjectStore* store, int table_parallelism, bool after_committed_dump,
                        const std::map<std::string, std::vector<std::string>>& key_index,
                        std::stop_token stop);
  ~IcebergTableCommitter();
  IcebergTableCommitter(const IcebergTableCommitter&) = delete;
  IcebergTableCommitter& operator=(const IcebergTableCommitter&) = delete;

  // `schema` (the columns a unit of `table` read) with the Iceberg field ids its data
  // files are to carry. Over a committed dump: the ids that continue the table's history
  // (iceberg::EvolveSchema: unchanged columns keep theirs, new ones get fresh ids); the
  // history is read once per table, by its first unit, and kept in `slot` for the commit.
  // Otherwise, or when the history does not check (the commit then starts a new one and
  // says why), `schema` as it is: ids by position. Errors only when the store fails.
  Result<Schema> PrepareSchema(IcebergTableSlot* slot, const TableRef& table,
                               const Schema& schema);

  // Schedules the write of `table`'s Iceberg metadata; when it is written, `slot`
  // holds what was written. Blocks while every writer is busy (at most that many
  // tables' metadata is held at once). Cancelled, without scheduling, once the
  // writes failed or were stopped (Wait() says why).
  // REQUIRES: every file of `table` carries its Iceberg metrics.
  Status Schedule(IcebergTableSlot* slot, TableManifest table);

  // Waits for every scheduled write. The first write's error (a table task refused
  // by a failed writer group only says Cancelled, so a bare cancellation is OK here).
  Status Wait();

  // After the new manifest: the deferred objects, in the order they were produced
  // (per table, v<N+1>.metadata.json then version-hint.text). REQUIRES: Wait().
  Status WriteDeferred();

  // The warnings of tables whose history could not be continued. REQUIRES: Wait().
  std::vector<std::string> TakeWarnings();

 private:
  // A table's metadata write, on a writer thread.
  Status WriteTable(IcebergTableSlot* slot, const TableManifest& table);

  // The key index of `table`'s snapshot, when key_index_ names it: its summary entry.
  Result<std::map<std::string, std::string>> WriteKeyIndex(const TableManifest& table,
                                                           std::vector<std::string>* written);

  ObjectStore* store_;
  bool after_committed_dump_;
  const std::map<std::string, std::vector<std::string>>& key_index_;
  // Held while a key index is built: one at a time, so that the indexes' sorts hold at most
  // kKeyIndexSortBytes however many writers there are (up to kMaxMetadataIoWidth).
  std::mutex index_mu_;
  std::mutex mu_;
  // (key, bytes) of the objects written after the new manifest, and the warnings.
  std::vector<std::pair<std::string, std::string>> deferred_;  // GUARDED_BY(mu_)
  std::vector<std::string> warnings_;                          // GUARDED_BY(mu_)
  // Declared last, destroyed first: the group waits for its tasks (which use the
  // members above) before the pool joins its threads.
  ThreadPool pool_;
  TaskGroup writes_;
};

}  // namespace lakedump
