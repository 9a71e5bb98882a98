// MD5 digests as object stores use them: an S3 object's ETag (written in one PUT) and the
// Content-MD5 header. Not for security. Stateless functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace lakedump {

// Hex MD5 of data (lower case): a simple PUT's ETag, without its quotes.
std::string Md5Hex(std::string_view data);
// Base64 of the binary MD5 of data (the Content-MD5 header value).
std::string Md5Base64(std::string_view data);

}  // namespace lakedump
