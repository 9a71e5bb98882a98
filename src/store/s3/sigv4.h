// AWS Signature Version 4 (header form) for S3 requests: canonical request,
// string to sign, signing key, Authorization header. Plus the hashing helpers
// the S3 client needs (SHA-256 hex, MD5 base64). Stateless; thread-safe.
#pragma once

#include "base/md5.h"
#include "base/sha256.h"

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/s3/credentials.h"

namespace lakedump {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

inline constexpr std::string_view kUnsignedPayload = "UNSIGNED-PAYLOAD";

// RFC 3986 percent-encoding as S3 wants it: every byte except A-Z a-z 0-9 - . _ ~
// is encoded as %XX (upper-case hex); '/' is kept when encode_slash is false.
std::string UriEncode(std::string_view text, bool encode_slash);

// "a=1&b=" with names and values URI-encoded and pairs sorted by encoded name
// (then value), as both the canonical request and the wire query use it.
std::string CanonicalQueryString(std::vector<std::pair<std::string, std::string>> params);

// Hex SHA-256 of data (lower case): Sha256Hex of base/sha256.h.
// Md5Base64 (Content-MD5) and Md5Hex (a simple PUT's ETag): base/md5.h.

// "20130524T000000Z".
std::string AmzDate(std::chrono::system_clock::time_point time);

// What is signed. canonical_uri is already URI-encoded (keys with
// UriEncode(key, false)); canonical_query comes from CanonicalQueryString.
struct SigningRequest {
  std::string method;
  std::string canonical_uri;
  std::string canonical_query;
  HeaderList headers;        // must include "host"; names in any case
  std::string payload_hash;  // hex SHA-256 or UNSIGNED-PAYLOAD
};

// The pieces, exposed for tests against published vectors.
std::string CanonicalRequest(const SigningRequest& request, std::string* signed_headers);
std::string StringToSign(std::string_view amz_date, std::string_view scope,
                         std::string_view canonical_request);
std::string Signature(std::string_view secret_key, std::string_view date, std::string_view region,
                      std::string_view service, std::string_view string_to_sign);

// Adds x-amz-date, x-amz-security-token (when the credentials have one) and
// Authorization to request->headers. The caller adds x-amz-content-sha256 for S3.
void SignRequest(SigningRequest* request, const Credentials& credentials, std::string_view region,
                 std::string_view service, std::chrono::system_clock::time_point time);

}  // namespace lakedump
