// HttpTransport: sends one HTTP request and returns the response. The S3
// client signs, retries and interprets; the transport only moves bytes.
// Implementations are thread-safe: many requests may be sent at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace lakedump {

// Caps on a reply's body (a hostile or broken endpoint may send one that never ends): a 2xx
// reply's body beyond HttpRequest::max_body, or another reply's beyond kMaxErrorBody, fails the
// request (IOError naming it, not retried) as soon as the excess arrives.
inline constexpr uint64_t kMaxReplyBody = uint64_t{8} << 20;  // XML replies: listings, results
inline constexpr uint64_t kMaxErrorBody = uint64_t{64} << 10;  // <Error> documents

struct HttpRequest {
  std::string method;  // GET PUT POST DELETE HEAD
  std::string url;     // scheme://host[:port]/path?query, already encoded
  std::vector<std::pair<std::string, std::string>> headers;
  std::string_view body;  // borrowed: the caller keeps it alive until Send returns
  uint64_t max_body = kMaxReplyBody;  // of a 2xx reply; object reads set their range's size
  // The run is ending (SIGINT/SIGTERM) for a request that `stop` does not cancel (a lease's
  // removal, an upload's abort): sent once it fired, it has kHurryGrace to finish; in flight
  // when it fires, it ends at its next progress callback (within a second). Either way
  // Unavailable.
  std::stop_token hurry;
};
inline constexpr std::chrono::milliseconds kHurryGrace{500};

struct HttpResponse {
  long status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;

  // The first header with this (lower-case) name, or "".
  std::string Header(std::string_view name) const;
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  // A response for any HTTP status; a non-OK Status only for transport
  // failures (Unavailable when a retry may work: resets, timeouts, refused;
  // IOError otherwise, e.g. a bad certificate) and Cancelled when `stop` fired.
  virtual Result<HttpResponse> Send(const HttpRequest& request, std::stop_token stop = {}) = 0;
};

// No wall-clock cap on a request: a slow link must be able to finish a big
// part. A transfer is abandoned (Unavailable, so retried) when it moves fewer
// than min_rate bytes/s, in whichever direction is moving, averaged over
// min_rate_window; that also covers the wait for the reply.
struct CurlTransportOptions {
  std::string ca_bundle;  // "" = system default; verification is always on
  std::chrono::milliseconds connect_timeout{10000};  // TCP (and TLS) connect
  uint64_t min_rate = 1024;                          // bytes/s; 0 = no limit
  std::chrono::seconds min_rate_window{30};
};

// libcurl easy handles kept in a pool so that connections stay alive and are
// reused; DNS and TLS sessions are shared across handles.
std::unique_ptr<HttpTransport> NewCurlTransport(const CurlTransportOptions& options);

}  // namespace lakedump
