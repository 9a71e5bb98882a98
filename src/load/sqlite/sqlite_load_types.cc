#include "load/sqlite/sqlite_load_types.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "load/sqlite/sqlite_guard.h"
#include "source/sqlite/sqlite_connection.h"
#include "source/sqlite/sqlite_types.h"
#include "table/list_json.h"
#include "table/temporal.h"
#include "table/uuid_text.h"

namespace lakedump {
namespace {

// SQLite's NUMERIC affinity turns numeric text into INTEGER or REAL; SQLite
// 3.40 does so even when the REAL loses digits. Up to 15 significant digits
// the conversion is exact, so wider decimals are declared TEXT (kept verbatim).
constexpr int kMaxExactNumericDigits = 15;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

// Consumes one keyword (case-insensitive) followed by a non-identifier char.
bool Keyword(std::string_view s, size_t* pos, std::string_view word) {
  size_t p = *pos;
  while (p < s.size() && IsSpace(s[p])) ++p;
  if (s.size() - p < word.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    char c = s[p + i];
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (c != word[i]) return false;
  }
  p += word.size();
  if (p < s.size() && !IsSpace(s[p]) && s[p] != '(' && s[p] != '"' && s[p] != '[' && s[p] != '`') {
    return false;
  }
  *pos = p;
  return true;
}

// Consumes one identifier: "quoted", [bracketed], `backticked`, 'single' or
// bare.
bool Identifier(std::string_view s, size_t* pos) {
  size_t p = *pos;
  while (p < s.size() && IsSpace(s[p])) ++p;
  if (p >= s.size()) return false;
  const char open = s[p];
  if (open == '"' || open == '`' || open == '\'' || open == '[') {
    const char close = open == '[' ? ']' : open;
    ++p;
    while (p < s.size()) {
      if (s[p] == close) {
        if (close != ']' && p + 1 < s.size() && s[p + 1] == close) {
          p += 2;
          continue;
        }
        *pos = p + 1;
        return true;
      }
      ++p;
    }
    return false;
  }
  const size_t start = p;
  while (p < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[p]);
    if (!(std::isalnum(c) || c == '_' || c == '$' || c >= 0x80)) break;
    ++p;
  }
  if (p == start) return false;
  *pos = p;
  return true;
}

bool IsAnyType(std::string_view t) {
  return t.size() == 3 && std::toupper(static_cast<unsigned char>(t[0])) == 'A' &&
         std::toupper(static_cast<unsigned char>(t[1])) == 'N' &&
         std::toupper(static_cast<unsigned char>(t[2])) == 'Y';
}

}  // namespace

bool IsPlainIdentifier(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

std::string SqliteDeclaredType(const LogicalType& type) {
  switch (type.id) {
    case TypeId::kBool:
      return "BOOLEAN";
    case TypeId::kInt8:
      return "TINYINT";
    case TypeId::kInt16:
      return "SMALLINT";
    case TypeId::kInt32:
      return "INT4";
    case TypeId::kInt64:
      return "INTEGER";
    case TypeId::kFloat:
      return "FLOAT4";
    case TypeId::kDouble:
      return "REAL";
    case TypeId::kDecimal:
      if (type.precision > kMaxExactNumericDigits) return "TEXT";
      return fmt::format("DECIMAL({},{})", type.precision, type.scale);
    case TypeId::kString:
      return "TEXT";
    case TypeId::kBinary:
      return "BLOB";
    case TypeId::kDate:
      return "DATE";
    case TypeId::kTime:
      return "TIME";
    case TypeId::kTimestamp:
      return "TIMESTAMP";
    case TypeId::kTimestampTz:
      return "TIMESTAMPTZ";
    case TypeId::kUuid:
      return "UUID";
    case TypeId::kJson:
    case TypeId::kList:  // a JSON array (ListToJson)
      return "JSON";
  }
  return "TEXT";
}

std::string SqliteColumnType(const Column& column, bool from_sqlite) {
  // A STRICT table's ANY keeps each value as given; outside STRICT only no declared type
  // does (ANY would have NUMERIC affinity and turn the text '1' into the integer 1).
  if (from_sqlite && column.type.id == TypeId::kString && IsAnyType(column.source_type)) return "";
  if (from_sqlite && IsSafeSqliteTypeName(column.source_type)) {
    // An empty declared type is kept too: it maps back to string. Anything but a plain type
    // name ("INT); ATTACH ...") is never pasted into SQL.
    if (MapSqliteDeclaredType(column.source_type).type == column.type) return column.source_type;
  }
  return SqliteDeclaredType(column.type);
}

std::string SqliteCreateTable(std::string_view quoted_name, const Schema& schema,
                              const std::vector<std::string>& primary_key, bool from_sqlite) {
  std::string sql = fmt::format("CREATE TABLE {} (", quoted_name);
  for (size_t i = 0; i < schema.num_columns(); ++i) {
    const Column& c = schema.column(i);
    if (i > 0) sql += ", ";
    sql += QuoteIdentifier(c.name);
    const std::string type = SqliteColumnType(c, from_sqlite);
    if (!type.empty()) sql += " " + type;
    if (!c.nullable) sql += " NOT NULL";
  }
  if (!primary_key.empty()) {
    sql += ", PRIMARY KEY (";
    for (size_t i = 0; i < primary_key.size(); ++i) {
      if (i > 0) sql += ", ";
      sql += QuoteIdentifier(primary_key[i]);
    }
    sql += ")";
  }
  sql += ")";
  return sql;
}

std::optional<std::string> RenameTableInDdl(std::string_view ddl, std::string_view new_name) {
  size_t pos = 0;
  if (!Keyword(ddl, &pos, "CREATE") || !Keyword(ddl, &pos, "TABLE")) return std::nullopt;
  {
    size_t p = pos;
    if (Keyword(ddl, &p, "IF") && Keyword(ddl, &p, "NOT") && Keyword(ddl, &p, "EXISTS")) pos = p;
  }
  while (pos < ddl.size() && IsSpace(ddl[pos])) ++pos;
  const size_t name_begin = pos;
  if (!Identifier(ddl, &pos)) return std::nullopt;
  size_t table_begin = name_begin;  // of "table" in "schema.table"
  if (pos < ddl.size() && ddl[pos] == '.') {
    ++pos;
    while (pos < ddl.size() && IsSpace(ddl[pos])) ++pos;
    table_begin = pos;
    if (!Identifier(ddl, &pos)) return std::nullopt;
  }
  const size_t name_end = pos;
  while (pos < ddl.size() && IsSpace(ddl[pos])) ++pos;
  if (pos >= ddl.size() || ddl[pos] != '(') return std::nullopt;
  // Everything but the name stays as written, so that after the final
  // ALTER TABLE ... RENAME the stored statement reads as the source's did.
  const char first = ddl[table_begin];
  const bool quoted = first == '"' || first == '[' || first == '`' || first == '\'';
  std::string name =
      quoted || !IsPlainIdentifier(new_name) ? QuoteIdentifier(new_name) : std::string(new_name);
  return std::string(ddl.substr(0, name_begin)) + name + std::string(ddl.substr(name_end));
}

namespace {

// Binds `text`, kept alive in *scratch until the statement is stepped.
int BindOwnedText(sqlite3_stmt* stmt, int param, std::string text, std::string* scratch) {
  *scratch = std::move(text);
  return sqlite3_bind_text(stmt, param, scratch->data(), static_cast<int>(scratch->size()),
                           SQLITE_STATIC);
}

// A whole decimal in int64 range as an INTEGER (unless the column has TEXT affinity); any other
// as the double nearest to it in a column of INTEGER, REAL or NUMERIC affinity, which SQLite
// would make of its text anyway (so a SQLite source's REAL comes back as the very same double,
// whose shortest text the decimal holds); else as its text.
int BindDecimal(sqlite3_stmt* stmt, int param, int128_t v, int scale, SqliteAffinity affinity,
                std::string* scratch) {
  if (affinity != SqliteAffinity::kText && v % Pow10(scale) == 0) {
    const int128_t whole = v / Pow10(scale);
    if (whole >= std::numeric_limits<int64_t>::min() &&
        whole <= std::numeric_limits<int64_t>::max()) {
      return sqlite3_bind_int64(stmt, param, static_cast<int64_t>(whole));
    }
  }
  std::string text = FormatDecimal(v, scale);
  if (affinity != SqliteAffinity::kText && affinity != SqliteAffinity::kBlob) {
    double d = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), d);
    if (r.ec == std::errc() && r.ptr == text.data() + text.size()) {
      return sqlite3_bind_double(stmt, param, d);
    }
  }
  return BindOwnedText(stmt, param, std::move(text), scratch);
}

}  // namespace

int BindSqliteValue(sqlite3_stmt* stmt, int param, const ColumnVector& column, size_t row,
                    SqliteAffinity affinity, std::string* scratch) {
  if (column.IsNull(row)) return sqlite3_bind_null(stmt, param);
  auto bind_text = [&](std::string text) {
    return BindOwnedText(stmt, param, std::move(text), scratch);
  };
  switch (column.type().id) {
    case TypeId::kBool:
      return sqlite3_bind_int64(stmt, param, column.ValueAt<uint8_t>(row));
    case TypeId::kInt8:
      return sqlite3_bind_int64(stmt, param, column.ValueAt<int8_t>(row));
    case TypeId::kInt16:
      return sqlite3_bind_int64(stmt, param, column.ValueAt<int16_t>(row));
    case TypeId::kInt32:
      return sqlite3_bind_int64(stmt, param, column.ValueAt<int32_t>(row));
    case TypeId::kInt64:
      return sqlite3_bind_int64(stmt, param, column.ValueAt<int64_t>(row));
    case TypeId::kFloat: {
      const float f = column.ValueAt<float>(row);
      if (std::isnan(f)) return sqlite3_bind_null(stmt, param);
      return sqlite3_bind_double(stmt, param, FloatForSqlite(f));
    }
    case TypeId::kDouble: {
      const double d = column.ValueAt<double>(row);
      if (std::isnan(d)) return sqlite3_bind_null(stmt, param);
      return sqlite3_bind_double(stmt, param, d);
    }
    case TypeId::kDecimal:
      return BindDecimal(stmt, param, column.ValueAt<int128_t>(row), column.type().scale,
                         affinity, scratch);
    case TypeId::kString:
    case TypeId::kJson: {
      const std::string_view v = column.BytesAt(row);
      // An empty string from an empty arena has a null pointer, which would bind
      // NULL.
      return sqlite3_bind_text(stmt, param, v.empty() ? "" : v.data(), static_cast<int>(v.size()),
                               SQLITE_STATIC);
    }
    case TypeId::kBinary: {
      const std::string_view v = column.BytesAt(row);
      // A zero-length blob: sqlite3_bind_blob with a null pointer would bind
      // NULL.
      return sqlite3_bind_blob(stmt, param, v.empty() ? "" : v.data(), static_cast<int>(v.size()),
                               SQLITE_STATIC);
    }
    case TypeId::kDate:
      return bind_text(FormatDate(column.ValueAt<int32_t>(row)));
    case TypeId::kTime:
      return bind_text(SqliteTimeText(column.ValueAt<int64_t>(row)));
    case TypeId::kTimestamp:
      return bind_text(SqliteTimestampText(column.ValueAt<int64_t>(row), false));
    case TypeId::kTimestampTz:
      return bind_text(SqliteTimestampText(column.ValueAt<int64_t>(row), true));
    case TypeId::kUuid:
      return bind_text(FormatUuid(column.ValueAt<Uuid>(row)));
    case TypeId::kList:
      return bind_text(ListToJson(column, row));
  }
  return SQLITE_MISUSE;
}

}  // namespace lakedump
