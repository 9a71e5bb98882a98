// The HTTP providers of the chain (credential_chain.h): web identity (web_identity_provider.h),
// role_arn profiles (assume_role_provider.h), the container endpoint (container_provider.h)
// and instance metadata (imds_provider.h). A provider that cannot even be built (AWS_ROLE_ARN
// missing, a refused container URL) is kept as one whose Fetch answers why: NotFound lets the
// chain move on, any other error stops it with that line.
#include <memory>
#include <optional>
#include <utility>

#include "store/s3/credentials/assume_role_provider.h"
#include "store/s3/credentials/container_provider.h"
#include "store/s3/credentials/credential_chain.h"
#include "store/s3/credentials/imds_provider.h"
#include "store/s3/credentials/profile_provider.h"
#include "store/s3/credentials/web_identity_provider.h"

namespace lakedump {
namespace {

class Unbuilt final : public CredentialProvider {
 public:
  Unbuilt(std::string what, Status why) : what_(std::move(what)), why_(std::move(why)) {}
  std::string Describe() const override { return what_; }
  Result<ExpiringCredentials> Fetch(std::stop_token) override { return why_; }

 private:
  const std::string what_;
  const Status why_;
};

RemoteCredentialContext ContextOf(const CredentialSources& sources) {
  RemoteCredentialContext context;
  context.env = sources.env;
  context.region = sources.region;
  context.ca_bundle = sources.ca_bundle;
  context.clock = sources.clock;
  return context;
}

std::unique_ptr<CredentialProvider> OrUnbuilt(Result<std::unique_ptr<CredentialProvider>> built,
                                              std::string what) {
  if (built.ok()) return std::move(*built);
  return std::make_unique<Unbuilt>(std::move(what), built.status());
}

// A profile's keys, the credentials file's over the config file's.
ProfileLookup LookupIn(std::shared_ptr<const AwsConfigFiles> files) {
  return [files](const std::string& name) -> std::optional<ProfileValues> {
    const IniSection* conf = files ? files->ConfigSection(name) : nullptr;
    const IniSection* cred = files ? files->CredentialsSection(name) : nullptr;
    if (conf == nullptr && cred == nullptr) return std::nullopt;
    ProfileValues values = conf != nullptr ? *conf : ProfileValues();
    if (cred != nullptr) {
      for (const auto& [key, value] : *cred) values[key] = value;
    }
    return values;
  };
}

}  // namespace

CredentialChainHooks RemoteCredentialHooks() {
  CredentialChainHooks hooks;
  hooks.web_identity = [](const CredentialSources& sources) {
    return OrUnbuilt(NewWebIdentityProvider(ContextOf(sources)), "web identity");
  };
  hooks.container = [](const CredentialSources& sources) {
    return OrUnbuilt(NewContainerProvider(ContextOf(sources)), "container endpoint");
  };
  hooks.instance_metadata = [](const CredentialSources& sources) {
    return OrUnbuilt(NewImdsProvider(ContextOf(sources)), "instance metadata (IMDSv2)");
  };
  hooks.assume_role = [](const CredentialSources& sources, const std::string& profile,
                         const CredentialChainHooks& chain_hooks) {
    // A source profile with credential_process (neither keys nor role_arn): the profile
    // provider's own.
    BaseProfileProvider base =
        [sources, chain_hooks](const std::string& name)
        -> Result<std::unique_ptr<CredentialProvider>> {
      return NewProfileProvider(sources, name, chain_hooks);
    };
    return NewAssumeRoleProvider(profile, LookupIn(sources.files), ContextOf(sources), base);
  };
  return hooks;
}

}  // namespace lakedump
