#include "store/s3/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>
#include <ctime>

#include "base/ascii.h"

namespace lakedump {
namespace {

constexpr char kHex[] = "0123456789abcdef";

std::string HexEncode(const unsigned char* data, size_t size) {
  std::string out(size * 2, '\0');
  for (size_t i = 0; i < size; ++i) {
    out[2 * i] = kHex[data[i] >> 4];
    out[2 * i + 1] = kHex[data[i] & 0xf];
  }
  return out;
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  return std::string(reinterpret_cast<char*>(out), len);
}

// Trims and collapses runs of spaces, as the canonical header form requires.
std::string CanonicalValue(std::string_view v) {
  std::string out;
  bool space = false;
  for (char c : v) {
    if (c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::string UriEncode(std::string_view text, bool encode_slash) {
  static constexpr char kUpperHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size() * 3 / 2);
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' ||
        (c == '/' && !encode_slash)) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kUpperHex[c >> 4]);
      out.push_back(kUpperHex[c & 0xf]);
    }
  }
  return out;
}

std::string CanonicalQueryString(std::vector<std::pair<std::string, std::string>> params) {
  for (auto& [name, value] : params) {
    name = UriEncode(name, true);
    value = UriEncode(value, true);
  }
  std::sort(params.begin(), params.end());
  std::string out;
  for (const auto& [name, value] : params) {
    if (!out.empty()) out.push_back('&');
    out += name;
    out.push_back('=');
    out += value;
  }
  return out;
}

std::string AmzDate(std::chrono::system_clock::time_point time) {
  std::time_t t = std::chrono::system_clock::to_time_t(time);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

std::string CanonicalRequest(const SigningRequest& request, std::string* signed_headers) {
  std::vector<std::pair<std::string, std::string>> headers;
  headers.reserve(request.headers.size());
  for (const auto& [name, value] : request.headers) {
    headers.emplace_back(AsciiLower(name), CanonicalValue(value));
  }
  std::stable_sort(headers.begin(), headers.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string canonical_headers;
  signed_headers->clear();
  for (size_t i = 0; i < headers.size(); ++i) {
    if (i > 0 && headers[i].first == headers[i - 1].first) {
      canonical_headers.pop_back();  // the '\n': repeated names join with ','
      canonical_headers += "," + headers[i].second + "\n";
      continue;
    }
    canonical_headers += headers[i].first + ":" + headers[i].second + "\n";
    if (!signed_headers->empty()) signed_headers->push_back(';');
    *signed_headers += headers[i].first;
  }
  std::string out;
  out.reserve(256 + canonical_headers.size());
  out += request.method + "\n";
  out += request.canonical_uri.empty() ? "/" : request.canonical_uri;
  out += "\n" + request.canonical_query + "\n";
  out += canonical_headers + "\n";
  out += *signed_headers + "\n";
  out += request.payload_hash;
  return out;
}

std::string StringToSign(std::string_view amz_date, std::string_view scope,
                         std::string_view canonical_request) {
  std::string out = "AWS4-HMAC-SHA256\n";
  out += amz_date;
  out += "\n";
  out += scope;
  out += "\n";
  out += Sha256Hex(canonical_request);
  return out;
}

std::string Signature(std::string_view secret_key, std::string_view date, std::string_view region,
                      std::string_view service, std::string_view string_to_sign) {
  std::string key = HmacSha256("AWS4" + std::string(secret_key), date);
  key = HmacSha256(key, region);
  key = HmacSha256(key, service);
  key = HmacSha256(key, "aws4_request");
  std::string sig = HmacSha256(key, string_to_sign);
  return HexEncode(reinterpret_cast<const unsigned char*>(sig.data()), sig.size());
}

void SignRequest(SigningRequest* request, const Credentials& credentials, std::string_view region,
                 std::string_view service, std::chrono::system_clock::time_point time) {
  const std::string amz_date = AmzDate(time);
  const std::string date = amz_date.substr(0, 8);
  request->headers.emplace_back("x-amz-date", amz_date);
  if (!credentials.session_token.empty()) {
    request->headers.emplace_back("x-amz-security-token", credentials.session_token);
  }
  std::string scope =
      date + "/" + std::string(region) + "/" + std::string(service) + "/aws4_request";
  std::string signed_headers;
  std::string canonical = CanonicalRequest(*request, &signed_headers);
  std::string signature = Signature(credentials.secret_access_key, date, region, service,
                                    StringToSign(amz_date, scope, canonical));
  request->headers.emplace_back(
      "Authorization", "AWS4-HMAC-SHA256 Credential=" + credentials.access_key_id + "/" + scope +
                           ", SignedHeaders=" + signed_headers + ", Signature=" + signature);
}

}  // namespace lakedump
