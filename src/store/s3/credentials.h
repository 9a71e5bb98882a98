// Credentials and the S3 settings resolved the way AWS tools do it: explicit
// options first, then the environment (AWS_ACCESS_KEY_ID, AWS_REGION,
// AWS_ENDPOINT_URL_S3...), then the profile (AWS_PROFILE, default "default") in
// ~/.aws/credentials and ~/.aws/config; credentials through the chain of
// store/s3/credentials/credential_chain.h. Values; thread-safe to read.
// Secrets never appear in ToString() or in any error message.
#pragma once

#include <functional>
#include <memory>
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

class CredentialCache;        // store/s3/credentials/credential_provider.h
struct CredentialChainHooks;  // store/s3/credentials/credential_chain.h

struct S3Config {
  // The credentials the chain found first (for messages; requests sign with the cache's).
  Credentials credentials;
  // Serves every request's credentials and refreshes them (null: `credentials`, static).
  // Shared: every client of a store (and the store's own second handles) signs with the one
  // cache, so that a refresh is done once for all of them.
  std::shared_ptr<CredentialCache> credential_cache;
  std::string region;     // never empty (us-east-1 when nothing says otherwise)
  std::string endpoint;   // "" = AWS (https://s3.<region>.amazonaws.com)
  std::string profile;    // the profile consulted
  std::string ca_bundle;  // "" = the system's
  std::string addressing = "auto";  // "auto", "path" or "virtual"
};

// Returns the value of an environment variable, or nullopt. Tests pass a map.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
std::optional<std::string> SystemEnv(const std::string& name);

// Process-wide: told the source of the credentials (Credentials::source, never a secret) each
// time ResolveS3Config has found them. The CLI's -v sets it before any store opens; empty: none.
// Thread-safe.
void SetCredentialsObserver(std::function<void(const std::string&)> observer);

// Resolves credentials (the chain of credential_chain.h, with `hooks`; null: the build's,
// RemoteCredentialHooks()), region, endpoint and CA bundle. Missing credentials are
// InvalidArgument naming every place that was looked at.
Result<S3Config> ResolveS3Config(const S3Options& options, const EnvLookup& env = SystemEnv,
                                 const CredentialChainHooks* hooks = nullptr);

}  // namespace lakedump
