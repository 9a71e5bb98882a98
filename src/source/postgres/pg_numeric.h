// PostgreSQL's binary numeric (base-10000 digits) and its conversions:
// to an unscaled __int128 at a given scale (kDecimal), to the exact text
// numeric_out prints, and to double. Pure functions; thread-safe.
//
// Wire format (numeric_send): int16 ndigits, int16 weight, uint16 sign,
// int16 dscale, then ndigits int16 base-10000 digits, most significant first.
// value = sum(digit[i] * 10000^(weight - i)); trailing zero digits are not sent.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "table/types.h"

namespace lakedump {

enum class PgNumericKind : uint8_t { kFinite, kNaN, kPosInfinity, kNegInfinity };

struct PgNumericView {
  PgNumericKind kind = PgNumericKind::kFinite;
  bool negative = false;
  int weight = 0;
  int dscale = 0;
  int ndigits = 0;
  const uint8_t* digits = nullptr;  // ndigits big-endian int16 values, each 0..9999
  int Digit(int i) const { return (digits[2 * i] << 8) | digits[2 * i + 1]; }
};

// Parses the binary value; fails (Corruption) on a malformed buffer.
Status ParsePgNumeric(const uint8_t* data, size_t len, PgNumericView* out);

// The finite value times 10^scale as an integer of at most `precision` digits.
// Digits below the scale: rounded half away from zero when `round`, else an
// InvalidArgument error. Values with more than `precision` digits fail.
// REQUIRES: view.kind == kFinite, 0 <= scale <= precision <= 38.
Status PgNumericToDecimal(const PgNumericView& view, int precision, int scale, bool round,
                          int128_t* out);

// Exactly what PostgreSQL prints (numeric_out): "-12.300", "NaN", "Infinity".
void PgNumericToString(const PgNumericView& view, std::string* out);

// Nearest double (NaN and infinities map to themselves).
double PgNumericToDouble(const PgNumericView& view);

}  // namespace lakedump
