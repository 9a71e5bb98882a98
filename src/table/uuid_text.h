// FormatUuid: a UUID's canonical text. Pure function; thread-safe.
#pragma once

#include <string>

#include "table/types.h"

namespace lakedump {

// Lower-case 8-4-4-4-12 hex: "550e8400-e29b-41d4-a716-446655440000".
inline std::string FormatUuid(const Uuid& u) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  s.reserve(36);
  for (int k = 0; k < 16; ++k) {
    if (k == 4 || k == 6 || k == 8 || k == 10) s.push_back('-');
    s.push_back(kHex[u.bytes[k] >> 4]);
    s.push_back(kHex[u.bytes[k] & 15]);
  }
  return s;
}

}  // namespace lakedump
