#include "store/s3/credentials/web_identity_provider.h"

#include <utility>

namespace lakedump {

WebIdentityProvider::WebIdentityProvider(WebIdentityConfig config, std::unique_ptr<StsClient> sts,
                                         Clock* clock)
    : config_(std::move(config)), sts_(std::move(sts)) {
  params_.role_arn = config_.role_arn;
  params_.session_name =
      config_.session_name.empty() ? DefaultSessionName(clock) : config_.session_name;
  params_.duration_seconds = config_.duration_seconds;
}

std::string WebIdentityProvider::Describe() const {
  return "web identity, role " + config_.role_arn;
}

Result<ExpiringCredentials> WebIdentityProvider::Fetch(std::stop_token stop) {
  LD_ASSIGN_OR_RETURN(const std::string token,
                      ReadTokenFile(config_.token_file, config_.token_variable));
  LD_ASSIGN_OR_RETURN(ExpiringCredentials out,
                      sts_->AssumeRoleWithWebIdentity(params_, token, stop));
  out.credentials.source = Describe();
  return out;
}

Result<std::unique_ptr<CredentialProvider>> NewWebIdentityProvider(
    const RemoteCredentialContext& context) {
  WebIdentityConfig config;
  config.token_file = context.Env("AWS_WEB_IDENTITY_TOKEN_FILE");
  if (config.token_file.empty()) {
    return Status::NotFound("AWS_WEB_IDENTITY_TOKEN_FILE");  // where the chain looked
  }
  config.role_arn = context.Env("AWS_ROLE_ARN");
  if (config.role_arn.empty()) {
    return Status::InvalidArgument(
        "AWS_WEB_IDENTITY_TOKEN_FILE is set but AWS_ROLE_ARN is not: web identity needs the "
        "role to assume");
  }
  config.session_name = context.Env("AWS_ROLE_SESSION_NAME");
  if (!config.session_name.empty() && !IsValidSessionName(config.session_name)) {
    return Status::InvalidArgument("AWS_ROLE_SESSION_NAME \"" + OneLine(config.session_name) +
                                   "\" is not a role session name: 2 to 64 of A-Z a-z 0-9 "
                                   "+=,.@_-");
  }
  return NewWebIdentityProvider(std::move(config), context);
}

Result<std::unique_ptr<CredentialProvider>> NewWebIdentityProvider(
    WebIdentityConfig config, const RemoteCredentialContext& context,
    const std::string& profile_regional) {
  LD_ASSIGN_OR_RETURN(StsEndpoint endpoint,
                      ResolveStsEndpoint(context.env, context.region, profile_regional));
  auto sts = std::make_unique<StsClient>(std::move(endpoint), context.NewTransport({}),
                                         context.clock);
  return std::unique_ptr<CredentialProvider>(
      std::make_unique<WebIdentityProvider>(std::move(config), std::move(sts), context.clock));
}

}  // namespace lakedump
