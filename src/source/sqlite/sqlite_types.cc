#include "source/sqlite/sqlite_types.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>

#include "source/sqlite/sqlite_text.h"
#include "table/temporal.h"

namespace lakedump {
namespace {

std::string Normalize(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c);
  }
  return out;
}

// Parses "p" or "p,s" (spaces allowed); false when malformed.
bool ParseArgs(std::string_view args, int* p, int* s, bool* has_s) {
  auto trim = [](std::string_view v) {
    while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
    while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
    return v;
  };
  auto num = [](std::string_view v, int* out) {
    auto r = std::from_chars(v.data(), v.data() + v.size(), *out);
    return r.ec == std::errc() && r.ptr == v.data() + v.size();
  };
  const size_t comma = args.find(',');
  *has_s = comma != std::string_view::npos;
  if (!*has_s) return num(trim(args), p);
  return num(trim(args.substr(0, comma)), p) && num(trim(args.substr(comma + 1)), s);
}

struct Known {
  std::string_view name;
  TypeId id;
};
constexpr Known kKnown[] = {
    {"BOOLEAN", TypeId::kBool},
    {"BOOL", TypeId::kBool},
    {"TINYINT", TypeId::kInt8},
    {"INT1", TypeId::kInt8},
    {"SMALLINT", TypeId::kInt16},
    {"INT2", TypeId::kInt16},
    {"MEDIUMINT", TypeId::kInt32},
    {"INT4", TypeId::kInt32},
    {"INTEGER", TypeId::kInt64},
    {"INT", TypeId::kInt64},
    {"BIGINT", TypeId::kInt64},
    {"INT8", TypeId::kInt64},
    {"UNSIGNED BIG INT", TypeId::kInt64},
    {"FLOAT4", TypeId::kFloat},
    {"REAL4", TypeId::kFloat},
    {"REAL", TypeId::kDouble},
    {"DOUBLE", TypeId::kDouble},
    {"DOUBLE PRECISION", TypeId::kDouble},
    {"FLOAT", TypeId::kDouble},
    {"FLOAT8", TypeId::kDouble},
    {"NUMERIC", TypeId::kDecimal},
    {"DECIMAL", TypeId::kDecimal},
    {"TEXT", TypeId::kString},
    {"VARCHAR", TypeId::kString},
    {"CHAR", TypeId::kString},
    {"CHARACTER", TypeId::kString},
    {"CHARACTER VARYING", TypeId::kString},
    {"VARYING CHARACTER", TypeId::kString},
    {"NATIVE CHARACTER", TypeId::kString},
    {"NCHAR", TypeId::kString},
    {"NVARCHAR", TypeId::kString},
    {"CLOB", TypeId::kString},
    {"STRING", TypeId::kString},
    {"BLOB", TypeId::kBinary},
    {"BYTEA", TypeId::kBinary},
    {"BINARY", TypeId::kBinary},
    {"VARBINARY", TypeId::kBinary},
    {"DATE", TypeId::kDate},
    {"TIME", TypeId::kTime},
    {"TIME WITHOUT TIME ZONE", TypeId::kTime},
    {"DATETIME", TypeId::kTimestamp},
    {"TIMESTAMP", TypeId::kTimestamp},
    {"TIMESTAMP WITHOUT TIME ZONE", TypeId::kTimestamp},
    {"TIMESTAMPTZ", TypeId::kTimestampTz},
    {"TIMESTAMP WITH TIME ZONE", TypeId::kTimestampTz},
    {"UUID", TypeId::kUuid},
    {"JSON", TypeId::kJson},
    {"JSONB", TypeId::kJson},
};

// SQLite's own affinity rules (https://sqlite.org/datatype3.html 3.1), except
// that NUMERIC affinity and no declared type map to string: such columns hold
// anything, and text keeps every value.
TypeId ByAffinity(const std::string& t) {
  if (t.find("INT") != std::string::npos) return TypeId::kInt64;
  if (t.find("CHAR") != std::string::npos || t.find("CLOB") != std::string::npos ||
      t.find("TEXT") != std::string::npos) {
    return TypeId::kString;
  }
  if (t.find("BLOB") != std::string::npos) return TypeId::kBinary;
  if (t.find("REAL") != std::string::npos || t.find("FLOA") != std::string::npos ||
      t.find("DOUB") != std::string::npos) {
    return TypeId::kDouble;
  }
  return TypeId::kString;
}

std::string_view ValueText(sqlite3_value* v) {
  const auto* p = reinterpret_cast<const char*>(sqlite3_value_text(v));
  return std::string_view(p ? p : "", static_cast<size_t>(sqlite3_value_bytes(v)));
}

std::string_view ValueBlob(sqlite3_value* v) {
  const auto* p = static_cast<const char*>(sqlite3_value_blob(v));
  return std::string_view(p ? p : "", static_cast<size_t>(sqlite3_value_bytes(v)));
}

// "INTEGER value 5", "TEXT value \"abc\"", "BLOB value of 3 bytes".
std::string DescribeValue(sqlite3_value* v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER:
      return fmt::format("INTEGER value {}", sqlite3_value_int64(v));
    case SQLITE_FLOAT: {
      char buf[kDoubleTextSize];
      return fmt::format("REAL value {}", DoubleToSqliteText(sqlite3_value_double(v), buf));
    }
    case SQLITE_TEXT: {
      std::string_view t = ValueText(v);
      std::string shown;
      for (unsigned char c : t.substr(0, 40)) {
        if (c < 0x20 || c == '"' || c == '\\') {
          shown += fmt::format("\\x{:02x}", c);
        } else {
          shown.push_back(static_cast<char>(c));
        }
      }
      return fmt::format("TEXT value \"{}{}\"", shown, t.size() > 40 ? "..." : "");
    }
    case SQLITE_BLOB:
      return fmt::format("BLOB value of {} bytes", sqlite3_value_bytes(v));
  }
  return "NULL";
}

bool Fail(sqlite3_value* v, std::string_view what, std::string* why) {
  *why = fmt::format("{} is not {}", DescribeValue(v), what);
  return false;
}

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != b[i]) return false;
  }
  return true;
}

// The integer value of an INTEGER, or of a REAL with an integral value in
// int64 range; nothing for other storage classes.
bool IntegerValue(sqlite3_value* v, int64_t* out) {
  const int t = sqlite3_value_type(v);
  if (t == SQLITE_INTEGER) {
    *out = sqlite3_value_int64(v);
    return true;
  }
  if (t == SQLITE_FLOAT) {
    const double d = sqlite3_value_double(v);
    // 2^63 is exactly representable; anything >= it does not fit int64.
    if (std::trunc(d) == d && d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
      *out = static_cast<int64_t>(d);
      return true;
    }
  }
  return false;
}

template <typename T>
bool DecodeInt(sqlite3_value* v, ColumnVector* out, std::string* why) {
  int64_t i64;
  if (!IntegerValue(v, &i64)) return Fail(v, "an integer", why);
  if (i64 < std::numeric_limits<T>::min() || i64 > std::numeric_limits<T>::max()) {
    return Fail(v, fmt::format("in range for {}", out->type().ToString()), why);
  }
  out->Append(static_cast<T>(i64));
  return true;
}

bool DecodeDecimal(sqlite3_value* v, ColumnVector* out, std::string* why) {
  const LogicalType& type = out->type();
  const int t = sqlite3_value_type(v);
  Result<int128_t> r = Status::InvalidArgument("");
  if (t == SQLITE_INTEGER) {
    const int128_t i = static_cast<int128_t>(sqlite3_value_int64(v));
    const int128_t limit = Pow10(type.precision - type.scale);
    if (i >= limit || i <= -limit) {
      return Fail(v, fmt::format("a {} (too many digits)", type.ToString()), why);
    }
    out->Append(i * Pow10(type.scale));
    return true;
  }
  if (t == SQLITE_FLOAT) {
    const double d = sqlite3_value_double(v);
    char buf[kFixedDoubleTextSize];
    std::string_view text = std::isfinite(d) ? DoubleToFixedText(d, buf) : std::string_view();
    if (text.empty()) return Fail(v, fmt::format("a {}", type.ToString()), why);
    r = ParseDecimal(text, type.precision, type.scale);
  } else if (t == SQLITE_TEXT) {
    r = ParseDecimal(ValueText(v), type.precision, type.scale);
  } else {
    return Fail(v, fmt::format("a {}", type.ToString()), why);
  }
  if (!r.ok()) {
    // ParseDecimal's message ends in the reason after the last ": ".
    const std::string& m = r.status().message();
    const size_t at = m.rfind(": ");
    return Fail(v,
                fmt::format("a {} ({})", type.ToString(),
                            at == std::string::npos ? m : m.substr(at + 2)),
                why);
  }
  out->Append(*r);
  return true;
}

bool DecodeTimestamp(sqlite3_value* v, ColumnVector* out, std::string* why) {
  const int t = sqlite3_value_type(v);
  if (t == SQLITE_INTEGER) {
    // Unix seconds; the range keeps the microseconds within int64.
    const int64_t s = sqlite3_value_int64(v);
    if (s > -9223372036854LL && s < 9223372036854LL) {
      out->Append(s * 1000000);
      return true;
    }
  } else if (t == SQLITE_TEXT) {
    if (auto ts = ParseSqliteTimestamp(ValueText(v))) {
      out->Append(ts->micros);
      return true;
    }
  }
  return Fail(v,
              "a timestamp (TEXT YYYY-MM-DD[ HH:MM[:SS[.ffffff]]][Z|+HH:MM] or INTEGER unix "
              "seconds)",
              why);
}

void AppendHex(std::string_view bytes, ColumnVector* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s = "\\x";
  s.reserve(2 + bytes.size() * 2);
  for (unsigned char c : bytes) {
    s.push_back(kHex[c >> 4]);
    s.push_back(kHex[c & 15]);
  }
  out->AppendBytes(s);
}

// The column types of DecodeSqliteValue without a helper above (each called from one place:
// inlined). `v` is not NULL; `t` is its storage class.
bool DecodeBool(sqlite3_value* v, int t, ColumnVector* out, std::string* why) {
  int64_t i;
  if (t == SQLITE_INTEGER && ((i = sqlite3_value_int64(v)) == 0 || i == 1)) {
    out->Append(static_cast<uint8_t>(i));
    return true;
  }
  if (t == SQLITE_TEXT) {
    std::string_view s = ValueText(v);
    if (EqualsNoCase(s, "true") || EqualsNoCase(s, "false")) {
      out->Append(static_cast<uint8_t>(s.size() == 4));
      return true;
    }
  }
  return Fail(v, "a boolean (INTEGER 0/1 or TEXT true/false)", why);
}

bool DecodeFloating(sqlite3_value* v, int t, ColumnVector* out, std::string* why) {
  if (t != SQLITE_INTEGER && t != SQLITE_FLOAT) return Fail(v, "a number", why);
  const double d = t == SQLITE_INTEGER ? static_cast<double>(sqlite3_value_int64(v))
                                       : sqlite3_value_double(v);
  if (out->type().id == TypeId::kDouble) {
    out->Append(d);
    return true;
  }
  if (std::isfinite(d) && std::fabs(d) > std::numeric_limits<float>::max()) {
    return Fail(v, "in range for float", why);
  }
  out->Append(static_cast<float>(d));
  return true;
}

bool DecodeString(sqlite3_value* v, int t, bool lax_text, ColumnVector* out,
                  std::string* why) {
  if (t == SQLITE_TEXT) {
    std::string_view s = ValueText(v);
    if (!IsValidUtf8(s)) return Fail(v, "valid UTF-8", why);
    out->AppendBytes(s);
  } else if (t == SQLITE_INTEGER) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof(buf), sqlite3_value_int64(v));
    out->AppendBytes(std::string_view(buf, static_cast<size_t>(r.ptr - buf)));
  } else if (t == SQLITE_FLOAT) {
    char buf[kDoubleTextSize];
    out->AppendBytes(DoubleToSqliteText(sqlite3_value_double(v), buf));
  } else if (lax_text) {
    AppendHex(ValueBlob(v), out);
  } else {
    return Fail(v, "text (BLOBs in text columns need --sqlite-type-mismatch=string)",
                why);
  }
  return true;
}

bool DecodeUuid(sqlite3_value* v, int t, ColumnVector* out, std::string* why) {
  if (t == SQLITE_BLOB && sqlite3_value_bytes(v) == 16) {
    Uuid u;
    std::memcpy(u.bytes, sqlite3_value_blob(v), 16);
    out->Append(u);
    return true;
  }
  if (t == SQLITE_TEXT) {
    if (auto u = ParseUuidText(ValueText(v))) {
      out->Append(*u);
      return true;
    }
  }
  return Fail(v, "a UUID (TEXT 8-4-4-4-12 hex digits or a 16-byte BLOB)", why);
}

}  // namespace

SqliteTypeMapping MapSqliteDeclaredType(std::string_view declared) {
  const std::string t = Normalize(declared);
  if (t.empty()) return {LogicalType::Of(TypeId::kString), false};
  std::string base = t;
  std::string_view args;
  const size_t paren = t.find('(');
  if (paren != std::string::npos && t.back() == ')') {
    base = t.substr(0, paren);
    while (!base.empty() && base.back() == ' ') base.pop_back();
    args = std::string_view(t).substr(paren + 1, t.size() - paren - 2);
  }
  for (const Known& k : kKnown) {
    if (k.name != base) continue;
    if (k.id != TypeId::kDecimal) return {LogicalType::Of(k.id), true};
    if (args.empty()) return {LogicalType::Decimal(kMaxDecimalPrecision, 10), true};
    int p = 0, s = 0;
    bool has_s = false;
    if (ParseArgs(args, &p, &s, &has_s) && p >= 1 && p <= kMaxDecimalPrecision && s >= 0 &&
        s <= p) {
      return {LogicalType::Decimal(p, s), true};
    }
    // NUMERIC(50,2) and other precisions Parquet's decimal cannot hold: text.
    return {LogicalType::Of(TypeId::kString), false};
  }
  return {LogicalType::Of(ByAffinity(t)), false};
}

LogicalType TypeForStorageClass(int sqlite_type) {
  switch (sqlite_type) {
    case SQLITE_INTEGER: return LogicalType::Of(TypeId::kInt64);
    case SQLITE_FLOAT: return LogicalType::Of(TypeId::kDouble);
    case SQLITE_BLOB: return LogicalType::Of(TypeId::kBinary);
    default: return LogicalType::Of(TypeId::kString);
  }
}

bool DecodeSqliteValue(sqlite3_value* v, bool lax_text, ColumnVector* out, std::string* why) {
  const int t = sqlite3_value_type(v);
  if (t == SQLITE_NULL) {
    out->AppendNull();
    return true;
  }
  switch (out->type().id) {
    case TypeId::kBool: return DecodeBool(v, t, out, why);
    case TypeId::kInt8: return DecodeInt<int8_t>(v, out, why);
    case TypeId::kInt16: return DecodeInt<int16_t>(v, out, why);
    case TypeId::kInt32: return DecodeInt<int32_t>(v, out, why);
    case TypeId::kInt64: return DecodeInt<int64_t>(v, out, why);
    case TypeId::kFloat:
    case TypeId::kDouble: return DecodeFloating(v, t, out, why);
    case TypeId::kDecimal: return DecodeDecimal(v, out, why);
    case TypeId::kString: return DecodeString(v, t, lax_text, out, why);
    case TypeId::kBinary:
      if (t == SQLITE_BLOB) {
        out->AppendBytes(ValueBlob(v));
      } else if (t == SQLITE_TEXT) {
        out->AppendBytes(ValueText(v));
      } else {
        return Fail(v, "binary (BLOB or TEXT)", why);
      }
      return true;
    case TypeId::kJson:
      if (t == SQLITE_TEXT) {
        std::string_view s = ValueText(v);
        if (IsValidUtf8(s)) {
          out->AppendBytes(s);
          return true;
        }
      }
      return Fail(v, "JSON (UTF-8 TEXT)", why);
    case TypeId::kList:
      return Fail(v, "a list (SQLite has none)", why);
    case TypeId::kDate:
      if (t == SQLITE_TEXT) {
        if (auto d = ParseSqliteDate(ValueText(v))) {
          out->Append(*d);
          return true;
        }
      }
      return Fail(v, "a date (TEXT YYYY-MM-DD)", why);
    case TypeId::kTime:
      if (t == SQLITE_TEXT) {
        if (auto micros = ParseSqliteTime(ValueText(v))) {
          out->Append(*micros);
          return true;
        }
      }
      return Fail(v, "a time (TEXT HH:MM[:SS[.ffffff]])", why);
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: return DecodeTimestamp(v, out, why);
    case TypeId::kUuid: return DecodeUuid(v, t, out, why);
  }
  *why = "unsupported column type";
  return false;
}

}  // namespace lakedump
