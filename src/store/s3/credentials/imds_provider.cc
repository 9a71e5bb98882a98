#include "store/s3/credentials/imds_provider.h"

#include <utility>

#include "base/ascii.h"
#include "store/s3/s3_names.h"

namespace lakedump {
namespace {

constexpr const char* kRolePath = "/latest/meta-data/iam/security-credentials/";

bool IsRoleName(std::string_view name) {
  if (name.empty() || name.size() > 128) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    std::string_view("+=,.@_-").find(c) != std::string_view::npos;
    if (!ok) return false;
  }
  return true;
}

}  // namespace

ImdsProvider::ImdsProvider(std::string endpoint, std::unique_ptr<HttpTransport> transport,
                           Clock* clock)
    : endpoint_(std::move(endpoint)), transport_(std::move(transport)), clock_(clock) {}

std::string ImdsProvider::Describe() const {
  std::lock_guard<std::mutex> lock(role_mu_);
  return "instance metadata (IMDSv2)" + (role_.empty() ? "" : ", role " + role_);
}

Result<HttpResponse> ImdsProvider::Send(const std::string& method, const std::string& path,
                                        std::stop_token stop) {
  HttpRequest request;
  request.method = method;
  request.url = endpoint_ + path;
  request.max_body = kMaxCredentialReply;
  if (method == "PUT") {
    request.headers = {{"X-aws-ec2-metadata-token-ttl-seconds",
                        std::to_string(kImdsTokenTtl.count())}};
  } else {
    request.headers = {{"X-aws-ec2-metadata-token", token_}};
  }
  // One retry, for a failure that came fast (refused, reset, a 5xx): a timeout means nobody
  // is there, and a second one would double the cost of asking.
  const Clock::TimePoint start = clock_->Now();
  Result<HttpResponse> reply = transport_->Send(request, stop);
  const bool fast = clock_->Now() - start < kImdsConnectTimeout / 2;
  const bool failed = reply.ok() ? reply->status >= 500 : reply.status().retryable();
  if (failed && fast && !stop.stop_requested()) reply = transport_->Send(request, stop);
  return reply;
}

Status ImdsProvider::RefreshToken(std::stop_token stop) {
  Result<HttpResponse> reply = Send("PUT", "/latest/api/token", stop);
  if (!reply.ok()) {
    if (reply.status().code() == Code::kCancelled) return reply.status();
    return Status::NotFound("instance metadata at " + UrlForMessages(endpoint_) +
                            " (no answer: " + OneLine(reply.status().message()) + ")");
  }
  if (reply->status != 200 || reply->body.empty()) {
    return Status::NotFound("instance metadata at " + UrlForMessages(endpoint_) +
                            " (no IMDSv2 session token: HTTP " + std::to_string(reply->status) +
                            ")");
  }
  token_ = reply->body;
  while (!token_.empty() && (token_.back() == '\n' || token_.back() == '\r')) token_.pop_back();
  if (token_.find_first_of("\r\n") != std::string::npos) {
    token_.clear();
    return Status::Corruption("instance metadata at " + UrlForMessages(endpoint_) +
                              " sent a session token with a line break");
  }
  token_expiry_ = clock_->Now() + kImdsTokenTtl - std::chrono::minutes(1);
  return Status::OK();
}

Result<HttpResponse> ImdsProvider::GetWithToken(const std::string& path, std::stop_token stop) {
  for (int attempt = 1;; ++attempt) {
    if (token_.empty() || clock_->Now() >= token_expiry_) LD_RETURN_IF_ERROR(RefreshToken(stop));
    Result<HttpResponse> reply = Send("GET", path, stop);
    if (!reply.ok()) {
      if (reply.status().code() == Code::kCancelled) return reply.status();
      return Status(reply.status().code(),
                    Describe() + " at " + UrlForMessages(endpoint_) + ": " +
                        OneLine(reply.status().message(), {token_}));
    }
    if (reply->status != 401 || attempt == 2) return reply;
    token_.clear();  // expired or revoked: one new token
  }
}

Result<ExpiringCredentials> ImdsProvider::Fetch(std::stop_token stop) {
  const std::string where = " at " + UrlForMessages(endpoint_);
  LD_ASSIGN_OR_RETURN(HttpResponse roles, GetWithToken(kRolePath, stop));
  if (roles.status == 404) {
    return Status::NotFound("instance metadata" + where + " (the instance has no IAM role)");
  }
  if (roles.status != 200) {
    return Status::IOError(Describe() + where + ": listing the role answered HTTP " +
                           std::to_string(roles.status));
  }
  const std::string role = roles.body.substr(0, roles.body.find_first_of("\r\n"));
  if (!IsRoleName(role)) {
    return Status::Corruption(Describe() + where + ": the role name \"" + OneLine(role) +
                              "\" is not one");
  }
  {
    std::lock_guard<std::mutex> lock(role_mu_);
    role_ = role;
  }
  LD_ASSIGN_OR_RETURN(HttpResponse creds, GetWithToken(kRolePath + role, stop));
  if (creds.status != 200) {
    const Status s(creds.status >= 500 ? Code::kUnavailable : Code::kIOError,
                   Describe() + where + ": the role's credentials answered HTTP " +
                       std::to_string(creds.status));
    return s;
  }
  LD_ASSIGN_OR_RETURN(ExpiringCredentials out,
                      ParseCredentialDocument(creds.body, Describe() + where));
  out.credentials.source = Describe();
  return out;
}

Result<std::unique_ptr<CredentialProvider>> NewImdsProvider(
    const RemoteCredentialContext& context) {
  if (AsciiLower(context.Env("AWS_EC2_METADATA_DISABLED")) == "true") {
    return Status::NotFound("instance metadata (disabled by AWS_EC2_METADATA_DISABLED)");
  }
  std::string endpoint = context.Env("AWS_EC2_METADATA_SERVICE_ENDPOINT");
  const std::string mode = AsciiLower(context.Env("AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE"));
  if (!endpoint.empty()) {
    LD_RETURN_IF_ERROR(CheckEndpointUrl(endpoint, "AWS_EC2_METADATA_SERVICE_ENDPOINT"));
  } else if (mode.empty() || mode == "ipv4") {
    endpoint = "http://169.254.169.254";
  } else if (mode == "ipv6") {
    endpoint = "http://[fd00:ec2::254]";
  } else {
    return Status::InvalidArgument("AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE is \"" +
                                   OneLine(mode) + "\": it must be IPv4 or IPv6");
  }
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
  CurlTransportOptions options;
  options.connect_timeout = kImdsConnectTimeout;
  options.min_rate = 1;
  options.min_rate_window = std::chrono::seconds(1);
  return std::unique_ptr<CredentialProvider>(std::make_unique<ImdsProvider>(
      std::move(endpoint), context.NewTransport(options), context.clock));
}

}  // namespace lakedump
