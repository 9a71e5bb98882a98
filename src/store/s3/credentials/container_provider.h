// Container credentials (ECS task roles, EKS Pod Identity, and any local credentials server):
// AWS_CONTAINER_CREDENTIALS_RELATIVE_URI (on http://169.254.170.2) or, when that is unset,
// AWS_CONTAINER_CREDENTIALS_FULL_URI, sent with the Authorization header from
// AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE (read again at every fetch: EKS rotates it) or else
// AWS_CONTAINER_AUTHORIZATION_TOKEN. The reply is the JSON credential document.
//
// Allowed endpoints are the AWS SDKs': https to any host; plain http only to a loopback address
// (127.0.0.0/8, ::1, localhost), the ECS host 169.254.170.2 or the EKS Pod Identity hosts
// 169.254.170.23 and fd00:ec2::23, written as such (a name other than localhost is not
// resolved to find out: over http it is refused). Messages name the endpoint's scheme and host
// only (ECS's relative URI identifies the task's credentials). Called from one thread at a
// time (CredentialProvider).
#pragma once

#include <memory>
#include <string>

#include "store/s3/credentials/credential_provider.h"
#include "store/s3/credentials/remote_credentials.h"

namespace lakedump {

struct ContainerConfig {
  std::string url;         // checked by CheckContainerUrl
  std::string token;       // "" = none (or the file below)
  std::string token_file;  // "" = none; wins over token
};

class ContainerProvider final : public CredentialProvider {
 public:
  ContainerProvider(ContainerConfig config, std::unique_ptr<HttpTransport> transport,
                    Clock* clock = &SystemClock());

  std::string Describe() const override;  // "container endpoint http://169.254.170.2"
  Result<ExpiringCredentials> Fetch(std::stop_token stop) override;

 private:
  Result<HttpResponse> Get(const std::string& authorization, std::stop_token stop);

  const ContainerConfig config_;
  const std::unique_ptr<HttpTransport> transport_;
  Clock* const clock_;
  std::string origin_;  // scheme://host[:port], for messages
};

// OK when the SDKs would call `url` (see above); InvalidArgument naming `from` otherwise.
Status CheckContainerUrl(const std::string& url, const std::string& from);

// The provider the environment asks for: NotFound when neither URI variable is set;
// InvalidArgument for a refused endpoint, a relative URI that does not start with '/', or a
// token with a line break.
Result<std::unique_ptr<CredentialProvider>> NewContainerProvider(
    const RemoteCredentialContext& context);

}  // namespace lakedump
