#include "store/open_store.h"

#include <cctype>
#include <string>

#include "base/hex.h"
#include "store/local/local_store.h"
#include "store/memory/memory_store.h"
#include "store/s3/s3_store.h"

namespace lakedump {
namespace {

constexpr std::string_view kSupported =
    "supported destinations: a folder path, file:///absolute/folder, s3://bucket/prefix, "
    "memory://name (tests)";

// The scheme of "scheme://rest" (RFC 3986 letters), or "" for a plain path.
std::string_view SchemeOf(std::string_view url) {
  const size_t colon = url.find("://");
  if (colon == std::string_view::npos || colon == 0) return {};
  if (!std::isalpha(static_cast<unsigned char>(url[0]))) return {};
  for (char c : url.substr(0, colon)) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') return {};
  }
  return url.substr(0, colon);
}


// Decodes %XX escapes in a file:// path.
Result<std::string> PercentDecode(std::string_view url, std::string_view path) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] != '%') {
      out += path[i];
      continue;
    }
    const int hi = i + 2 < path.size() ? HexDigitValue(path[i + 1]) : -1;
    const int lo = hi >= 0 ? HexDigitValue(path[i + 2]) : -1;
    if (lo < 0) return Status::InvalidArgument("bad %-escape in destination URL " + std::string(url));
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  if (out.find('\0') != std::string::npos) {
    return Status::InvalidArgument("destination URL " + std::string(url) + " decodes to a NUL byte");
  }
  return out;
}

Result<std::unique_ptr<ObjectStore>> OpenLocal(std::string path, const StoreOptions& options) {
  LD_ASSIGN_OR_RETURN(auto store, LocalStore::Open(std::move(path), nullptr,
                                                   options.local_deferred_sync));
  return std::unique_ptr<ObjectStore>(std::move(store));
}

}  // namespace

Result<std::unique_ptr<ObjectStore>> OpenStore(std::string_view url, const StoreOptions& options) {
  if (url.empty()) return Status::InvalidArgument(std::string("destination is empty; ") + std::string(kSupported));
  const std::string_view scheme = SchemeOf(url);
  std::string lower(scheme);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (scheme.empty()) {
    // "s3:/bucket" or "file:/dir" is a typo, not a folder named "s3:".
    for (std::string_view known : {"s3:", "file:", "memory:"}) {
      if (url.size() > known.size() && url.substr(0, known.size()) == known) {
        return Status::InvalidArgument("destination '" + std::string(known) +
                                       "...' is missing '//' after the scheme; " +
                                       std::string(kSupported));
      }
    }
    return OpenLocal(std::string(url), options);
  }
  const std::string_view rest = url.substr(scheme.size() + 3);
  if (lower == "file") {
    std::string_view path = rest;
    if (path.starts_with("localhost/")) path.remove_prefix(9);
    if (!path.starts_with("/")) {
      return Status::InvalidArgument(
          "file URL " + std::string(url) +
          " must name an absolute folder (file:///abs/folder); for a relative folder pass the "
          "plain path instead");
    }
    LD_ASSIGN_OR_RETURN(std::string decoded, PercentDecode(url, path));
    return OpenLocal(std::move(decoded), options);
  }
  if (lower == "memory") {
    if (rest.empty() || rest.find('/') != std::string_view::npos) {
      return Status::InvalidArgument("memory destination " + std::string(url) +
                                     " must be memory://<name> with a name and no '/'");
    }
    return std::unique_ptr<ObjectStore>(new SharedStoreRef(NamedMemoryStore(rest)));
  }
  if (lower == "s3") return OpenS3Store(url, options);
  // The URL itself is not echoed: it could carry credentials (user:password@).
  return Status::InvalidArgument("unsupported destination scheme '" + std::string(scheme) +
                                 "://'; " + std::string(kSupported));
}

}  // namespace lakedump
