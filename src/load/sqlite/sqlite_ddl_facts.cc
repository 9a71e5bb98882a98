#include "load/sqlite/sqlite_ddl_facts.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <cctype>
#include <memory>

#include "load/sqlite/sqlite_guard.h"
#include "source/sqlite/sqlite_connection.h"

namespace lakedump {
namespace {

struct DdlFactsCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};

std::string DdlFactsText(sqlite3_stmt* st, int col) {
  const unsigned char* p = sqlite3_column_text(st, col);
  return p ? std::string(reinterpret_cast<const char*>(p),
                         static_cast<size_t>(sqlite3_column_bytes(st, col)))
           : std::string();
}

// Runs `sql` (a pragma read) with the table name bound as ?1, calling `row` per row.
template <typename Fn>
Status EachRow(sqlite3* db, const char* sql, const std::string& table, Fn&& row) {
  LD_ASSIGN_OR_RETURN(SqliteStmt st, Prepare(db, sql, table));
  sqlite3_bind_text(st.get(), 1, table.data(), static_cast<int>(table.size()), SQLITE_TRANSIENT);
  int rc;
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) row(st.get());
  return rc == SQLITE_DONE ? Status::OK() : SqliteStatus(db, rc, table);
}

Status ReadForeignKeys(sqlite3* db, const std::string& table, SqliteTableFacts* out) {
  int last_id = -1;
  return EachRow(db,
                 "SELECT id, \"table\", \"from\", \"to\", on_update, on_delete FROM "
                 "pragma_foreign_key_list(?1) ORDER BY id, seq",
                 table, [&](sqlite3_stmt* st) {
                   const int id = sqlite3_column_int(st, 0);
                   if (id != last_id) {
                     out->foreign_keys.push_back({{}, DdlFactsText(st, 1), {},
                                                  DdlFactsText(st, 4), DdlFactsText(st, 5)});
                     last_id = id;
                   }
                   out->foreign_keys.back().columns.push_back(DdlFactsText(st, 2));
                   out->foreign_keys.back().ref_columns.push_back(DdlFactsText(st, 3));
                 });
}

Status ReadColumns(sqlite3* db, const std::string& table, SqliteTableFacts* out) {
  std::vector<std::string> names;
  LD_RETURN_IF_ERROR(EachRow(
      db, "SELECT name, dflt_value, hidden FROM pragma_table_xinfo(?1) ORDER BY cid", table,
      [&](sqlite3_stmt* st) {
        const std::string name = DdlFactsText(st, 0);
        const int hidden = sqlite3_column_int(st, 2);
        if (hidden == 2 || hidden == 3) out->generated.emplace_back(name, hidden == 3);
        if (sqlite3_column_type(st, 1) != SQLITE_NULL) {
          out->defaults.emplace_back(name, DdlFactsText(st, 1));
        }
        if (hidden != 1) names.push_back(name);
      }));
  for (const std::string& c : names) {
    const char* type = nullptr;
    const char* collation = nullptr;
    int not_null = 0, pk = 0, autoinc = 0;
    if (sqlite3_table_column_metadata(db, "main", table.c_str(), c.c_str(), &type, &collation,
                                      &not_null, &pk, &autoinc) != SQLITE_OK) {
      continue;
    }
    if (autoinc) out->autoincrement = c;
    if (collation != nullptr && sqlite3_stricmp(collation, "BINARY") != 0) {
      out->collations.emplace_back(c, collation);
    }
  }
  return Status::OK();
}

}  // namespace

size_t CountSqliteChecks(std::string_view s) {
  size_t n = 0, i = 0;
  auto skip_to = [&](char close) {
    for (++i; i < s.size(); ++i) {
      if (s[i] != close) continue;
      if (close != ']' && i + 1 < s.size() && s[i + 1] == close) {
        ++i;  // a doubled quote
        continue;
      }
      break;
    }
    ++i;
  };
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\'' || c == '"' || c == '`') {
      skip_to(c);
    } else if (c == '[') {
      skip_to(']');
    } else if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const size_t end = s.find("*/", i + 2);
      i = end == std::string_view::npos ? s.size() : end + 2;
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      const size_t start = i;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
      if (i - start == 5 && sqlite3_strnicmp(s.data() + start, "CHECK", 5) == 0) {
        size_t j = i;
        while (j < s.size() && std::isspace(static_cast<unsigned char>(s[j]))) ++j;
        if (j < s.size() && s[j] == '(') ++n;
      }
    } else {
      ++i;
    }
  }
  return n;
}

Result<SqliteTableFacts> ReadSqliteTableFacts(std::string_view ddl, const std::string& table) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(":memory:", &raw,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                                 nullptr);
  std::unique_ptr<sqlite3, DdlFactsCloser> db(raw);
  if (rc != SQLITE_OK) return Status::IOError("cannot open an in-memory SQLite database");
  // sqlite_sequence exists before the statement runs (an AUTOINCREMENT table would create it,
  // which the authorizer refuses: creating the one table only).
  LD_RETURN_IF_ERROR(ExecOneStatement(
      db.get(), "CREATE TABLE \"lakedump sequence\" (id INTEGER PRIMARY KEY AUTOINCREMENT)", table));
  LD_RETURN_IF_ERROR(ExecOneStatement(db.get(), "DROP TABLE \"lakedump sequence\"", table));
  {
    SchemaAuthorizer guard(db.get(), table);
    Status created = ExecOneStatement(db.get(), ddl, table);
    if (!created.ok() || !guard.denied().empty()) {
      return Status::InvalidArgument(fmt::format(
          "the recorded CREATE TABLE of \"{}\" is not one statement creating it ({}{})", table,
          created.message(), guard.denied().empty() ? "" : ", denied: " + guard.denied()));
    }
  }
  SqliteTableFacts facts;
  LD_RETURN_IF_ERROR(ReadForeignKeys(db.get(), table, &facts));
  LD_RETURN_IF_ERROR(ReadColumns(db.get(), table, &facts));
  facts.checks = CountSqliteChecks(ddl);
  return facts;
}

}  // namespace lakedump
