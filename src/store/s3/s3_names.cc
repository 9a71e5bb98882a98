#include "store/s3/s3_names.h"

#include <string>

namespace lakedump {
namespace {

bool LowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// Four dot-separated groups of 1-3 digits: what S3 calls "formatted as an IP address".
bool LooksLikeIpv4(std::string_view s) {
  int groups = 0;
  size_t digits = 0;
  for (char c : s) {
    if (c >= '0' && c <= '9') {
      if (++digits > 3) return false;
    } else if (c == '.' && digits > 0) {
      ++groups;
      digits = 0;
    } else {
      return false;
    }
  }
  return digits > 0 && groups == 3;
}

// The rule `bucket` breaks, or "" when it follows them all.
std::string BrokenRule(std::string_view bucket) {
  if (bucket.size() < 3 || bucket.size() > 63) return "it must be 3 to 63 characters long";
  for (char c : bucket) {
    if (!LowerAlnum(c) && c != '.' && c != '-') {
      return "it may hold only lower-case letters, digits, '.' and '-'";
    }
  }
  if (!LowerAlnum(bucket.front()) || !LowerAlnum(bucket.back())) {
    return "it must begin and end with a letter or a digit";
  }
  if (bucket.find("..") != std::string_view::npos) return "it must not hold \"..\"";
  if (LooksLikeIpv4(bucket)) return "it must not be formatted as an IP address";
  for (std::string_view prefix : {"xn--", "sthree-", "amzn-s3-demo-"}) {
    if (bucket.starts_with(prefix)) {
      return "the prefix \"" + std::string(prefix) + "\" is reserved";
    }
  }
  for (std::string_view suffix : {"--x-s3", "--table-s3", ".mrap"}) {
    if (bucket.ends_with(suffix)) {
      return "the suffix \"" + std::string(suffix) +
             "\" names a directory bucket, a table bucket or a Multi-Region Access Point";
    }
  }
  return "";
}

}  // namespace

Status CheckBucketName(std::string_view bucket) {
  const std::string rule = BrokenRule(bucket);
  if (rule.empty()) return Status::OK();
  // The name is shown only when it is short and printable (it may be anything typed).
  bool printable = bucket.size() <= 80;
  for (char c : bucket) printable = printable && c >= 0x20 && c < 0x7f;
  return Status::InvalidArgument(
      "invalid S3 bucket name" + (printable ? " \"" + std::string(bucket) + "\"" : std::string()) +
      ": " + rule + " (S3 bucket naming rules)");
}

Status CheckEndpointUrl(std::string_view endpoint, std::string_view from) {
  if (endpoint.empty()) return Status::OK();
  std::string_view rest;
  if (endpoint.starts_with("https://")) {
    rest = endpoint.substr(8);
  } else if (endpoint.starts_with("http://")) {
    rest = endpoint.substr(7);
  } else {
    // Not echoed: an endpoint URL may carry user:password@.
    return Status::InvalidArgument(
        "S3 endpoint (" + std::string(from) +
        ") must start with http:// or https://, e.g. http://127.0.0.1:9000");
  }
  const std::string_view host = rest.substr(0, rest.find_first_of("/?#"));
  if (host.empty() || host.front() == ':') {
    return Status::InvalidArgument("S3 endpoint (" + std::string(from) + ") names no host");
  }
  return Status::OK();
}

}  // namespace lakedump
