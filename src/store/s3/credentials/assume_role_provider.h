// Role profiles of the shared config files: a profile with role_arn gets its credentials from
// STS AssumeRole, signed by the credentials of its source:
//   source_profile = NAME     that profile's static keys, or its own role (chained: a -> b ->
//                             c; a cycle is refused), or what `base` makes of it (a profile
//                             with credential_process, from the profile provider);
//   credential_source = Environment | Ec2InstanceMetadata | EcsContainer
//                             AWS_ACCESS_KEY_ID/..., IMDSv2, the container endpoint;
//   web_identity_token_file   STS AssumeRoleWithWebIdentity instead (no source).
// with external_id, duration_seconds (900 to 43200), role_session_name (else
// "lakedump-<ms>") and the profile's sts_regional_endpoints. mfa_serial is refused with one
// line: a backup job cannot prompt for a code. As in the AWS SDKs, a source profile with both
// static keys and a role_arn lends its static keys.
//
// The profile provider (credential_chain) calls NewAssumeRoleProvider for a profile whose
// values have role_arn. Called from one thread at a time (CredentialProvider).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "store/s3/credentials/credential_provider.h"
#include "store/s3/credentials/remote_credentials.h"
#include "store/s3/credentials/sts_client.h"

namespace lakedump {

// One profile's keys ("role_arn", "source_profile"...), the credentials file's over the
// config file's.
using ProfileValues = std::map<std::string, std::string>;
// The values of the profile `name`, nullopt when neither file has it.
using ProfileLookup = std::function<std::optional<ProfileValues>(const std::string& name)>;
// The provider of a source profile that has neither static keys nor role_arn (e.g.
// credential_process); empty: such a profile is refused.
using BaseProfileProvider =
    std::function<Result<std::unique_ptr<CredentialProvider>>(const std::string& name)>;

// The profile has a role_arn: NewAssumeRoleProvider is the one to ask.
bool IsAssumeRoleProfile(const ProfileValues& values);

class AssumeRoleProvider final : public CredentialProvider {
 public:
  AssumeRoleProvider(std::string profile, AssumeRoleParams params,
                     std::unique_ptr<CredentialProvider> source, std::unique_ptr<StsClient> sts);

  // "profile dev, role arn:aws:iam::1:role/x (from profile base)"
  std::string Describe() const override;
  Result<ExpiringCredentials> Fetch(std::stop_token stop) override;

 private:
  const std::string profile_;
  const AssumeRoleParams params_;
  const std::unique_ptr<CredentialProvider> source_;
  const std::unique_ptr<StsClient> sts_;
};

// The provider of profile `profile` (which has role_arn), its sources built down to static
// keys, credential_source or `base`. A missing source profile, a cycle, mfa_serial, both or
// neither of source_profile and credential_source, an unknown credential_source, a bad
// duration_seconds or role_session_name: InvalidArgument naming the profile.
Result<std::unique_ptr<CredentialProvider>> NewAssumeRoleProvider(
    const std::string& profile, const ProfileLookup& lookup,
    const RemoteCredentialContext& context, const BaseProfileProvider& base = {});

}  // namespace lakedump
