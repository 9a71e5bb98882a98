#include "store/s3/credentials/credential_chain.h"

#include <utility>

#include "store/s3/credentials/environment_provider.h"
#include "store/s3/credentials/profile_provider.h"

namespace lakedump {

std::vector<std::unique_ptr<CredentialProvider>> BuildCredentialChain(
    const CredentialSources& sources, const CredentialChainHooks& hooks) {
  std::vector<std::unique_ptr<CredentialProvider>> chain;
  auto add = [&](const CredentialProviderFactory& factory) {
    if (factory) chain.push_back(factory(sources));
  };
  chain.push_back(NewOptionsProvider(sources.options));
  if (sources.profile_explicit) {
    chain.push_back(NewProfileProvider(sources, sources.profile, hooks));
  }
  chain.push_back(NewEnvironmentProvider(sources.env));
  add(hooks.web_identity);
  if (!sources.profile_explicit) {
    chain.push_back(NewProfileProvider(sources, sources.profile, hooks));
  }
  add(hooks.container);
  add(hooks.instance_metadata);
  return chain;
}

Result<std::shared_ptr<CredentialCache>> ResolveCredentialChain(
    std::vector<std::unique_ptr<CredentialProvider>> chain, Clock* clock, std::stop_token stop) {
  std::string looked_at;
  for (std::unique_ptr<CredentialProvider>& provider : chain) {
    Result<ExpiringCredentials> got = provider->Fetch(stop);
    if (got.ok()) {
      if (got->credentials.source.empty()) got->credentials.source = provider->Describe();
      return std::make_shared<CredentialCache>(std::move(provider), std::move(*got), clock);
    }
    if (got.status().code() != Code::kNotFound) return got.status();
    looked_at += (looked_at.empty() ? "" : ", ") + got.status().message();
  }
  return Status::InvalidArgument("no S3 credentials found: looked at " + looked_at +
                                 ": set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or "
                                 "AWS_PROFILE");
}

}  // namespace lakedump
