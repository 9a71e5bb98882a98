#include "source/sqlite/sqlite_values.h"

#include <fmt/format.h>

#include <cstring>

#include "source/sqlite/sqlite_text.h"

namespace lakedump {
namespace {

std::string_view ValueBytes(sqlite3_value* v, int type) {
  const void* p = type == SQLITE_BLOB ? sqlite3_value_blob(v)
                                      : static_cast<const void*>(sqlite3_value_text(v));
  return std::string_view(p ? static_cast<const char*>(p) : "",
                          static_cast<size_t>(sqlite3_value_bytes(v)));
}

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void PutFixed64(uint64_t v, std::string* out) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

bool GetVarint(std::string_view s, size_t* pos, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64 && *pos < s.size(); shift += 7) {
    const auto b = static_cast<unsigned char>(s[(*pos)++]);
    *v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

uint64_t GetFixed64(std::string_view s, size_t pos) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(s[pos + i]);
  return v;
}

bool IsDigitChar(char c) { return c >= '0' && c <= '9'; }

// Whether `t` is SqliteTimeText's form of the time it parses as: "HH:MM:SS" and at most six
// fraction digits, the last not a zero. REQUIRES: `t` begins with a valid HH:MM.
bool IsCanonicalTimeText(std::string_view t) {
  if (t.size() < 8 || t[5] != ':' || !IsDigitChar(t[6]) || !IsDigitChar(t[7])) return false;
  if (t.size() == 8) return true;
  if (t[8] != '.' || t.size() < 10 || t.size() > 15 || t.back() == '0') return false;
  for (size_t i = 9; i < t.size(); ++i) {
    if (!IsDigitChar(t[i])) return false;
  }
  return true;
}

// Whether `t`, which parsed as a timestamp, is SqliteTimestampText's form of it:
// "YYYY-MM-DD HH:MM:SS[.f]", or with `utc` "YYYY-MM-DDTHH:MM:SS[.f]Z".
bool IsCanonicalTimestampText(std::string_view t, bool utc) {
  if (utc) {
    if (t.size() < 20 || t[10] != 'T' || t.back() != 'Z') return false;
    t.remove_suffix(1);
  } else if (t.size() < 19 || t[10] != ' ') {
    return false;
  }
  return IsCanonicalTimeText(t.substr(11));
}

// Whether `t`, which parsed as a UUID, is FormatUuid's form of it (lower case, hyphens).
bool IsCanonicalUuidText(std::string_view t) {
  if (t.size() != 36) return false;
  for (char c : t) {
    if (c >= 'A' && c <= 'F') return false;
  }
  return t[8] == '-' && t[13] == '-' && t[18] == '-' && t[23] == '-';
}

}  // namespace

SqliteAffinity SqliteAffinityOf(std::string_view declared) {
  std::string t(declared);
  for (char& c : t) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  auto has = [&](const char* s) { return t.find(s) != std::string::npos; };
  if (has("INT")) return SqliteAffinity::kInteger;
  if (has("CHAR") || has("CLOB") || has("TEXT")) return SqliteAffinity::kText;
  if (has("BLOB") || t.empty()) return SqliteAffinity::kBlob;
  if (has("REAL") || has("FLOA") || has("DOUB")) return SqliteAffinity::kReal;
  return SqliteAffinity::kNumeric;
}

bool SqliteColumnMayDrift(std::string_view declared_type, const LogicalType& type, bool lax_types) {
  const SqliteAffinity a = SqliteAffinityOf(declared_type);
  switch (type.id) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64: return a != SqliteAffinity::kInteger;
    case TypeId::kDouble: return a != SqliteAffinity::kReal;
    // An INTEGER comes back as an INTEGER, a REAL as the same double (BindSqliteValue), and
    // numeric TEXT cannot stay TEXT in a column of NUMERIC affinity.
    case TypeId::kDecimal: return a != SqliteAffinity::kNumeric;
    // TEXT 'YYYY-MM-DD' only, written back the same, and no affinity makes it a number.
    case TypeId::kDate: return false;
    // TEXT only; numeric text cannot stay TEXT in a column of NUMERIC affinity.
    case TypeId::kJson: return a != SqliteAffinity::kNumeric && a != SqliteAffinity::kText;
    case TypeId::kString: return a != SqliteAffinity::kText || lax_types;
    default: return true;
  }
}

Status AddSqliteValuesColumn(Schema* schema) {
  if (schema->FindColumn(kSqliteValuesColumn)) {
    return Status::InvalidArgument(fmt::format(
        "the table has a column named \"{}\", the name lakedump gives the exact SQLite values "
        "of a table (docs/dump-format.md); rename it to dump this table",
        kSqliteValuesColumn));
  }
  Column values;
  values.name = std::string(kSqliteValuesColumn);
  values.type = LogicalType::Of(TypeId::kBinary);
  values.nullable = true;
  values.source_type = std::string(kSqliteValuesSourceType);
  schema->AddColumn(std::move(values));
  return Status::OK();
}

bool IsSqliteValuesColumn(const Column& column) {
  return column.name == kSqliteValuesColumn && column.source_type == kSqliteValuesSourceType &&
         column.type.id == TypeId::kBinary;
}

bool TakeSqliteValuesColumn(Schema* schema) {
  const size_t n = schema->num_columns();
  if (n < 2 || !IsSqliteValuesColumn(schema->column(n - 1))) return false;
  std::vector<Column> columns = schema->columns();
  columns.pop_back();
  *schema = Schema(std::move(columns));
  return true;
}

bool SqliteValueRoundTrips(sqlite3_value* value, const ColumnVector& column) {
  const int t = sqlite3_value_type(value);
  if (t == SQLITE_NULL) return true;
  switch (column.type().id) {
    case TypeId::kBool:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kDecimal: return t == SQLITE_INTEGER;
    case TypeId::kDouble: return t == SQLITE_FLOAT;
    case TypeId::kFloat: {
      if (t != SQLITE_FLOAT) return false;
      const double back = FloatForSqlite(column.ValueAt<float>(column.size() - 1));
      const double d = sqlite3_value_double(value);
      return std::memcmp(&back, &d, sizeof(d)) == 0;
    }
    case TypeId::kString:
    case TypeId::kJson: return t == SQLITE_TEXT;
    case TypeId::kBinary: return t == SQLITE_BLOB;
    case TypeId::kDate: return t == SQLITE_TEXT;  // YYYY-MM-DD, as FormatDate writes it
    case TypeId::kTime: return t == SQLITE_TEXT && IsCanonicalTimeText(ValueBytes(value, t));
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return t == SQLITE_TEXT && IsCanonicalTimestampText(ValueBytes(value, t),
                                                          column.type().id == TypeId::kTimestampTz);
    case TypeId::kUuid: return t == SQLITE_TEXT && IsCanonicalUuidText(ValueBytes(value, t));
    case TypeId::kList: return false;
  }
  return false;
}

void AppendSqliteValue(size_t column, sqlite3_value* value, std::string* cell) {
  const int t = sqlite3_value_type(value);
  PutVarint(column, cell);
  cell->push_back(static_cast<char>(t));
  if (t == SQLITE_INTEGER) {
    PutFixed64(static_cast<uint64_t>(sqlite3_value_int64(value)), cell);
  } else if (t == SQLITE_FLOAT) {
    const double d = sqlite3_value_double(value);
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof(bits));
    PutFixed64(bits, cell);
  } else {
    const std::string_view bytes = ValueBytes(value, t);
    PutVarint(bytes.size(), cell);
    cell->append(bytes);
  }
}

Status ParseSqliteValues(std::string_view cell, size_t columns,
                         std::vector<SqliteExactValue>* out) {
  out->clear();
  auto bad = [](std::string_view why) {
    return Status::InvalidArgument(
        fmt::format("its {} cell is malformed: {}", kSqliteValuesColumn, why));
  };
  size_t pos = 0;
  while (pos < cell.size()) {
    SqliteExactValue v;
    uint64_t col;
    if (!GetVarint(cell, &pos, &col)) return bad("a truncated column index");
    if (col >= columns) return bad(fmt::format("column index {} of {} columns", col, columns));
    if (!out->empty() && col <= out->back().column) return bad("column indexes not increasing");
    v.column = static_cast<size_t>(col);
    if (pos >= cell.size()) return bad("a missing storage class");
    v.storage_class = static_cast<unsigned char>(cell[pos++]);
    if (v.storage_class == SQLITE_INTEGER || v.storage_class == SQLITE_FLOAT) {
      if (cell.size() - pos < 8) return bad("a truncated number");
      const uint64_t bits = GetFixed64(cell, pos);
      pos += 8;
      v.integer = static_cast<int64_t>(bits);
      std::memcpy(&v.real, &bits, sizeof(bits));
    } else if (v.storage_class == SQLITE_TEXT || v.storage_class == SQLITE_BLOB) {
      uint64_t len;
      if (!GetVarint(cell, &pos, &len) || len > cell.size() - pos) return bad("a truncated value");
      v.bytes = cell.substr(pos, static_cast<size_t>(len));
      pos += static_cast<size_t>(len);
    } else {
      return bad(fmt::format("storage class {}", v.storage_class));
    }
    out->push_back(v);
  }
  return Status::OK();
}

int BindSqliteExactValue(sqlite3_stmt* stmt, int param, const SqliteExactValue& v) {
  // A zero-length text or blob with a null pointer would bind NULL.
  const char* p = v.bytes.empty() ? "" : v.bytes.data();
  const int n = static_cast<int>(v.bytes.size());
  switch (v.storage_class) {
    case SQLITE_INTEGER: return sqlite3_bind_int64(stmt, param, v.integer);
    case SQLITE_FLOAT: return sqlite3_bind_double(stmt, param, v.real);
    case SQLITE_TEXT: return sqlite3_bind_text(stmt, param, p, n, SQLITE_STATIC);
    case SQLITE_BLOB: return sqlite3_bind_blob(stmt, param, p, n, SQLITE_STATIC);
  }
  return SQLITE_MISUSE;
}

}  // namespace lakedump
