#include "store/s3/credentials/environment_provider.h"

#include <utility>

#include "store/s3/credentials/aws_config_files.h"

namespace lakedump {
namespace {

class StaticProvider final : public CredentialProvider {
 public:
  explicit StaticProvider(Credentials credentials) : credentials_(std::move(credentials)) {}
  std::string Describe() const override { return credentials_.source; }
  Result<ExpiringCredentials> Fetch(std::stop_token) override {
    return ExpiringCredentials{credentials_, std::nullopt};
  }

 private:
  const Credentials credentials_;
};

class OptionsProvider final : public CredentialProvider {
 public:
  explicit OptionsProvider(const S3Options& o)
      : credentials_{o.access_key_id, o.secret_access_key, o.session_token, "options"} {}
  std::string Describe() const override { return "options"; }
  Result<ExpiringCredentials> Fetch(std::stop_token) override {
    if (credentials_.access_key_id.empty() && credentials_.secret_access_key.empty()) {
      return Status::NotFound("options");
    }
    if (credentials_.access_key_id.empty() || credentials_.secret_access_key.empty()) {
      return Status::InvalidArgument(
          "S3 credentials given in options need both an access key id and a secret access key");
    }
    return ExpiringCredentials{credentials_, std::nullopt};
  }

 private:
  const Credentials credentials_;
};

class EnvironmentProvider final : public CredentialProvider {
 public:
  explicit EnvironmentProvider(EnvLookup env) : env_(std::move(env)) {}
  std::string Describe() const override { return "environment (AWS_ACCESS_KEY_ID)"; }
  Result<ExpiringCredentials> Fetch(std::stop_token) override {
    Credentials c{EnvOr(env_, "AWS_ACCESS_KEY_ID"), EnvOr(env_, "AWS_SECRET_ACCESS_KEY"),
                  EnvOr(env_, "AWS_SESSION_TOKEN"), Describe()};
    if (c.access_key_id.empty() && c.secret_access_key.empty()) {
      return Status::NotFound("AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY");
    }
    if (c.access_key_id.empty() || c.secret_access_key.empty()) {
      return Status::InvalidArgument(
          std::string("partial S3 credentials in the environment: ") +
          (c.access_key_id.empty() ? "AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not"
                                   : "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not"));
    }
    return ExpiringCredentials{std::move(c), std::nullopt};
  }

 private:
  const EnvLookup env_;
};

}  // namespace

std::unique_ptr<CredentialProvider> NewStaticProvider(Credentials credentials) {
  return std::make_unique<StaticProvider>(std::move(credentials));
}

std::unique_ptr<CredentialProvider> NewOptionsProvider(const S3Options& options) {
  return std::make_unique<OptionsProvider>(options);
}

std::unique_ptr<CredentialProvider> NewEnvironmentProvider(EnvLookup env) {
  return std::make_unique<EnvironmentProvider>(std::move(env));
}

}  // namespace lakedump
