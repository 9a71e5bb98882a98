// Instance metadata (EC2 instance roles) over IMDSv2 only: a PUT of /latest/api/token with
// X-aws-ec2-metadata-token-ttl-seconds, then, with X-aws-ec2-metadata-token, the role's name
// (/latest/meta-data/iam/security-credentials/) and its JSON credential document. The session
// token is kept until a minute before its TTL and fetched again after a 401.
//
// Where there is no IMDS (a laptop, a CI runner) the provider must cost nothing: a 1 s connect
// timeout, transfers abandoned when they stall for a second, and at most one retry, only after
// a failure that came fast (refused, reset), never after a timeout. Unreachable, disabled
// (AWS_EC2_METADATA_DISABLED=true), without IMDSv2 or without a role: NotFound, so that the
// chain ends with "no credentials found". AWS_EC2_METADATA_SERVICE_ENDPOINT overrides the
// endpoint (AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE=IPv6: http://[fd00:ec2::254]). Called from
// one thread at a time (CredentialProvider).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "store/s3/credentials/credential_provider.h"
#include "store/s3/credentials/remote_credentials.h"

namespace lakedump {

inline constexpr std::chrono::milliseconds kImdsConnectTimeout{1000};
inline constexpr std::chrono::seconds kImdsTokenTtl{21600};

class ImdsProvider final : public CredentialProvider {
 public:
  ImdsProvider(std::string endpoint, std::unique_ptr<HttpTransport> transport,
               Clock* clock = &SystemClock());

  // "instance metadata (IMDSv2)", with ", role NAME" once the role is known.
  std::string Describe() const override;
  Result<ExpiringCredentials> Fetch(std::stop_token stop) override;

 private:
  Result<HttpResponse> Send(const std::string& method, const std::string& path,
                            std::stop_token stop);
  Status RefreshToken(std::stop_token stop);
  // GET `path` with the session token (a new one after a 401).
  Result<HttpResponse> GetWithToken(const std::string& path, std::stop_token stop);

  const std::string endpoint_;
  const std::unique_ptr<HttpTransport> transport_;
  Clock* const clock_;
  std::string token_;
  Clock::TimePoint token_expiry_{};
  // Describe() may be called by any thread (the cache's, for error lines) while a refresh
  // learns the role.
  mutable std::mutex role_mu_;
  std::string role_;  // GUARDED_BY(role_mu_)
};

// The provider the environment asks for: NotFound when AWS_EC2_METADATA_DISABLED is true;
// InvalidArgument for a bad AWS_EC2_METADATA_SERVICE_ENDPOINT(_MODE).
Result<std::unique_ptr<CredentialProvider>> NewImdsProvider(const RemoteCredentialContext& context);

}  // namespace lakedump
