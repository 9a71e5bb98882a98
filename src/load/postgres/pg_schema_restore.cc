#include "load/postgres/sqlite_schema_to_pg.h"
#include "load/postgres/pg_schema_restore.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <set>

#include "base/subprocess.h"
#include "base/temp_file.h"
#include "lake/table_selection.h"
#include "load/schema_subset.h"
#include "source/postgres/pg_tools.h"

namespace lakedump {
namespace {

using Name = std::pair<std::string, std::string>;  // schema, relation

std::string FirstWord(std::string_view s) { return std::string(s.substr(0, s.find(' '))); }

bool IsPgRestorePlan(const SchemaRestorePlan& plan) {
  return JsonString(plan.schema, "schema_from") == "pg_dump" && !plan.archive.empty();
}

// The relation an archive entry belongs to, or an empty name when it is not a table's.
Name OwnerOf(const PgTocEntry& e, const std::map<Name, Name>& index_tables,
             const std::map<Name, Name>& sequence_tables) {
  static const std::set<std::string> kSelf = {"TABLE", "TABLE DATA", "TABLE ATTACH",
                                              "FOREIGN TABLE"};
  static const std::set<std::string> kFirstWord = {"DEFAULT", "CONSTRAINT", "FK CONSTRAINT",
                                                   "TRIGGER", "RULE", "POLICY", "ROW SECURITY",
                                                   "CHECK CONSTRAINT"};
  if (kSelf.count(e.type)) return {e.schema, e.name};
  if (kFirstWord.count(e.type)) return {e.schema, FirstWord(e.name)};
  if (e.type == "INDEX" || e.type == "INDEX ATTACH") {
    auto it = index_tables.find({e.schema, e.name});
    return it == index_tables.end() ? Name{} : it->second;
  }
  if (e.type == "SEQUENCE" || e.type == "SEQUENCE OWNED BY") {
    auto it = sequence_tables.find({e.schema, e.name});
    return it == sequence_tables.end() ? Name{} : it->second;
  }
  if ((e.type == "COMMENT" || e.type == "ACL" || e.type == "SECURITY LABEL") &&
      e.name.starts_with("TABLE ")) {
    return {e.schema, e.name.substr(6)};
  }
  return {};
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

// The tables a load restores, by their root: a partition belongs to its parent.
class RestoredTables {
 public:
  explicit RestoredTables(const SchemaRestorePlan& plan) {
    for (const nlohmann::json& p : plan.schema.value("partitions", nlohmann::json::array())) {
      parent_[{JsonString(p, "schema"), JsonString(p, "name")}] = {JsonString(p, "parent_schema"),
                                                                   JsonString(p, "parent")};
    }
    for (const TableRef& t : plan.tables) restored_.insert(RootOf({t.schema, t.name}));
  }
  Name RootOf(Name n) const {
    for (int depth = 0; depth < 100; ++depth) {  // bounded: a hostile manifest may loop
      auto it = parent_.find(n);
      if (it == parent_.end()) break;
      n = it->second;
    }
    return n;
  }
  bool Restores(const Name& table) const { return restored_.count(RootOf(table)) > 0; }

 private:
  std::map<Name, Name> parent_;
  std::set<Name> restored_;
};

// The manifest's per-object table lists ("dependents", "mentions"): (catalog, oid) -> the
// first table of its list this load does not restore, or every such table with `all`.
// Malformed entries (hostile or damaged) are ignored.
std::map<std::pair<uint32_t, uint32_t>, std::vector<Name>> TablesNotRestored(
    const nlohmann::json& list, const RestoredTables& restored, bool all) {
  std::map<std::pair<uint32_t, uint32_t>, std::vector<Name>> out;
  if (!list.is_array()) return out;
  for (const nlohmann::json& d : list) {
    const auto is_oid = [&](const char* key) {
      return d.contains(key) && d[key].is_number_unsigned() &&
             d[key].get<uint64_t>() <= std::numeric_limits<uint32_t>::max();
    };
    if (!d.is_object() || !is_oid("catalog") || !is_oid("oid") || !d.contains("tables") ||
        !d["tables"].is_array()) {
      continue;
    }
    for (const nlohmann::json& t : d["tables"]) {
      const Name table{JsonString(t, "schema"), JsonString(t, "name")};
      if (table.second.empty() || restored.Restores(table)) continue;
      out[{d["catalog"].get<uint32_t>(), d["oid"].get<uint32_t>()}].push_back(table);
      if (!all) break;
    }
  }
  return out;
}

// The steps of SelectTocEntries.

// Each index's table.
std::map<Name, Name> IndexTables(const SchemaRestorePlan& plan) {
  std::map<Name, Name> index_tables;
  for (const nlohmann::json& ix : plan.schema.value("indexes", nlohmann::json::array())) {
    index_tables[{JsonString(ix, "schema"), JsonString(ix, "name")}] = {JsonString(ix, "schema"), JsonString(ix, "table")};
  }
  return index_tables;
}

// Each sequence owned by a table, with its table.
std::map<Name, Name> SequenceTables(const SchemaRestorePlan& plan) {
  std::map<Name, Name> sequence_tables;
  for (const nlohmann::json& q : plan.schema.value("sequences", nlohmann::json::array())) {
    if (!JsonString(q, "table").empty()) {
      sequence_tables[{JsonString(q, "schema"), JsonString(q, "name")}] = {
          JsonString(q, "table_schema"), JsonString(q, "table")};
    }
  }
  return sequence_tables;
}

struct ForeignKey {
  std::string table, name;
  Name references;
};

// Foreign keys by their archive tag ("table name"), with the table each references.
std::map<Name, ForeignKey> ForeignKeysByTag(const SchemaRestorePlan& plan) {
  std::map<Name, ForeignKey> fks;
  for (const nlohmann::json& k : plan.schema.value("fks", nlohmann::json::array())) {
    ForeignKey fk{JsonString(k, "table"), JsonString(k, "name"),
                  {JsonString(k, "ref_schema"), JsonString(k, "ref_table")}};
    if (fk.table.empty() || fk.name.empty() || fk.references.second.empty()) continue;
    const Name tag{JsonString(k, "schema"), fk.table + " " + fk.name};
    fks[tag] = std::move(fk);
  }
  return fks;
}

// A view or materialized view --exclude names (load leaves it out without a word).
bool ExcludedByName(const PgTocEntry& e, const SchemaRestorePlan& plan) {
  if (e.type != "VIEW" && e.type != "MATERIALIZED VIEW") return false;
  const TableRef view{e.schema, e.name};
  return std::any_of(plan.exclude_patterns.begin(), plan.exclude_patterns.end(),
                     [&](const std::string& p) { return TablePatternMatches(p, view); });
}

// Leaves out the views, materialized views and functions that need a table in
// `missing_table`: adds the relations to *excluded, names each in *skipped (if not null),
// and returns their tags (schema, "FUNCTION f(integer)"), as COMMENT and ACL name them.
std::set<Name> LeaveOutDependents(
    const std::vector<PgTocEntry>& toc, const SchemaRestorePlan& plan,
    const std::map<std::pair<uint32_t, uint32_t>, std::vector<Name>>& missing_table,
    std::set<Name>* excluded, std::vector<std::string>* skipped) {
  std::set<Name> left_out_tags;
  for (const PgTocEntry& e : toc) {
    auto it = missing_table.find({e.catalog_oid, e.object_oid});
    if (it == missing_table.end() || e.catalog_oid == 0 || ExcludedByName(e, plan)) continue;
    const bool relation = e.type == "VIEW" || e.type == "MATERIALIZED VIEW";
    if (!relation && e.type != "FUNCTION" && e.type != "PROCEDURE" && e.type != "AGGREGATE") {
      continue;
    }
    if (relation) excluded->insert({e.schema, e.name});
    left_out_tags.insert({e.schema, e.type + " " + e.name});
    if (relation) left_out_tags.insert({e.schema, "TABLE " + e.name});
    if (skipped != nullptr) {
      std::string kind = e.type;
      std::transform(kind.begin(), kind.end(), kind.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      skipped->push_back(fmt::format(
          "skipped PostgreSQL {} {}.{}: it needs {}.{}, which this load does not restore", kind,
          e.schema, e.name, it->second.front().first, it->second.front().second));
    }
  }
  return left_out_tags;
}

}  // namespace

std::vector<std::string> QuotedBodyWarnings(const std::vector<PgTocEntry>& restored_entries,
                                            const SchemaRestorePlan& plan) {
  const RestoredTables restored(plan);
  const auto missing =
      TablesNotRestored(plan.schema.value("mentions", nlohmann::json::array()), restored, true);
  std::vector<std::string> out;
  for (const PgTocEntry& e : restored_entries) {
    if (e.type != "FUNCTION" && e.type != "PROCEDURE") continue;
    auto it = missing.find({e.catalog_oid, e.object_oid});
    if (it == missing.end() || e.catalog_oid == 0) continue;
    std::vector<std::string> tables;
    for (const Name& t : it->second) tables.push_back(t.first + "." + t.second);
    out.push_back(fmt::format(
        "PostgreSQL {} {}.{} was restored, but its body (in quotes, no recorded dependencies) "
        "mentions {}, which this load does not restore: it may fail when called",
        e.type == "FUNCTION" ? "function" : "procedure", e.schema, e.name,
        fmt::join(tables, ", ")));
  }
  return out;
}

std::vector<PgTocEntry> SelectTocEntries(const std::vector<PgTocEntry>& toc,
                                         const SchemaRestorePlan& plan,
                                         std::vector<std::string>* skipped) {
  std::set<Name> excluded;
  for (const TableRef& t : plan.excluded) excluded.insert({t.schema, t.name});
  const RestoredTables restored(plan);
  const auto root_of = [&](const Name& n) { return restored.RootOf(n); };
  const std::map<Name, Name> index_tables = IndexTables(plan);
  const std::map<Name, Name> sequence_tables = SequenceTables(plan);
  const std::map<Name, ForeignKey> fks = ForeignKeysByTag(plan);
  // Views, materialized views and SQL-standard functions needing a table this load does not
  // restore (left out of the dump, or --exclude) would fail pre-data: they are left out,
  // named, with what hangs on them (a view's indexes, triggers and rules through `excluded`,
  // comments and grants through `left_out_tags`).
  const auto missing_table = TablesNotRestored(
      plan.schema.value("dependents", nlohmann::json::array()), restored, false);
  const std::set<Name> left_out_tags =
      LeaveOutDependents(toc, plan, missing_table, &excluded, skipped);
  std::vector<PgTocEntry> out;
  for (const PgTocEntry& e : toc) {
    if ((e.type == "COMMENT" || e.type == "ACL" || e.type == "SECURITY LABEL") &&
        left_out_tags.count({e.schema, e.name})) {
      continue;
    }
    if (e.catalog_oid != 0 && missing_table.count({e.catalog_oid, e.object_oid}) &&
        (e.type == "FUNCTION" || e.type == "PROCEDURE" || e.type == "AGGREGATE")) {
      continue;
    }
    if ((e.type == "VIEW" || e.type == "MATERIALIZED VIEW" || e.type == "MATERIALIZED VIEW DATA") &&
        excluded.count({e.schema, e.name})) {
      continue;
    }
    if (ExcludedByName(e, plan)) continue;
    const Name owner = root_of(OwnerOf(e, index_tables, sequence_tables));
    if (!owner.first.empty() && excluded.count(owner)) continue;
    if (e.type == "FK CONSTRAINT") {
      // A key to a table the load does not restore (left out of the dump, or --exclude)
      // would fail post-data: it is left out, naming it.
      auto fk = fks.find({e.schema, e.name});
      if (fk != fks.end() && !restored.Restores(fk->second.references)) {
        if (skipped != nullptr) {
          skipped->push_back(fmt::format(
              "skipped PostgreSQL foreign key {} on {}.{}: it references {}.{}, which this "
              "load does not restore",
              fk->second.name, e.schema, fk->second.table, fk->second.references.first,
              fk->second.references.second));
        }
        continue;
      }
    }
    out.push_back(e);
  }
  return out;
}

struct PgSchemaRestorer::State {
  PgTool tool;
  TempFile archive;
  TempFile list;
  std::vector<PgTocEntry> entries;  // selected, in the archive's (dependency) order
  bool restoring = false;           // Before() ran pg_restore
};

PgSchemaRestorer::PgSchemaRestorer() : state_(std::make_unique<State>()) {}
PgSchemaRestorer::~PgSchemaRestorer() = default;

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
  StringSink listing;
  LD_ASSIGN_OR_RETURN(SubprocessOutcome listed,
                      RunSubprocess({{s.tool.path, "--list", s.archive.path()}, {}, ""}, &listing));
  if (listed.exit_code != 0) {
    return Status::Corruption(fmt::format("pg_restore --list of the dump's schema archive: {}",
                                          FirstErrorLine(listed.stderr_tail)));
  }
  std::vector<std::string> skipped;
  s.entries = SelectTocEntries(ParsePgTocListing(listing.str()), plan, &skipped);
  // An archive of some schemas (pg_dump --schema) creates public like the others, but every
  // new database has it already: its CREATE would fail the whole pre-data. Its comment and
  // grants stay.
  LD_ASSIGN_OR_RETURN(PgResult has_public,
                      conn.Query("SELECT pg_catalog.to_regnamespace('public') IS NOT NULL"));
  if (PgValue(has_public.get(), 0, 0) == "t") {
    std::erase_if(s.entries, [](const PgTocEntry& e) {
      return e.type == "SCHEMA" && e.schema == "-" && e.name == "public";
    });
  }
  std::string list;
  for (const PgTocEntry& e : s.entries) list += e.line + "\n";
  LD_RETURN_IF_ERROR(s.list.Write(list));
  LD_ASSIGN_OR_RETURN(const PgChildConnection child, ChildConnectionOf(conn.raw()));
  LD_RETURN_IF_ERROR(RunPgRestore(
      s.tool, child,
      {"--section=pre-data", "--single-transaction", "--exit-on-error", "--use-list=" + s.list.path()},
      s.archive.path(),
      "restoring the dump's schema (pg_restore --section=pre-data) failed and created nothing; "
      "load into an empty database"));
  s.restoring = true;
  out->method = "pg_restore";
  for (std::string& w : skipped) out->warnings.push_back(std::move(w));
  for (std::string& w : QuotedBodyWarnings(s.entries, plan)) out->warnings.push_back(std::move(w));
  for (const PgTocEntry& e : s.entries) {
    const TableRef ref{e.schema, e.name};
    const bool selected = std::find(plan.tables.begin(), plan.tables.end(), ref) != plan.tables.end();
    if (selected && e.type == "TABLE") out->created.push_back(ref);
    if (selected && e.type == "MATERIALIZED VIEW") out->skip_data.push_back(ref);
  }
  return Status::OK();
}

Status PgSchemaRestorer::After(PgConn& conn, const SchemaRestorePlan& plan,
                               SchemaRestoreOutcome* out) {
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
  LD_ASSIGN_OR_RETURN(const PgChildConnection post_child, ChildConnectionOf(conn.raw()));
  LD_RETURN_IF_ERROR(RunPgRestore(
      s.tool, post_child,
      {"--section=post-data", "--exit-on-error", fmt::format("--jobs={}", std::max(1, plan.jobs)),
       "--use-list=" + s.list.path()},
      s.archive.path(),
      "restoring the dump's indexes, constraints and triggers (pg_restore --section=post-data) "
      "failed"));
  out->restored += s.entries.size();
  // Sequences: their values at the dump's snapshot (those the archive created).
  for (const nlohmann::json& q : plan.schema.value("sequences", nlohmann::json::array())) {
    if (!q.is_object() || !q.contains("last_value") || !q["last_value"].is_number_integer()) {
      continue;
    }
    const std::string name = QuoteQualified(JsonString(q, "schema"), JsonString(q, "name"));
    LD_RETURN_IF_ERROR(
        conn.Query("SELECT pg_catalog.setval(c.oid, $2::pg_catalog.int8, $3::pg_catalog.bool) "
                   "FROM (SELECT pg_catalog.to_regclass($1) AS oid) c WHERE c.oid IS NOT NULL",
                   {name, std::to_string(q["last_value"].get<int64_t>()),
                    q.value("is_called", false) ? "true" : "false"})
            .status()
            .WithContext("setting sequence " + name));
  }
  if (plan.with_data) {
    for (const PgTocEntry& e : s.entries) {
      if (e.type != "MATERIALIZED VIEW") continue;
      LD_RETURN_IF_ERROR(conn.Exec("REFRESH MATERIALIZED VIEW " + QuoteQualified(e.schema, e.name))
                             .WithContext("refreshing materialized view " + e.schema + "." + e.name));
    }
  }
  return Status::OK();
}

}  // namespace lakedump
