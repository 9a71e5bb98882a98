#include "load/sqlite/sqlite_schema_replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <utility>
#include <vector>

#include "lake/table_selection.h"
#include "load/schema_subset.h"
#include "load/sqlite/sqlite_guard.h"
#include "source/sqlite/sqlite_connection.h"

namespace lakedump {
namespace {

// Prepares `sql` as exactly one statement and runs it to completion (`run` false: only
// prepares it, which is when SQLite's authorizer sees what it does).
Status RunOne(sqlite3* db, const std::string& sql, std::string_view what, bool run = true) {
  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  int rc = sqlite3_prepare_v2(db, sql.c_str(), static_cast<int>(sql.size()), &raw, &tail);
  SqliteStmt st(raw);
  if (rc != SQLITE_OK) return SqliteStatus(db, rc, what);
  if (!st) return Status::Corruption(fmt::format("{}: the recorded SQL is empty", what));
  for (; tail && *tail; ++tail) {
    if (!std::isspace(static_cast<unsigned char>(*tail)) && *tail != ';') {
      return Status::Corruption(
          fmt::format("{}: the recorded SQL holds more than one statement (refused)", what));
    }
  }
  if (!run) return Status::OK();
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
  }
  return rc == SQLITE_DONE ? Status::OK() : SqliteStatus(db, rc, what);
}

// Runs (or with `run` false only prepares) a recorded index, view or trigger under an
// authorizer that allows creating that one object under its recorded name (an index or
// trigger on its recorded table) and nothing else: a forged entry's ATTACH, VACUUM INTO,
// DROP, PRAGMA or other statement is InvalidArgument naming the entry.
Status ReplayObject(sqlite3* db, std::string_view kind, const nlohmann::json& o, bool run) {
  const std::string name = JsonString(o, "name");
  const std::string what = fmt::format("restoring {} \"{}\"", kind, name);
  const SchemaObject object = kind == "index" ? SchemaObject::kIndex
                              : kind == "view" ? SchemaObject::kView
                                               : SchemaObject::kTrigger;
  const std::string table = object == SchemaObject::kView ? "" : JsonString(o, "table");
  SchemaAuthorizer guard(db, object, name, table);
  const Status ran = RunOne(db, JsonString(o, "sql"), what, run);
  const std::string claim =
      object == SchemaObject::kView
          ? fmt::format("CREATE VIEW \"{}\"", name)
          : fmt::format("CREATE {} \"{}\" ON \"{}\"", object == SchemaObject::kIndex ? "INDEX" : "TRIGGER",
                        name, table);
  if (!guard.denied().empty()) {
    return Status::InvalidArgument(fmt::format(
        "{}: the recorded SQL may only {} (refused: {})", what, claim, guard.denied()));
  }
  LD_RETURN_IF_ERROR(ran);
  if (!guard.created()) {
    return Status::InvalidArgument(
        fmt::format("{}: the recorded SQL is not {} (refused)", what, claim));
  }
  return Status::OK();
}

bool TrustedSqlite(const SchemaRestorePlan& plan) {
  return JsonString(plan.schema, "schema_from") == "sqlite_schema" && plan.trusted;
}

// The recorded indexes, views and triggers the load restores, in the source's creation order
// (which `.dump` prints them in; a view comes after what it reads, and all come after the
// data, so no trigger fires during the load).
std::vector<std::pair<std::string, nlohmann::json>> ObjectsToReplay(const SchemaRestorePlan& plan) {
  std::set<std::string> tables;
  for (const TableRef& t : plan.tables) tables.insert(t.name);
  const nlohmann::json objects = plan.schema.value("objects", nlohmann::json::array());
  std::vector<std::pair<std::string, nlohmann::json>> out;
  for (const nlohmann::json& o : objects) {
    const std::string kind = JsonString(o, "type");
    if (kind != "index" && kind != "view" && kind != "trigger") continue;
    const std::string name = JsonString(o, "name");
    if (kind == "view") {
      const TableRef view{"main", name};
      if (std::any_of(plan.exclude_patterns.begin(), plan.exclude_patterns.end(),
                      [&](const std::string& p) { return TablePatternMatches(p, view); })) {
        continue;
      }
    } else if (!tables.count(JsonString(o, "table"))) {
      continue;
    }
    out.emplace_back(kind, o);
  }
  return out;
}

// Runs the recorded CREATE TABLE of each table the load restores.
Status CreateTables(sqlite3* db, const SchemaRestorePlan& plan, SchemaRestoreOutcome* out) {
  std::set<std::string> tables;
  for (const TableRef& t : plan.tables) tables.insert(t.name);
  for (const nlohmann::json& o : plan.schema.value("objects", nlohmann::json::array())) {
    const std::string name = JsonString(o, "name");
    if (JsonString(o, "type") != "table" || !tables.count(name)) continue;
    LD_RETURN_IF_ERROR(RunOne(db, JsonString(o, "sql"), fmt::format("creating table \"{}\"", name)));
    if (out != nullptr) {
      out->created.push_back(TableRef{"main", name});
      ++out->restored;
    }
  }
  return Status::OK();
}

// Before any table is created or loaded: every recorded index, view and trigger the replay
// will run is prepared under its authorizer against the recorded tables, created in a
// savepoint that is rolled back. A forged entry is refused then, with nothing left behind.
Status PrecheckObjects(sqlite3* db, const SchemaRestorePlan& plan) {
  const auto objects = ObjectsToReplay(plan);
  if (objects.empty()) return Status::OK();
  LD_RETURN_IF_ERROR(RunOne(db, "SAVEPOINT lakedump_precheck", "checking the recorded schema"));
  Status s = CreateTables(db, plan, nullptr);
  // An object that fails to prepare for another reason (a view on a view not yet created)
  // does not stop the others' checks.
  for (size_t i = 0; s.ok() && i < objects.size(); ++i) {
    const Status one = ReplayObject(db, objects[i].first, objects[i].second, /*run=*/false);
    if (one.code() == Code::kInvalidArgument) s = one;
  }
  const Status back = RunOne(db, "ROLLBACK TO lakedump_precheck", "checking the recorded schema");
  const Status released = RunOne(db, "RELEASE lakedump_precheck", "checking the recorded schema");
  // A refusal counts; any other failure shows again, in its place, when the schema is replayed.
  if (s.code() == Code::kInvalidArgument) return s;
  return back.ok() ? released : back;
}

// The recorded sqlite_sequence rows of the loaded tables, in the source's order (its rowid
// order, which `.dump` prints): the rows the load made are replaced.
Status RestoreSequences(sqlite3* db, const SchemaRestorePlan& plan,
                        const std::set<std::string>& tables, SchemaRestoreOutcome* out) {
  for (const nlohmann::json& q : plan.schema.value("sqlite_sequence", nlohmann::json::array())) {
    const std::string table = JsonString(q, "name");
    if (!tables.count(table) || !q.contains("seq") || !q["seq"].is_number_integer()) continue;
    auto del = Prepare(db, "DELETE FROM sqlite_sequence WHERE name = ?1", "sqlite_sequence");
    if (!del.ok()) {
      out->warnings.push_back(fmt::format(
          "sqlite_sequence of \"{}\" not restored: the table was not created with AUTOINCREMENT",
          table));
      continue;
    }
    LD_ASSIGN_OR_RETURN(SqliteStmt ins, Prepare(db,
                                                "INSERT INTO sqlite_sequence (name, seq) "
                                                "VALUES (?1, ?2)",
                                                "sqlite_sequence"));
    for (sqlite3_stmt* s : {del->get(), ins.get()}) {
      sqlite3_bind_text(s, 1, table.data(), static_cast<int>(table.size()), SQLITE_TRANSIENT);
      if (s == ins.get()) sqlite3_bind_int64(s, 2, q["seq"].get<int64_t>());
      const int rc = sqlite3_step(s);
      if (rc != SQLITE_DONE) return SqliteStatus(db, rc, "sqlite_sequence");
    }
  }
  return Status::OK();
}

Status ReplayRecorded(sqlite3* db, const SchemaRestorePlan& plan, SchemaRestoreOutcome* out) {
  std::set<std::string> tables;
  for (const TableRef& t : plan.tables) tables.insert(t.name);
  for (const auto& [kind, o] : ObjectsToReplay(plan)) {
    LD_RETURN_IF_ERROR(ReplayObject(db, kind, o, /*run=*/true));
    ++out->restored;
  }
  LD_RETURN_IF_ERROR(RestoreSequences(db, plan, tables, out));
  // The load's ANALYZE creates sqlite_stat1; the source had none.
  if (!plan.schema.value("sqlite_stat1", false)) {
    bool has_stat = false;
    {
      LD_ASSIGN_OR_RETURN(SqliteStmt st, Prepare(db,
                                                 "SELECT 1 FROM sqlite_schema WHERE type = "
                                                 "'table' AND name = 'sqlite_stat1'",
                                                 "sqlite_stat1"));
      has_stat = sqlite3_step(st.get()) == SQLITE_ROW;
    }
    if (has_stat) LD_RETURN_IF_ERROR(RunOne(db, "DROP TABLE sqlite_stat1", "sqlite_stat1"));
  }
  out->method = "sqlite_schema";
  return Status::OK();
}

}  // namespace

Status CreateRecordedSqliteTables(sqlite3* db, const SchemaRestorePlan& plan,
                                  SchemaRestoreOutcome* out) {
  if (!TrustedSqlite(plan)) return Status::OK();
  std::set<std::string> tables;
  for (const TableRef& t : plan.tables) tables.insert(t.name);
  for (const nlohmann::json& o : plan.schema.value("objects", nlohmann::json::array())) {
    const std::string name = JsonString(o, "name");
    if (JsonString(o, "type") != "table" || !tables.count(name)) continue;
    LD_ASSIGN_OR_RETURN(SqliteStmt st, Prepare(db, "SELECT 1 FROM sqlite_schema WHERE name = ?1",
                                               "sqlite_schema"));
    sqlite3_bind_text(st.get(), 1, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
    if (sqlite3_step(st.get()) == SQLITE_ROW) {
      return Status::AlreadyExists(fmt::format(
          "table \"{}\" already exists in the target: restoring the dump's schema needs an "
          "empty database (or load with --data-only)",
          name));
    }
  }
  LD_RETURN_IF_ERROR(PrecheckObjects(db, plan));
  LD_RETURN_IF_ERROR(CreateTables(db, plan, out));
  out->method = "sqlite_schema";
  return Status::OK();
}

Status ReplaySqliteSchema(sqlite3* db, const SchemaRestorePlan& plan, SchemaRestoreOutcome* out) {
  const std::string from = JsonString(plan.schema, "schema_from");
  if (TrustedSqlite(plan)) return ReplayRecorded(db, plan, out);
  std::set<std::string> built;
  for (const PlainIndex& ix : PlainIndexesToCreate(plan)) {
    LD_RETURN_IF_ERROR(RunOne(db, CreateIndexStatement(ix, QuoteIdentifier(ix.table.name)),
                              fmt::format("index \"{}\"", ix.name)));
    built.insert(ix.name);
  }
  out->restored += built.size();
  if (!built.empty() && out->method == "none") out->method = "indexes";
  if (from == "sqlite_schema") {
    size_t missing = 0;
    for (const nlohmann::json& o : plan.schema.value("objects", nlohmann::json::array())) {
      if (JsonString(o, "type") != "table" && !built.count(JsonString(o, "name"))) ++missing;
    }
    if (missing > 0) out->warnings.push_back(UntrustedSchemaLine(missing));
  } else if (!from.empty()) {
    for (std::string& w : SkippedObjectWarnings(plan, "SQLite")) out->warnings.push_back(std::move(w));
  }
  return Status::OK();
}

}  // namespace lakedump
