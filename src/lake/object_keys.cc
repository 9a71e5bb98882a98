#include "lake/object_keys.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <random>

namespace lakedump {
namespace {

constexpr size_t kMaxComponentBytes = 200;

// Length of the valid UTF-8 sequence starting at s[i], or 0 when invalid.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t n = 0;
  uint32_t cp = 0;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) { n = 2; cp = c & 0x1F; }
  else if ((c & 0xF0) == 0xE0) { n = 3; cp = c & 0x0F; }
  else if ((c & 0xF8) == 0xF0) { n = 4; cp = c & 0x07; }
  else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are invalid.
  if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000)) return 0;
  if (cp >= 0xD800 && cp <= 0xDFFF) return 0;
  if (cp > 0x10FFFF) return 0;
  return n;
}

bool HiveEscapes(unsigned char c) {
  if (c < 0x20 || c == 0x7F) return true;
  switch (c) {
    case '"': case '#': case '%': case '\'': case '*': case '/': case ':': case '=':
    case '?': case '\\': case '[': case ']': case '^': case '{': case '}':
      return true;
    default:
      return false;
  }
}

void AppendPercent(std::string* out, unsigned char c) { *out += fmt::format("%{:02X}", c); }

std::string EscapeWith(std::string_view name, bool escape_leading_dot) {
  std::string out;
  out.reserve(name.size() + 8);
  for (size_t i = 0; i < name.size();) {
    const size_t n = Utf8SequenceLength(name, i);
    if (n == 0) {  // not UTF-8: keep the byte, encoded
      AppendPercent(&out, static_cast<unsigned char>(name[i]));
      ++i;
      continue;
    }
    if (n == 1) {
      const auto c = static_cast<unsigned char>(name[i]);
      if (HiveEscapes(c) || (escape_leading_dot && i == 0 && c == '.')) {
        AppendPercent(&out, c);
      } else {
        out += static_cast<char>(c);
      }
    } else {
      out.append(name.substr(i, n));
    }
    i += n;
  }
  return out;
}

// An escaped segment longer than kMaxComponentBytes is cut and suffixed with the hash of the
// whole: local file systems refuse names over 255 bytes, and the real value is in the metadata.
std::string ShortenSegment(std::string out) {
  if (out.size() <= kMaxComponentBytes) return out;
  const uint64_t hash = XXH64(out.data(), out.size(), 0);
  size_t cut = kMaxComponentBytes - 17;
  // Never cut inside a UTF-8 sequence or a %XX escape.
  while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
  if (cut >= 1 && out[cut - 1] == '%') cut -= 1;
  else if (cut >= 2 && out[cut - 2] == '%') cut -= 2;
  return out.substr(0, cut) + fmt::format("~{:016x}", hash);
}

}  // namespace

std::string EscapeKeyComponent(std::string_view name) {
  if (name.empty()) return "%";
  return ShortenSegment(EscapeWith(name, /*escape_leading_dot=*/true));
}

std::string UnescapeKeyComponent(std::string_view component) {
  if (component == "%") return "";
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < component.size(); ++i) {
    if (component[i] == '%' && i + 2 < component.size() &&
        hex(component[i + 1]) >= 0 && hex(component[i + 2]) >= 0) {
      out += static_cast<char>(hex(component[i + 1]) * 16 + hex(component[i + 2]));
      i += 2;
    } else {
      out += component[i];
    }
  }
  return out;
}

std::string EscapeHivePartitionValue(std::string_view value) {
  if (value.empty()) return std::string(kHiveNullPartition);
  return EscapeWith(value, /*escape_leading_dot=*/false);
}

std::string TablePrefix(const TableRef& table) {
  return EscapeKeyComponent(table.schema) + "/" + EscapeKeyComponent(table.name) + "/";
}

std::string TableManifestKey(const TableRef& table) {
  return TablePrefix(table) + std::string(kTableFileName);
}

std::string DataFileKey(const TableRef& table, std::string_view partition, int unit, int seq,
                        std::string_view run_id) {
  std::string key = TablePrefix(table);
  if (!partition.empty()) {
    key += ShortenSegment(std::string(partition));
    key += '/';
  }
  key += fmt::format("part-{:04}-{:05}-{}.parquet", unit, seq, run_id);
  return key;
}

std::string NewRunId() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::random_device rd;
  const uint32_t rnd = rd();
  return fmt::format("{:04}{:02}{:02}T{:02}{:02}{:02}Z-{:08x}", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, rnd);
}

bool IsRunId(std::string_view text) {
  // 8 digits, 'T', 6 digits, "Z-", 8 lower-case hex digits.
  if (text.size() != 25 || text[8] != 'T' || text.substr(15, 2) != "Z-") return false;
  auto digits = [](std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  const std::string_view hex = text.substr(17);
  return digits(text.substr(0, 8)) && digits(text.substr(9, 6)) &&
         std::all_of(hex.begin(), hex.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace lakedump
