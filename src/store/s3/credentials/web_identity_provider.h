// Web identity (EKS IRSA and other OIDC federations): AWS_WEB_IDENTITY_TOKEN_FILE and
// AWS_ROLE_ARN (+ AWS_ROLE_SESSION_NAME), or a profile's web_identity_token_file and role_arn,
// exchanged for role credentials with STS AssumeRoleWithWebIdentity. The token file is read
// again at every fetch: Kubernetes rotates it (hourly, or sooner), and a refresh must send the
// current one. Called from one thread at a time (CredentialProvider).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "store/s3/credentials/credential_provider.h"
#include "store/s3/credentials/remote_credentials.h"
#include "store/s3/credentials/sts_client.h"

namespace lakedump {

struct WebIdentityConfig {
  std::string token_file;
  std::string role_arn;
  std::string session_name;  // "" = DefaultSessionName()
  std::optional<int> duration_seconds;
  std::string token_variable = "AWS_WEB_IDENTITY_TOKEN_FILE";  // names the path in errors
};

class WebIdentityProvider final : public CredentialProvider {
 public:
  WebIdentityProvider(WebIdentityConfig config, std::unique_ptr<StsClient> sts,
                      Clock* clock = &SystemClock());

  std::string Describe() const override;  // "web identity, role arn:aws:iam::1:role/x"
  Result<ExpiringCredentials> Fetch(std::stop_token stop) override;

 private:
  const WebIdentityConfig config_;
  const std::unique_ptr<StsClient> sts_;
  AssumeRoleParams params_;
};

// The provider the environment asks for: NotFound when AWS_WEB_IDENTITY_TOKEN_FILE is unset;
// InvalidArgument when it is set without AWS_ROLE_ARN, or AWS_ROLE_SESSION_NAME is not a
// session name STS accepts, or the STS endpoint settings are wrong.
Result<std::unique_ptr<CredentialProvider>> NewWebIdentityProvider(
    const RemoteCredentialContext& context);

// The same from a profile's values (role_arn, web_identity_token_file, role_session_name,
// duration_seconds already checked by the caller) and its STS settings.
Result<std::unique_ptr<CredentialProvider>> NewWebIdentityProvider(
    WebIdentityConfig config, const RemoteCredentialContext& context,
    const std::string& profile_regional = "");

}  // namespace lakedump
