// The providers of static keys: those given in S3Options, and the environment's
// AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN). Static keys never expire,
// so the cache never refreshes them. Thread-compatible (as every provider).
#pragma once

#include <memory>
#include <string>

#include "store/s3/credentials.h"
#include "store/s3/credentials/credential_provider.h"
#include "store/store_options.h"

namespace lakedump {

// Always answers `credentials` (their `source` is the description).
std::unique_ptr<CredentialProvider> NewStaticProvider(Credentials credentials);

// S3Options' access_key_id / secret_access_key / session_token (the library's callers; the CLI
// has no flags for keys). NotFound "options" when both are empty; one without the other is
// InvalidArgument.
std::unique_ptr<CredentialProvider> NewOptionsProvider(const S3Options& options);

// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, read at each Fetch. NotFound
// "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY" when both are unset or empty; one without the other
// is InvalidArgument (as awscli's "partial credentials").
std::unique_ptr<CredentialProvider> NewEnvironmentProvider(EnvLookup env);

}  // namespace lakedump
