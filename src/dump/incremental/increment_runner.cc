#include "dump/incremental/increment_runner.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <set>

#include "base/sha256.h"
#include "dump/export_service.h"
#include "dump/iceberg/iceberg_increment.h"
#include "dump/incremental/change_capture.h"
#include "dump/incremental/commit_step_fault.h"
#include "dump/incremental/pg_incremental_tables.h"
#include "dump/incremental/slot_ownership.h"
#include "lake/dump_lease.h"
#include "lake/increment_signature.h"
#include "lake/object_keys.h"
#include "lake/signature.h"
#include "lake/signature_commit.h"
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
  LD_ASSIGN_OR_RETURN(const PgDatabaseIdentity id, QueryDatabaseIdentity(conn));
  const bool other_cluster = !inc.system_identifier.empty() && !id.system_identifier.empty() &&
                             id.system_identifier != inc.system_identifier;
  if (other_cluster || id.oid != inc.database_oid) {
    return Status::InvalidArgument(fmt::format(
        "the base dump at DEST was made from another database ({} on the server with system "
        "identifier {}), not from {} here: an increment must read the base's own source",
        base.source.value("database", std::string("?")),
        inc.system_identifier.empty() ? "?" : inc.system_identifier, id.name));
  }
  return Status::OK();
}

// The re-dump of `tables` at a fresh snapshot of a temporary slot, as a dump of its own
// in `store` (signed with the increment's key, if any); returns the snapshot's consistent
// point, and sets *manifest_sha256 to its _manifest.json's SHA-256 when signed.
Result<uint64_t> Redump(ObjectStore* store, const IncrementRequest& request,
                        const std::string& slot, const std::vector<TableRef>& tables,
                        std::string* manifest_sha256, std::stop_token stop) {
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
  options.table_format = TableFormat::kParquet;  // an Iceberg base's snapshots come after
  options.wait_for_lock = std::chrono::milliseconds(0);
  options.schema_from_source_tool = false;
  options.progress = ProgressMode::kNone;
  options.trace_file.clear();
  ExportService service(db.get(), store, options);
  LD_ASSIGN_OR_RETURN(DumpResult result, service.Run(stop));
  if (!options.sign_key.empty()) {
    // The stored object still the bytes the run committed: the increment signs only what
    // it wrote.
    LD_ASSIGN_OR_RETURN(std::string stored, store->GetObject(kManifestKey, kMaxMetadataBytes));
    if (stored != result.manifest_text) {
      return Status::Corruption("redump/_manifest.json changed while the increment was written");
    }
    *manifest_sha256 = Sha256Hex(stored);
  }
  return ParseLsn(result.manifest.source.value("consistent_point", std::string()));
}

// DEST's lease for the increment. A dead increment's lease is taken over once stale: the
// slot is where it resumes from.
Result<std::unique_ptr<DumpLease>> AcquireIncrementLease(ObjectStore* lease_store,
                                                         const std::string& run_id,
                                                         const DumpOptions& options,
                                                         std::stop_token stop) {
  LeaseOptions lease_options;
  lease_options.renew_interval = options.lease_renew_interval;
  lease_options.wait = options.wait_for_lock;
  lease_options.take_over_stale = true;
  lease_options.clock = options.clock;
  return DumpLease::Acquire(lease_store, run_id, lease_options, stop);
}

// The base's slot is there, unused, and not past `start` (the end of the last increment);
// a slot behind `start` (the last increment committed, but its run ended before moving the
// slot) is moved there.
Status CatchUpSlot(PgConn& conn, const IncrementalBase& inc, uint64_t start) {
  LD_ASSIGN_OR_RETURN(PgSlotState slot, QueryPgSlot(conn, inc.slot));
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
    LD_RETURN_IF_ERROR(AdvancePgSlot(conn, inc.slot, start).WithContext("moving the slot"));
  }
  return Status::OK();
}

// Removes what a run of the increment under `prefix` that died left behind (it never
// committed).
Status DeleteUncommitted(ObjectStore& store, const std::string& prefix) {
  LD_ASSIGN_OR_RETURN(std::vector<ObjectInfo> left, store.List(prefix));
  std::vector<std::string> keys;
  for (const ObjectInfo& o : left) keys.push_back(o.key);
  return store.Delete(keys);
}

// The tables as they are now, against the state the last increment recorded.
struct TablesNow {
  std::vector<IncrementalTable> tables;  // described now
  std::vector<PgTablePlan> plans;        // their catalog plans, in the same order
  std::map<std::string, size_t> at;      // qualified name -> index in `tables`
  std::set<std::string> known;           // the names of the recorded state's tables
};

// The recorded tables and those the base's selection covers that it did not have (created
// since; not in the publication), described now.
Result<TablesNow> DescribeTablesNow(PgConn& conn, const DumpManifest& base,
                                    const std::vector<IncrementalTable>& state,
                                    const PgTypeOptions& types) {
  TablesNow now;
  std::vector<TableRef> refs;
  for (const IncrementalTable& t : state) {
    refs.push_back(t.ref);
    now.known.insert(t.ref.QualifiedName());
  }
  LD_ASSIGN_OR_RETURN(const BaseSelection selection, ReadBaseSelection(base));
  LD_ASSIGN_OR_RETURN(std::vector<TableRef> selected,
                      ListSelectedTables(conn, selection.include, selection.exclude));
  for (const TableRef& t : selected) {
    if (!now.known.contains(t.QualifiedName())) refs.push_back(t);
  }
  // A followed table's arrays keep the form its base or last re-dump gave them (a list
  // that now holds a value of several dimensions fails to decode: that table is re-dumped).
  PgTypeOptions kept = types;
  for (const IncrementalTable& t : state) {
    if (t.mode == IncrementalMode::kChanges) {
      kept.known_array_text[t.ref.QualifiedName()] = t.text_arrays;
    }
  }
  LD_ASSIGN_OR_RETURN(now.tables, DescribeIncrementalTables(conn, refs, kept, &now.plans));
  for (size_t i = 0; i < now.tables.size(); ++i) now.at[now.tables[i].ref.QualifiedName()] = i;
  return now;
}

// What this increment does with each table, decided before the changes are read.
struct TableDecisions {
  std::map<std::string, std::string> redump;  // qualified name -> reason
  // Tables no longer followable by their changes: out of the publication.
  std::vector<TableRef> unpublish;
  std::vector<uint32_t> unpublish_oids;
};

// Each table of the state: dropped (into m->dropped), re-dumped (and why), or followed by
// its changes (`capture`); each table new to the state: re-dumped.
TableDecisions DecideTables(const std::vector<IncrementalTable>& state, const TablesNow& now,
                            ChangeCapture* capture, IncrementManifest* m) {
  TableDecisions d;
  for (const IncrementalTable& cur : now.tables) {
    if (!now.known.contains(cur.ref.QualifiedName())) {
      d.redump[cur.ref.QualifiedName()] = std::string(kCreatedAfterBase);
    }
  }
  for (const IncrementalTable& old : state) {
    auto it = now.at.find(old.ref.QualifiedName());
    if (it == now.at.end()) {
      m->dropped.push_back(old.ref);
      continue;
    }
    const IncrementalTable& cur = now.tables[it->second];
    if (old.mode == IncrementalMode::kRedump) {
      d.redump[old.ref.QualifiedName()] = old.reason;
    } else if (cur.oid != old.oid) {
      d.redump[old.ref.QualifiedName()] = std::string(kCreatedAgain);
    } else if (cur.columns != old.columns || cur.key != old.key ||
               cur.mode != IncrementalMode::kChanges) {
      d.redump[old.ref.QualifiedName()] =
          cur.mode == IncrementalMode::kChanges ? "its columns or key changed" : cur.reason;
      if (cur.mode != IncrementalMode::kChanges) {
        d.unpublish.push_back(cur.ref);
        d.unpublish_oids.push_back(cur.oid);
      }
    } else {
      capture->Follow(old, now.plans[it->second]);
    }
  }
  return d;
}

// Reads the slot's changes up to m->end_lsn into `capture`, closes the change files, and
// adds the followed tables the stream says to re-dump to d->redump.
Status ReadChanges(PgConn& conn, const IncrementalBase& inc,
                   const std::vector<IncrementalTable>& state, ChangeCapture* capture,
                   TableDecisions* d, IncrementManifest* m, std::stop_token stop) {
  LD_RETURN_IF_ERROR(PeekPgSlotChanges(conn, inc.slot, inc.publication, m->end_lsn,
                                       [&](uint64_t lsn, std::string_view data) -> Status {
                                         if (stop.stop_requested()) {
                                           return Status::Cancelled("interrupted");
                                         }
                                         return capture->OnMessage(lsn, data);
                                       }));
  std::map<uint32_t, const IncrementalTable*> by_oid;
  for (const IncrementalTable& t : state) by_oid[t.oid] = &t;
  for (const auto& [oid, reason] : capture->redump()) {
    d->redump[by_oid.at(oid)->ref.QualifiedName()] = reason;
  }
  LD_ASSIGN_OR_RETURN(m->change_files, capture->Finish());
  m->transactions = capture->transactions();
  m->changes = capture->changes();
  return Status::OK();
}

// The state of table `cur` after this increment, which re-dumps it for `reason`. Only
// tables published at the base are followed by their changes: a table created since, or
// dropped (which took it out of the publication) and created again, is dumped whole in
// every increment until the next base.
IncrementalTable RedumpedState(const IncrementalTable& cur, const IncrementalTable* old,
                               const std::string& reason, const TableDecisions& d) {
  IncrementalTable next = cur;
  if (old != nullptr && old->mode == IncrementalMode::kRedump) {
    next.mode = IncrementalMode::kRedump;
    next.reason = old->reason;
  } else if (old == nullptr || old->oid != cur.oid) {
    next.mode = IncrementalMode::kRedump;
    next.reason = reason;
  } else if (std::find(d.unpublish.begin(), d.unpublish.end(), cur.ref) != d.unpublish.end()) {
    next.mode = IncrementalMode::kRedump;
  }
  if (next.mode == IncrementalMode::kRedump) next.key.clear();
  return next;
}

// The tables' state after this increment into m->tables, and the re-dumped ones into
// m->redumped; returns the tables to re-dump.
std::vector<TableRef> NextTableStates(const std::vector<IncrementalTable>& state,
                                      const TablesNow& now, const TableDecisions& d,
                                      IncrementManifest* m) {
  std::vector<TableRef> redump_refs;
  for (const IncrementalTable& cur : now.tables) {
    auto old = std::find_if(state.begin(), state.end(), [&](const IncrementalTable& t) {
      return t.ref == cur.ref;
    });
    const IncrementalTable* previous = old == state.end() ? nullptr : &*old;
    auto r = d.redump.find(cur.ref.QualifiedName());
    if (r == d.redump.end()) {
      m->tables.push_back(*old);  // every table new to the state is re-dumped
      continue;
    }
    m->tables.push_back(RedumpedState(cur, previous, r->second, d));
    m->redumped.push_back(RedumpedTable{cur.ref, r->second});
    redump_refs.push_back(cur.ref);
  }
  return redump_refs;
}

// The arrays' forms of the re-dumped `tables` decided afresh, from their values now (a list
// that got a value of several dimensions becomes text): recorded in their next state
// (followed tables) and given to the re-dump (*request), so that the two agree.
Status DecideRedumpArrays(PgConn& conn, const std::vector<TableRef>& tables,
                          IncrementRequest* request, IncrementManifest* m) {
  if (tables.empty()) return Status::OK();
  PgTypeOptions fresh = request->pg.types;
  fresh.known_array_text.clear();
  std::vector<PgTablePlan> plans;
  LD_RETURN_IF_ERROR(DescribeIncrementalTables(conn, tables, fresh, &plans).status());
  for (IncrementalTable& t : m->tables) {
    if (std::find(tables.begin(), tables.end(), t.ref) == tables.end()) continue;
    auto plan = std::find_if(plans.begin(), plans.end(),
                             [&](const PgTablePlan& p) { return p.ref == t.ref; });
    if (plan == plans.end()) continue;  // gone since: the re-dump finds it so too
    request->pg.types.known_array_text[t.ref.QualifiedName()] = plan->shape_text_columns;
    t.text_arrays.clear();
    if (t.mode == IncrementalMode::kChanges) t.text_arrays = plan->shape_text_columns;
  }
  return Status::OK();
}

// Re-dumps `tables` into the increment's redump/ folder; their changes before the re-dump's
// snapshot are skipped from now on.
Status RedumpTables(PrefixStore* increment_store, const IncrementRequest& request,
                    const IncrementalBase& inc, const std::vector<TableRef>& tables,
                    IncrementManifest* m, std::stop_token stop) {
  if (tables.empty()) return Status::OK();
  PrefixStore redump_store(increment_store, std::string(kRedumpFolder));
  LD_ASSIGN_OR_RETURN(m->redump_lsn, Redump(&redump_store, request, inc.slot + "_redump", tables,
                                            &m->redump_manifest_sha256, stop));
  for (IncrementalTable& t : m->tables) {
    if (std::find(tables.begin(), tables.end(), t.ref) != tables.end()) {
      t.skip_before_lsn = m->redump_lsn;
    }
  }
  return Status::OK();
}

// The options of the change files: no partitions, no size limit (a signed increment's
// files get their SHA-256 as they are written).
DumpOptions ChangeFileOptions(const DumpOptions& dump) {
  DumpOptions options = dump;
  options.partition_by.clear();
  options.file_size = 0;
  // Many tables may change at once: small row groups keep memory per table small.
  options.parquet.row_group_bytes =
      std::min<uint64_t>(options.parquet.row_group_bytes, 8ull << 20);
  return options;
}

// The commit point: everything durable first, the lease still ours; then, signed, the
// increment's _manifest.sig; then its _manifest.json.
Status CommitIncrement(ObjectStore* store, DumpLease& lease, const std::string& prefix,
                       const IncrementManifest& m, const std::string& sign_key) {
  LD_RETURN_IF_ERROR(store->SyncWritten().WithContext("making the increment's files durable"));
  LD_RETURN_IF_ERROR(lease.CheckHeld());
  const std::string key = prefix + std::string(kManifestKey);
  LD_ASSIGN_OR_RETURN(std::string text, SerializeMetadata(ToJson(m), key));
  if (!sign_key.empty()) {
    const std::string sig_key = IncrementSignatureKey(m.sequence);
    LD_RETURN_IF_ERROR(PutSignatureAhead(*store, sig_key, key, sign_key, text));
  }
  // Create-only: an increment is committed once; a run that lost its lease meanwhile (the
  // run that took over committed this sequence number) fails here instead of replacing it.
  WriteOptions once;
  once.create_only = true;
  LD_RETURN_IF_ERROR(store->PutObject(key, text, once).WithContext(key));
  if (!sign_key.empty()) {
    TrimSignatureAfterCommit(*store, IncrementSignatureKey(m.sequence), key, sign_key, text);
  }
  return store->SyncWritten().WithContext(key);
}

// The increment's manifest as it starts: its place in the chain and its WAL range.
IncrementManifest StartManifest(const DumpManifest& base, const IncrementalBase& inc,
                                const std::vector<IncrementManifest>& previous,
                                const std::string& run_id, uint64_t start, uint64_t end) {
  IncrementManifest m;
  m.sequence = static_cast<int>(previous.size()) + 1;
  m.increment_id = run_id;
  m.base_dump_id = base.dump_id;
  m.previous_increment_id = previous.empty() ? "" : previous.back().increment_id;
  m.slot = inc.slot;
  m.publication = inc.publication;
  m.start_lsn = start;
  m.end_lsn = std::max(start, end);
  m.escaped_column_names = true;  // ChangeFileSchema
  return m;
}

// The changes and re-dumps of increment `m` (started, its folder empty), written under
// `store`; fills in its tables, change files and counts.
Status WriteIncrement(ObjectStore* store, PgConn& conn, const DumpManifest& base,
                      const IncrementalBase& inc, const std::vector<IncrementalTable>& state,
                      const IncrementRequest& request, IncrementManifest* m,
                      std::stop_token stop) {
  LD_ASSIGN_OR_RETURN(const TablesNow now,
                      DescribeTablesNow(conn, base, state, request.pg.types));
  PrefixStore increment_store(store, IncrementPrefix(m->sequence));
  PrefixStore changes_store(&increment_store, std::string(kChangesFolder));
  const DumpOptions change_options = ChangeFileOptions(request.dump);
  ChangeCapture capture(&changes_store, change_options, m->increment_id, m->start_lsn);
  TableDecisions decisions = DecideTables(state, now, &capture, m);
  std::unique_ptr<PgConn> text_form_conn;  // the server prints interval, inet... values
  if (capture.needs_text_form_connection()) {
    LD_ASSIGN_OR_RETURN(text_form_conn,
                        PgConn::Connect(request.conninfo, request.pg.connect_timeout_seconds));
    capture.set_text_form_connection(text_form_conn.get());
  }
  // Published without a key, the application's own UPDATE and DELETE would fail.
  LD_RETURN_IF_ERROR(RemoveFromPublication(conn, inc.publication, decisions.unpublish_oids)
                         .WithContext("removing tables without a key from the publication"));
  LD_RETURN_IF_ERROR(ReadChanges(conn, inc, state, &capture, &decisions, m, stop));
  const std::vector<TableRef> redump = NextTableStates(state, now, decisions, m);
  IncrementRequest redump_request = request;
  LD_RETURN_IF_ERROR(DecideRedumpArrays(conn, redump, &redump_request, m)
                         .WithContext("describing the tables to re-dump"));
  return RedumpTables(&increment_store, redump_request, inc, redump, m, stop);
}

}  // namespace

Result<IncrementResult> RunIncrement(ObjectStore* store, ObjectStore* lease_store,
                                     const DumpManifest& base, const IncrementRequest& request,
                                     std::stop_token stop) {
  const auto started = WallClock::now();
  LD_ASSIGN_OR_RETURN(IncrementalBase inc, ParseIncrementalBase(base));
  // The increments follow the base's table format (docs/iceberg.md, "Increments").
  const bool iceberg = base.options.is_object() &&
                       base.options.value("table_format", std::string()) == "iceberg";
  if (request.dump.table_format == TableFormat::kIceberg && !iceberg) {
    return Status::InvalidArgument(
        "--table-format iceberg: the base at DEST is not an Iceberg dump, so its increments "
        "cannot be Iceberg snapshots (make an Iceberg base with --if-exists overwrite)");
  }
  const std::string run_id = NewRunId();
  LD_ASSIGN_OR_RETURN(std::unique_ptr<DumpLease> lease,
                      AcquireIncrementLease(lease_store, run_id, request.dump, stop));
  struct Release {
    DumpLease* lease;
    ~Release() { lease->Release().IgnoreError(); }
  } release{lease.get()};

  LD_ASSIGN_OR_RETURN(std::vector<IncrementManifest> previous, ReadIncrements(*store, base));
  LD_ASSIGN_OR_RETURN(std::unique_ptr<PgConn> conn,
                      PgConn::Connect(request.conninfo, request.pg.connect_timeout_seconds));
  LD_RETURN_IF_ERROR(CheckLogicalWal(*conn));
  LD_RETURN_IF_ERROR(CheckSameDatabase(*conn, base, inc));
  LD_RETURN_IF_ERROR(CheckIncrementSlotOwned(*conn, base.dump_id, inc));
  const uint64_t start = previous.empty() ? inc.consistent_point : previous.back().end_lsn;
  LD_RETURN_IF_ERROR(CatchUpSlot(*conn, inc, start));
  LD_ASSIGN_OR_RETURN(const uint64_t end, PgCurrentWalLsn(*conn));
  IncrementManifest m = StartManifest(base, inc, previous, run_id, start, end);
  m.started_at = FormatUtc(started);
  if (!request.dump.sign_key.empty()) {
    // Chained: this increment's signature covers the manifest it follows (checked signed).
    LD_ASSIGN_OR_RETURN(m.previous_manifest_sha256,
                        SignedChainTip(*store, request.dump.sign_key, base, previous));
    m.written_to = SignedWrittenTo(*store);
  }
  const std::string prefix = IncrementPrefix(m.sequence);
  LD_RETURN_IF_ERROR(DeleteUncommitted(*store, prefix));

  // The tables as they are now against their recorded state.
  const std::vector<IncrementalTable>& state =
      previous.empty() ? inc.tables : previous.back().tables;
  IncrementRequest write_request = request;
  // Re-dumped tables keep their Iceberg field ids: their overwrite continues the history.
  if (iceberg) write_request.dump.iceberg_ids_from = store;
  LD_RETURN_IF_ERROR(WriteIncrement(store, *conn, base, inc, state, write_request, &m, stop));
  if (stop.stop_requested()) return Status::Cancelled("interrupted");
  LD_ASSIGN_OR_RETURN(PgSlotState after, QueryPgSlot(*conn, inc.slot));
  m.retained_wal_bytes = after.retained_wal_bytes;
  const auto finished = WallClock::now();
  m.finished_at = FormatUtc(finished);
  m.seconds = std::chrono::duration<double>(finished - started).count();

  IncrementResult result;
  if (iceberg) {
    // Every table's snapshot, then the increment's manifest.
    std::unique_ptr<ObjectStore> fault_holder;
    ObjectStore* commit_store = WithCommitStepFault(store, &fault_holder);
    LD_RETURN_IF_ERROR(CommitIcebergIncrement(*commit_store, m, &result.warnings));
  }
  DieAtFaultPoint("increment-before-commit");
  LD_RETURN_IF_ERROR(CommitIncrement(store, *lease, prefix, m, request.dump.sign_key));

  DieAtFaultPoint("increment-before-advance");
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
