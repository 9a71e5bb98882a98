// The profile in the shared config and credentials files (AwsConfigFiles), as awscli reads one:
//   1. role_arn (with source_profile or credential_source): hooks.assume_role (STS AssumeRole)
//   2. aws_access_key_id + aws_secret_access_key in the credentials file
//   3. credential_process (process_provider.h)
//   4. aws_access_key_id + aws_secret_access_key in the config file
//   5. sso_* settings (IAM Identity Center), none of the above: refused in one line that says
//      to run `aws sso login` and to add a credential_process that exports them
// Nothing of these: NotFound `profile "NAME" in CREDENTIALS_PATH and CONFIG_PATH`.
// What the profile holds is decided at the first Fetch; later ones (refreshes) ask the same.
// Thread-compatible.
#pragma once

#include <memory>
#include <string>

#include "store/s3/credentials/credential_chain.h"
#include "store/s3/credentials/credential_provider.h"

namespace lakedump {

// The provider of profile `profile` (not necessarily sources.profile: a role's source_profile).
std::unique_ptr<CredentialProvider> NewProfileProvider(const CredentialSources& sources,
                                                       std::string profile,
                                                       const CredentialChainHooks& hooks);

}  // namespace lakedump
