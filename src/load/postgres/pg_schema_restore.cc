#include "load/postgres/sqlite_schema_to_pg.h"
#include "load/postgres/pg_schema_restore.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "base/byte_sink.h"
#include "base/subprocess.h"
#include "base/temp_file.h"
#include "lake/table_selection.h"
#include "load/postgres/pg_archive_roles.h"
#include "load/postgres/pg_matview_refresh.h"
#include "load/postgres/pg_post_data_runner.h"
#include "load/postgres/pg_restore_script.h"
#include "load/postgres/pg_restore_filters.h"
#include "load/schema_subset.h"
#include "source/postgres/pg_archive_toc.h"
#include "source/postgres/pg_tools.h"

namespace lakedump {
namespace {

bool IsPgRestorePlan(const SchemaRestorePlan& plan) {
  return JsonString(plan.schema, "schema_from") == "pg_dump" && !plan.archive.empty();
}

// Runs pg_restore with `args` + the connection + the archive; the first error line
// of its output otherwise.
Status RunPgRestore(const PgTool& tool, const PgChildConnection& conn,
                    std::vector<std::string> args, const std::string& archive,
                    std::string_view what) {
  SubprocessSpec spec;
  spec.argv = {tool.path};
  for (std::string& a : args) spec.argv.push_back(std::move(a));
  spec.argv.push_back("--no-password");
  spec.argv.push_back("--dbname=" + conn.conninfo);
  spec.argv.push_back(archive);
  spec.env = conn.env;
  LD_ASSIGN_OR_RETURN(SubprocessOutcome run, RunSubprocess(spec, nullptr));
  if (run.exit_code == 0) return Status::OK();
  std::string line = FirstErrorLine(run.stderr_tail);
  // "pg_restore: error: could not execute query: ERROR:  relation "t" already exists"
  if (const size_t at = line.find("ERROR:"); at != std::string::npos) line = line.substr(at);
  while (line.find("  ") != std::string::npos) line.replace(line.find("  "), 2, " ");
  return Status::IOError(fmt::format("{}: {}", what, line));
}


// The archive's table of contents: read in process, or (an archive version newer than the
// reader takes) from `pg_restore --list`, then without dependencies or definitions.
Result<PgArchiveToc> ReadToc(const PgTool& tool, const std::string& archive_path,
                             std::string_view archive) {
  auto toc = ReadPgArchiveToc(archive);
  if (toc.ok() || toc.status().code() != Code::kUnimplemented) {
    if (!toc.ok()) return toc.status().WithContext("the dump's schema archive");
    return toc;
  }
  StringSink listing;
  LD_ASSIGN_OR_RETURN(SubprocessOutcome listed,
                      RunSubprocess({{tool.path, "--list", archive_path}, {}, ""}, &listing));
  if (listed.exit_code != 0) {
    return Status::Corruption(fmt::format("pg_restore --list of the dump's schema archive: {}",
                                          FirstErrorLine(listed.stderr_tail)));
  }
  PgArchiveToc out;
  for (const PgTocEntry& e : ParsePgTocListing(listing.str())) {
    PgArchiveTocEntry a;
    a.dump_id = std::atoi(e.line.c_str());
    a.catalog_oid = e.catalog_oid;
    a.object_oid = e.object_oid;
    a.desc = e.type;
    a.has_schema = e.schema != "-";
    a.schema = a.has_schema ? e.schema : "";
    a.tag = e.name;
    a.owner = e.line.substr(e.line.rfind(' ') + 1);
    a.has_definition = true;
    out.entries.push_back(std::move(a));
  }
  return out;
}

// pg_restore's own role options, for both sections.
std::vector<std::string> RoleFlags(const RestoreRoles& roles) {
  std::vector<std::string> flags;
  if (roles.no_owner) flags.push_back("--no-owner");
  if (roles.no_privileges) flags.push_back("--no-privileges");
  if (!roles.role.empty()) flags.push_back("--role=" + roles.role);
  return flags;
}

PgRoleOptions RoleOptionsOf(const RestoreRoles& roles) {
  PgRoleOptions o;
  o.no_owner = roles.no_owner;
  o.no_privileges = roles.no_privileges;
  for (const auto& [from, to] : roles.role_map) o.role_map[from] = to;
  return o;
}

// Before anything is created: every role the selected entries name exists in the target
// (InvalidArgument in one line otherwise), and the archive with --role-map applied.
Result<std::string> CheckRoles(PgConn& conn, const SchemaRestorePlan& plan,
                               const PgArchiveToc& toc, const std::vector<size_t>& selected,
                               bool has_definitions) {
  const PgRoleOptions options = RoleOptionsOf(plan.roles);
  if (!options.role_map.empty() && !has_definitions) {
    return Status::InvalidArgument(
        "--role-map: the dump's schema archive is newer than this lakedump reads; load "
        "without --role-map (with --no-owner --no-privileges)");
  }
  std::map<std::string, PgRoleUses> needed = PgRolesNeeded(toc, selected, options);
  if (!plan.roles.role.empty()) needed[plan.roles.role].insert(PgRoleUse::kOwner);
  LD_ASSIGN_OR_RETURN(const auto missing, PgMissingRoles(conn, needed));
  if (!plan.roles.role.empty() && missing.count(plan.roles.role) > 0) {
    return Status::InvalidArgument(fmt::format(
        "--role {}: the target has no such role; nothing was restored", QuoteIdent(plan.roles.role)));
  }
  if (!missing.empty()) return Status::InvalidArgument(MissingRolesLine(missing));
  const std::vector<PgArchiveEdit> edits = PgRoleMapEdits(toc, selected, options);
  if (edits.empty()) return plan.archive;
  return RewritePgArchive(plan.archive, toc, edits);
}

// A CREATE SCHEMA public (an archive of some schemas has one) that the target has already:
// left out of `selected`; returns the owner to give public instead ("" for none).
Result<std::string> LeaveOutPublic(PgConn& conn, const PgArchiveToc& toc,
                                   std::vector<size_t>* selected, const RestoreRoles& roles) {
  LD_ASSIGN_OR_RETURN(PgResult has_public,
                      conn.Query("SELECT pg_catalog.to_regnamespace('public') IS NOT NULL"));
  if (PgValue(has_public.get(), 0, 0) != "t") return std::string();
  std::string owner;
  std::erase_if(*selected, [&](size_t i) {
    const PgArchiveTocEntry& e = toc.entries[i];
    // pg_dump of a whole database writes "-- *not* creating schema, since initdb creates
    // it" (pg_restore sets its owner itself): that entry stays.
    if (e.desc != "SCHEMA" || (e.has_schema && !e.schema.empty()) || e.tag != "public" ||
        !e.definition.starts_with("CREATE SCHEMA")) {
      return false;
    }
    owner = e.owner;
    return true;
  });
  if (roles.no_owner) return std::string();
  for (const auto& [from, to] : roles.role_map) {
    if (from == owner) return to;
  }
  return owner;
}

// Runs `sql` (several statements, one implicit transaction; maybe only comments) on `conn`.
Status ExecRestoreSql(PgConn& conn, const std::string& sql) {
  PgResult r(PQexec(conn.raw(), sql.c_str()));
  const ExecStatusType st = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK || st == PGRES_EMPTY_QUERY) {
    return Status::OK();
  }
  return conn.ErrorStatus(r.get());
}

}  // namespace

struct PgSchemaRestorer::State {
  PgTool tool;
  TempFile archive;
  TempFile list;
  std::vector<PgTocEntry> entries;  // selected, in the archive's (dependency) order
  std::vector<size_t> selected;     // the same entries: their indices into toc.entries
  bool restoring = false;           // Before() ran pg_restore
  PgChildConnection child;          // for every pg_restore of the load
  std::vector<std::string> role_flags;
  int jobs = 1;
  PgArchiveToc toc;
  ConnectFn connect;

  // Post-data on lakedump's own connections (pg_restore_script.h): the SQL of every entry
  // restored after pre-data, from one pg_restore --file; nullopt when post-data runs through
  // pg_restore after the last table (RestoreRest says when).
  std::optional<PgRestoreScript> script;
  std::vector<std::unique_ptr<PgConn>> conns;  // one per worker, the script's settings run
  std::mutex mu;
  PgRestoreSchedule schedule;  // guarded by mu
  bool finishing = false;      // guarded by mu: a table failed
  // The post-data entries, each as soon as it is ready (while other tables still load, as
  // pg_restore --jobs): declared after `conns`, which its workers use, so destroyed first.
  std::unique_ptr<PgPostDataRunner> runner;

  // pg_restore of `list` (indices into toc.entries; none: nothing runs), with --section when
  // `section` is not empty, --jobs up to `max_jobs`.
  Status Restore(const std::vector<size_t>& list, const std::string& section, int max_jobs,
                 std::string_view what) {
    if (list.empty()) return Status::OK();
    std::string ids;
    for (size_t i : list) ids += fmt::format("{};\n", toc.entries[i].dump_id);
    TempFile file;
    LD_RETURN_IF_ERROR(file.Write(ids));
    std::vector<std::string> args = {"--exit-on-error", "--use-list=" + file.path()};
    if (!section.empty()) args.push_back("--section=" + section);
    const int n = std::min<int>(max_jobs, static_cast<int>(list.size()));
    if (n > 1) args.push_back(fmt::format("--jobs={}", n));
    for (const std::string& f : role_flags) args.push_back(f);
    return RunPgRestore(tool, child, std::move(args), archive.path(), what);
  }

  Status PreparePostData(const std::vector<size_t>& deferred);
  // Entry `i`'s SQL on `conn` (one of `conns`): nothing when pg_restore wrote none for it.
  Status RunEntry(PgConn& conn, size_t i) {
    const PgArchiveTocEntry& e = toc.entries[i];
    const auto it = script->entries.find(e.dump_id);
    if (it == script->entries.end()) return Status::OK();
    const Status st = ExecRestoreSql(conn, PgRestoreEntrySql(e, it->second));
    if (st.ok()) return st;
    // A failed load (exit 1) as when pg_restore ran it, whatever the server's error.
    return Status::IOError(
        fmt::format("restoring the dump's {} failed: {}", PgRestoreEntryName(e), st.message()));
  }
  // The grants in one transaction and one round trip (pg_restore --jobs grants one by one);
  // when that fails, one by one to name the grant that fails.
  Status RunGrants(PgConn& conn, const std::vector<size_t>& list) {
    std::string sql;
    for (size_t i : list) {
      const auto it = script->entries.find(toc.entries[i].dump_id);
      if (it != script->entries.end()) sql += PgRestoreEntrySql(toc.entries[i], it->second);
    }
    if (sql.empty()) return Status::OK();
    const Status all = ExecRestoreSql(conn, sql);
    if (all.ok()) return all;
    for (size_t i : list) LD_RETURN_IF_ERROR(RunEntry(conn, i));
    return Status::IOError("restoring the dump's grants failed: " + all.message());
  }
};

// The SQL of the entries restored after pre-data (`deferred`), written by one pg_restore
// (--verbose names each entry in the script) while pre-data restores, and the connections
// that run it, each with the script's settings. Leaves `script` unset (post-data then runs
// through pg_restore after the tables) when the script cannot be split per entry, or when the
// archive has no SEARCHPATH entry (pg_dump before 10.3: pg_restore then sets each entry's
// search_path only when it changes, which the split would lose).
Status PgSchemaRestorer::State::PreparePostData(const std::vector<size_t>& deferred) {
  const bool has_search_path = std::any_of(toc.entries.begin(), toc.entries.end(),
                                           [](const auto& e) { return e.desc == "SEARCHPATH"; });
  if (deferred.empty() || !connect || !has_search_path) return Status::OK();
  std::string ids;
  std::set<int> id_set;
  for (size_t i : deferred) {
    ids += fmt::format("{};\n", toc.entries[i].dump_id);
    id_set.insert(toc.entries[i].dump_id);
  }
  TempFile file;
  LD_RETURN_IF_ERROR(file.Write(ids));
  SubprocessSpec spec;
  spec.argv = {tool.path, "--verbose", "--file=-", "--use-list=" + file.path()};
  for (const std::string& f : role_flags) spec.argv.push_back(f);
  spec.argv.push_back(archive.path());
  StringSink sql;
  LD_ASSIGN_OR_RETURN(SubprocessOutcome run, RunSubprocess(spec, &sql));
  if (run.exit_code != 0) {
    return Status::IOError(
        fmt::format("writing the SQL of the dump's indexes, constraints and triggers "
                    "(pg_restore --file) failed: {}",
                    FirstErrorLine(run.stderr_tail)));
  }
  std::optional<PgRestoreScript> split = SplitPgRestoreScript(sql.str(), id_set);
  if (!split) return Status::OK();
  const size_t workers = static_cast<size_t>(std::clamp<int>(
      jobs, 1, static_cast<int>(std::max<size_t>(1, split->entries.size()))));
  for (size_t w = 0; w < workers; ++w) {
    LD_ASSIGN_OR_RETURN(std::unique_ptr<PgConn> c, connect());
    LD_RETURN_IF_ERROR(ExecRestoreSql(*c, split->preamble)
                           .WithContext("setting up a connection for the dump's post-data"));
    conns.push_back(std::move(c));
  }
  script = std::move(split);
  return Status::OK();
}

PgSchemaRestorer::PgSchemaRestorer(ConnectFn connect) : state_(std::make_unique<State>()) {
  state_->connect = std::move(connect);
}
PgSchemaRestorer::~PgSchemaRestorer() = default;

void PgSchemaRestorer::TableFailed() {
  State& s = *state_;
  {
    std::lock_guard lock(s.mu);
    s.finishing = true;
  }
  if (s.runner) s.runner->Stop();
}

void PgSchemaRestorer::TableLoaded(const TableRef& table) {
  State& s = *state_;
  std::vector<size_t> ready;
  {
    std::lock_guard lock(s.mu);
    if (!s.runner || s.finishing) return;
    s.schedule.TableLoaded(table.schema, table.name);
    ready = s.schedule.TakeReady();
  }
  s.runner->Add(ready);
}

// pg_restore --section=pre-data of what the schedule restores before the tables, in one
// transaction (pg_restore reads the dump ids of the list; names stay out); meanwhile the SQL
// of the rest and the connections for it (PreparePostData); then the runner of post-data,
// to which the tables hand their entries as they are loaded.
Status PgSchemaRestorer::RestorePreData(PgConn& conn, const SchemaRestorePlan& plan,
                                        const std::vector<size_t>& selected) {
  State& s = *state_;
  s.schedule = PgRestoreSchedule(s.toc.entries, selected);
  s.role_flags = RoleFlags(plan.roles);
  s.jobs = std::max(1, plan.jobs);
  LD_ASSIGN_OR_RETURN(s.child, ChildConnectionOf(conn.raw()));
  std::string list;
  const std::vector<size_t> pre = s.schedule.PreData();
  for (size_t i : pre) list += fmt::format("{};\n", s.toc.entries[i].dump_id);
  LD_RETURN_IF_ERROR(s.list.Write(list));
  std::vector<size_t> deferred;
  if (s.schedule.known()) {
    std::set_difference(selected.begin(), selected.end(), pre.begin(), pre.end(),
                        std::back_inserter(deferred));
  }
  Status prepared;
  std::thread prepare([&s, &deferred, &prepared] { prepared = s.PreparePostData(deferred); });
  std::vector<std::string> args = {"--section=pre-data", "--single-transaction",
                                   "--exit-on-error", "--use-list=" + s.list.path()};
  for (const std::string& f : s.role_flags) args.push_back(f);
  Status st = RunPgRestore(
      s.tool, s.child, std::move(args), s.archive.path(),
      "restoring the dump's schema (pg_restore --section=pre-data) failed and created nothing; "
      "load into an empty database");
  prepare.join();
  LD_RETURN_IF_ERROR(st);
  LD_RETURN_IF_ERROR(prepared);
  if (s.script) {
    s.runner = std::make_unique<PgPostDataRunner>(
        s.toc.entries, s.conns.size(),
        [&s](size_t worker, size_t i) { return s.RunEntry(*s.conns[worker], i); });
  }
  return Status::OK();
}

// After the last table: the rest of post-data (what is on the tables loaded last, on
// materialized views...) on the runner's connections, then, as pg_restore orders them, the
// grants and then event triggers on one of them.
Status PgSchemaRestorer::RestoreRest() {
  State& s = *state_;
  std::vector<size_t> rest;
  {
    std::lock_guard lock(s.mu);
    rest = s.schedule.TakeRest();
  }
  if (!s.script) {
    // One pg_restore --jobs of it all (its passes order the grants and event triggers): an
    // archive newer than the in-process reader (no sections: pg_restore's --section picks
    // post-data), one older than pg_dump 10.3, or a script not split (PreparePostData).
    return s.Restore(rest, s.schedule.known() ? "" : "post-data", s.jobs,
                     "restoring the dump's indexes, constraints, triggers and grants "
                     "(pg_restore) failed");
  }
  std::vector<size_t> passes[3];
  for (size_t i : rest) passes[static_cast<int>(PgRestorePassOf(s.toc.entries[i]))].push_back(i);
  s.runner->Add(passes[0]);
  LD_RETURN_IF_ERROR(s.runner->Wait());
  s.runner.reset();  // its workers joined: the connections are free
  PgConn& c = *s.conns.front();
  LD_RETURN_IF_ERROR(s.RunGrants(c, passes[1]));
  for (size_t i : passes[2]) LD_RETURN_IF_ERROR(s.RunEntry(c, i));
  s.conns.clear();
  return Status::OK();
}

Status PgSchemaRestorer::Before(PgConn& conn, const SchemaRestorePlan& plan,
                                SchemaRestoreOutcome* out) {
  if (!IsPgRestorePlan(plan)) return Status::OK();
  if (!plan.schema_map.empty()) {
    return Status::InvalidArgument(
        "--schema-map cannot rename the schemas of the dump's pg_dump archive: load without "
        "--schema-map, or with --data-only (tables only, without the archive's other objects)");
  }
  if (plan.if_exists != LoadIfExists::kFail) {
    return Status::InvalidArgument(
        "--if-exists replace/append cannot be combined with restoring the dump's schema "
        "archive: load into an empty database, or with --data-only");
  }
  State& s = *state_;
  const int major = ParsePgToolVersion(
                        "x) " + JsonString(plan.schema.value("archive", nlohmann::json::object()),
                                    "pg_dump_version"))
                        .first;
  LD_ASSIGN_OR_RETURN(
      s.tool, FindPgTool("pg_restore", std::max(major, conn.server_version() / 10000),
                         plan.tool_dir,
                         "or load with --data-only (tables only, without the archive's views, "
                         "functions, types, sequences, indexes, triggers)"));
  LD_RETURN_IF_ERROR(s.archive.Write(plan.archive));
  LD_ASSIGN_OR_RETURN(s.toc, ReadToc(s.tool, s.archive.path(), plan.archive));
  const PgArchiveToc& toc = s.toc;
  std::vector<std::string> skipped;
  std::vector<size_t> selected = SelectArchiveEntries(toc.entries, plan, &skipped);
  const bool has_definitions = std::any_of(toc.entries.begin(), toc.entries.end(),
                                           [](const auto& e) { return !e.definition.empty(); });
  LD_ASSIGN_OR_RETURN(const std::string archive,
                      CheckRoles(conn, plan, toc, selected, has_definitions));
  if (archive.size() != plan.archive.size() || archive != plan.archive) {
    LD_RETURN_IF_ERROR(s.archive.Write(archive));
  }
  LD_ASSIGN_OR_RETURN(const std::string public_owner,
                      LeaveOutPublic(conn, toc, &selected, plan.roles));
  std::erase_if(selected, [&toc](size_t i) {  // serves the source's increments
    const PgArchiveTocEntry& e = toc.entries[i];
    return IsLakedumpPublicationEntry(PgTocEntry{"", e.catalog_oid, e.object_oid, e.desc,
                                                 e.has_schema ? e.schema : std::string("-"),
                                                 e.tag});
  });
  s.selected = selected;
  for (size_t i : selected) {
    const PgArchiveTocEntry& e = toc.entries[i];
    s.entries.push_back(PgTocEntry{fmt::format("{};", e.dump_id), e.catalog_oid, e.object_oid,
                                   e.desc, e.has_schema ? e.schema : std::string("-"), e.tag});
  }
  LD_RETURN_IF_ERROR(RestorePreData(conn, plan, selected));
  if (!public_owner.empty()) {
    LD_RETURN_IF_ERROR(conn.Exec("ALTER SCHEMA public OWNER TO " + QuoteIdent(public_owner))
                           .WithContext("setting the owner of schema public"));
  }
  s.restoring = true;
  out->method = "pg_restore";
  for (std::string& w : skipped) out->warnings.push_back(std::move(w));
  for (std::string& w : QuotedBodyWarnings(toc.entries, selected, plan)) {
    out->warnings.push_back(std::move(w));
  }
  for (const PgTocEntry& e : s.entries) {
    const TableRef ref{e.schema, e.name};
    const bool selected = std::find(plan.tables.begin(), plan.tables.end(), ref) != plan.tables.end();
    if (selected && e.type == "TABLE") out->created.push_back(ref);
    if (selected && e.type == "MATERIALIZED VIEW") out->skip_data.push_back(ref);
  }
  return Status::OK();
}

Status PgSchemaRestorer::After(PgConn& conn, const SchemaRestorePlan& plan,
                               SchemaRestoreOutcome* out, const std::vector<PgConn*>& more) {
  State& s = *state_;
  if (!s.restoring) {
    // No archive restored: the indexes on plain columns, and a word about the rest.
    std::set<std::string> built;
    for (const PlainIndex& ix : PlainIndexesToCreate(plan)) {
      LD_RETURN_IF_ERROR(conn.Exec(CreateIndexStatement(ix, QuoteQualified(ix.table.schema,
                                                                            ix.table.name)))
                             .WithContext(fmt::format("index {}", ix.name)));
      built.insert(ix.name);
    }
    out->restored += built.size();
    if (!built.empty() && out->method == "none") out->method = "indexes";
    if (JsonString(plan.schema, "schema_from") == "pg_dump" && plan.source_kind != "sqlite") {
      // Tables (and what the table load builds with them) are not counted as missing.
      static const std::set<std::string> kWithTables = {"TABLE", "SCHEMA", "CONSTRAINT",
                                                        "DEFAULT", "SEQUENCE OWNED BY"};
      size_t missing = 0;
      for (const nlohmann::json& o : plan.schema.value("objects", nlohmann::json::array())) {
        const std::string type = JsonString(o, "type");
        if (kWithTables.count(type) || (type == "INDEX" && built.count(JsonString(o, "name")))) {
          continue;
        }
        ++missing;
      }
      if (missing > 0) out->warnings.push_back(UntrustedSchemaLine(missing));
    } else {
      for (std::string& w : SkippedObjectWarnings(plan, "PostgreSQL")) {
        out->warnings.push_back(std::move(w));
      }
    }
    if (plan.source_kind == "sqlite") return CarrySqliteSchemaToPg(conn, plan, out);
    return Status::OK();
  }
  LD_RETURN_IF_ERROR(RestoreRest());
  out->restored += s.entries.size();
  // Sequences: their values at the dump's snapshot (those the archive created), in one query.
  nlohmann::json values = nlohmann::json::array();
  for (const nlohmann::json& q : plan.schema.value("sequences", nlohmann::json::array())) {
    if (!q.is_object() || !q.contains("last_value") || !q["last_value"].is_number_integer()) {
      continue;
    }
    values.push_back({QuoteQualified(JsonString(q, "schema"), JsonString(q, "name")),
                      std::to_string(q["last_value"].get<int64_t>()),
                      q.value("is_called", false) ? "true" : "false"});
  }
  if (!values.empty()) {
    LD_RETURN_IF_ERROR(
        conn.Query("SELECT pg_catalog.setval(c.oid, (s.v ->> 1)::pg_catalog.int8, "
                   "(s.v ->> 2)::pg_catalog.bool) "
                   "FROM pg_catalog.json_array_elements($1::pg_catalog.json) AS s(v), "
                   "LATERAL (SELECT pg_catalog.to_regclass(s.v ->> 0) AS oid) c "
                   "WHERE c.oid IS NOT NULL",
                   {values.dump()})
            .status()
            .WithContext("setting the dump's sequences to their values"));
  }
  if (!plan.with_data) return Status::OK();
  std::vector<size_t> matviews;
  for (size_t i : s.selected) {
    const PgArchiveTocEntry& e = s.toc.entries[i];
    if (e.desc == "MATERIALIZED VIEW" && !IsUnpopulatedMatview(plan.schema, e.schema, e.tag)) {
      matviews.push_back(i);  // a WITH NO DATA one stays unpopulated
    }
  }
  std::vector<PgConn*> conns = {&conn};
  conns.insert(conns.end(), more.begin(), more.end());
  return RefreshMatviewWaves(conns, s.toc.entries, PgMatviewRefreshWaves(s.toc.entries, matviews));
}

}  // namespace lakedump
