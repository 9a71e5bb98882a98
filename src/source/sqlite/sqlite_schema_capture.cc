#include "source/sqlite/sqlite_schema_capture.h"

#include <fmt/format.h>

#include <set>

#include "source/sqlite/sqlite_connection.h"

namespace lakedump {
namespace {

std::string Text(sqlite3_stmt* st, int col) {
  const unsigned char* p = sqlite3_column_text(st, col);
  return p ? std::string(reinterpret_cast<const char*>(p),
                         static_cast<size_t>(sqlite3_column_bytes(st, col)))
           : std::string();
}

// Runs `sql` and calls `row` for each result row.
template <typename Fn>
Status ForEachRow(sqlite3* db, const std::string& sql, std::string_view context, Fn&& row) {
  LD_ASSIGN_OR_RETURN(SqliteStmt st, Prepare(db, sql, context));
  int rc;
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) row(st.get());
  if (rc != SQLITE_DONE) return SqliteStatus(db, rc, context);
  return Status::OK();
}

std::string SqlString(std::string_view text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

// PRAGMA index_list/index_xinfo of one table: every index, with its key columns
// when all of them are plain columns and the index is not partial.
Status TableIndexes(sqlite3* db, const std::string& table, nlohmann::json* out) {
  std::vector<nlohmann::json> indexes;
  LD_RETURN_IF_ERROR(ForEachRow(
      db, fmt::format("SELECT name, \"unique\", origin, partial FROM pragma_index_list({})",
                      SqlString(table)),
      "index list", [&](sqlite3_stmt* st) {
        indexes.push_back({{"schema", "main"},
                           {"table", table},
                           {"name", Text(st, 0)},
                           {"unique", sqlite3_column_int(st, 1) != 0},
                           {"primary", Text(st, 2) == "pk"},
                           {"partial", sqlite3_column_int(st, 3) != 0}});
      }));
  for (nlohmann::json& index : indexes) {
    nlohmann::json columns = nlohmann::json::array();
    bool plain = !index["partial"].get<bool>();
    std::string name = index["name"].get<std::string>();
    LD_RETURN_IF_ERROR(ForEachRow(
        db, "SELECT cid, name, \"key\" FROM pragma_index_xinfo(" + SqlString(name) + ")", "index columns",
        [&](sqlite3_stmt* st) {
          if (sqlite3_column_int(st, 2) == 0) return;  // the rowid and INCLUDE-like extras
          if (sqlite3_column_int(st, 0) < 0) plain = false;  // an expression
          columns.push_back(Text(st, 1));
        }));
    index.erase("partial");
    index["columns"] = plain ? columns : nlohmann::json(nullptr);
    out->push_back(std::move(index));
  }
  return Status::OK();
}

}  // namespace

Result<SchemaCapture> CaptureSqliteSchema(sqlite3* db, const std::vector<TableRef>& selected) {
  std::set<std::string> tables;
  for (const TableRef& t : selected) {
    if (t.schema == "main") tables.insert(t.name);
  }
  SchemaCapture capture;
  capture.info["schema_from"] = "sqlite_schema";
  nlohmann::json objects = nlohmann::json::array();
  // Creation order (rowid) keeps a view after the views it reads.
  LD_RETURN_IF_ERROR(ForEachRow(
      db, "SELECT type, name, tbl_name, sql FROM main.sqlite_schema WHERE sql IS NOT NULL "
          "ORDER BY rowid",
      "reading sqlite_schema", [&](sqlite3_stmt* st) {
        const std::string type = Text(st, 0), table = Text(st, 2);
        if (type != "view" && !tables.count(table)) return;
        objects.push_back(
            {{"type", type}, {"name", Text(st, 1)}, {"table", table}, {"sql", Text(st, 3)}});
      }));
  capture.info["objects"] = std::move(objects);
  nlohmann::json sequences = nlohmann::json::array();
  bool has_sequence = false;
  LD_RETURN_IF_ERROR(ForEachRow(
      db, "SELECT 1 FROM main.sqlite_schema WHERE type = 'table' AND name = 'sqlite_sequence'",
      "sqlite_sequence", [&](sqlite3_stmt*) { has_sequence = true; }));
  if (has_sequence) {
    LD_RETURN_IF_ERROR(ForEachRow(
        db, "SELECT name, seq FROM main.sqlite_sequence ORDER BY rowid", "sqlite_sequence",
        [&](sqlite3_stmt* st) {
          if (!tables.count(Text(st, 0))) return;
          sequences.push_back({{"name", Text(st, 0)}, {"seq", sqlite3_column_int64(st, 1)}});
        }));
  }
  capture.info["sqlite_sequence"] = std::move(sequences);
  bool has_stat = false;
  LD_RETURN_IF_ERROR(ForEachRow(
      db, "SELECT 1 FROM main.sqlite_schema WHERE type = 'table' AND name = 'sqlite_stat1'",
      "sqlite_stat1", [&](sqlite3_stmt*) { has_stat = true; }));
  capture.info["sqlite_stat1"] = has_stat;
  nlohmann::json indexes = nlohmann::json::array();
  for (const std::string& t : tables) LD_RETURN_IF_ERROR(TableIndexes(db, t, &indexes));
  capture.info["indexes"] = std::move(indexes);
  return capture;
}

}  // namespace lakedump
