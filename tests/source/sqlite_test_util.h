// Header-only helpers for tests that build SQLite files and read them back through the
// SQLite source: a temporary directory, a writable connection, and a renderer
// turning batch values into comparable strings.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "source/sqlite/sqlite_values.h"
#include "source/table_source.h"
#include "table/list_json.h"
#include "table/row_batch.h"
#include "table/temporal.h"

namespace lakedump::testing_sqlite {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "lakedump_sqlite_XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// A read-write connection for setting up test databases.
class Writer {
 public:
  explicit Writer(const std::string& path) {
    EXPECT_EQ(sqlite3_open(path.c_str(), &db_), SQLITE_OK);
    sqlite3_busy_timeout(db_, 5000);
  }
  ~Writer() { sqlite3_close(db_); }
  void Exec(const std::string& sql) {
    char* err = nullptr;
    ASSERT_EQ(sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK)
        << (err ? err : "") << " in " << sql;
  }
  int TryExec(const std::string& sql) { return sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr); }
  sqlite3* db() { return db_; }

 private:
  sqlite3* db_ = nullptr;
};

inline std::string Render(const ColumnVector& c, size_t i) {
  if (c.IsNull(i)) return "NULL";
  switch (c.type().id) {
    case TypeId::kBool: return c.ValueAt<uint8_t>(i) ? "true" : "false";
    case TypeId::kInt8: return std::to_string(c.ValueAt<int8_t>(i));
    case TypeId::kInt16: return std::to_string(c.ValueAt<int16_t>(i));
    case TypeId::kInt32: return std::to_string(c.ValueAt<int32_t>(i));
    case TypeId::kInt64: return std::to_string(c.ValueAt<int64_t>(i));
    case TypeId::kFloat: return fmt::format("{}", c.ValueAt<float>(i));
    case TypeId::kDouble: return fmt::format("{}", c.ValueAt<double>(i));
    case TypeId::kDecimal: return FormatDecimal(c.ValueAt<int128_t>(i), c.type().scale);
    case TypeId::kString:
    case TypeId::kJson: return std::string(c.BytesAt(i));
    case TypeId::kList: return ListToJson(c, i);
    case TypeId::kBinary: {
      std::string out = "0x";
      for (unsigned char b : c.BytesAt(i)) out += fmt::format("{:02x}", b);
      return out;
    }
    case TypeId::kDate: return FormatDate(c.ValueAt<int32_t>(i));
    case TypeId::kTime: return FormatTime(c.ValueAt<int64_t>(i));
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: return FormatTimestamp(c.ValueAt<int64_t>(i));
    case TypeId::kUuid: {
      const Uuid u = c.ValueAt<Uuid>(i);
      std::string out;
      for (int k = 0; k < 16; ++k) {
        if (k == 4 || k == 6 || k == 8 || k == 10) out.push_back('-');
        out += fmt::format("{:02x}", u.bytes[k]);
      }
      return out;
    }
  }
  return "?";
}

inline std::vector<std::vector<std::string>> ReadAll(Database& db, const WorkUnit& unit,
                                                     size_t batch_rows = 1000) {
  std::vector<std::vector<std::string>> rows;
  auto source = db.Open(unit);
  EXPECT_TRUE(source.ok()) << source.status().ToString();
  if (!source.ok()) return rows;
  RowBatch batch;
  while (true) {
    Status s = (*source)->Next(batch_rows, &batch);
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (!s.ok() || batch.empty()) break;
    EXPECT_TRUE(batch.Validate((*source)->schema()).ok());
    for (size_t r = 0; r < batch.num_rows(); ++r) {
      std::vector<std::string> row;
      for (size_t c = 0; c < batch.num_columns(); ++c) {
        // The typed values only: the exact SQLite values (sqlite_values.h) are not one of them.
        if (IsSqliteValuesColumn((*source)->schema().column(c))) continue;
        row.push_back(Render(batch.column(c), r));
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

inline std::vector<std::vector<std::string>> ReadTable(Database& db, const std::string& table) {
  WorkUnit unit;
  unit.table.ref = TableRef{"main", table};
  return ReadAll(db, unit);
}

// Runs a query on a fresh connection to the SQLite file `path`: the rows, columns joined by
// '|', NULL as "NULL" (SQLite's own answer, for checks of what a load wrote).
inline std::vector<std::string> Query(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  std::vector<std::string> out;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << sqlite3_errmsg(db) << " in " << sql;
    sqlite3_close(db);
    return out;
  }
  while (sqlite3_step(st) == SQLITE_ROW) {
    std::string row;
    for (int c = 0; c < sqlite3_column_count(st); ++c) {
      if (c > 0) row += "|";
      const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
      row += t ? t : "NULL";
    }
    out.push_back(row);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

}  // namespace lakedump::testing_sqlite
