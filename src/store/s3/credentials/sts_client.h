// StsClient: the two AWS STS calls that the credential providers need, AssumeRole (signed
// with SigV4 by the source credentials) and AssumeRoleWithWebIdentity (unsigned: the web
// identity token is the proof), as Query API POSTs whose parameters travel in the body (never
// in a URL, where a transport error would quote them). Replies are the STS XML documents;
// an <ErrorResponse> becomes one line naming the call, the role and STS's code and message
// (never a token or a secret). Transient failures (transport, 5xx, throttling,
// IDPCommunicationError) are retried twice with backoff on the clock.
//
// The providers know roles and tokens; only this file knows SigV4. Thread-compatible: one
// call at a time (providers are called from one thread at a time).
#pragma once

#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/status.h"
#include "store/s3/credentials.h"
#include "store/s3/credentials/credential_provider.h"
#include "store/s3/http_transport.h"

namespace lakedump {

struct StsEndpoint {
  std::string url;             // "https://sts.eu-west-1.amazonaws.com", no trailing '/'
  std::string signing_region;  // SigV4's region for AssumeRole
};

// The endpoint the AWS SDKs would call: AWS_ENDPOINT_URL_STS, else AWS_ENDPOINT_URL (both
// ignored when AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true), else the regional endpoint
// sts.<region>.amazonaws.com (.amazonaws.com.cn in China), or the global sts.amazonaws.com
// when there is no region or AWS_STS_REGIONAL_ENDPOINTS (else `profile_regional`, a
// profile's sts_regional_endpoints) is "legacy". A bad URL or value: InvalidArgument.
Result<StsEndpoint> ResolveStsEndpoint(const EnvLookup& env, const std::string& region,
                                       const std::string& profile_regional = "");

struct AssumeRoleParams {
  std::string role_arn;
  std::string session_name;
  std::string external_id;              // "" = none
  std::optional<int> duration_seconds;  // nullopt = STS's default (one hour)
};

class StsClient {
 public:
  StsClient(StsEndpoint endpoint, std::unique_ptr<HttpTransport> transport,
            Clock* clock = &SystemClock());

  // STS AssumeRole, signed with `source`.
  Result<ExpiringCredentials> AssumeRole(const AssumeRoleParams& params,
                                         const Credentials& source, std::stop_token stop);
  // STS AssumeRoleWithWebIdentity with `token` (external_id is not used).
  Result<ExpiringCredentials> AssumeRoleWithWebIdentity(const AssumeRoleParams& params,
                                                        const std::string& token,
                                                        std::stop_token stop);

  const StsEndpoint& endpoint() const { return endpoint_; }

 private:
  struct Call;
  Result<ExpiringCredentials> Run(const Call& call, std::stop_token stop);
  Result<HttpResponse> SendOnce(const Call& call, std::stop_token stop);

  const StsEndpoint endpoint_;
  const std::unique_ptr<HttpTransport> transport_;
  Clock* const clock_;
};

// The reply of a successful call (`action` "AssumeRole" or "AssumeRoleWithWebIdentity"):
// its <Credentials>. Exposed for tests.
Result<ExpiringCredentials> ParseStsCredentials(std::string_view body, std::string_view action);

// STS's <ErrorResponse><Error><Code>/<Message>, or nullopt when the body is not one.
struct StsError {
  std::string code;
  std::string message;
};
std::optional<StsError> ParseStsError(std::string_view body);

// A role session name as STS accepts it: 2 to 64 of [A-Za-z0-9+=,.@_-].
bool IsValidSessionName(std::string_view name);
// "lakedump-<milliseconds since 1970>" from the clock's wall time.
std::string DefaultSessionName(Clock* clock);

}  // namespace lakedump
