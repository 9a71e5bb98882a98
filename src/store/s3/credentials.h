// Credentials and the S3 settings resolved the way AWS tools do it: explicit
// options first, then the environment (AWS_ACCESS_KEY_ID, AWS_REGION,
// AWS_ENDPOINT_URL_S3...), then the profile (AWS_PROFILE, default "default") in
// ~/.aws/credentials and ~/.aws/config. Values; thread-safe to read.
// Secrets never appear in ToString() or in any error message.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "store/store_options.h"

namespace lakedump {

struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
  // Where they came from, for messages: "options", "environment (AWS_ACCESS_KEY_ID)",
  // "profile default in /root/.aws/credentials".
  std::string source;

  // "AKIA****MPLE from <source>": never the secret or the token.
  std::string ToString() const;
};

struct S3Config {
  Credentials credentials;
  std::string region;     // never empty (us-east-1 when nothing says otherwise)
  std::string endpoint;   // "" = AWS (https://s3.<region>.amazonaws.com)
  std::string profile;    // the profile consulted
  std::string ca_bundle;  // "" = the system's
  std::string addressing = "auto";  // "auto", "path" or "virtual"
};

// Returns the value of an environment variable, or nullopt. Tests pass a map.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
std::optional<std::string> SystemEnv(const std::string& name);

// Resolves credentials, region, endpoint and CA bundle. Missing credentials are
// InvalidArgument naming every place that was looked at.
Result<S3Config> ResolveS3Config(const S3Options& options, const EnvLookup& env = SystemEnv);

}  // namespace lakedump
