#include "source/postgres/pg_copy_decoder.h"

#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <limits>

#include "source/postgres/pg_numeric.h"
#include "table/temporal.h"

namespace lakedump {
namespace {

constexpr char kSignature[11] = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', '\377', '\r', '\n', '\0'};
constexpr int64_t kPgEpochDays = 10957;                // 2000-01-01 - 1970-01-01

inline uint16_t Be16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return __builtin_bswap16(v);
}
inline uint32_t Be32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return __builtin_bswap32(v);
}
inline uint64_t Be64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return __builtin_bswap64(v);
}

const char* WireName(PgWire w) {
  switch (w) {
    case PgWire::kBool: return "bool";
    case PgWire::kInt2: return "int2";
    case PgWire::kInt4: return "int4";
    case PgWire::kInt8: return "int8";
    case PgWire::kOid: return "oid";
    case PgWire::kFloat4: return "float4";
    case PgWire::kFloat8: return "float8";
    case PgWire::kText: return "text";
    case PgWire::kBytea: return "bytea";
    case PgWire::kJsonb: return "jsonb";
    case PgWire::kDate: return "date";
    case PgWire::kTime: return "time";
    case PgWire::kTimestamp: return "timestamp";
    case PgWire::kUuid: return "uuid";
    case PgWire::kNumericDecimal:
    case PgWire::kNumericText:
    case PgWire::kNumericDouble: return "numeric";
  }
  return "?";
}

size_t ExpectedWidth(PgWire w) {
  switch (w) {
    case PgWire::kBool: return 1;
    case PgWire::kInt2: return 2;
    case PgWire::kInt4:
    case PgWire::kOid:
    case PgWire::kFloat4:
    case PgWire::kDate: return 4;
    case PgWire::kInt8:
    case PgWire::kFloat8:
    case PgWire::kTime:
    case PgWire::kTimestamp: return 8;
    case PgWire::kUuid: return 16;
    default: return 0;  // variable
  }
}

}  // namespace

PgCopyDecoder::PgCopyDecoder(std::vector<PgFieldSpec> fields, PgDecodeOptions options)
    : fields_(std::move(fields)), options_(std::move(options)) {}

void PgCopyDecoder::Feed(std::string_view chunk) {
  if (!carry_.empty()) {
    carry_.append(chunk);
    input_ = carry_;
  } else {
    input_ = chunk;
  }
  pos_ = 0;
}

void PgCopyDecoder::Stash() {
  std::string tail(input_.substr(pos_));
  carry_ = std::move(tail);
  input_ = {};
  pos_ = 0;
}

Status PgCopyDecoder::FieldError(size_t column, std::string_view what) const {
  const PgFieldSpec& f = fields_[column];
  return Status::InvalidArgument(fmt::format("table {}, column \"{}\" ({}), row {}: {}",
                                             options_.table, f.name, f.pg_type, rows_ + 1, what));
}

Status PgCopyDecoder::DecodeHeader(bool* complete) {
  *complete = false;
  const size_t avail = input_.size() - pos_;
  if (avail < 19) return Status::OK();
  const auto* p = reinterpret_cast<const uint8_t*>(input_.data() + pos_);
  if (std::memcmp(p, kSignature, sizeof(kSignature)) != 0) {
    return Status::Corruption(
        fmt::format("table {}: COPY stream does not start with the binary signature", options_.table));
  }
  const uint32_t flags = Be32(p + 11);
  if (flags & (1u << 16)) {
    return Status::Corruption(fmt::format("table {}: COPY stream has OIDs", options_.table));
  }
  const uint32_t ext = Be32(p + 15);
  if (avail < 19 + static_cast<size_t>(ext)) return Status::OK();
  pos_ += 19 + ext;
  header_done_ = true;
  *complete = true;
  return Status::OK();
}

Status PgCopyDecoder::Decode(RowBatch* batch, size_t max_rows) {
  const size_t ncols = fields_.size();
  size_t batch_rows = batch->num_rows();
  if (!header_done_ && !finished_) {
    bool complete = false;
    LD_RETURN_IF_ERROR(DecodeHeader(&complete));
    if (!complete) {
      Stash();
      return Status::OK();
    }
  }
  while (!finished_ && batch_rows < max_rows) {
    const auto* base = reinterpret_cast<const uint8_t*>(input_.data());
    const size_t size = input_.size();
    if (size - pos_ < 2) break;
    const int16_t nf = static_cast<int16_t>(Be16(base + pos_));
    if (nf == -1) {
      pos_ += 2;
      finished_ = true;
      break;
    }
    if (static_cast<size_t>(nf) != ncols) {
      return Status::Corruption(fmt::format("table {}, row {}: COPY tuple has {} fields, expected {}",
                                            options_.table, rows_ + 1, nf, ncols));
    }
    // Check that the whole tuple is here before touching the batch.
    size_t q = pos_ + 2;
    bool complete = true;
    for (size_t c = 0; c < ncols; ++c) {
      if (size - q < 4) {
        complete = false;
        break;
      }
      const int32_t len = static_cast<int32_t>(Be32(base + q));
      q += 4;
      if (len > 0) {
        if (size - q < static_cast<size_t>(len)) {
          complete = false;
          break;
        }
        q += static_cast<size_t>(len);
      } else if (len < -1) {
        return Status::Corruption(fmt::format("table {}, row {}: field length {}", options_.table,
                                              rows_ + 1, len));
      }
    }
    if (!complete) break;
    q = pos_ + 2;
    for (size_t c = 0; c < ncols; ++c) {
      const int32_t len = static_cast<int32_t>(Be32(base + q));
      q += 4;
      ColumnVector& col = batch->column(c);
      if (len == -1) {
        col.AppendNull();
        continue;
      }
      LD_RETURN_IF_ERROR(DecodeField(c, base + q, len, &col));
      q += static_cast<size_t>(len);
    }
    pos_ = q;
    ++rows_;
    ++batch_rows;
    if (ncols == 0) batch->set_num_rows_without_columns(batch_rows);
  }
  if (pos_ == input_.size()) {
    carry_.clear();
    input_ = {};
    pos_ = 0;
  } else if (!finished_ && batch_rows < max_rows) {
    Stash();  // an incomplete tuple: wait for the next chunk
  }
  return Status::OK();
}

// The array's binary form (array_send): ndim, has-null flag, element type, then per dimension
// its length and lower bound, then each element as a length (-1 = NULL) and its bytes.
Status PgCopyDecoder::DecodeArray(size_t column, const uint8_t* p, int32_t len,
                                  ColumnVector* out) {
  const size_t n = static_cast<size_t>(len);
  if (n < 12) return FieldError(column, "array header cut short");
  const int32_t ndim = static_cast<int32_t>(Be32(p));
  if (ndim == 0) {
    out->AppendList();
    return Status::OK();
  }
  if (ndim != 1 || n < 20) {
    return FieldError(column, fmt::format("array of {} dimensions in a column read as a list", ndim));
  }
  const int32_t count = static_cast<int32_t>(Be32(p + 12));
  const int32_t lower = static_cast<int32_t>(Be32(p + 16));
  if (lower != 1 || count < 0) {
    return FieldError(column, fmt::format("array with lower bound {} in a column read as a list",
                                          lower));
  }
  ColumnVector& elements = out->elements();
  size_t q = 20;
  for (int32_t k = 0; k < count; ++k) {
    if (n - q < 4) return FieldError(column, "array element cut short");
    const int32_t elen = static_cast<int32_t>(Be32(p + q));
    q += 4;
    if (elen == -1) {
      elements.AppendNull();
      continue;
    }
    if (elen < 0 || static_cast<size_t>(elen) > n - q) {
      return FieldError(column, "array element cut short");
    }
    LD_RETURN_IF_ERROR(DecodeField(column, p + q, elen, &elements, /*element=*/true));
    q += static_cast<size_t>(elen);
  }
  if (q != n) return FieldError(column, "array has bytes after its last element");
  out->AppendList();
  return Status::OK();
}

template <typename V>
Status PgCopyDecoder::SpecialValue(size_t column, std::string_view what, V clamp_value,
                                   bool infinity, ColumnVector* out) {
  const auto policy_null = infinity ? options_.infinity == PgInfinityPolicy::kNull
                                    : options_.numeric_special == PgNumericSpecialPolicy::kNull;
  const auto policy_clamp = infinity && options_.infinity == PgInfinityPolicy::kClamp;
  if (policy_clamp) {
    out->Append(clamp_value);
    return Status::OK();
  }
  if (policy_null) {
    out->AppendNull();
    ++nulled_values_;
    return Status::OK();
  }
  return FieldError(column, fmt::format("{} is not representable ({})", what,
                                        infinity ? "set the infinity policy to clamp or null"
                                                 : "set the numeric special-value policy to "
                                                   "null, or read numeric as string"));
}

// Numeric parsing already costs a call or two per value; this one adds little to it.
Status PgCopyDecoder::DecodeNumeric(size_t column, const uint8_t* p, int32_t len,
                                    ColumnVector* out) {
  const PgFieldSpec& f = fields_[column];
  PgNumericView v;
  Status s = ParsePgNumeric(p, static_cast<size_t>(len), &v);
  if (!s.ok()) return s.WithContext(fmt::format("table {}, column \"{}\", row {}",
                                                options_.table, f.name, rows_ + 1));
  if (f.wire == PgWire::kNumericText) {
    PgNumericToString(v, &scratch_);
    out->AppendBytes(scratch_);
    return Status::OK();
  }
  if (f.wire == PgWire::kNumericDouble) {
    out->Append<double>(PgNumericToDouble(v));
    return Status::OK();
  }
  if (v.kind != PgNumericKind::kFinite) {
    PgNumericToString(v, &scratch_);
    return SpecialValue(column, fmt::format("numeric '{}' in a decimal column", scratch_),
                        int128_t{0}, false, out);
  }
  int128_t unscaled;
  s = PgNumericToDecimal(v, f.type.precision, f.type.scale, f.round, &unscaled);
  if (!s.ok()) {
    PgNumericToString(v, &scratch_);
    return FieldError(column, fmt::format("value {} {}", scratch_, s.message()));
  }
  out->Append<int128_t>(unscaled);
  return Status::OK();
}

Status PgCopyDecoder::DecodeField(size_t column, const uint8_t* p, int32_t len,
                                  ColumnVector* out, bool element) {
  const PgFieldSpec& f = fields_[column];
  if (f.array && !element) return DecodeArray(column, p, len, out);
  const size_t width = ExpectedWidth(f.wire);
  if (width != 0 && static_cast<size_t>(len) != width) {
    return Status::Corruption(fmt::format("table {}, column \"{}\", row {}: {} value of {} bytes",
                                          options_.table, f.name, rows_ + 1, WireName(f.wire), len));
  }
  switch (f.wire) {
    case PgWire::kBool:
      out->Append<uint8_t>(p[0] != 0);
      return Status::OK();
    case PgWire::kInt2:
      out->Append<int16_t>(static_cast<int16_t>(Be16(p)));
      return Status::OK();
    case PgWire::kInt4:
      out->Append<int32_t>(static_cast<int32_t>(Be32(p)));
      return Status::OK();
    case PgWire::kInt8:
    case PgWire::kTime:
      out->Append<int64_t>(static_cast<int64_t>(Be64(p)));
      return Status::OK();
    case PgWire::kOid:
      out->Append<int64_t>(static_cast<int64_t>(Be32(p)));
      return Status::OK();
    case PgWire::kFloat4:
      out->Append<float>(std::bit_cast<float>(Be32(p)));
      return Status::OK();
    case PgWire::kFloat8:
      out->Append<double>(std::bit_cast<double>(Be64(p)));
      return Status::OK();
    case PgWire::kText:
    case PgWire::kBytea:
      out->AppendBytes(std::string_view(reinterpret_cast<const char*>(p), len));
      return Status::OK();
    case PgWire::kJsonb:
      if (len < 1 || p[0] != 1) {
        return Status::Corruption(fmt::format("table {}, column \"{}\", row {}: jsonb version {}",
                                              options_.table, f.name, rows_ + 1,
                                              len < 1 ? -1 : p[0]));
      }
      out->AppendBytes(std::string_view(reinterpret_cast<const char*>(p) + 1, len - 1));
      return Status::OK();
    case PgWire::kDate: {
      const int32_t d = static_cast<int32_t>(Be32(p));
      constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
      if (d == kMax) return SpecialValue(column, "date 'infinity'", kMax, true, out);
      if (d == std::numeric_limits<int32_t>::min()) return SpecialValue(column, "date '-infinity'", -kMax, true, out);
      const int64_t unix_days = static_cast<int64_t>(d) + kPgEpochDays;
      if (unix_days >= kMax || unix_days <= -kMax) return FieldError(column, "date out of range");
      out->Append<int32_t>(static_cast<int32_t>(unix_days));
      return Status::OK();
    }
    case PgWire::kTimestamp: {
      const int64_t t = static_cast<int64_t>(Be64(p));
      constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
      if (t == kMax) return SpecialValue(column, "timestamp 'infinity'", kMax, true, out);
      if (t == std::numeric_limits<int64_t>::min()) {
        return SpecialValue(column, "timestamp '-infinity'", -kMax, true, out);
      }
      int64_t unix_us;
      if (t >= kPgTimestampEscapeFrom) {
        // Past what int64 µs since 1970 holds: the escape range (docs/type-mapping.md).
        if (t >= kPgTimestampEnd) return FieldError(column, "timestamp after 294276-12-31");
        unix_us = EscapeOfPgMicros(t);
      } else if (__builtin_add_overflow(t, kPgEpochMicros, &unix_us)) {
        return FieldError(column, "timestamp out of range");
      }
      out->Append<int64_t>(unix_us);
      return Status::OK();
    }
    case PgWire::kUuid: {
      Uuid u;
      std::memcpy(u.bytes, p, 16);
      out->Append(u);
      return Status::OK();
    }
    case PgWire::kNumericDecimal:
    case PgWire::kNumericText:
    case PgWire::kNumericDouble: return DecodeNumeric(column, p, len, out);
  }
  return Status::Internal("unhandled PgWire");
}

}  // namespace lakedump
