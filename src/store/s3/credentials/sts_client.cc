#include "store/s3/credentials/sts_client.h"

#include <pugixml.hpp>

#include <utility>
#include <vector>

#include "base/ascii.h"
#include "store/s3/credentials/remote_credentials.h"
#include "store/s3/s3_names.h"
#include "store/s3/sigv4.h"

namespace lakedump {

// One STS request, as the retry loop resends it.
struct StsClient::Call {
  std::string action;
  const AssumeRoleParams* params = nullptr;
  std::string body;                             // the form-encoded parameters
  const Credentials* signer = nullptr;          // AssumeRole: the source credentials
  std::vector<std::string_view> secrets;        // never quoted in an error
};

namespace {

constexpr int kStsAttempts = 3;
constexpr std::chrono::milliseconds kStsFirstBackoff{200};

bool TransientCode(std::string_view code) {
  return code == "Throttling" || code == "ThrottlingException" ||
         code == "RequestLimitExceeded" || code == "IDPCommunicationError" ||
         code == "ServiceUnavailable" || code == "InternalFailure" || code == "InternalError";
}

// "https://host:1/base" -> host "host:1", path "/base" (no trailing '/').
void SplitEndpoint(const std::string& url, std::string* host, std::string* path) {
  const size_t scheme = url.find("://");
  const std::string rest = scheme == std::string::npos ? url : url.substr(scheme + 3);
  const size_t slash = rest.find('/');
  *host = rest.substr(0, slash);
  *path = slash == std::string::npos ? "" : rest.substr(slash);
  while (!path->empty() && path->back() == '/') path->pop_back();
}

}  // namespace

Result<StsEndpoint> ResolveStsEndpoint(const EnvLookup& env, const std::string& region,
                                       const std::string& profile_regional) {
  auto get = [&](const char* name) -> std::string {
    auto v = env ? env(name) : std::nullopt;
    return v ? *v : "";
  };
  StsEndpoint out;
  out.signing_region = region.empty() ? "us-east-1" : region;
  if (AsciiLower(get("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")) != "true") {
    for (const char* name : {"AWS_ENDPOINT_URL_STS", "AWS_ENDPOINT_URL"}) {
      std::string url = get(name);
      if (url.empty()) continue;
      LD_RETURN_IF_ERROR(CheckEndpointUrl(url, name));
      while (!url.empty() && url.back() == '/') url.pop_back();
      out.url = url;
      return out;
    }
  }
  std::string mode = AsciiLower(get("AWS_STS_REGIONAL_ENDPOINTS"));
  const char* mode_from = "AWS_STS_REGIONAL_ENDPOINTS";
  if (mode.empty()) {
    mode = AsciiLower(profile_regional);
    mode_from = "sts_regional_endpoints of the profile";
  }
  if (!mode.empty() && mode != "regional" && mode != "legacy") {
    return Status::InvalidArgument(std::string(mode_from) + " is \"" + OneLine(mode) +
                                   "\": it must be regional or legacy");
  }
  if (region.empty() || mode == "legacy") {
    out.url = "https://sts.amazonaws.com";
    out.signing_region = "us-east-1";
    return out;
  }
  out.url = "https://sts." + region + ".amazonaws.com" + (region.starts_with("cn-") ? ".cn" : "");
  return out;
}

StsClient::StsClient(StsEndpoint endpoint, std::unique_ptr<HttpTransport> transport,
                     Clock* clock)
    : endpoint_(std::move(endpoint)), transport_(std::move(transport)), clock_(clock) {}

Result<ExpiringCredentials> StsClient::AssumeRole(const AssumeRoleParams& params,
                                                  const Credentials& source,
                                                  std::stop_token stop) {
  std::vector<std::pair<std::string, std::string>> form = {
      {"Action", "AssumeRole"},
      {"Version", "2011-06-15"},
      {"RoleArn", params.role_arn},
      {"RoleSessionName", params.session_name}};
  if (!params.external_id.empty()) form.emplace_back("ExternalId", params.external_id);
  if (params.duration_seconds) {
    form.emplace_back("DurationSeconds", std::to_string(*params.duration_seconds));
  }
  Call call{"AssumeRole", &params, CanonicalQueryString(std::move(form)), &source,
            {source.secret_access_key, source.session_token, params.external_id}};
  return Run(call, stop);
}

Result<ExpiringCredentials> StsClient::AssumeRoleWithWebIdentity(const AssumeRoleParams& params,
                                                                 const std::string& token,
                                                                 std::stop_token stop) {
  std::vector<std::pair<std::string, std::string>> form = {
      {"Action", "AssumeRoleWithWebIdentity"},
      {"Version", "2011-06-15"},
      {"RoleArn", params.role_arn},
      {"RoleSessionName", params.session_name},
      {"WebIdentityToken", token}};
  if (params.duration_seconds) {
    form.emplace_back("DurationSeconds", std::to_string(*params.duration_seconds));
  }
  Call call{"AssumeRoleWithWebIdentity", &params, CanonicalQueryString(std::move(form)), nullptr,
            {token}};
  return Run(call, stop);
}

Result<HttpResponse> StsClient::SendOnce(const Call& call, std::stop_token stop) {
  std::string host, path;
  SplitEndpoint(endpoint_.url, &host, &path);
  HttpRequest http;
  http.method = "POST";
  http.url = endpoint_.url + "/";
  http.body = call.body;
  http.max_body = kMaxCredentialReply;
  http.headers = {{"host", host},
                  {"content-type", "application/x-www-form-urlencoded; charset=utf-8"}};
  if (call.signer != nullptr) {
    SigningRequest sign;
    sign.method = "POST";
    sign.canonical_uri = path + "/";
    sign.headers = std::move(http.headers);
    sign.payload_hash = Sha256Hex(call.body);
    SignRequest(&sign, *call.signer, endpoint_.signing_region, "sts", clock_->WallNow());
    http.headers = std::move(sign.headers);
  }
  return transport_->Send(http, stop);
}

Result<ExpiringCredentials> StsClient::Run(const Call& call, std::stop_token stop) {
  const std::string what = "STS " + call.action + " of " + OneLine(call.params->role_arn) +
                           " at " + UrlForMessages(endpoint_.url);
  auto scrub = [&](std::string_view text) {
    std::string out(text);
    for (std::string_view s : call.secrets) out = OneLine(out, {s});
    return OneLine(out);
  };
  Status last;
  for (int attempt = 1; attempt <= kStsAttempts; ++attempt) {
    if (attempt > 1 && !clock_->SleepFor(kStsFirstBackoff * (1 << (2 * (attempt - 2))), stop)) {
      return Status::Cancelled(what + " cancelled");
    }
    if (stop.stop_requested()) return Status::Cancelled(what + " cancelled");
    Result<HttpResponse> reply = SendOnce(call, stop);
    if (!reply.ok()) {
      if (reply.status().code() == Code::kCancelled) return reply.status();
      last = Status(reply.status().code(), what + ": " + scrub(reply.status().message()));
      if (!last.retryable()) return last;
      continue;
    }
    if (reply->status >= 200 && reply->status < 300) {
      Result<ExpiringCredentials> parsed = ParseStsCredentials(reply->body, call.action);
      if (parsed.ok()) return parsed;
      return Status(parsed.status().code(), what + ": " + parsed.status().message());
    }
    const std::optional<StsError> error = ParseStsError(reply->body);
    const std::string code = error ? error->code : "";
    const std::string detail =
        "HTTP " + std::to_string(reply->status) +
        (error ? " " + scrub(code) + (error->message.empty() ? "" : ": " + scrub(error->message))
               : "");
    if (reply->status >= 500 || reply->status == 429 || TransientCode(code)) {
      last = Status::Unavailable(what + " failed: " + detail);
      continue;
    }
    if (code == "ValidationError" || code == "InvalidParameterValue" ||
        code == "MalformedPolicyDocument") {
      return Status::InvalidArgument(what + " refused: " + detail);
    }
    if (reply->status == 400 || reply->status == 401 || reply->status == 403) {
      return Status::PermissionDenied(what + " refused: " + detail);
    }
    return Status::IOError(what + " failed: " + detail);
  }
  return last;
}

Result<ExpiringCredentials> ParseStsCredentials(std::string_view body, std::string_view action) {
  const std::string response = std::string(action) + "Response";
  pugi::xml_document doc;
  pugi::xml_node creds;
  if (doc.load_buffer(body.data(), body.size(), pugi::parse_default, pugi::encoding_utf8)) {
    creds = doc.child(response.c_str())
                .child((std::string(action) + "Result").c_str())
                .child("Credentials");
  }
  if (!creds) return Status::Corruption("the reply is not an " + response + " document");
  ExpiringCredentials out;
  out.credentials.access_key_id = creds.child("AccessKeyId").text().as_string();
  out.credentials.secret_access_key = creds.child("SecretAccessKey").text().as_string();
  out.credentials.session_token = creds.child("SessionToken").text().as_string();
  if (out.credentials.access_key_id.empty() || out.credentials.secret_access_key.empty() ||
      out.credentials.session_token.empty()) {
    return Status::Corruption("the " + response +
                              " has no AccessKeyId, SecretAccessKey or SessionToken");
  }
  const std::string expiration = creds.child("Expiration").text().as_string();
  out.expiration = ParseCredentialExpiration(expiration);
  if (!out.expiration) {
    return Status::Corruption("the " + response + " has a missing or malformed Expiration \"" +
                              OneLine(expiration) + "\"");
  }
  return out;
}

std::optional<StsError> ParseStsError(std::string_view body) {
  pugi::xml_document doc;
  if (body.empty() ||
      !doc.load_buffer(body.data(), body.size(), pugi::parse_default, pugi::encoding_utf8)) {
    return std::nullopt;
  }
  pugi::xml_node error = doc.child("ErrorResponse").child("Error");
  if (!error) error = doc.child("Error");  // some STS-compatible servers omit the wrapper
  if (!error) return std::nullopt;
  return StsError{error.child("Code").text().as_string(),
                  error.child("Message").text().as_string()};
}

bool IsValidSessionName(std::string_view name) {
  if (name.size() < 2 || name.size() > 64) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    std::string_view("+=,.@_-").find(c) != std::string_view::npos;
    if (!ok) return false;
  }
  return true;
}

std::string DefaultSessionName(Clock* clock) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
      clock->WallNow().time_since_epoch());
  return "lakedump-" + std::to_string(ms.count());
}

}  // namespace lakedump
