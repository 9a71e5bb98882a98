#include "format/parquet/statistics.h"

#include <cstdint>
#include <vector>

namespace lakedump::parquet {
namespace {

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

// Decodes the (valid) UTF-8 character starting at s[i]; returns its length.
size_t DecodeUtf8(std::string_view s, size_t i, uint32_t* cp) {
  const uint8_t b = static_cast<uint8_t>(s[i]);
  size_t len = b < 0x80 ? 1 : b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
  if (i + len > s.size()) len = s.size() - i;
  uint32_t v = len == 1 ? b : len == 2 ? (b & 0x1f) : len == 3 ? (b & 0x0f) : (b & 0x07);
  for (size_t k = 1; k < len; ++k) v = (v << 6) | (static_cast<uint8_t>(s[i + k]) & 0x3f);
  *cp = v;
  return len;
}

}  // namespace

size_t Utf8PrefixLength(std::string_view s, size_t limit) {
  if (s.size() <= limit) return s.size();
  size_t n = limit;
  // Back up over continuation bytes to the start of the character that s[n] belongs to.
  while (n > 0 && (static_cast<uint8_t>(s[n]) & 0xc0) == 0x80) --n;
  return n;
}

std::string TruncateMin(std::string_view v, size_t limit, bool utf8, bool* exact) {
  if (v.size() <= limit) {
    *exact = true;
    return std::string(v);
  }
  *exact = false;
  return std::string(v.substr(0, utf8 ? Utf8PrefixLength(v, limit) : limit));
}

std::optional<std::string> TruncateMax(std::string_view v, size_t limit, bool utf8, bool* exact) {
  if (v.size() <= limit) {
    *exact = true;
    return std::string(v);
  }
  *exact = false;
  if (!utf8) {
    std::string p(v.substr(0, limit));
    while (!p.empty() && static_cast<uint8_t>(p.back()) == 0xff) p.pop_back();
    if (p.empty()) return std::nullopt;
    p.back() = static_cast<char>(static_cast<uint8_t>(p.back()) + 1);
    return p;
  }
  const std::string_view prefix = v.substr(0, Utf8PrefixLength(v, limit));
  // Character starts of the prefix, so we can drop characters from the end.
  size_t i = 0;
  std::vector<size_t> starts;
  while (i < prefix.size()) {
    uint32_t cp;
    starts.push_back(i);
    i += DecodeUtf8(prefix, i, &cp);
  }
  for (size_t k = starts.size(); k-- > 0;) {
    uint32_t cp;
    DecodeUtf8(prefix, starts[k], &cp);
    if (cp >= 0x10ffff) continue;
    uint32_t next = cp + 1;
    if (next >= 0xd800 && next <= 0xdfff) next = 0xe000;
    std::string out(prefix.substr(0, starts[k]));
    AppendUtf8(next, &out);
    return out;
  }
  return std::nullopt;
}

}  // namespace lakedump::parquet
