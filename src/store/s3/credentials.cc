#include "store/s3/credentials.h"

#include <cstdlib>
#include <mutex>
#include <utility>

#include "store/s3/credentials/aws_config_files.h"
#include "store/s3/credentials/credential_chain.h"
#include "store/s3/s3_names.h"

namespace lakedump {
namespace {

// The AWS profile in use and where its files are. `conf` points into the parsed config file
// (nullptr: no such section).
struct Profile {
  std::string name;
  std::string config_path;
  const IniSection* conf;
};

// Region, endpoint, CA bundle and addressing style: options, else the environment, else
// the profile's config section, else the default.
Status ResolveEndpoint(const S3Options& options, const EnvLookup& env, const Profile& p,
                       S3Config* config) {
  auto first = [](std::initializer_list<std::string> values) {
    for (const auto& v : values) {
      if (!v.empty()) return v;
    }
    return std::string();
  };
  const IniSection* conf_section = p.conf;
  config->region = first({options.region, EnvOr(env, "AWS_REGION"),
                          EnvOr(env, "AWS_DEFAULT_REGION"), IniGet(conf_section, "region"),
                          "us-east-1"});
  const std::pair<std::string, std::string> endpoints[] = {
      {options.endpoint, "--endpoint"},
      {EnvOr(env, "AWS_ENDPOINT_URL_S3"), "AWS_ENDPOINT_URL_S3"},
      {EnvOr(env, "AWS_ENDPOINT_URL"), "AWS_ENDPOINT_URL"},
      {IniGet(conf_section, "s3.endpoint_url"), "s3.endpoint_url of profile " + p.name},
      {IniGet(conf_section, "endpoint_url"), "endpoint_url of profile " + p.name}};
  for (const auto& [endpoint, from] : endpoints) {
    if (endpoint.empty()) continue;
    LD_RETURN_IF_ERROR(CheckEndpointUrl(endpoint, from));
    config->endpoint = endpoint;
    break;
  }
  while (!config->endpoint.empty() && config->endpoint.back() == '/') config->endpoint.pop_back();
  config->ca_bundle =
      first({options.ca_bundle, EnvOr(env, "AWS_CA_BUNDLE"), IniGet(conf_section, "ca_bundle")});
  const std::string conf_addressing = IniGet(conf_section, "s3.addressing_style");
  config->addressing = first({options.addressing, options.virtual_host_style ? "virtual" : "",
                              conf_addressing, "auto"});
  if (config->addressing != "auto" && config->addressing != "path" &&
      config->addressing != "virtual") {
    const bool from_file = options.addressing.empty() && !options.virtual_host_style;
    return Status::InvalidArgument(
        "S3 addressing style \"" + config->addressing + "\" (from " +
        (from_file ? "s3.addressing_style of profile " + p.name + " in " + p.config_path
                   : std::string("--s3-addressing")) +
        ") must be auto, path or virtual");
  }
  return Status::OK();
}

}  // namespace

namespace {

std::mutex observer_mu;
std::function<void(const std::string&)>& Observer() {  // GUARDED_BY(observer_mu)
  static auto* observer = new std::function<void(const std::string&)>();
  return *observer;
}

void TellObserver(const std::string& source) {
  std::lock_guard<std::mutex> lock(observer_mu);
  if (Observer()) Observer()(source);
}

}  // namespace

void SetCredentialsObserver(std::function<void(const std::string&)> observer) {
  std::lock_guard<std::mutex> lock(observer_mu);
  Observer() = std::move(observer);
}

std::optional<std::string> SystemEnv(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

std::string Credentials::ToString() const {
  std::string id = access_key_id.size() > 8 ? access_key_id.substr(0, 4) + "****" +
                                                  access_key_id.substr(access_key_id.size() - 4)
                                            : std::string("****");
  return id + " from " + source;
}

Result<S3Config> ResolveS3Config(const S3Options& options, const EnvLookup& env,
                                 const CredentialChainHooks* hooks) {
  S3Config config;
  const bool profile_flag = !options.profile.empty();
  config.profile = profile_flag ? options.profile : EnvOr(env, "AWS_PROFILE");
  if (config.profile.empty()) config.profile = "default";

  auto files = std::make_shared<AwsConfigFiles>(LoadAwsConfigFiles(env));
  Profile p{config.profile, files->config_path, files->ConfigSection(config.profile)};
  if (profile_flag && p.conf == nullptr && files->CredentialsSection(config.profile) == nullptr) {
    return Status::InvalidArgument("AWS profile \"" + config.profile + "\" not found in " +
                                   files->credentials_path + " or " + files->config_path);
  }
  LD_RETURN_IF_ERROR(ResolveEndpoint(options, env, p, &config));

  CredentialSources sources;
  sources.options = options;
  sources.env = env;
  sources.profile = config.profile;
  sources.profile_explicit = profile_flag;
  sources.files = std::move(files);
  sources.region = config.region;
  sources.ca_bundle = config.ca_bundle;
  const CredentialChainHooks remote = hooks != nullptr ? *hooks : RemoteCredentialHooks();
  LD_ASSIGN_OR_RETURN(config.credential_cache,
                      ResolveCredentialChain(BuildCredentialChain(sources, remote),
                                             sources.clock));
  LD_ASSIGN_OR_RETURN(config.credentials, config.credential_cache->Current());
  TellObserver(config.credentials.source);
  return config;
}

}  // namespace lakedump
