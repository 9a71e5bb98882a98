#include "load/postgres/pg_copy_encoder.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "table/temporal.h"

namespace lakedump {
namespace {

constexpr char kSignature[11] = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', '\377', '\r', '\n', '\0'};
constexpr int64_t kPgEpochDays = 10957;                // 2000-01-01 - 1970-01-01

inline void PutBe16(std::string* out, uint16_t v) {
  const uint16_t be = __builtin_bswap16(v);
  out->append(reinterpret_cast<const char*>(&be), 2);
}
inline void PutBe32(std::string* out, uint32_t v) {
  const uint32_t be = __builtin_bswap32(v);
  out->append(reinterpret_cast<const char*>(&be), 4);
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
    case TypeId::kList:  // else staged as the array's text form (AppendPgText)
      if (!IsTextStaged(ChoosePgElementEncoding(from, to))) return PgEncoding::kArray;
      break;
  }
  return PgEncoding::kAsText;
}

PgEncoding ChoosePgElementEncoding(const LogicalType& from, const PgTargetType& to) {
  // name_recv refuses a name of 64 bytes or more where name_in truncates it: names keep the
  // text path's truncation.
  if (!from.is_list() || to.category != 'A' || to.element_oid == 0 ||
      to.element_oid == kPgNameOid) {
    return PgEncoding::kAsText;
  }
  const PgEncoding e = ChoosePgEncoding(from.ElementType(), to.Element());
  return e == PgEncoding::kArray ? PgEncoding::kAsText : e;
}

PgEncodeField PgEncodeField::Choose(std::string name, std::string pg_type, const LogicalType& from,
                                    const PgTargetType& to) {
  PgEncodeField f{std::move(name), std::move(pg_type), ChoosePgEncoding(from, to)};
  if (f.encoding == PgEncoding::kArray) {
    f.element = ChoosePgElementEncoding(from, to);
    f.element_oid = to.element_oid;
  }
  return f;
}

PgCopyEncoder::PgCopyEncoder(std::string table, std::vector<PgEncodeField> fields,
                             PgCopyFormat format, std::vector<size_t> batch_columns,
                             size_t batch_width)
    : table_(std::move(table)),
      fields_(std::move(fields)),
      batch_columns_(std::move(batch_columns)),
      batch_width_(batch_width),
      format_(format) {
  if (batch_columns_.empty()) {
    for (size_t c = 0; c < fields_.size(); ++c) batch_columns_.push_back(c);
  }
  if (batch_width_ == 0) batch_width_ = fields_.size();
}

void PgCopyEncoder::Begin(std::string* out) const {
  if (format_ == PgCopyFormat::kText) return;
  out->append(kSignature, sizeof(kSignature));
  PutBe32(out, 0);  // flags
  PutBe32(out, 0);  // header extension length
}

void PgCopyEncoder::End(std::string* out) const {
  if (format_ == PgCopyFormat::kBinary) PutBe16(out, 0xffff);
}

Status PgCopyEncoder::FieldError(size_t c, std::string_view what, size_t block_row) const {
  return Status::InvalidArgument(fmt::format("table {}, column \"{}\" ({}), row {}: {}", table_,
                                             fields_[c].name, fields_[c].pg_type,
                                             rows_ + block_row + 1, what));
}

namespace {

constexpr size_t kBlockRows = 1024;
constexpr uint32_t kNullField = 0xffffffffu;

// Keeps the first failure of a block: the one at the lowest block row r.
void RecordFailure(size_t r, Status s, size_t* fail_row, Status* fail) {
  if (r < *fail_row) {
    *fail_row = r;
    *fail = std::move(s);
  }
}

inline void St16(char* p, uint16_t v) {
  const uint16_t be = __builtin_bswap16(v);
  std::memcpy(p, &be, 2);
}
inline void St32(char* p, uint32_t v) {
  const uint32_t be = __builtin_bswap32(v);
  std::memcpy(p, &be, 4);
}
inline void St64(char* p, uint64_t v) {
  const uint64_t be = __builtin_bswap64(v);
  std::memcpy(p, &be, 8);
}

// Bytes of a non-null field (length word included) of the constant-size encodings; 0 for the
// others.
size_t ConstantFieldSize(PgEncoding e) {
  switch (e) {
    case PgEncoding::kBool: return 5;
    case PgEncoding::kInt2: return 6;
    case PgEncoding::kInt4:
    case PgEncoding::kOid:
    case PgEncoding::kFloat4:
    case PgEncoding::kDate: return 8;
    case PgEncoding::kInt8:
    case PgEncoding::kFloat8:
    case PgEncoding::kTime:
    case PgEncoding::kTimestamp: return 12;
    case PgEncoding::kUuid: return 20;
    default: return 0;
  }
}

bool IsRendered(PgEncoding e) {
  return e == PgEncoding::kNumeric || e == PgEncoding::kArray || e == PgEncoding::kAsText ||
         e == PgEncoding::kArrayAsText;
}

// Calls f(values) with the integer column's values typed by its storage.
template <typename F>
void WithIntegers(const ColumnVector& col, F&& f) {
  switch (col.type().id) {
    case TypeId::kInt8: f(col.values<int8_t>()); break;
    case TypeId::kInt16: f(col.values<int16_t>()); break;
    case TypeId::kInt32: f(col.values<int32_t>()); break;
    default: f(col.values<int64_t>()); break;
  }
}

}  // namespace

int32_t PgDate(int32_t d) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  if (d == kMax) return kMax;  // 'infinity'
  if (d == -kMax || d == std::numeric_limits<int32_t>::min()) {
    return std::numeric_limits<int32_t>::min();  // '-infinity'
  }
  return static_cast<int32_t>(static_cast<int64_t>(d) - kPgEpochDays);
}

bool PgTimestamp(int64_t t, int64_t* pg) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (t == kMax) {
    *pg = kMax;
  } else if (t == -kMax || t == std::numeric_limits<int64_t>::min()) {
    *pg = std::numeric_limits<int64_t>::min();
  } else if (IsTimestampEscape(t)) {
    *pg = PgMicrosOfEscape(t);  // past 294247-01-10 (docs/type-mapping.md)
  } else if (__builtin_sub_overflow(t, kPgEpochMicros, pg)) {
    return false;
  }
  return true;
}

Status PgCopyEncoder::Encode(const RowBatch& batch, size_t* next_row, std::string* out,
                             size_t limit) {
  const size_t ncols = fields_.size();
  if (batch.num_columns() != batch_width_) {
    return Status::InvalidArgument(fmt::format("table {}: batch has {} columns, expected {}",
                                               table_, batch.num_columns(), batch_width_));
  }
  if (format_ == PgCopyFormat::kText) return EncodeText(batch, next_row, out, limit);
  columns_.resize(ncols);
  const size_t nrows = batch.num_rows();
  size_t row = *next_row;
  while (row < nrows && out->size() < limit) {
    const size_t m = std::min(kBlockRows, nrows - row);
    sizes_.assign(m, 2);  // the field count
    size_t fail_row = m;
    Status fail;
    for (size_t c = 0; c < ncols; ++c) {
      SizeColumn(c, batch.column(batch_columns_[c]), row, m, &fail_row, &fail);
    }
    // Rows up to the one that reaches the limit (included), and before a failing row.
    const size_t base = out->size();
    size_t take = 0, total = 0;
    while (take < fail_row && base + total < limit) total += sizes_[take++];
    pos_.resize(take);
    out->resize(base + total);
    char* dst = out->data();
    size_t at = base;
    for (size_t r = 0; r < take; ++r) {
      St16(dst + at, static_cast<uint16_t>(ncols));
      pos_[r] = at + 2;
      at += sizes_[r];
    }
    for (size_t c = 0; c < ncols; ++c) {
      WriteColumn(c, batch.column(batch_columns_[c]), row, take, dst);
    }
    rows_ += take;
    row += take;
    if (take == fail_row && !fail.ok()) {
      *next_row = row;
      return fail;
    }
  }
  *next_row = row;
  return Status::OK();
}

void PgCopyEncoder::SizeColumn(size_t c, const ColumnVector& col, size_t row, size_t m,
                               size_t* fail_row, Status* fail) {
  const PgEncoding encoding = fields_[c].encoding;
  const uint8_t* valid = col.validity();
  if (valid != nullptr) valid += row;
  uint32_t* sizes = sizes_.data();
  if (const size_t fixed = ConstantFieldSize(encoding); fixed != 0) {
    for (size_t r = 0; r < m; ++r) {
      sizes[r] += valid == nullptr || valid[r] ? static_cast<uint32_t>(fixed) : 4;
    }
    // Checks of values that have no PostgreSQL form.
    if (encoding == PgEncoding::kInt2 || encoding == PgEncoding::kInt4 ||
        encoding == PgEncoding::kOid) {
      int64_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
      if (encoding == PgEncoding::kInt2) {
        lo = std::numeric_limits<int16_t>::min();
        hi = std::numeric_limits<int16_t>::max();
      } else if (encoding == PgEncoding::kOid) {
        lo = 0;
        hi = std::numeric_limits<uint32_t>::max();
      }
      WithIntegers(col, [&](const auto* v) {
        for (size_t r = 0; r < m && r < *fail_row; ++r) {
          const int64_t x = v[row + r];
          if ((x < lo || x > hi) && (valid == nullptr || valid[r])) {
            // Setting *fail_row ends the loop.
            const std::string what =
                fmt::format("value {} is out of range for the target column", x);
            RecordFailure(r, FieldError(c, what, r), fail_row, fail);
          }
        }
      });
    } else if (encoding == PgEncoding::kTimestamp) {
      const int64_t* v = col.values<int64_t>();
      for (size_t r = 0; r < m && r < *fail_row; ++r) {
        int64_t pg;
        if ((valid == nullptr || valid[r]) && !PgTimestamp(v[row + r], &pg)) {
          RecordFailure(r, FieldError(c, "timestamp before 4713 BC", r), fail_row, fail);
        }
      }
    }
    return;
  }
  if (encoding == PgEncoding::kText || encoding == PgEncoding::kBytea ||
      encoding == PgEncoding::kJsonb) {
    const uint64_t* off = col.offsets() + row;
    const uint32_t extra = encoding == PgEncoding::kJsonb ? 5 : 4;
    for (size_t r = 0; r < m; ++r) {
      sizes[r] += valid == nullptr || valid[r] ? static_cast<uint32_t>(off[r + 1] - off[r]) + extra
                                               : 4;
    }
    return;
  }
  // Value-dependent encodings: rendered now, copied in pass 2.
  RenderColumn(c, col, row, m, fail_row, fail);
}

void PgCopyEncoder::RenderColumn(size_t c, const ColumnVector& col, size_t row, size_t m,
                                 size_t* fail_row, Status* fail) {
  const uint8_t* valid = col.validity();
  if (valid != nullptr) valid += row;
  uint32_t* sizes = sizes_.data();
  ColumnScratch& sc = columns_[c];
  sc.bytes.clear();
  sc.offsets.resize(m + 1);
  sc.offsets[0] = 0;
  for (size_t r = 0; r < m; ++r) {
    if (r >= *fail_row) {  // rows after a failure are not written
      sc.offsets[r + 1] = static_cast<uint32_t>(sc.bytes.size());
      continue;
    }
    if (valid != nullptr && !valid[r]) {
      PutBe32(&sc.bytes, kNullField);
    } else {
      Status s = RenderField(c, col, row + r, r, &sc.bytes);
      if (!s.ok()) {
        sc.bytes.resize(sc.offsets[r]);
        RecordFailure(r, std::move(s), fail_row, fail);
      }
    }
    sc.offsets[r + 1] = static_cast<uint32_t>(sc.bytes.size());
    sizes[r] += sc.offsets[r + 1] - sc.offsets[r];
  }
}

namespace {

// Pass 2's view of one column of a block: where each row's next field goes.
struct FieldWriter {
  const uint8_t* valid;  // the block's rows' validity, or nullptr
  size_t* pos;           // per block row
  char* base;
  size_t row;  // the block's first row in the column
  size_t m;    // rows in the block

  // Writes each row's field: a NULL's length word, or put(i, p), which writes the value of
  // column row i at p and returns the field's size.
  template <typename Put>
  void Each(Put put) const {
    // Locals: the compiler need not reload them after each store through `base`.
    const uint8_t* const v = valid;
    size_t* const at = pos;
    char* const b = base;
    const size_t first = row, n = m;
    for (size_t r = 0; r < n; ++r) {
      if (v != nullptr && !v[r]) {
        St32(b + at[r], kNullField);
        at[r] += 4;
      } else {
        at[r] += put(first + r, b + at[r]);
      }
    }
  }
};

// The type cases of WriteColumn, each called once per column and block.
void WriteIntegers(const FieldWriter& w, const ColumnVector& col, PgEncoding encoding) {
  switch (encoding) {
    case PgEncoding::kInt2:
      WithIntegers(col, [&](const auto* v) {
        w.Each([&](size_t i, char* p) {
          St32(p, 2);
          St16(p + 4, static_cast<uint16_t>(v[i]));
          return size_t{6};
        });
      });
      return;
    case PgEncoding::kInt4:
    case PgEncoding::kOid:
      WithIntegers(col, [&](const auto* v) {
        w.Each([&](size_t i, char* p) {
          St32(p, 4);
          St32(p + 4, static_cast<uint32_t>(v[i]));
          return size_t{8};
        });
      });
      return;
    default:  // kInt8
      WithIntegers(col, [&](const auto* v) {
        w.Each([&](size_t i, char* p) {
          St32(p, 8);
          St64(p + 4, static_cast<uint64_t>(static_cast<int64_t>(v[i])));
          return size_t{12};
        });
      });
      return;
  }
}

void WriteFloats(const FieldWriter& w, const ColumnVector& col, PgEncoding encoding) {
  if (encoding == PgEncoding::kFloat4) {
    const float* v = col.values<float>();
    w.Each([&](size_t i, char* p) {
      St32(p, 4);
      St32(p + 4, std::bit_cast<uint32_t>(v[i]));
      return size_t{8};
    });
  } else if (col.type().id == TypeId::kFloat) {
    const float* v = col.values<float>();
    w.Each([&](size_t i, char* p) {
      St32(p, 8);
      St64(p + 4, std::bit_cast<uint64_t>(static_cast<double>(v[i])));
      return size_t{12};
    });
  } else {
    const double* v = col.values<double>();
    w.Each([&](size_t i, char* p) {
      St32(p, 8);
      St64(p + 4, std::bit_cast<uint64_t>(v[i]));
      return size_t{12};
    });
  }
}

// text, bytea and jsonb (a version byte before the text).
void WriteBytes(const FieldWriter& w, const ColumnVector& col, bool jsonb) {
  const uint64_t* off = col.offsets();
  const uint8_t* arena = col.arena();
  w.Each([&](size_t i, char* p) {
    const size_t n = off[i + 1] - off[i];
    size_t at = 4;
    if (jsonb) p[at++] = 1;
    St32(p, static_cast<uint32_t>(n + at - 4));
    if (n > 0) std::memcpy(p + at, arena + off[i], n);
    return at + n;
  });
}

void WriteTemporal(const FieldWriter& w, const ColumnVector& col, PgEncoding encoding) {
  if (encoding == PgEncoding::kDate) {
    const int32_t* v = col.values<int32_t>();
    w.Each([&](size_t i, char* p) {
      St32(p, 4);
      St32(p + 4, static_cast<uint32_t>(PgDate(v[i])));
      return size_t{8};
    });
  } else if (encoding == PgEncoding::kTime) {
    const int64_t* v = col.values<int64_t>();
    w.Each([&](size_t i, char* p) {
      St32(p, 8);
      St64(p + 4, static_cast<uint64_t>(v[i]));
      return size_t{12};
    });
  } else {  // kTimestamp
    const int64_t* v = col.values<int64_t>();
    w.Each([&](size_t i, char* p) {
      int64_t pg = 0;
      PgTimestamp(v[i], &pg);  // checked in pass 1
      St32(p, 8);
      St64(p + 4, static_cast<uint64_t>(pg));
      return size_t{12};
    });
  }
}

}  // namespace

void PgCopyEncoder::WriteColumn(size_t c, const ColumnVector& col, size_t row, size_t m,
                                char* base) {
  const PgEncoding encoding = fields_[c].encoding;
  const uint8_t* valid = col.validity();
  if (valid != nullptr) valid += row;
  size_t* pos = pos_.data();
  if (IsRendered(encoding)) {
    const ColumnScratch& sc = columns_[c];
    for (size_t r = 0; r < m; ++r) {
      const size_t n = sc.offsets[r + 1] - sc.offsets[r];
      std::memcpy(base + pos[r], sc.bytes.data() + sc.offsets[r], n);
      pos[r] += n;
    }
    return;
  }
  const FieldWriter w{valid, pos, base, row, m};
  switch (encoding) {
    case PgEncoding::kBool: {
      const uint8_t* v = col.values<uint8_t>();
      w.Each([&](size_t i, char* p) {
        St32(p, 1);
        p[4] = v[i] ? 1 : 0;
        return size_t{5};
      });
      return;
    }
    case PgEncoding::kInt2:
    case PgEncoding::kInt4:
    case PgEncoding::kOid:
    case PgEncoding::kInt8: WriteIntegers(w, col, encoding); return;
    case PgEncoding::kFloat4:
    case PgEncoding::kFloat8: WriteFloats(w, col, encoding); return;
    case PgEncoding::kText:
    case PgEncoding::kBytea:
    case PgEncoding::kJsonb: WriteBytes(w, col, encoding == PgEncoding::kJsonb); return;
    case PgEncoding::kDate:
    case PgEncoding::kTime:
    case PgEncoding::kTimestamp: WriteTemporal(w, col, encoding); return;
    case PgEncoding::kUuid: {
      const Uuid* v = col.values<Uuid>();
      w.Each([&](size_t i, char* p) {
        St32(p, 16);
        std::memcpy(p + 4, v[i].bytes, 16);
        return size_t{20};
      });
      return;
    }
    case PgEncoding::kNumeric:
    case PgEncoding::kArray:
    case PgEncoding::kAsText:
    case PgEncoding::kArrayAsText:
      return;  // rendered, above
  }
}

Status PgCopyEncoder::EncodeText(const RowBatch& batch, size_t* next_row, std::string* out,
                                 size_t limit) {
  size_t row = *next_row;
  for (; row < batch.num_rows() && out->size() < limit; ++row) {
    const size_t row_start = out->size();  // a failing row is taken back whole
    for (size_t c = 0; c < fields_.size(); ++c) {
      if (c > 0) out->push_back('\t');
      const ColumnVector& col = batch.column(batch_columns_[c]);
      if (col.IsNull(row)) {
        out->append("\\N");
        continue;
      }
      if (fields_[c].encoding != PgEncoding::kArrayAsText) {
        AppendCopyField(col, row, &scratch_, out);
        continue;
      }
      scratch_.clear();
      Status s = JsonArrayToPgLiteral(col.BytesAt(row), &scratch_);
      if (!s.ok()) {
        out->resize(row_start);
        *next_row = row;
        return FieldError(c, s.message());
      }
      AppendCopyEscaped(scratch_, out);
    }
    out->push_back('\n');
    ++rows_;
  }
  *next_row = row;
  return Status::OK();
}

Status PgCopyEncoder::RenderField(size_t c, const ColumnVector& col, size_t row,
                                  size_t block_row, std::string* out) {
  const PgEncodeField& f = fields_[c];
  const PgEncoding encoding = f.encoding;
  switch (encoding) {
    case PgEncoding::kNumeric:
    case PgEncoding::kArray: {
      Status s = encoding == PgEncoding::kArray
                     ? AppendPgArraySend(col, row, f.element, f.element_oid, out)
                     : AppendPgBinaryValue(col, row, encoding, out);
      if (!s.ok()) return FieldError(c, s.message(), block_row);
      return Status::OK();
    }
    case PgEncoding::kAsText:
    case PgEncoding::kArrayAsText: {
      scratch_.clear();
      if (encoding == PgEncoding::kArrayAsText) {
        Status s = JsonArrayToPgLiteral(col.BytesAt(row), &scratch_);
        if (!s.ok()) return FieldError(c, s.message(), block_row);
      } else {
        AppendPgText(col, row, &scratch_);
      }
      PutBe32(out, static_cast<uint32_t>(scratch_.size()));
      out->append(scratch_);
      return Status::OK();
    }
    default:
      return Status::Internal("RenderField of a fixed encoding");
  }
}

// numeric_send of unscaled * 10^-scale when the magnitude, padded to a whole number of
// 4-digit fraction groups, fits in 64 bits (true); false leaves *out untouched.
static bool AppendPgNumericFast(int128_t unscaled, int scale, std::string* out) {
  static constexpr uint64_t kPad[4] = {1, 1000, 100, 10};  // 10^(4 - scale % 4) % 10^4 pad
  if (scale < 0 || scale > 1000) return false;
  const bool negative = unscaled < 0;
  const unsigned __int128 mag128 = negative ? -static_cast<unsigned __int128>(unscaled)
                                            : static_cast<unsigned __int128>(unscaled);
  if (mag128 > std::numeric_limits<uint64_t>::max() / 1000) return false;
  uint64_t mag = static_cast<uint64_t>(mag128) * kPad[scale % 4];
  const int frac_groups = (scale + 3) / 4;
  uint16_t groups[8];  // least significant first; 2^64 < 10^20: at most 5 groups
  int count = 0;
  while (mag != 0) {
    groups[count++] = static_cast<uint16_t>(mag % 10000);
    mag /= 10000;
  }
  int low = 0;  // trailing zero groups are not sent
  while (low < count && groups[low] == 0) ++low;
  const int ndigits = count - low;
  // Group i (from the least significant) has weight i - frac_groups.
  const int weight = ndigits == 0 ? 0 : count - 1 - frac_groups;
  char buf[4 + 8 + 2 * 8];
  St32(buf, static_cast<uint32_t>(8 + 2 * ndigits));
  St16(buf + 4, static_cast<uint16_t>(ndigits));
  St16(buf + 6, static_cast<uint16_t>(static_cast<int16_t>(weight)));
  St16(buf + 8, negative && ndigits > 0 ? 0x4000 : 0x0000);
  St16(buf + 10, static_cast<uint16_t>(scale));
  for (int k = 0; k < ndigits; ++k) St16(buf + 12 + 2 * k, groups[count - 1 - k]);
  out->append(buf, static_cast<size_t>(12 + 2 * ndigits));
  return true;
}

void AppendPgNumericFromDecimal(int128_t unscaled, int scale, std::string* out) {
  if (AppendPgNumericFast(unscaled, scale, out)) return;
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
