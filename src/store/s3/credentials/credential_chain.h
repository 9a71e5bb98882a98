// The AWS credential chain (docs/s3.md, "Credentials"): the providers in the order the AWS
// SDKs try them; the first that applies wins and feeds the run's CredentialCache.
//
//   1. options (S3Options keys), then the environment (AWS_ACCESS_KEY_ID, ...)
//   2. web identity (AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN)          [hooks.web_identity]
//   3. the profile in the shared config and credentials files: role_arn  [hooks.assume_role],
//      static keys, credential_process; sso_* refused
//   4. the container endpoint (AWS_CONTAINER_CREDENTIALS_*_URI)          [hooks.container]
//   5. instance metadata (IMDSv2)                                         [hooks.instance_metadata]
//
// With an explicit profile (--profile), the profile comes right after the options, before the
// environment's keys (as awscli, which then ignores them; lakedump still falls back to them when
// the profile has none).
//
// The HTTP providers (2, 4, 5, and role_arn profiles) are built by the factories of
// CredentialChainHooks: RemoteCredentialHooks() (remote_credential_hooks.cc) returns the ones
// this build has; a slot left empty is not part of the chain. Tests pass their own hooks.
//
// Values and functions; thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "store/s3/credentials.h"
#include "store/s3/credentials/aws_config_files.h"
#include "store/s3/credentials/credential_provider.h"
#include "store/store_options.h"

namespace lakedump {

// What the providers read to decide whether they apply and how to fetch.
struct CredentialSources {
  S3Options options;
  EnvLookup env = SystemEnv;
  std::string profile = "default";  // the profile in use (--profile, AWS_PROFILE, "default")
  bool profile_explicit = false;    // given with --profile
  // Shared: providers built from a profile (a role_arn chain, credential_process) keep reading
  // it when they refresh, after the chain that built them is gone.
  std::shared_ptr<const AwsConfigFiles> files;
  std::string region;     // resolved as for S3 (never empty): STS's regional endpoint
  std::string ca_bundle;  // "" = the system's: for HTTPS providers (STS)
  Clock* clock = &SystemClock();
  // How long a credential_process may run (process_provider.h).
  std::chrono::milliseconds process_timeout{60000};
};

// A factory of one provider of the chain. It returns the provider whatever the environment
// says; the provider's Fetch answers NotFound (naming where it looked) when it does not apply.
using CredentialProviderFactory =
    std::function<std::unique_ptr<CredentialProvider>(const CredentialSources&)>;

struct CredentialChainHooks;

// The provider for a profile with role_arn (its source_profile or credential_source, STS
// AssumeRole). `profile` names the profile that has role_arn; `hooks` are the chain's, for a
// credential_source naming the container or instance metadata. An error is one line naming the
// profile (mfa_serial refused, a source_profile loop...).
using AssumeRoleFactory = std::function<Result<std::unique_ptr<CredentialProvider>>(
    const CredentialSources& sources, const std::string& profile,
    const CredentialChainHooks& hooks)>;

struct CredentialChainHooks {
  CredentialProviderFactory web_identity;       // 2: web_identity_provider.h
  AssumeRoleFactory assume_role;                // 3: role_arn profiles
  CredentialProviderFactory container;          // 4: container_provider.h
  CredentialProviderFactory instance_metadata;  // 5: imds_provider.h
};

// The HTTP providers this build has (remote_credential_hooks.cc).
CredentialChainHooks RemoteCredentialHooks();

// The chain's providers, in order (see the top of this file).
std::vector<std::unique_ptr<CredentialProvider>> BuildCredentialChain(
    const CredentialSources& sources, const CredentialChainHooks& hooks);

// Tries `chain` in order: the first provider whose Fetch does not answer NotFound wins, and
// its credentials start the cache. Another error of a provider stops the chain with it. None:
// InvalidArgument, one line naming every place looked at (each NotFound's message).
Result<std::shared_ptr<CredentialCache>> ResolveCredentialChain(
    std::vector<std::unique_ptr<CredentialProvider>> chain, Clock* clock,
    std::stop_token stop = {});

}  // namespace lakedump
