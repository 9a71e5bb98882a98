#include "source/postgres/pg_numeric.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>


namespace lakedump {
namespace {

constexpr uint16_t kPos = 0x0000, kNeg = 0x4000, kNaN = 0xC000, kPInf = 0xD000, kNInf = 0xF000;

// 10^0..10^38, computed once (temporal.h's Pow10 loops; this is per value).
struct Pow10Table {
  int128_t v[kMaxDecimalPrecision + 1];
  constexpr Pow10Table() : v() {
    v[0] = 1;
    for (int i = 1; i <= kMaxDecimalPrecision; ++i) v[i] = v[i - 1] * 10;
  }
};
constexpr Pow10Table kPow10;
inline int128_t P10(int n) { return kPow10.v[n]; }

inline int ReadI16(const uint8_t* p) { return static_cast<int16_t>((p[0] << 8) | p[1]); }

}  // namespace

Status ParsePgNumeric(const uint8_t* data, size_t len, PgNumericView* out) {
  if (len < 8) return Status::Corruption(fmt::format("numeric value of {} bytes", len));
  const int ndigits = ReadI16(data);
  const uint16_t sign = static_cast<uint16_t>((data[4] << 8) | data[5]);
  if (ndigits < 0 || len != 8 + 2 * static_cast<size_t>(ndigits)) {
    return Status::Corruption(fmt::format("numeric value of {} bytes with {} digits", len, ndigits));
  }
  *out = PgNumericView{};
  out->weight = ReadI16(data + 2);
  out->dscale = ReadI16(data + 6);
  out->ndigits = ndigits;
  out->digits = data + 8;
  switch (sign) {
    case kPos: break;
    case kNeg: out->negative = true; break;
    case kNaN: out->kind = PgNumericKind::kNaN; return Status::OK();
    case kPInf: out->kind = PgNumericKind::kPosInfinity; return Status::OK();
    case kNInf: out->kind = PgNumericKind::kNegInfinity; return Status::OK();
    default: return Status::Corruption(fmt::format("numeric sign 0x{:04x}", sign));
  }
  for (int i = 0; i < ndigits; ++i) {
    if (out->Digit(i) > 9999) return Status::Corruption("numeric digit above 9999");
  }
  return Status::OK();
}

Status PgNumericToDecimal(const PgNumericView& v, int precision, int scale, bool round,
                          int128_t* out) {
  // Horner over the digits down to the one holding 10^-scale. With all n
  // digits, acc would be the value times 10000^(n - 1 - weight); 10^e more
  // gives the unscaled value. A negative e cuts into the last digit, which is
  // then split before it is added, so that acc never holds surplus digits.
  const int frac_groups = (scale + 3) / 4;
  const int n = std::min(v.ndigits, v.weight + 1 + frac_groups);
  const auto overflow = [&] {
    return Status::InvalidArgument(fmt::format("does not fit decimal({},{})", precision, scale));
  };
  int128_t acc = 0;
  int first_dropped = 0;  // the decimal digit just below 10^-scale, for rounding
  bool lost = false;      // any nonzero digit below 10^-scale
  if (n <= 0) {
    if (v.ndigits > 0) {
      lost = true;
      if (scale % 4 == 0 && v.weight == -1 - scale / 4) first_dropped = v.Digit(0) / 1000;
    }
  } else {
    for (int i = 0; i + 1 < n; ++i) {
      if (__builtin_mul_overflow(acc, static_cast<int128_t>(10000), &acc) ||
          __builtin_add_overflow(acc, static_cast<int128_t>(v.Digit(i)), &acc)) {
        return overflow();
      }
    }
    const int last = v.Digit(n - 1);
    const int e = scale - 4 * (n - 1 - v.weight);
    if (e >= 0) {
      if (__builtin_mul_overflow(acc, static_cast<int128_t>(10000), &acc) ||
          __builtin_add_overflow(acc, static_cast<int128_t>(last), &acc) ||
          e > kMaxDecimalPrecision || __builtin_mul_overflow(acc, P10(e), &acc)) {
        return overflow();
      }
      if (n < v.ndigits) {  // only when e == 0: whole digits below the scale
        first_dropped = v.Digit(n) / 1000;
        lost = true;
      }
    } else {  // -4 < e < 0
      const int div = static_cast<int>(P10(-e));
      if (__builtin_mul_overflow(acc, P10(4 + e), &acc) ||
          __builtin_add_overflow(acc, static_cast<int128_t>(last / div), &acc)) {
        return overflow();
      }
      const int rem = last % div;
      first_dropped = rem / static_cast<int>(P10(-e - 1));
      lost = rem != 0 || n < v.ndigits;
    }
  }
  if (lost) {
    if (!round) {
      return Status::InvalidArgument(
          fmt::format("has more than {} fraction digits (scale {})", scale, scale));
    }
    if (first_dropped >= 5) ++acc;
  }
  if (acc >= P10(precision)) return overflow();
  *out = v.negative ? -acc : acc;
  return Status::OK();
}

void PgNumericToString(const PgNumericView& v, std::string* out) {
  out->clear();
  switch (v.kind) {
    case PgNumericKind::kNaN: *out = "NaN"; return;
    case PgNumericKind::kPosInfinity: *out = "Infinity"; return;
    case PgNumericKind::kNegInfinity: *out = "-Infinity"; return;
    case PgNumericKind::kFinite: break;
  }
  auto digit = [&](int i) { return i >= 0 && i < v.ndigits ? v.Digit(i) : 0; };
  if (v.negative) out->push_back('-');
  if (v.weight < 0) {
    out->push_back('0');
  } else {
    for (int i = 0; i <= v.weight; ++i) {
      const int d = digit(i);
      if (i == 0) {
        fmt::format_to(std::back_inserter(*out), "{}", d);
      } else {
        fmt::format_to(std::back_inserter(*out), "{:04}", d);
      }
    }
  }
  if (v.dscale > 0) {
    out->push_back('.');
    int written = 0;
    for (int i = v.weight + 1; written < v.dscale; ++i) {
      const int d = digit(i);
      const char group[4] = {static_cast<char>('0' + d / 1000), static_cast<char>('0' + d / 100 % 10),
                             static_cast<char>('0' + d / 10 % 10), static_cast<char>('0' + d % 10)};
      for (int j = 0; j < 4 && written < v.dscale; ++j, ++written) out->push_back(group[j]);
    }
  }
}

double PgNumericToDouble(const PgNumericView& v) {
  switch (v.kind) {
    case PgNumericKind::kNaN: return std::numeric_limits<double>::quiet_NaN();
    case PgNumericKind::kPosInfinity: return std::numeric_limits<double>::infinity();
    case PgNumericKind::kNegInfinity: return -std::numeric_limits<double>::infinity();
    case PgNumericKind::kFinite: break;
  }
  std::string text;
  PgNumericToString(v, &text);
  double d = 0;
  std::from_chars(text.data(), text.data() + text.size(), d);  // correctly rounded
  return d;
}

}  // namespace lakedump
