#include "store/s3/credentials/container_provider.h"

#include <arpa/inet.h>

#include <cctype>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <utility>

namespace lakedump {
namespace {

constexpr int kContainerAttempts = 3;
constexpr std::chrono::milliseconds kContainerFirstBackoff{100};
constexpr std::chrono::milliseconds kContainerConnectTimeout{2000};

// "scheme", "host" (brackets of an IPv6 literal removed) and "scheme://authority" of a URL.
struct UrlParts {
  std::string scheme, host, origin;
};

UrlParts Split(const std::string& url) {
  UrlParts out;
  const size_t colon = url.find("://");
  if (colon == std::string::npos) return out;
  out.scheme = url.substr(0, colon);
  for (char& c : out.scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string authority = url.substr(colon + 3, url.find_first_of("/?#", colon + 3) - colon - 3);
  if (const size_t at = authority.rfind('@'); at != std::string::npos) {
    authority = authority.substr(at + 1);  // user info: never in a message
  }
  out.origin = out.scheme + "://" + authority;
  if (authority.starts_with("[")) {
    out.host = authority.substr(1, authority.find(']') - 1);
  } else {
    out.host = authority.substr(0, authority.find(':'));
  }
  return out;
}

bool AllowedOverHttp(const std::string& host) {
  if (host == "localhost") return true;
  in_addr v4{};
  if (::inet_pton(AF_INET, host.c_str(), &v4) == 1) {
    const uint32_t a = ntohl(v4.s_addr);
    return (a >> 24) == 127 || host == "169.254.170.2" || host == "169.254.170.23";
  }
  in6_addr v6{}, allowed{};
  if (::inet_pton(AF_INET6, host.c_str(), &v6) != 1) return false;
  for (const char* ok : {"::1", "fd00:ec2::23"}) {
    if (::inet_pton(AF_INET6, ok, &allowed) == 1 && std::memcmp(&v6, &allowed, sizeof v6) == 0) {
      return true;
    }
  }
  return false;
}

// The {"code", "message"} (or "Code", "Message") of an error reply, made one line.
std::string ContainerErrorDetail(const HttpResponse& reply, const std::string& token) {
  std::string detail = "HTTP " + std::to_string(reply.status);
  const auto j = nlohmann::json::parse(reply.body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return detail;
  for (const char* code : {"code", "Code"}) {
    if (j.contains(code) && j[code].is_string()) detail += " " + j[code].get<std::string>();
  }
  for (const char* message : {"message", "Message"}) {
    if (j.contains(message) && j[message].is_string()) {
      detail += ": " + j[message].get<std::string>();
    }
  }
  return OneLine(detail, {token});
}

}  // namespace

Status CheckContainerUrl(const std::string& url, const std::string& from) {
  const UrlParts parts = Split(url);
  if (parts.host.empty() || (parts.scheme != "http" && parts.scheme != "https")) {
    return Status::InvalidArgument(from + " \"" + UrlForMessages(url) +
                                   "\" is not an http:// or https:// URL with a host");
  }
  if (parts.scheme == "https" || AllowedOverHttp(parts.host)) return Status::OK();
  return Status::InvalidArgument(
      from + " " + parts.origin +
      ": plain http is allowed only to a loopback address, 169.254.170.2 (ECS) or "
      "169.254.170.23 / fd00:ec2::23 (EKS Pod Identity); use https for any other host");
}

ContainerProvider::ContainerProvider(ContainerConfig config,
                                     std::unique_ptr<HttpTransport> transport, Clock* clock)
    : config_(std::move(config)),
      transport_(std::move(transport)),
      clock_(clock),
      origin_(Split(config_.url).origin) {}

std::string ContainerProvider::Describe() const { return "container endpoint " + origin_; }

Result<HttpResponse> ContainerProvider::Get(const std::string& authorization,
                                            std::stop_token stop) {
  HttpRequest request;
  request.method = "GET";
  request.url = config_.url;
  request.max_body = kMaxCredentialReply;
  request.headers = {{"Accept", "application/json"}};
  if (!authorization.empty()) request.headers.emplace_back("Authorization", authorization);
  Result<HttpResponse> reply = transport_->Send(request, stop);
  if (!reply.ok()) {
    // The transport's message quotes the URL: its path becomes the origin alone.
    std::string said = reply.status().message();
    const std::string url = config_.url.substr(0, config_.url.find('?'));
    for (size_t at = said.find(url); at != std::string::npos; at = said.find(url, at + 1)) {
      said.replace(at, url.size(), origin_);
    }
    return Status(reply.status().code(), Describe() + ": " + OneLine(said, {authorization}));
  }
  return reply;
}

Result<ExpiringCredentials> ContainerProvider::Fetch(std::stop_token stop) {
  std::string token = config_.token;
  if (!config_.token_file.empty()) {
    LD_ASSIGN_OR_RETURN(token,
                        ReadTokenFile(config_.token_file, "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"));
  }
  Status last;
  for (int attempt = 1; attempt <= kContainerAttempts; ++attempt) {
    if (attempt > 1 && !clock_->SleepFor(kContainerFirstBackoff * (1 << (attempt - 2)), stop)) {
      return Status::Cancelled(Describe() + ": cancelled");
    }
    Result<HttpResponse> reply = Get(token, stop);
    if (!reply.ok()) {
      if (!reply.status().retryable()) return reply.status();
      last = reply.status();
      continue;
    }
    if (reply->status >= 200 && reply->status < 300) {
      LD_ASSIGN_OR_RETURN(ExpiringCredentials out,
                          ParseCredentialDocument(reply->body, Describe()));
      out.credentials.source = Describe();
      return out;
    }
    const std::string detail = Describe() + " answered " + ContainerErrorDetail(*reply, token);
    if (reply->status >= 500 || reply->status == 429) {
      last = Status::Unavailable(detail);
      continue;
    }
    if (reply->status == 401 || reply->status == 403) {
      return Status::PermissionDenied(detail + " (check AWS_CONTAINER_AUTHORIZATION_TOKEN" +
                                      std::string(config_.token_file.empty() ? "" : "_FILE") +
                                      ")");
    }
    return Status::IOError(detail);
  }
  return last;
}

Result<std::unique_ptr<CredentialProvider>> NewContainerProvider(
    const RemoteCredentialContext& context) {
  ContainerConfig config;
  const std::string relative = context.Env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI");
  const std::string full = context.Env("AWS_CONTAINER_CREDENTIALS_FULL_URI");
  if (!relative.empty()) {
    // "@evil.example/x" would make 169.254.170.2 the user info of another host.
    if (relative.front() != '/') {
      return Status::InvalidArgument(
          "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI must start with '/' (a path on "
          "http://169.254.170.2)");
    }
    config.url = "http://169.254.170.2" + relative;
  } else if (!full.empty()) {
    LD_RETURN_IF_ERROR(CheckContainerUrl(full, "AWS_CONTAINER_CREDENTIALS_FULL_URI"));
    config.url = full;
  } else {
    return Status::NotFound("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI/_FULL_URI");
  }
  config.token_file = context.Env("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE");
  config.token = context.Env("AWS_CONTAINER_AUTHORIZATION_TOKEN");
  if (config.token.find_first_of("\r\n") != std::string::npos) {
    return Status::InvalidArgument("AWS_CONTAINER_AUTHORIZATION_TOKEN holds a line break");
  }
  CurlTransportOptions options;
  options.connect_timeout = kContainerConnectTimeout;
  options.min_rate_window = std::chrono::seconds(5);
  return std::unique_ptr<CredentialProvider>(std::make_unique<ContainerProvider>(
      std::move(config), context.NewTransport(options), context.clock));
}

}  // namespace lakedump
