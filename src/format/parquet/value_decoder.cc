#include "format/parquet/value_decoder.h"

#include <cstring>

#include <fmt/format.h>

#include "format/parquet/rle_decoder.h"

namespace lakedump::parquet {
namespace {

enum Enc : int32_t {
  kValueEncPlain = 0, kValueEncRle = 3, kValueEncBitPacked = 4, kValueEncDeltaBinaryPacked = 5,
  kValueEncDeltaLengthByteArray = 6, kValueEncDeltaByteArray = 7, kValueEncByteStreamSplit = 9,
};

Status Truncated(const char* what) {
  return Status::Corruption(fmt::format("{}: page data ends before its values", what));
}

Status DecodePlain(const LeafInfo& leaf, std::string_view d, size_t n, PhysicalValues* out) {
  switch (leaf.physical) {
    case Type::kBoolean: {
      if ((n + 7) / 8 > d.size()) return Truncated("PLAIN booleans");
      out->fixed.resize(n);
      for (size_t i = 0; i < n; ++i) {
        out->fixed[i] = static_cast<char>((static_cast<uint8_t>(d[i >> 3]) >> (i & 7)) & 1);
      }
      return Status::OK();
    }
    case Type::kByteArray: {
      out->var.resize(n);
      size_t pos = 0;
      for (size_t i = 0; i < n; ++i) {
        if (d.size() - pos < 4) return Truncated("PLAIN BYTE_ARRAY");
        uint32_t len;
        std::memcpy(&len, d.data() + pos, 4);
        pos += 4;
        if (len > d.size() - pos) return Truncated("PLAIN BYTE_ARRAY");
        out->var[i] = d.substr(pos, len);
        pos += len;
      }
      return Status::OK();
    }
    case Type::kFixedLenByteArray: {
      const size_t len = static_cast<size_t>(leaf.type_length);
      if (len != 0 && n > d.size() / len) return Truncated("PLAIN FIXED_LEN_BYTE_ARRAY");
      out->var.resize(n);
      for (size_t i = 0; i < n; ++i) out->var[i] = d.substr(i * len, len);
      return Status::OK();
    }
    default: {
      const size_t w = PhysicalWidth(leaf.physical);
      if (n > d.size() / w) return Truncated("PLAIN");
      out->data = d.substr(0, n * w);
      return Status::OK();
    }
  }
}

// ---------------------------------------------------------------- DELTA_BINARY_PACKED

class ByteCursor {
 public:
  explicit ByteCursor(std::string_view in) : in_(in) {}
  size_t pos() const { return pos_; }
  Status Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0;; shift += 7) {
      if (pos_ >= in_.size()) return Status::Corruption("DELTA_BINARY_PACKED: truncated header");
      if (shift > 63) return Status::Corruption("DELTA_BINARY_PACKED: varint too long");
      const uint8_t b = static_cast<uint8_t>(in_[pos_++]);
      *v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return Status::OK();
    }
  }
  Status ZigZag(int64_t* v) {
    uint64_t u;
    LD_RETURN_IF_ERROR(Varint(&u));
    *v = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
    return Status::OK();
  }
  Status Byte(uint8_t* b) {
    if (pos_ >= in_.size()) return Status::Corruption("DELTA_BINARY_PACKED: truncated block");
    *b = static_cast<uint8_t>(in_[pos_++]);
    return Status::OK();
  }
  Status Take(size_t n, std::string_view* out) {
    if (n > in_.size() - pos_) return Status::Corruption("DELTA_BINARY_PACKED: truncated miniblock");
    *out = in_.substr(pos_, n);
    pos_ += n;
    return Status::OK();
  }

 private:
  std::string_view in_;
  size_t pos_ = 0;
};

// Decodes up to `want` values (all the header's values if want == SIZE_MAX);
// *consumed is the length of the encoded values (for the formats that follow them).
Status DecodeDeltaBinaryPacked(std::string_view in, size_t want, bool is32,
                               std::vector<int64_t>* out, size_t* consumed) {
  ByteCursor c(in);
  uint64_t block_size, minis, total;
  int64_t first = 0;
  LD_RETURN_IF_ERROR(c.Varint(&block_size));
  LD_RETURN_IF_ERROR(c.Varint(&minis));
  LD_RETURN_IF_ERROR(c.Varint(&total));
  LD_RETURN_IF_ERROR(c.ZigZag(&first));
  if (block_size == 0 || block_size % 128 != 0 || block_size > (1u << 20) || minis == 0 ||
      block_size % minis != 0 || (block_size / minis) % 32 != 0) {
    return Status::Corruption("DELTA_BINARY_PACKED: bad block header");
  }
  if (want == SIZE_MAX) want = total;
  if (total < want) return Status::Corruption("DELTA_BINARY_PACKED: fewer values than the page");
  // Every value after the first costs at least one bit in its miniblock, or
  // the miniblock header; bound the count by the input before allocating.
  if (want > 1 && (want - 1) / block_size > in.size()) {
    return Status::Corruption("DELTA_BINARY_PACKED: value count exceeds the data");
  }
  out->clear();
  out->reserve(want);
  const uint64_t per_mini = block_size / minis;
  uint64_t last = static_cast<uint64_t>(first);
  if (want > 0) out->push_back(is32 ? static_cast<int32_t>(last) : static_cast<int64_t>(last));
  // Values after the first still to read (as encoded, which bounds consumed).
  uint64_t remaining = total > 0 ? total - 1 : 0;
  std::vector<uint8_t> widths(minis);
  while (remaining > 0) {
    int64_t min_delta;
    LD_RETURN_IF_ERROR(c.ZigZag(&min_delta));
    for (auto& w : widths) LD_RETURN_IF_ERROR(c.Byte(&w));
    for (uint64_t m = 0; m < minis && remaining > 0; ++m) {
      const int w = widths[m];
      if (w > 64) return Status::Corruption("DELTA_BINARY_PACKED: bit width over 64");
      std::string_view bytes;
      LD_RETURN_IF_ERROR(c.Take(per_mini * static_cast<uint64_t>(w) / 8, &bytes));
      const uint64_t in_mini = remaining < per_mini ? remaining : per_mini;
      size_t bitpos = 0;
      for (uint64_t k = 0; k < in_mini; ++k) {
        uint64_t v = 0;
        for (int b = 0; b < w;) {  // reads up to 8 bits per step
          const size_t byte = bitpos >> 3;
          const int off = static_cast<int>(bitpos & 7);
          const int take = std::min(8 - off, w - b);
          const uint64_t bits = (static_cast<uint8_t>(bytes[byte]) >> off) & ((1u << take) - 1);
          v |= bits << b;
          b += take;
          bitpos += static_cast<size_t>(take);
        }
        last = last + static_cast<uint64_t>(min_delta) + v;
        if (out->size() < want) {
          out->push_back(is32 ? static_cast<int32_t>(static_cast<uint32_t>(last))
                              : static_cast<int64_t>(last));
        }
      }
      remaining -= in_mini;
    }
  }
  *consumed = c.pos();
  return Status::OK();
}

Status DecodeDeltaLengthByteArray(std::string_view in, size_t n, PhysicalValues* out,
                                  size_t* consumed) {
  std::vector<int64_t> lens;
  size_t used;
  LD_RETURN_IF_ERROR(DecodeDeltaBinaryPacked(in, n, true, &lens, &used));
  out->var.resize(n);
  size_t pos = used;
  for (size_t i = 0; i < n; ++i) {
    if (lens[i] < 0 || static_cast<uint64_t>(lens[i]) > in.size() - pos) {
      return Truncated("DELTA_LENGTH_BYTE_ARRAY");
    }
    out->var[i] = in.substr(pos, static_cast<size_t>(lens[i]));
    pos += static_cast<size_t>(lens[i]);
  }
  if (consumed != nullptr) *consumed = pos;
  return Status::OK();
}

Status DecodeDeltaByteArray(std::string_view in, size_t n, PhysicalValues* out) {
  std::vector<int64_t> prefixes;
  size_t used;
  LD_RETURN_IF_ERROR(DecodeDeltaBinaryPacked(in, n, true, &prefixes, &used));
  PhysicalValues suffixes;
  LD_RETURN_IF_ERROR(DecodeDeltaLengthByteArray(in.substr(used), n, &suffixes, nullptr));
  // Total size first, so that views into `owned` stay valid.
  uint64_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t prev = i == 0 ? 0 : static_cast<uint64_t>(prefixes[i - 1]) + suffixes.var[i - 1].size();
    if (prefixes[i] < 0 || static_cast<uint64_t>(prefixes[i]) > prev) {
      return Status::Corruption("DELTA_BYTE_ARRAY: prefix longer than the previous value");
    }
    total += static_cast<uint64_t>(prefixes[i]) + suffixes.var[i].size();
    if (total > (1ull << 28)) {
      return Status::Corruption("DELTA_BYTE_ARRAY: a page decodes to more than 256 MiB");
    }
  }
  out->owned.clear();
  out->owned.reserve(total);
  std::vector<size_t> starts(n);
  size_t prev_start = 0;
  for (size_t i = 0; i < n; ++i) {
    const size_t start = out->owned.size();
    out->owned.append(out->owned, prev_start, static_cast<size_t>(prefixes[i]));
    out->owned.append(suffixes.var[i]);
    starts[i] = start;
    prev_start = start;
  }
  out->var.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t end = i + 1 < n ? starts[i + 1] : out->owned.size();
    out->var[i] = std::string_view(out->owned).substr(starts[i], end - starts[i]);
  }
  return Status::OK();
}

Status DecodeByteStreamSplit(const LeafInfo& leaf, std::string_view d, size_t n,
                             PhysicalValues* out) {
  size_t w = PhysicalWidth(leaf.physical);
  if (leaf.physical == Type::kFixedLenByteArray) w = static_cast<size_t>(leaf.type_length);
  if (w == 0 || leaf.physical == Type::kBoolean || leaf.physical == Type::kByteArray ||
      leaf.physical == Type::kInt96) {
    return Status::Corruption("BYTE_STREAM_SPLIT used on a type it does not apply to");
  }
  if (n > d.size() / w) return Truncated("BYTE_STREAM_SPLIT");
  // Streams are d.size() / w long (the page's value count including nulls is not
  // known here; writers make them exactly n long).
  const size_t stream = d.size() / w;
  std::string& dst = leaf.physical == Type::kFixedLenByteArray ? out->owned : out->fixed;
  dst.resize(n * w);
  for (size_t b = 0; b < w; ++b) {
    const char* s = d.data() + b * stream;
    for (size_t i = 0; i < n; ++i) dst[i * w + b] = s[i];
  }
  if (leaf.physical == Type::kFixedLenByteArray) {
    out->var.resize(n);
    for (size_t i = 0; i < n; ++i) out->var[i] = std::string_view(out->owned).substr(i * w, w);
  }
  return Status::OK();
}

template <typename T>
T Load(const PhysicalValues& v, size_t i) {
  T x;
  std::memcpy(&x, v.data.data() + i * sizeof(T), sizeof(T));
  return x;
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

Status DecodeValuesInto(const LeafInfo& leaf, int32_t encoding, std::string_view data, size_t n,
                        PhysicalValues* out);

}  // namespace

size_t PhysicalWidth(Type t) {
  switch (t) {
    case Type::kBoolean: return 1;
    case Type::kInt32: return 4;
    case Type::kInt64: return 8;
    case Type::kInt96: return 12;
    case Type::kFloat: return 4;
    case Type::kDouble: return 8;
    default: return 0;
  }
}

Status DecodeValues(const LeafInfo& leaf, int32_t encoding, std::string_view data, size_t n,
                    PhysicalValues* out) {
  out->Clear();
  out->count = n;
  Status s = DecodeValuesInto(leaf, encoding, data, n, out);
  // Decoders that produce their values in `fixed` leave `data` empty.
  if (s.ok() && out->data.data() == nullptr) out->data = out->fixed;
  return s;
}

namespace {

Status DecodeValuesInto(const LeafInfo& leaf, int32_t encoding, std::string_view data, size_t n,
                        PhysicalValues* out) {
  switch (encoding) {
    case kValueEncPlain: return DecodePlain(leaf, data, n, out);
    case kValueEncRle: {
      if (leaf.physical != Type::kBoolean) {
        return Status::Corruption("RLE value encoding used on a non-boolean column");
      }
      if (data.size() < 4) return Truncated("RLE booleans");
      uint32_t len;
      std::memcpy(&len, data.data(), 4);
      if (len > data.size() - 4) return Truncated("RLE booleans");
      out->fixed.resize(n);
      RleDecoder dec(data.substr(4, len), 1);
      return dec.Get(n, reinterpret_cast<uint8_t*>(out->fixed.data()));
    }
    case kValueEncDeltaBinaryPacked: {
      if (leaf.physical != Type::kInt32 && leaf.physical != Type::kInt64) {
        return Status::Corruption("DELTA_BINARY_PACKED used on a non-integer column");
      }
      std::vector<int64_t> vals;
      size_t used;
      const bool is32 = leaf.physical == Type::kInt32;
      LD_RETURN_IF_ERROR(DecodeDeltaBinaryPacked(data, n, is32, &vals, &used));
      out->fixed.resize(n * (is32 ? 4 : 8));
      for (size_t i = 0; i < n; ++i) {
        if (is32) {
          const int32_t v = static_cast<int32_t>(vals[i]);
          std::memcpy(out->fixed.data() + i * 4, &v, 4);
        } else {
          std::memcpy(out->fixed.data() + i * 8, &vals[i], 8);
        }
      }
      return Status::OK();
    }
    case kValueEncDeltaLengthByteArray:
      if (leaf.physical != Type::kByteArray) {
        return Status::Corruption("DELTA_LENGTH_BYTE_ARRAY used on a non-BYTE_ARRAY column");
      }
      return DecodeDeltaLengthByteArray(data, n, out, nullptr);
    case kValueEncDeltaByteArray:
      if (leaf.physical != Type::kByteArray && leaf.physical != Type::kFixedLenByteArray) {
        return Status::Corruption("DELTA_BYTE_ARRAY used on a non-byte-array column");
      }
      return DecodeDeltaByteArray(data, n, out);
    case kValueEncByteStreamSplit: return DecodeByteStreamSplit(leaf, data, n, out);
    default:
      return Status::Unimplemented(fmt::format("parquet value encoding {} is not supported", encoding));
  }
}

}  // namespace

Status AppendConverted(const LeafInfo& leaf, const PhysicalValues& v, size_t i, ColumnVector* out) {
  switch (leaf.conv) {
    case Conv::kBool: out->Append<uint8_t>(static_cast<uint8_t>(v.data[i] != 0)); break;
    case Conv::kI32ToI8: out->Append<int8_t>(static_cast<int8_t>(Load<int32_t>(v, i))); break;
    case Conv::kI32ToI16: out->Append<int16_t>(static_cast<int16_t>(Load<int32_t>(v, i))); break;
    case Conv::kI32: out->Append<int32_t>(Load<int32_t>(v, i)); break;
    case Conv::kU32ToI64:
      out->Append<int64_t>(static_cast<int64_t>(static_cast<uint32_t>(Load<int32_t>(v, i))));
      break;
    case Conv::kI32ToDecimal: out->Append<int128_t>(static_cast<int128_t>(Load<int32_t>(v, i))); break;
    case Conv::kI32MillisToMicros:
      out->Append<int64_t>(static_cast<int64_t>(Load<int32_t>(v, i)) * 1000);
      break;
    case Conv::kI64: out->Append<int64_t>(Load<int64_t>(v, i)); break;
    case Conv::kI64ToDecimal: out->Append<int128_t>(static_cast<int128_t>(Load<int64_t>(v, i))); break;
    case Conv::kU64ToDecimal:
      out->Append<int128_t>(static_cast<int128_t>(static_cast<uint64_t>(Load<int64_t>(v, i))));
      break;
    case Conv::kI64MillisToMicros: {
      const int64_t ms = Load<int64_t>(v, i);
      int64_t us;
      if (__builtin_mul_overflow(ms, int64_t{1000}, &us)) {
        return Status::Corruption(fmt::format("timestamp of {} ms is out of range", ms));
      }
      out->Append<int64_t>(us);
      break;
    }
    case Conv::kI64NanosToMicros: out->Append<int64_t>(FloorDiv(Load<int64_t>(v, i), 1000)); break;
    case Conv::kInt96ToMicros: {
      int64_t nanos;
      uint32_t julian;
      std::memcpy(&nanos, v.data.data() + i * 12, 8);
      std::memcpy(&julian, v.data.data() + i * 12 + 8, 4);
      const int64_t days = static_cast<int64_t>(julian) - 2440588;  // 1970-01-01
      // Spark writes INT96 values past int64 microseconds; wrap as Arrow does instead of
      // overflowing (undefined behaviour) in signed arithmetic.
      out->Append<int64_t>(static_cast<int64_t>(static_cast<uint64_t>(days) * 86400000000ULL +
                                                static_cast<uint64_t>(FloorDiv(nanos, 1000))));
      break;
    }
    case Conv::kFloat: out->Append<float>(Load<float>(v, i)); break;
    case Conv::kDouble: out->Append<double>(Load<double>(v, i)); break;
    case Conv::kBytes: out->AppendBytes(v.var[i]); break;
    case Conv::kBytesToDecimal: {
      const std::string_view b = v.var[i];
      if (b.empty()) {
        out->Append<int128_t>(0);
        break;
      }
      const bool neg = static_cast<uint8_t>(b[0]) & 0x80;
      size_t skip = 0;
      if (b.size() > 16) {
        skip = b.size() - 16;
        for (size_t k = 0; k < skip; ++k) {
          if (static_cast<uint8_t>(b[k]) != (neg ? 0xff : 0x00)) {
            return Status::Corruption("decimal value wider than 16 bytes");
          }
        }
      }
      unsigned __int128 u = neg ? ~static_cast<unsigned __int128>(0) : 0;
      for (size_t k = skip; k < b.size(); ++k) u = (u << 8) | static_cast<uint8_t>(b[k]);
      out->Append<int128_t>(static_cast<int128_t>(u));
      break;
    }
    case Conv::kUuid: {
      if (v.var[i].size() != 16) return Status::Corruption("UUID value is not 16 bytes");
      Uuid u;
      std::memcpy(u.bytes, v.var[i].data(), 16);
      out->Append<Uuid>(u);
      break;
    }
  }
  return Status::OK();
}

void CopyRows(const ColumnVector& src, size_t begin, size_t n, ColumnVector* dst) {
  dst->AppendFrom(src, begin, n);
}

}  // namespace lakedump::parquet
