#include "store/s3/credentials/profile_provider.h"

#include <utility>

#include "store/s3/credentials/environment_provider.h"
#include "store/s3/credentials/process_provider.h"

namespace lakedump {
namespace {

// Static keys in `section` of the file at `path`: a provider, nullptr when the section has
// neither key, InvalidArgument when it has one without the other.
Result<std::unique_ptr<CredentialProvider>> KeysIn(const IniSection* section,
                                                   const std::string& profile,
                                                   const std::string& path) {
  const std::string id = IniGet(section, "aws_access_key_id");
  const std::string secret = IniGet(section, "aws_secret_access_key");
  if (id.empty() && secret.empty()) return std::unique_ptr<CredentialProvider>();
  if (id.empty() || secret.empty()) {
    return Status::InvalidArgument("profile " + profile + " in " + path + " has " +
                                   (id.empty() ? "aws_secret_access_key but no aws_access_key_id"
                                               : "aws_access_key_id but no aws_secret_access_key"));
  }
  return NewStaticProvider(
      {id, secret, IniGet(section, "aws_session_token"), "profile " + profile + " in " + path});
}

bool UsesSso(const AwsConfigFiles& files, const std::string& profile) {
  for (const char* key : {"sso_session", "sso_start_url", "sso_account_id", "sso_role_name"}) {
    if (!IniGet(files.ConfigSection(profile), key).empty()) return true;
  }
  return false;
}

class ProfileProvider final : public CredentialProvider {
 public:
  ProfileProvider(const CredentialSources& sources, std::string profile,
                  const CredentialChainHooks& hooks)
      : sources_(sources), profile_(std::move(profile)), hooks_(hooks) {}

  std::string Describe() const override {
    return chosen_ ? chosen_->Describe() : "profile " + profile_;
  }

  Result<ExpiringCredentials> Fetch(std::stop_token stop) override {
    if (!chosen_) {
      LD_ASSIGN_OR_RETURN(chosen_, Choose());
    }
    return chosen_->Fetch(stop);
  }

 private:
  Result<std::unique_ptr<CredentialProvider>> Choose() const {
    const AwsConfigFiles& files = *sources_.files;
    if (!files.Get(profile_, "role_arn").empty()) {
      if (!hooks_.assume_role) {
        return Status::InvalidArgument("profile " + profile_ +
                                       " has role_arn, and this build of lakedump cannot assume "
                                       "a role (STS AssumeRole)");
      }
      return hooks_.assume_role(sources_, profile_, hooks_);
    }
    LD_ASSIGN_OR_RETURN(auto keys,
                        KeysIn(files.CredentialsSection(profile_), profile_, files.credentials_path));
    if (keys) return keys;
    const std::string process = files.Get(profile_, "credential_process");
    if (!process.empty()) return NewProcessProvider(profile_, process, sources_.process_timeout);
    LD_ASSIGN_OR_RETURN(keys, KeysIn(files.ConfigSection(profile_), profile_, files.config_path));
    if (keys) return keys;
    if (UsesSso(files, profile_)) {
      return Status::InvalidArgument(
          "profile " + profile_ + " uses IAM Identity Center (sso_*), which lakedump does not " +
          "read: run `aws sso login --profile " + profile_ + "` and add to the profile " +
          "`credential_process = aws configure export-credentials --profile " + profile_ +
          " --format process`");
    }
    return Status::NotFound("profile \"" + profile_ + "\" in " + files.credentials_path +
                            " and " + files.config_path);
  }

  const CredentialSources sources_;
  const std::string profile_;
  const CredentialChainHooks hooks_;
  std::unique_ptr<CredentialProvider> chosen_;
};

}  // namespace

std::unique_ptr<CredentialProvider> NewProfileProvider(const CredentialSources& sources,
                                                       std::string profile,
                                                       const CredentialChainHooks& hooks) {
  return std::make_unique<ProfileProvider>(sources, std::move(profile), hooks);
}

}  // namespace lakedump
