#include "dump/incremental/increment_runner.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <set>

#include "lake/dump_lease.h"
#include "dump/export_service.h"
#include "dump/incremental/change_capture.h"
#include "dump/incremental/pg_incremental_tables.h"
#include "lake/object_keys.h"
#include "source/postgres/pg_slot.h"
#include "source/postgres/pgoutput.h"
#include "store/prefix_store.h"

namespace lakedump {
namespace {

using WallClock = std::chrono::system_clock;  // not lakedump::Clock (base/clock.h)

// Fault points for the tests of exactly-once (docs/incremental.md): with
// LAKEDUMP_FAULT=<point> the process dies there, as a crash would.
void DieAtFaultPoint(std::string_view point) {
  const char* fault = std::getenv("LAKEDUMP_FAULT");
  if (fault != nullptr && point == fault) std::_Exit(137);
}

// Checks that the connection reaches the database the base was dumped from.
Status CheckSameDatabase(PgConn& conn, const DumpManifest& base, const IncrementalBase& inc) {
  LD_ASSIGN_OR_RETURN(
      PgResult r,
      conn.Query("SELECT d.oid::text, pg_catalog.current_database() FROM pg_catalog.pg_database d "
                 "WHERE d.datname = pg_catalog.current_database()"));
  const std::string oid(PgValue(r.get(), 0, 0));
  const std::string name(PgValue(r.get(), 0, 1));
  std::string sysid;
  if (auto s = conn.Query("SELECT system_identifier::text FROM pg_catalog.pg_control_system()");
      s.ok()) {
    sysid = std::string(PgValue(s->get(), 0, 0));
  }
  const bool other_cluster =
      !inc.system_identifier.empty() && !sysid.empty() && sysid != inc.system_identifier;
  if (other_cluster || oid != inc.database_oid) {
    return Status::InvalidArgument(fmt::format(
        "the base dump at DEST was made from another database ({} on the server with system "
        "identifier {}), not from {} here: an increment must read the base's own source",
        base.source.value("database", std::string("?")),
        inc.system_identifier.empty() ? "?" : inc.system_identifier, name));
  }
  return Status::OK();
}

// The re-dump of `tables` at a fresh snapshot of a temporary slot, as a dump of its own
// in `store`; returns the snapshot's consistent point.
Result<uint64_t> Redump(ObjectStore* store, const IncrementRequest& request,
                        const std::string& slot, const std::vector<TableRef>& tables,
                        std::stop_token stop) {
  PostgresOptions pg = request.pg;
  pg.slot_name = slot;
  pg.slot_temporary = true;
  LD_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, OpenPostgresDatabase(request.conninfo, pg));
  DumpOptions options = request.dump;
  options.include.clear();
  options.exclude.clear();
  options.queries.clear();
  for (const TableRef& t : tables) options.include.push_back(ExactTablePattern(t));
  options.if_exists = IfExists::kFail;
  options.wait_for_lock = std::chrono::milliseconds(0);
  options.schema_from_source_tool = false;
  options.progress = ProgressMode::kNone;
  options.trace_file.clear();
  ExportService service(db.get(), store, options);
  LD_ASSIGN_OR_RETURN(DumpResult result, service.Run(stop));
  return ParseLsn(result.manifest.source.value("consistent_point", std::string()));
}

}  // namespace

Result<IncrementResult> RunIncrement(ObjectStore* store, ObjectStore* lease_store,
                                     const DumpManifest& base, const IncrementRequest& request,
                                     std::stop_token stop) {
  const auto started = WallClock::now();
  LD_ASSIGN_OR_RETURN(IncrementalBase inc, ParseIncrementalBase(base));
  if (request.dump.table_format != TableFormat::kParquet) {
    return Status::InvalidArgument(
        "--incremental with --table-format iceberg is not supported yet (docs/incremental.md)");
  }
  const std::string run_id = NewRunId();
  LeaseOptions lease_options;
  lease_options.renew_interval = request.dump.lease_renew_interval;
  lease_options.wait = request.dump.wait_for_lock;
  // A dead increment's lease is taken over once stale: the slot is where it resumes from.
  lease_options.take_over_stale = true;
  lease_options.clock = request.dump.clock;
  LD_ASSIGN_OR_RETURN(std::unique_ptr<DumpLease> lease,
                      DumpLease::Acquire(lease_store, run_id, lease_options, stop));
  struct Release {
    DumpLease* lease;
    ~Release() { lease->Release().IgnoreError(); }
  } release{lease.get()};

  LD_ASSIGN_OR_RETURN(std::vector<IncrementManifest> previous, ReadIncrements(*store, base));
  LD_ASSIGN_OR_RETURN(std::unique_ptr<PgConn> conn,
                      PgConn::Connect(request.conninfo, request.pg.connect_timeout_seconds));
  LD_RETURN_IF_ERROR(CheckLogicalWal(*conn));
  LD_RETURN_IF_ERROR(CheckSameDatabase(*conn, base, inc));
  LD_ASSIGN_OR_RETURN(PgSlotState slot, QueryPgSlot(*conn, inc.slot));
  if (!slot.exists) {
    return Status::NotFound(fmt::format(
        "replication slot {} of the base dump is gone (dropped, or lakedump gc --drop-slot): "
        "the changes since the last increment are lost; make a new base with dump "
        "--incremental --if-exists overwrite",
        inc.slot));
  }
  if (slot.plugin != "pgoutput") {
    return Status::InvalidArgument(fmt::format(
        "replication slot {} uses plugin {}, not pgoutput: it is not the base dump's", inc.slot,
        slot.plugin));
  }
  const uint64_t start = previous.empty() ? inc.consistent_point : previous.back().end_lsn;
  if (slot.confirmed_flush > start) {
    return Status::InvalidArgument(fmt::format(
        "replication slot {} was moved to {}, past the end of the last increment ({}): changes "
        "in between are lost; make a new base with dump --incremental --if-exists overwrite",
        inc.slot, FormatLsn(slot.confirmed_flush), FormatLsn(start)));
  }
  if (slot.active) {
    return Status::Unavailable(fmt::format(
        "replication slot {} is in use by another connection", inc.slot));
  }
  if (slot.confirmed_flush < start) {
    // The last increment committed but its run ended before moving the slot.
    LD_RETURN_IF_ERROR(AdvancePgSlot(*conn, inc.slot, start).WithContext("moving the slot"));
  }
  LD_ASSIGN_OR_RETURN(const uint64_t end, PgCurrentWalLsn(*conn));

  IncrementManifest m;
  m.sequence = static_cast<int>(previous.size()) + 1;
  m.increment_id = run_id;
  m.base_dump_id = base.dump_id;
  m.previous_increment_id = previous.empty() ? "" : previous.back().increment_id;
  m.slot = inc.slot;
  m.publication = inc.publication;
  m.start_lsn = start;
  m.end_lsn = std::max(start, end);
  m.started_at = FormatUtc(started);
  const std::string prefix = IncrementPrefix(m.sequence);
  // What a run of this increment that died left behind (it never committed).
  {
    LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> left, store->List(prefix));
    std::vector<std::string> keys;
    for (const ObjectInfo& o : left) keys.push_back(o.key);
    LD_RETURN_IF_ERROR(store->Delete(keys));
  }

  // The tables as they are now against their recorded state, and the tables the base's
  // selection covers that it did not have (created since; not in the publication).
  const std::vector<IncrementalTable>& state =
      previous.empty() ? inc.tables : previous.back().tables;
  std::vector<TableRef> refs;
  std::set<std::string> known;
  for (const IncrementalTable& t : state) {
    refs.push_back(t.ref);
    known.insert(t.ref.QualifiedName());
  }
  LD_ASSIGN_OR_RETURN(const BaseSelection selection, ReadBaseSelection(base));
  LD_ASSIGN_OR_RETURN(std::vector<TableRef> selected,
                      ListSelectedTables(*conn, selection.include, selection.exclude));
  for (const TableRef& t : selected) {
    if (!known.contains(t.QualifiedName())) refs.push_back(t);
  }
  PgTypeOptions types = request.pg.types;
  std::vector<PgTablePlan> plans;
  LD_ASSIGN_OR_RETURN(std::vector<IncrementalTable> now,
                      DescribeIncrementalTables(*conn, refs, types, &plans));
  std::map<std::string, size_t> now_at;
  for (size_t i = 0; i < now.size(); ++i) now_at[now[i].ref.QualifiedName()] = i;

  PrefixStore increment_store(store, prefix);
  PrefixStore changes_store(&increment_store, std::string(kChangesFolder));
  DumpOptions change_options = request.dump;
  change_options.partition_by.clear();
  change_options.file_size = 0;
  change_options.sign_key.clear();
  // Many tables may change at once: small row groups keep memory per table small.
  change_options.parquet.row_group_bytes =
      std::min<uint64_t>(change_options.parquet.row_group_bytes, 8ull << 20);
  ChangeCapture capture(&changes_store, change_options, run_id, start);

  std::map<std::string, std::string> redump;  // qualified name -> reason
  for (const IncrementalTable& cur : now) {
    if (!known.contains(cur.ref.QualifiedName())) {
      redump[cur.ref.QualifiedName()] = std::string(kCreatedAfterBase);
    }
  }
  std::vector<TableRef> unpublish;
  std::vector<uint32_t> unpublish_oids;
  for (const IncrementalTable& old : state) {
    auto it = now_at.find(old.ref.QualifiedName());
    if (it == now_at.end()) {
      m.dropped.push_back(old.ref);
      continue;
    }
    const IncrementalTable& cur = now[it->second];
    if (old.mode == IncrementalMode::kRedump) {
      redump[old.ref.QualifiedName()] = old.reason;
    } else if (cur.oid != old.oid) {
      redump[old.ref.QualifiedName()] = std::string(kCreatedAgain);
    } else if (cur.columns != old.columns || cur.key != old.key ||
               cur.mode != IncrementalMode::kChanges) {
      redump[old.ref.QualifiedName()] =
          cur.mode == IncrementalMode::kChanges ? "its columns or key changed" : cur.reason;
      if (cur.mode != IncrementalMode::kChanges) {
        unpublish.push_back(cur.ref);
        unpublish_oids.push_back(cur.oid);
      }
    } else {
      capture.Follow(old, plans[it->second]);
    }
  }
  // Published without a key, the application's own UPDATE and DELETE would fail.
  LD_RETURN_IF_ERROR(RemoveFromPublication(*conn, inc.publication, unpublish_oids)
                         .WithContext("removing tables without a key from the publication"));

  LD_RETURN_IF_ERROR(PeekPgSlotChanges(*conn, inc.slot, inc.publication, m.end_lsn,
                                       [&](uint64_t lsn, std::string_view data) -> Status {
                                         if (stop.stop_requested()) {
                                           return Status::Cancelled("interrupted");
                                         }
                                         return capture.OnMessage(lsn, data);
                                       }));
  std::map<uint32_t, const IncrementalTable*> by_oid;
  for (const IncrementalTable& t : state) by_oid[t.oid] = &t;
  for (const auto& [oid, reason] : capture.redump()) {
    redump[by_oid.at(oid)->ref.QualifiedName()] = reason;
  }
  LD_ASSIGN_OR_RETURN(m.change_files, capture.Finish());
  m.transactions = capture.transactions();
  m.changes = capture.changes();

  // The tables' state after this increment.
  std::vector<TableRef> redump_refs;
  for (const IncrementalTable& cur : now) {
    IncrementalTable next;
    auto old = std::find_if(state.begin(), state.end(), [&](const IncrementalTable& t) {
      return t.ref == cur.ref;
    });
    auto r = redump.find(cur.ref.QualifiedName());
    if (r == redump.end()) {
      next = *old;  // every table new to the state is re-dumped
    } else {
      next = cur;
      // Only tables published at the base are followed by their changes: a table created
      // since, or dropped (which took it out of the publication) and created again, is
      // dumped whole in every increment until the next base.
      if (old != state.end() && old->mode == IncrementalMode::kRedump) {
        next.mode = IncrementalMode::kRedump;
        next.reason = old->reason;
      } else if (old == state.end() || old->oid != cur.oid) {
        next.mode = IncrementalMode::kRedump;
        next.reason = r->second;
      } else if (std::find(unpublish.begin(), unpublish.end(), cur.ref) != unpublish.end()) {
        next.mode = IncrementalMode::kRedump;
      }
      if (next.mode == IncrementalMode::kRedump) next.key.clear();
      m.redumped.push_back(RedumpedTable{cur.ref, r->second});
      redump_refs.push_back(cur.ref);
    }
    m.tables.push_back(std::move(next));
  }
  if (!redump_refs.empty()) {
    PrefixStore redump_store(&increment_store, std::string(kRedumpFolder));
    LD_ASSIGN_OR_RETURN(m.redump_lsn, Redump(&redump_store, request, inc.slot + "_redump",
                                             redump_refs, stop));
    for (IncrementalTable& t : m.tables) {
      if (std::find(redump_refs.begin(), redump_refs.end(), t.ref) != redump_refs.end()) {
        t.skip_before_lsn = m.redump_lsn;
      }
    }
  }
  if (stop.stop_requested()) return Status::Cancelled("interrupted");
  LD_ASSIGN_OR_RETURN(PgSlotState after, QueryPgSlot(*conn, inc.slot));
  m.retained_wal_bytes = after.retained_wal_bytes;
  const auto finished = WallClock::now();
  m.finished_at = FormatUtc(finished);
  m.seconds = std::chrono::duration<double>(finished - started).count();

  DieAtFaultPoint("increment-before-commit");
  // The commit point: everything durable first, the lease still ours.
  LD_RETURN_IF_ERROR(store->SyncWritten().WithContext("making the increment's files durable"));
  LD_RETURN_IF_ERROR(lease->CheckHeld());
  const std::string key = prefix + std::string(kManifestKey);
  LD_ASSIGN_OR_RETURN(std::string text, SerializeMetadata(ToJson(m), key));
  LD_RETURN_IF_ERROR(store->PutObject(key, text).WithContext(key));
  LD_RETURN_IF_ERROR(store->SyncWritten().WithContext(key));

  DieAtFaultPoint("increment-before-advance");
  IncrementResult result;
  // Only now may the slot forget these changes.
  if (Status s = AdvancePgSlot(*conn, inc.slot, m.end_lsn); !s.ok()) {
    result.warnings.push_back(fmt::format(
        "the increment is committed, but replication slot {} could not be moved forward ({}): "
        "the next increment does it",
        inc.slot, s.message()));
  }
  result.manifest = std::move(m);
  return result;
}

}  // namespace lakedump
