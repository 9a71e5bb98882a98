// The text side of the COPY encoder: PostgreSQL text input forms of logical
// values, and JSON arrays (how the dump stores PostgreSQL arrays) back into
// array literals. Declared in pg_copy_encoder.h.
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "base/hex.h"
#include "load/postgres/pg_copy_encoder.h"
#include "table/temporal.h"

namespace lakedump {
namespace {

// `v` in decimal with at least `width` digits (zero-padded): fmt's "{:0N}" of it.
void AppendTextPadded(uint64_t v, int width, std::string* out) {
  char buf[24];
  char* const end = buf + sizeof(buf);
  char* p = end;
  do {
    *--p = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (end - p < width) *--p = '0';
  out->append(p, static_cast<size_t>(end - p));
}

// "YYYY-MM-DD" with PostgreSQL's era suffix instead of a sign: year 0 is 1 BC.
void AppendPgDate(int64_t unix_days, std::string* out, std::string* era) {
  const CivilDate c = CivilFromDays(unix_days);
  int64_t year = c.year;
  if (year <= 0) {
    year = 1 - year;
    *era = " BC";
  }
  AppendTextPadded(static_cast<uint64_t>(year), 4, out);
  out->push_back('-');
  AppendTextPadded(static_cast<uint64_t>(c.month), 2, out);
  out->push_back('-');
  AppendTextPadded(static_cast<uint64_t>(c.day), 2, out);
}

void AppendTime(int64_t micros, std::string* out) {
  const int64_t s = micros / 1000000, us = micros % 1000000;
  if (micros < 0) {  // not a time of day (fmt writes the signs as before)
    fmt::format_to(std::back_inserter(*out), "{:02}:{:02}:{:02}.{:06}", s / 3600, (s / 60) % 60,
                   s % 60, us);
    return;
  }
  AppendTextPadded(static_cast<uint64_t>(s / 3600), 2, out);
  out->push_back(':');
  AppendTextPadded(static_cast<uint64_t>((s / 60) % 60), 2, out);
  out->push_back(':');
  AppendTextPadded(static_cast<uint64_t>(s % 60), 2, out);
  out->push_back('.');
  AppendTextPadded(static_cast<uint64_t>(us), 6, out);
}

// An integer in decimal, as fmt's "{}".
template <typename I>
void AppendTextInt(I v, std::string* out) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, static_cast<size_t>(r.ptr - buf));
}

template <typename F>
void AppendFloat(F v, std::string* out) {
  if (std::isnan(v)) {
    out->append("NaN");
  } else if (std::isinf(v)) {
    out->append(v > 0 ? "Infinity" : "-Infinity");
  } else {
    fmt::format_to(std::back_inserter(*out), "{}", v);
  }
}

// JSON text -> array literal, recursive descent over the few JSON shapes
// array_to_json produces.
class JsonArrayConverter {
 public:
  JsonArrayConverter(std::string_view in, std::string* out) : in_(in), out_(out) {}

  Status Run() {
    SkipSpace();
    if (pos_ >= in_.size() || in_[pos_] != '[') return Bad("not a JSON array");
    LD_RETURN_IF_ERROR(Array(0));
    SkipSpace();
    if (pos_ != in_.size()) return Bad("text after the JSON array");
    return Status::OK();
  }

 private:
  Status Bad(std::string_view what) const {
    return Status::InvalidArgument(fmt::format("array value: {} at byte {}", what, pos_));
  }
  void SkipSpace() {
    while (pos_ < in_.size() && (in_[pos_] == ' ' || in_[pos_] == '\n' || in_[pos_] == '\t' ||
                                 in_[pos_] == '\r')) {
      ++pos_;
    }
  }
  Status Array(int depth) {
    if (depth > 64) return Bad("arrays nested too deeply");
    ++pos_;  // '['
    out_->push_back('{');
    SkipSpace();
    if (pos_ < in_.size() && in_[pos_] == ']') {
      ++pos_;
      out_->push_back('}');
      return Status::OK();
    }
    while (true) {
      SkipSpace();
      LD_RETURN_IF_ERROR(Element(depth));
      SkipSpace();
      if (pos_ >= in_.size()) return Bad("unterminated array");
      if (in_[pos_] == ',') {
        ++pos_;
        out_->push_back(',');
        continue;
      }
      if (in_[pos_] == ']') {
        ++pos_;
        out_->push_back('}');
        return Status::OK();
      }
      return Bad("expected ',' or ']'");
    }
  }
  Status Element(int depth) {
    if (pos_ >= in_.size()) return Bad("unterminated array");
    const char ch = in_[pos_];
    if (ch == '[') return Array(depth + 1);
    if (ch == '"') {
      std::string text;
      LD_RETURN_IF_ERROR(String(&text));
      Quoted(text);
      return Status::OK();
    }
    if (ch == '{') {
      const size_t start = pos_;
      LD_RETURN_IF_ERROR(SkipObject());
      Quoted(in_.substr(start, pos_ - start));
      return Status::OK();
    }
    if (in_.substr(pos_, 4) == "null") {
      pos_ += 4;
      out_->append("NULL");
      return Status::OK();
    }
    // Numbers, true, false: their JSON text is PostgreSQL's input text.
    const size_t start = pos_;
    while (pos_ < in_.size() && in_[pos_] != ',' && in_[pos_] != ']' && in_[pos_] != ' ' &&
           in_[pos_] != '\n' && in_[pos_] != '\t' && in_[pos_] != '\r') {
      ++pos_;
    }
    if (pos_ == start) return Bad("empty element");
    out_->append(in_.substr(start, pos_ - start));
    return Status::OK();
  }
  void Quoted(std::string_view text) {
    out_->push_back('"');
    for (char ch : text) {
      if (ch == '"' || ch == '\\') out_->push_back('\\');
      out_->push_back(ch);
    }
    out_->push_back('"');
  }
  Status Hex4(uint32_t* v) {
    if (in_.size() - pos_ < 4) return Bad("short \\u escape");
    *v = 0;
    for (int i = 0; i < 4; ++i) {
      const int h = HexDigitValue(in_[pos_ + i]);
      if (h < 0) return Bad("bad \\u escape");
      *v = *v * 16 + static_cast<uint32_t>(h);
    }
    pos_ += 4;
    return Status::OK();
  }
  static void Utf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }
  Status String(std::string* text) {
    ++pos_;  // '"'
    while (true) {
      if (pos_ >= in_.size()) return Bad("unterminated string");
      const char ch = in_[pos_++];
      if (ch == '"') return Status::OK();
      if (ch != '\\') {
        text->push_back(ch);
        continue;
      }
      if (pos_ >= in_.size()) return Bad("unterminated escape");
      const char e = in_[pos_++];
      switch (e) {
        case '"': case '\\': case '/': text->push_back(e); break;
        case 'b': text->push_back('\b'); break;
        case 'f': text->push_back('\f'); break;
        case 'n': text->push_back('\n'); break;
        case 'r': text->push_back('\r'); break;
        case 't': text->push_back('\t'); break;
        case 'u': {
          uint32_t cp = 0;
          LD_RETURN_IF_ERROR(Hex4(&cp));
          if (cp >= 0xD800 && cp < 0xDC00 && in_.substr(pos_, 2) == "\\u") {
            pos_ += 2;
            uint32_t low = 0;
            LD_RETURN_IF_ERROR(Hex4(&low));
            if (low < 0xDC00 || low > 0xDFFF) return Bad("bad surrogate pair");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          if (cp == 0) return Bad("\\u0000 cannot be stored in PostgreSQL text");
          Utf8(cp, text);
          break;
        }
        default: return Bad("bad escape");
      }
    }
  }
  Status SkipObject() {
    int depth = 0;
    while (pos_ < in_.size()) {
      const char ch = in_[pos_];
      if (ch == '"') {
        std::string ignored;
        LD_RETURN_IF_ERROR(String(&ignored));
        continue;
      }
      ++pos_;
      if (ch == '{' || ch == '[') ++depth;
      if ((ch == '}' || ch == ']') && --depth == 0) return Status::OK();
    }
    return Bad("unterminated object");
  }

  std::string_view in_;
  std::string* out_;
  size_t pos_ = 0;
};

// The type cases of AppendPgText with more than a line (each called from one place).
void AppendDateText(int32_t d, std::string* out) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  if (d == kMax) {
    out->append("infinity");
  } else if (d <= -kMax) {
    out->append("-infinity");
  } else {
    std::string era;
    AppendPgDate(d, out, &era);
    out->append(era);
  }
}

// `tz`: a timestamptz (its UTC offset written).
void AppendTimestampText(int64_t t, bool tz, std::string* out) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (t == kMax) {
    out->append("infinity");
    return;
  }
  if (t <= -kMax) {
    out->append("-infinity");
    return;
  }
  int64_t days = 0, rem = 0;
  SplitTimestamp(t, &days, &rem);
  std::string era;
  AppendPgDate(days, out, &era);
  out->push_back(' ');
  AppendTime(rem, out);
  if (tz) out->append("+00");
  out->append(era);
}

void AppendUuidText(const Uuid& u, std::string* out) {
  const uint8_t* b = u.bytes;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out->push_back('-');
    fmt::format_to(std::back_inserter(*out), "{:02x}", b[i]);
  }
}

}  // namespace

void AppendCopyEscaped(std::string_view text, std::string* out) {
  size_t plain = 0;  // the start of the run not yet appended
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (ch != '\\' && ch != '\t' && ch != '\n' && ch != '\r') continue;
    out->append(text.data() + plain, i - plain);
    out->push_back('\\');
    out->push_back(ch == '\t' ? 't' : ch == '\n' ? 'n' : ch == '\r' ? 'r' : '\\');
    plain = i + 1;
  }
  out->append(text.data() + plain, text.size() - plain);
}

void AppendCopyField(const ColumnVector& col, size_t row, std::string* scratch, std::string* out) {
  switch (col.type().id) {
    case TypeId::kString:
    case TypeId::kJson: AppendCopyEscaped(col.BytesAt(row), out); return;
    case TypeId::kBinary:
    case TypeId::kList:
      scratch->clear();
      AppendPgText(col, row, scratch);
      AppendCopyEscaped(*scratch, out);
      return;
    default:  // numbers, dates, times, uuids: no tab, line end or backslash in their text
      AppendPgText(col, row, out);
  }
}

namespace {

// An array literal with every element quoted: {"1",NULL,"a \"b\""}.
void AppendArrayLiteral(const ColumnVector& col, size_t row, std::string* out) {
  const ColumnVector& elements = col.elements();
  out->push_back('{');
  for (uint64_t k = col.offsets()[row]; k < col.offsets()[row + 1]; ++k) {
    if (k != col.offsets()[row]) out->push_back(',');
    if (elements.IsNull(k)) {
      out->append("NULL");
      continue;
    }
    std::string text;
    AppendPgText(elements, k, &text);
    out->push_back('"');
    for (char ch : text) {
      if (ch == '"' || ch == '\\') out->push_back('\\');
      out->push_back(ch);
    }
    out->push_back('"');
  }
  out->push_back('}');
}

}  // namespace

void AppendPgText(const ColumnVector& col, size_t row, std::string* out) {
  auto append = [&](auto v) { AppendTextInt(v, out); };
  switch (col.type().id) {
    case TypeId::kBool: out->append(col.ValueAt<uint8_t>(row) ? "true" : "false"); return;
    case TypeId::kInt8: append(static_cast<int>(col.ValueAt<int8_t>(row))); return;
    case TypeId::kInt16: append(col.ValueAt<int16_t>(row)); return;
    case TypeId::kInt32: append(col.ValueAt<int32_t>(row)); return;
    case TypeId::kInt64: append(col.ValueAt<int64_t>(row)); return;
    case TypeId::kFloat: AppendFloat(col.ValueAt<float>(row), out); return;
    case TypeId::kDouble: AppendFloat(col.ValueAt<double>(row), out); return;
    case TypeId::kDecimal:
      AppendDecimal(col.ValueAt<int128_t>(row), col.type().scale, out);
      return;
    case TypeId::kString:
    case TypeId::kJson: out->append(col.BytesAt(row)); return;
    case TypeId::kBinary: {
      out->append("\\x");
      for (unsigned char ch : col.BytesAt(row)) fmt::format_to(std::back_inserter(*out), "{:02x}", ch);
      return;
    }
    case TypeId::kDate: AppendDateText(col.ValueAt<int32_t>(row), out); return;
    case TypeId::kTime: AppendTime(col.ValueAt<int64_t>(row), out); return;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      AppendTimestampText(col.ValueAt<int64_t>(row), col.type().id == TypeId::kTimestampTz, out);
      return;
    case TypeId::kUuid: AppendUuidText(col.ValueAt<Uuid>(row), out); return;
    case TypeId::kList: AppendArrayLiteral(col, row, out); return;
  }
}

Status JsonArrayToPgLiteral(std::string_view json, std::string* out) {
  return JsonArrayConverter(json, out).Run();
}

}  // namespace lakedump
