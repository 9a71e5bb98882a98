#include "store/s3/credentials/assume_role_provider.h"

#include <set>
#include <utility>

#include "store/s3/credentials/container_provider.h"
#include "store/s3/credentials/environment_provider.h"
#include "store/s3/credentials/imds_provider.h"
#include "store/s3/credentials/web_identity_provider.h"

namespace lakedump {
namespace {

std::string Get(const ProfileValues& values, const std::string& key) {
  auto it = values.find(key);
  return it == values.end() ? "" : it->second;
}

bool HasStaticKeys(const ProfileValues& values) {
  return !Get(values, "aws_access_key_id").empty() &&
         !Get(values, "aws_secret_access_key").empty();
}

std::unique_ptr<CredentialProvider> StaticKeys(const std::string& profile,
                                               const ProfileValues& values) {
  return NewStaticProvider({Get(values, "aws_access_key_id"),
                            Get(values, "aws_secret_access_key"),
                            Get(values, "aws_session_token"), "profile " + profile});
}

// Builds the providers of a chain of role profiles; `visited` holds the profiles on the way.
struct ChainBuilder {
  const ProfileLookup& lookup;
  const RemoteCredentialContext& context;
  const BaseProfileProvider& base;
  std::set<std::string> visited;

  Result<std::unique_ptr<CredentialProvider>> Role(const std::string& name,
                                                   const ProfileValues& values);
  Result<std::unique_ptr<CredentialProvider>> Source(const std::string& name,
                                                     const ProfileValues& values);
  Result<std::unique_ptr<CredentialProvider>> SourceProfile(const std::string& name,
                                                            const std::string& source);
  Result<std::unique_ptr<CredentialProvider>> CredentialSource(const std::string& name,
                                                               const std::string& source);
};

Result<AssumeRoleParams> ParamsOf(const std::string& name, const ProfileValues& values,
                                  Clock* clock) {
  const std::string where = "profile " + name;
  if (!Get(values, "mfa_serial").empty()) {
    return Status::InvalidArgument(
        where + " sets mfa_serial: lakedump cannot prompt for an MFA code; get session "
                "credentials first (aws sts get-session-token, aws-vault) and hand them over "
                "with credential_process or AWS_SESSION_TOKEN");
  }
  AssumeRoleParams params;
  params.role_arn = Get(values, "role_arn");
  params.external_id = Get(values, "external_id");
  params.session_name = Get(values, "role_session_name");
  if (params.session_name.empty()) {
    params.session_name = DefaultSessionName(clock);
  } else if (!IsValidSessionName(params.session_name)) {
    return Status::InvalidArgument(where + ": role_session_name \"" +
                                   OneLine(params.session_name) +
                                   "\" is not a role session name: 2 to 64 of A-Z a-z 0-9 +=,.@_-");
  }
  const std::string duration = Get(values, "duration_seconds");
  if (!duration.empty()) {
    const bool digits = duration.size() <= 5 &&
                        duration.find_first_not_of("0123456789") == std::string::npos;
    const int seconds = digits ? std::stoi(duration) : 0;
    if (seconds < 900 || seconds > 43200) {
      return Status::InvalidArgument(where + ": duration_seconds \"" + OneLine(duration) +
                                     "\" must be a number of seconds from 900 to 43200");
    }
    params.duration_seconds = seconds;
  }
  return params;
}

Result<std::unique_ptr<CredentialProvider>> ChainBuilder::Role(const std::string& name,
                                                               const ProfileValues& values) {
  visited.insert(name);
  LD_ASSIGN_OR_RETURN(AssumeRoleParams params, ParamsOf(name, values, context.clock));
  const std::string regional = Get(values, "sts_regional_endpoints");
  const std::string token_file = Get(values, "web_identity_token_file");
  if (!token_file.empty()) {
    WebIdentityConfig config{token_file, params.role_arn, params.session_name,
                             params.duration_seconds,
                             "web_identity_token_file of profile " + name};
    return NewWebIdentityProvider(std::move(config), context, regional);
  }
  LD_ASSIGN_OR_RETURN(std::unique_ptr<CredentialProvider> source, Source(name, values));
  LD_ASSIGN_OR_RETURN(StsEndpoint endpoint,
                      ResolveStsEndpoint(context.env, context.region, regional));
  auto sts = std::make_unique<StsClient>(std::move(endpoint), context.NewTransport({}),
                                         context.clock);
  return std::unique_ptr<CredentialProvider>(std::make_unique<AssumeRoleProvider>(
      name, std::move(params), std::move(source), std::move(sts)));
}

Result<std::unique_ptr<CredentialProvider>> ChainBuilder::Source(const std::string& name,
                                                                 const ProfileValues& values) {
  const std::string source_profile = Get(values, "source_profile");
  const std::string credential_source = Get(values, "credential_source");
  if (!source_profile.empty() && !credential_source.empty()) {
    return Status::InvalidArgument("profile " + name +
                                   " sets both source_profile and credential_source: keep one");
  }
  if (!credential_source.empty()) return CredentialSource(name, credential_source);
  if (source_profile.empty()) {
    return Status::InvalidArgument(
        "profile " + name +
        " sets role_arn without source_profile, credential_source or web_identity_token_file: "
        "nothing to assume the role with");
  }
  if (source_profile == name) {  // the SDKs' self-reference: the profile's own static keys
    if (HasStaticKeys(values)) return StaticKeys(name, values);
    return Status::InvalidArgument("profile " + name +
                                   " is its own source_profile but has no static keys");
  }
  return SourceProfile(name, source_profile);
}

Result<std::unique_ptr<CredentialProvider>> ChainBuilder::SourceProfile(
    const std::string& name, const std::string& source) {
  const std::optional<ProfileValues> values = lookup(source);
  if (!values) {
    return Status::InvalidArgument("profile " + source + " (source_profile of profile " + name +
                                   ") is not in the config or credentials file");
  }
  if (HasStaticKeys(*values)) {
    return StaticKeys(source, *values);
  }
  if (IsAssumeRoleProfile(*values)) {
    if (visited.contains(source)) {
      return Status::InvalidArgument("profile " + name + " has source_profile " + source +
                                     ", which leads back to it: a cycle of role profiles");
    }
    return Role(source, *values);
  }
  if (base) return base(source);
  return Status::InvalidArgument("profile " + source + " (source_profile of profile " + name +
                                 ") has neither static keys nor role_arn");
}

Result<std::unique_ptr<CredentialProvider>> ChainBuilder::CredentialSource(
    const std::string& name, const std::string& source) {
  if (source == "Environment") {
    return NewEnvironmentProvider(context.env);
  }
  if (source == "Ec2InstanceMetadata") return NewImdsProvider(context);
  if (source == "EcsContainer") return NewContainerProvider(context);
  return Status::InvalidArgument("profile " + name + ": credential_source \"" + OneLine(source) +
                                 "\" must be Environment, Ec2InstanceMetadata or EcsContainer");
}

}  // namespace

bool IsAssumeRoleProfile(const ProfileValues& values) { return !Get(values, "role_arn").empty(); }

AssumeRoleProvider::AssumeRoleProvider(std::string profile, AssumeRoleParams params,
                                       std::unique_ptr<CredentialProvider> source,
                                       std::unique_ptr<StsClient> sts)
    : profile_(std::move(profile)),
      params_(std::move(params)),
      source_(std::move(source)),
      sts_(std::move(sts)) {}

std::string AssumeRoleProvider::Describe() const {
  return "profile " + profile_ + ", role " + params_.role_arn + " (from " + source_->Describe() +
         ")";
}

Result<ExpiringCredentials> AssumeRoleProvider::Fetch(std::stop_token stop) {
  Result<ExpiringCredentials> source = source_->Fetch(stop);
  if (!source.ok()) {
    // Named in the profile, the source must work: "not here" is an error now.
    const Code code = source.status().code() == Code::kNotFound ? Code::kInvalidArgument
                                                                : source.status().code();
    return Status(code, "profile " + profile_ + ": its source " + source_->Describe() + ": " +
                            source.status().message());
  }
  LD_ASSIGN_OR_RETURN(ExpiringCredentials out,
                      sts_->AssumeRole(params_, source->credentials, stop));
  out.credentials.source = Describe();
  return out;
}

Result<std::unique_ptr<CredentialProvider>> NewAssumeRoleProvider(
    const std::string& profile, const ProfileLookup& lookup,
    const RemoteCredentialContext& context, const BaseProfileProvider& base) {
  const std::optional<ProfileValues> values = lookup(profile);
  if (!values || !IsAssumeRoleProfile(*values)) {
    return Status::InvalidArgument("profile " + profile + " has no role_arn");
  }
  ChainBuilder builder{lookup, context, base, {}};
  return builder.Role(profile, *values);
}

}  // namespace lakedump
