#include "store/object_key.h"

#include <string>

namespace lakedump {
namespace {

// Quotes a key for a message; NUL and control bytes are shown escaped.
std::string Quote(std::string_view key) {
  std::string out = "'";
  for (char c : key) {
    if (static_cast<unsigned char>(c) < 0x20) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[(c >> 4) & 0xf];
      out += kHex[c & 0xf];
    } else {
      out += c;
    }
  }
  return out + "'";
}

Status Invalid(std::string_view what, std::string_view key, std::string_view why) {
  return Status::InvalidArgument(std::string(what) + " " + Quote(key) + " " + std::string(why));
}

// Checks every segment; `allow_trailing_partial` lets the text after the last
// '/' be empty (a prefix ending with '/').
Status CheckSegments(std::string_view what, std::string_view key, bool is_prefix) {
  if (key.find('\0') != std::string_view::npos) return Invalid(what, key, "contains a NUL byte");
  if (!key.empty() && key.front() == '/') {
    return Invalid(what, key, "is absolute; keys are relative to the destination");
  }
  size_t start = 0;
  while (start <= key.size()) {
    size_t slash = key.find('/', start);
    const bool last = slash == std::string_view::npos;
    if (last) slash = key.size();
    std::string_view segment = key.substr(start, slash - start);
    if (segment.empty() && !(last && is_prefix)) {
      return Invalid(what, key, last ? "ends with '/'" : "has an empty segment ('//')");
    }
    if (segment == "..") return Invalid(what, key, "has a '..' segment");
    if (segment == "." && !(last && is_prefix)) return Invalid(what, key, "has a '.' segment");
    start = slash + 1;
  }
  return Status::OK();
}

}  // namespace

Status ValidateObjectKey(std::string_view key) {
  if (key.empty()) return Status::InvalidArgument("object key is empty");
  return CheckSegments("object key", key, /*is_prefix=*/false);
}

Status ValidateKeyPrefix(std::string_view prefix) {
  if (prefix.empty()) return Status::OK();
  return CheckSegments("key prefix", prefix, /*is_prefix=*/true);
}

}  // namespace lakedump
