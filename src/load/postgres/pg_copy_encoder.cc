#include "load/postgres/pg_copy_encoder.h"

#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <limits>

namespace lakedump {
namespace {

constexpr char kSignature[11] = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', '\377', '\r', '\n', '\0'};
constexpr int64_t kPgEpochDays = 10957;                // 2000-01-01 - 1970-01-01
constexpr int64_t kPgEpochMicros = 946684800000000LL;  // same, in microseconds

inline void PutBe16(std::string* out, uint16_t v) {
  const uint16_t be = __builtin_bswap16(v);
  out->append(reinterpret_cast<const char*>(&be), 2);
}
inline void PutBe32(std::string* out, uint32_t v) {
  const uint32_t be = __builtin_bswap32(v);
  out->append(reinterpret_cast<const char*>(&be), 4);
}
inline void PutBe64(std::string* out, uint64_t v) {
  const uint64_t be = __builtin_bswap64(v);
  out->append(reinterpret_cast<const char*>(&be), 8);
}
// A fixed-width field: length then value.
inline void Field32(std::string* out, uint32_t v) {
  PutBe32(out, 4);
  PutBe32(out, v);
}
inline void Field64(std::string* out, uint64_t v) {
  PutBe32(out, 8);
  PutBe64(out, v);
}

bool IsInteger(TypeId id) {
  return id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32 ||
         id == TypeId::kInt64;
}

int64_t IntegerAt(const ColumnVector& col, size_t row) {
  switch (col.type().id) {
    case TypeId::kInt8: return col.ValueAt<int8_t>(row);
    case TypeId::kInt16: return col.ValueAt<int16_t>(row);
    case TypeId::kInt32: return col.ValueAt<int32_t>(row);
    default: return col.ValueAt<int64_t>(row);
  }
}

bool IsTextual(uint32_t oid) {
  return oid == kPgTextOid || oid == kPgVarcharOid || oid == kPgBpcharOid || oid == kPgNameOid;
}

// numeric_send from decimal digits: `int_digits` and `frac_digits` are ASCII
// digits; dscale is what PostgreSQL prints after the point.
void AppendNumericDigits(bool negative, std::string_view int_digits, std::string_view frac_digits,
                         int dscale, std::string* out) {
  while (!int_digits.empty() && int_digits.front() == '0') int_digits.remove_prefix(1);
  while (!frac_digits.empty() && frac_digits.back() == '0') frac_digits.remove_suffix(1);
  const int int_groups = static_cast<int>((int_digits.size() + 3) / 4);
  const int lead_pad = int_groups * 4 - static_cast<int>(int_digits.size());
  const int frac_groups = static_cast<int>((frac_digits.size() + 3) / 4);
  // Digit k of the zero-padded "int.frac" string, grouped by 4 around the point.
  auto digit_at = [&](int k) -> int {
    k -= lead_pad;
    if (k < 0) return 0;
    if (k < static_cast<int>(int_digits.size())) return int_digits[k] - '0';
    k -= static_cast<int>(int_digits.size());
    return k < static_cast<int>(frac_digits.size()) ? frac_digits[k] - '0' : 0;
  };
  auto group = [&](int g) {
    return digit_at(4 * g) * 1000 + digit_at(4 * g + 1) * 100 + digit_at(4 * g + 2) * 10 +
           digit_at(4 * g + 3);
  };
  int first = 0, last = int_groups + frac_groups;  // [first, last)
  while (first < last && group(first) == 0) ++first;
  while (last > first && group(last - 1) == 0) --last;
  const int ndigits = last - first;
  const int weight = ndigits == 0 ? 0 : int_groups - 1 - first;
  PutBe32(out, static_cast<uint32_t>(8 + 2 * ndigits));  // field length
  PutBe16(out, static_cast<uint16_t>(ndigits));
  PutBe16(out, static_cast<uint16_t>(static_cast<int16_t>(weight)));
  PutBe16(out, negative && ndigits > 0 ? 0x4000 : 0x0000);
  PutBe16(out, static_cast<uint16_t>(dscale));
  for (int g = first; g < last; ++g) PutBe16(out, static_cast<uint16_t>(group(g)));
}

void AppendNumericSpecial(uint16_t sign, std::string* out) {
  PutBe32(out, 8);
  PutBe16(out, 0);
  PutBe16(out, 0);
  PutBe16(out, sign);
  PutBe16(out, 0);
}

}  // namespace

PgEncoding ChoosePgEncoding(const LogicalType& from, const PgTargetType& to) {
  const uint32_t oid = to.base_oid;
  const bool enum_type = to.typtype == 'e';
  switch (from.id) {
    case TypeId::kBool:
      if (oid == kPgBoolOid) return PgEncoding::kBool;
      break;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      if (oid == kPgInt2Oid) return PgEncoding::kInt2;
      if (oid == kPgInt4Oid) return PgEncoding::kInt4;
      if (oid == kPgInt8Oid) return PgEncoding::kInt8;
      if (oid == kPgOidOid) return PgEncoding::kOid;
      if (oid == kPgNumericOid) return PgEncoding::kNumeric;
      break;
    case TypeId::kFloat:
      if (oid == kPgFloat4Oid) return PgEncoding::kFloat4;
      if (oid == kPgFloat8Oid) return PgEncoding::kFloat8;
      break;
    case TypeId::kDouble:
      if (oid == kPgFloat8Oid) return PgEncoding::kFloat8;
      break;
    case TypeId::kDecimal:
      if (oid == kPgNumericOid) return PgEncoding::kNumeric;
      break;
    case TypeId::kString:
    case TypeId::kJson:
      if (IsTextual(oid) || enum_type || oid == kPgJsonOid) return PgEncoding::kText;
      if (oid == kPgJsonbOid) return PgEncoding::kJsonb;
      if (oid == kPgNumericOid && from.id == TypeId::kString) return PgEncoding::kNumeric;
      if (to.category == 'A' && from.id == TypeId::kJson) return PgEncoding::kArrayAsText;
      break;
    case TypeId::kBinary:
      if (oid == kPgByteaOid) return PgEncoding::kBytea;
      break;
    case TypeId::kDate:
      if (oid == kPgDateOid) return PgEncoding::kDate;
      break;
    case TypeId::kTime:
      if (oid == kPgTimeOid) return PgEncoding::kTime;
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      if (oid == kPgTimestampOid || oid == kPgTimestampTzOid) return PgEncoding::kTimestamp;
      break;
    case TypeId::kUuid:
      if (oid == kPgUuidOid) return PgEncoding::kUuid;
      break;
  }
  return PgEncoding::kAsText;
}

PgCopyEncoder::PgCopyEncoder(std::string table, std::vector<PgEncodeField> fields)
    : table_(std::move(table)), fields_(std::move(fields)) {}

void PgCopyEncoder::Begin(std::string* out) const {
  out->append(kSignature, sizeof(kSignature));
  PutBe32(out, 0);  // flags
  PutBe32(out, 0);  // header extension length
}

void PgCopyEncoder::End(std::string* out) const { PutBe16(out, 0xffff); }

Status PgCopyEncoder::FieldError(size_t c, std::string_view what) const {
  return Status::InvalidArgument(fmt::format("table {}, column \"{}\" ({}), row {}: {}", table_,
                                             fields_[c].name, fields_[c].pg_type, rows_ + 1,
                                             what));
}

Status PgCopyEncoder::Encode(const RowBatch& batch, size_t* next_row, std::string* out,
                             size_t limit) {
  const size_t ncols = fields_.size();
  if (batch.num_columns() != ncols) {
    return Status::InvalidArgument(fmt::format("table {}: batch has {} columns, expected {}",
                                               table_, batch.num_columns(), ncols));
  }
  const size_t nrows = batch.num_rows();
  size_t row = *next_row;
  for (; row < nrows && out->size() < limit; ++row) {
    const size_t row_start = out->size();
    PutBe16(out, static_cast<uint16_t>(ncols));
    for (size_t c = 0; c < ncols; ++c) {
      const ColumnVector& col = batch.column(c);
      if (col.IsNull(row)) {
        PutBe32(out, 0xffffffffu);
        continue;
      }
      Status s = EncodeField(c, col, row, out);
      if (!s.ok()) {
        out->resize(row_start);
        *next_row = row;
        return s;
      }
    }
    ++rows_;
  }
  *next_row = row;
  return Status::OK();
}

Status PgCopyEncoder::EncodeField(size_t c, const ColumnVector& col, size_t row,
                                  std::string* out) {
  const PgEncoding encoding = fields_[c].encoding;
  const TypeId from = col.type().id;
  switch (encoding) {
    case PgEncoding::kBool:
      PutBe32(out, 1);
      out->push_back(col.ValueAt<uint8_t>(row) ? 1 : 0);
      return Status::OK();
    case PgEncoding::kInt2:
    case PgEncoding::kInt4:
    case PgEncoding::kInt8:
    case PgEncoding::kOid: {
      const int64_t v = IntegerAt(col, row);
      if (encoding == PgEncoding::kInt8) {
        Field64(out, static_cast<uint64_t>(v));
        return Status::OK();
      }
      int64_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
      if (encoding == PgEncoding::kInt2) {
        lo = std::numeric_limits<int16_t>::min();
        hi = std::numeric_limits<int16_t>::max();
      } else if (encoding == PgEncoding::kOid) {
        lo = 0;
        hi = std::numeric_limits<uint32_t>::max();
      }
      if (v < lo || v > hi) {
        return FieldError(c, fmt::format("value {} is out of range for the target column", v));
      }
      if (encoding == PgEncoding::kInt2) {
        PutBe32(out, 2);
        PutBe16(out, static_cast<uint16_t>(v));
      } else {
        Field32(out, static_cast<uint32_t>(v));
      }
      return Status::OK();
    }
    case PgEncoding::kFloat4:
      Field32(out, std::bit_cast<uint32_t>(col.ValueAt<float>(row)));
      return Status::OK();
    case PgEncoding::kFloat8: {
      const double v = from == TypeId::kFloat ? static_cast<double>(col.ValueAt<float>(row))
                                              : col.ValueAt<double>(row);
      Field64(out, std::bit_cast<uint64_t>(v));
      return Status::OK();
    }
    case PgEncoding::kNumeric:
      if (from == TypeId::kDecimal) {
        AppendPgNumericFromDecimal(col.ValueAt<int128_t>(row), col.type().scale, out);
      } else if (IsInteger(from)) {
        AppendPgNumericFromDecimal(IntegerAt(col, row), 0, out);
      } else {
        Status s = AppendPgNumericFromText(col.BytesAt(row), out);
        if (!s.ok()) return FieldError(c, s.message());
      }
      return Status::OK();
    case PgEncoding::kText:
    case PgEncoding::kBytea: {
      const std::string_view v = col.BytesAt(row);
      PutBe32(out, static_cast<uint32_t>(v.size()));
      out->append(v);
      return Status::OK();
    }
    case PgEncoding::kJsonb: {
      const std::string_view v = col.BytesAt(row);
      PutBe32(out, static_cast<uint32_t>(v.size() + 1));
      out->push_back(1);
      out->append(v);
      return Status::OK();
    }
    case PgEncoding::kDate: {
      const int32_t d = col.ValueAt<int32_t>(row);
      constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
      int32_t pg;
      if (d == kMax) {
        pg = kMax;  // 'infinity'
      } else if (d == -kMax || d == std::numeric_limits<int32_t>::min()) {
        pg = std::numeric_limits<int32_t>::min();  // '-infinity'
      } else {
        pg = static_cast<int32_t>(static_cast<int64_t>(d) - kPgEpochDays);
      }
      Field32(out, static_cast<uint32_t>(pg));
      return Status::OK();
    }
    case PgEncoding::kTime:
      Field64(out, static_cast<uint64_t>(col.ValueAt<int64_t>(row)));
      return Status::OK();
    case PgEncoding::kTimestamp: {
      const int64_t t = col.ValueAt<int64_t>(row);
      constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
      int64_t pg;
      if (t == kMax) {
        pg = kMax;
      } else if (t == -kMax || t == std::numeric_limits<int64_t>::min()) {
        pg = std::numeric_limits<int64_t>::min();
      } else if (__builtin_sub_overflow(t, kPgEpochMicros, &pg)) {
        return FieldError(c, "timestamp before 4713 BC");
      }
      Field64(out, static_cast<uint64_t>(pg));
      return Status::OK();
    }
    case PgEncoding::kUuid:
      PutBe32(out, 16);
      out->append(reinterpret_cast<const char*>(col.ValueAt<Uuid>(row).bytes), 16);
      return Status::OK();
    case PgEncoding::kAsText:
    case PgEncoding::kArrayAsText: {
      scratch_.clear();
      if (encoding == PgEncoding::kArrayAsText) {
        Status s = JsonArrayToPgLiteral(col.BytesAt(row), &scratch_);
        if (!s.ok()) return FieldError(c, s.message());
      } else {
        AppendPgText(col, row, &scratch_);
      }
      PutBe32(out, static_cast<uint32_t>(scratch_.size()));
      out->append(scratch_);
      return Status::OK();
    }
  }
  return Status::Internal("unhandled PgEncoding");
}

void AppendPgNumericFromDecimal(int128_t unscaled, int scale, std::string* out) {
  const bool negative = unscaled < 0;
  unsigned __int128 mag = negative ? -static_cast<unsigned __int128>(unscaled)
                                   : static_cast<unsigned __int128>(unscaled);
  char buf[48];
  int n = 0;
  do {
    buf[sizeof(buf) - 1 - n++] = static_cast<char>('0' + static_cast<int>(mag % 10));
    mag /= 10;
  } while (mag != 0);
  const std::string_view digits(buf + sizeof(buf) - n, n);
  if (n <= scale) {
    char frac[80];
    const int pad = scale - n;
    std::memset(frac, '0', pad);
    std::memcpy(frac + pad, digits.data(), n);
    AppendNumericDigits(negative, {}, std::string_view(frac, scale), scale, out);
  } else {
    AppendNumericDigits(negative, digits.substr(0, n - scale), digits.substr(n - scale), scale,
                        out);
  }
}

Status AppendPgNumericFromText(std::string_view text, std::string* out) {
  if (text == "NaN") {
    AppendNumericSpecial(0xC000, out);
    return Status::OK();
  }
  if (text == "Infinity") {
    AppendNumericSpecial(0xD000, out);
    return Status::OK();
  }
  if (text == "-Infinity") {
    AppendNumericSpecial(0xF000, out);
    return Status::OK();
  }
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  const size_t dot = s.find('.');
  const std::string_view int_part = s.substr(0, dot);
  const std::string_view frac_part =
      dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
  auto all_digits = [](std::string_view v) {
    for (char ch : v) {
      if (ch < '0' || ch > '9') return false;
    }
    return true;
  };
  if ((int_part.empty() && frac_part.empty()) || !all_digits(int_part) || !all_digits(frac_part) ||
      frac_part.size() > 0x3FFF || int_part.size() > 131072) {
    const std::string shown(text.substr(0, 40));
    return Status::InvalidArgument(
        fmt::format("\"{}{}\" is not a numeric value", shown, text.size() > 40 ? "..." : ""));
  }
  AppendNumericDigits(negative, int_part, frac_part, static_cast<int>(frac_part.size()), out);
  return Status::OK();
}

}  // namespace lakedump
