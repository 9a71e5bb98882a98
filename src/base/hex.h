// Hexadecimal digits as they appear in URLs, SQLite blob literals and JSON \u escapes.
// Stateless; thread-safe.
#pragma once

namespace lakedump {

// The value of one hex digit (either case), or -1 when `c` is not one.
constexpr int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace lakedump
