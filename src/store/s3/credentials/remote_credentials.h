// What the providers that fetch credentials over HTTP share (web identity and role profiles
// through STS, the container endpoint, instance metadata): the run's environment and region,
// how they make their HTTP transport, the caps on what they read, and the parsing of the JSON
// credential document that the container endpoint and IMDS both serve. Values and pure
// functions; thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/status.h"
#include "store/s3/credentials.h"
#include "store/s3/credentials/credential_provider.h"
#include "store/s3/http_transport.h"

namespace lakedump {

// A reply that carries credentials is a few KB: anything beyond this is refused (a hostile or
// broken endpoint may send one that never ends).
inline constexpr uint64_t kMaxCredentialReply = uint64_t{64} << 10;
// A token file (a web identity JWT, a container authorization token) beyond this is refused.
inline constexpr uint64_t kMaxTokenFile = uint64_t{64} << 10;

using TransportFactory =
    std::function<std::unique_ptr<HttpTransport>(const CurlTransportOptions& options)>;

struct RemoteCredentialContext {
  EnvLookup env = SystemEnv;
  std::string region;     // the run's region: STS's regional endpoint and signing region
  std::string ca_bundle;  // for https endpoints (STS, a container FULL_URI); "" = the system's
  Clock* clock = &SystemClock();  // borrowed: backoff sleeps, token lifetimes, session names
  // Makes a provider's HTTP transport from the options it wants (IMDS: a short connect
  // timeout). Empty: NewCurlTransport. Tests hand out fakes.
  TransportFactory new_transport;

  std::unique_ptr<HttpTransport> NewTransport(CurlTransportOptions options) const;
  std::string Env(const std::string& name) const;  // "" when unset
};

// The document of the container endpoint and of IMDS: {"AccessKeyId", "SecretAccessKey",
// "Token", "Expiration"} (IMDS adds "Code": "Success"). `what` names the endpoint for errors
// ("container endpoint http://169.254.170.2/v2/credentials"); errors never quote the body
// (it may hold a secret).
Result<ExpiringCredentials> ParseCredentialDocument(std::string_view body, std::string_view what);

// The contents of a token file, trimmed of surrounding blanks and line ends: `variable` names
// where the path came from. Missing, unreadable, empty, over kMaxTokenFile or holding a line
// break inside: InvalidArgument naming the variable and the path, never the contents.
Result<std::string> ReadTokenFile(const std::string& path, std::string_view variable);

// Text from a server made fit for one line of an error: control characters become blanks,
// every occurrence of each secret of at least kMinScrubbed characters is replaced by "***"
// (real keys and tokens are longer; shorter ones would mangle words), at most 200 characters.
inline constexpr size_t kMinScrubbed = 8;
std::string OneLine(std::string_view text, std::initializer_list<std::string_view> secrets = {});

// "scheme://host[:port]/path" of a URL: its user info and query (which may carry a secret)
// left out.
std::string UrlForMessages(std::string_view url);

}  // namespace lakedump
