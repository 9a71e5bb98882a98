#include "store/s3/credentials.h"

#include <cstdlib>
#include <fstream>
#include <map>
#include <utility>

#include "store/s3/s3_names.h"

namespace lakedump {
namespace {

using Section = std::map<std::string, std::string>;
using IniFile = std::map<std::string, Section>;

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

// The AWS INI dialect: "[name]" sections, "key = value", '#'/';' comments, and
// nested blocks ("s3 =" followed by indented "endpoint_url = ...") stored as
// "s3.endpoint_url".
std::optional<IniFile> ReadIni(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  IniFile file;
  std::string section, parent, line;
  while (std::getline(in, line)) {
    std::string t = Trim(line);
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    if (t.front() == '[' && t.back() == ']') {
      section = Trim(std::string_view(t).substr(1, t.size() - 2));
      parent.clear();
      file[section];
      continue;
    }
    size_t eq = t.find('=');
    if (eq == std::string::npos || section.empty()) continue;
    std::string key = Trim(std::string_view(t).substr(0, eq));
    std::string value = Trim(std::string_view(t).substr(eq + 1));
    bool indented = line[0] == ' ' || line[0] == '\t';
    if (indented && !parent.empty()) {
      file[section][parent + "." + key] = value;
      continue;
    }
    parent = value.empty() ? key : "";
    file[section][key] = value;
  }
  return file;
}

const Section* Find(const std::optional<IniFile>& file, const std::string& name) {
  if (!file) return nullptr;
  auto it = file->find(name);
  return it == file->end() ? nullptr : &it->second;
}

std::string Get(const Section* s, const std::string& key) {
  if (s == nullptr) return "";
  auto it = s->find(key);
  return it == s->end() ? "" : it->second;
}

std::string EnvOr(const EnvLookup& env, const std::string& name) {
  auto v = env(name);
  return v ? *v : "";
}

// The AWS profile in use and where its files are. `cred` and `conf` point into the parsed
// files (nullptr: no such section).
struct Profile {
  std::string name;
  std::string credentials_path, config_path;
  const Section* cred;
  const Section* conf;
};

// Options, else the environment and the profile (the profile first with --profile).
Status ResolveCredentials(const S3Options& options, const EnvLookup& env, const Profile& p,
                          bool profile_flag, Credentials* c) {
  auto from_profile = [&]() -> bool {
    for (const Section* s : {p.cred, p.conf}) {
      if (!Get(s, "aws_access_key_id").empty() && !Get(s, "aws_secret_access_key").empty()) {
        c->access_key_id = Get(s, "aws_access_key_id");
        c->secret_access_key = Get(s, "aws_secret_access_key");
        c->session_token = Get(s, "aws_session_token");
        c->source = "profile " + p.name + " in " +
                    (s == p.cred ? p.credentials_path : p.config_path);
        return true;
      }
    }
    return false;
  };
  auto from_env = [&]() -> bool {
    std::string id = EnvOr(env, "AWS_ACCESS_KEY_ID");
    std::string secret = EnvOr(env, "AWS_SECRET_ACCESS_KEY");
    if (id.empty() || secret.empty()) return false;
    c->access_key_id = id;
    c->secret_access_key = secret;
    c->session_token = EnvOr(env, "AWS_SESSION_TOKEN");
    c->source = "environment (AWS_ACCESS_KEY_ID)";
    return true;
  };
  if (!options.access_key_id.empty() || !options.secret_access_key.empty()) {
    if (options.access_key_id.empty() || options.secret_access_key.empty()) {
      return Status::InvalidArgument(
          "S3 credentials given in options need both an access key id and a secret access key");
    }
    c->access_key_id = options.access_key_id;
    c->secret_access_key = options.secret_access_key;
    c->session_token = options.session_token;
    c->source = "options";
  } else if (profile_flag ? !(from_profile() || from_env()) : !(from_env() || from_profile())) {
    return Status::InvalidArgument(
        "no S3 credentials found: looked at options, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, "
        "profile \"" +
        p.name + "\" in " + p.credentials_path + " and " + p.config_path +
        ": set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or AWS_PROFILE");
  }
  return Status::OK();
}

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
  const Section* conf_section = p.conf;
  config->region = first({options.region, EnvOr(env, "AWS_REGION"),
                          EnvOr(env, "AWS_DEFAULT_REGION"), Get(conf_section, "region"),
                          "us-east-1"});
  const std::pair<std::string, std::string> endpoints[] = {
      {options.endpoint, "--endpoint"},
      {EnvOr(env, "AWS_ENDPOINT_URL_S3"), "AWS_ENDPOINT_URL_S3"},
      {EnvOr(env, "AWS_ENDPOINT_URL"), "AWS_ENDPOINT_URL"},
      {Get(conf_section, "s3.endpoint_url"), "s3.endpoint_url of profile " + p.name},
      {Get(conf_section, "endpoint_url"), "endpoint_url of profile " + p.name}};
  for (const auto& [endpoint, from] : endpoints) {
    if (endpoint.empty()) continue;
    LD_RETURN_IF_ERROR(CheckEndpointUrl(endpoint, from));
    config->endpoint = endpoint;
    break;
  }
  while (!config->endpoint.empty() && config->endpoint.back() == '/') config->endpoint.pop_back();
  config->ca_bundle =
      first({options.ca_bundle, EnvOr(env, "AWS_CA_BUNDLE"), Get(conf_section, "ca_bundle")});
  const std::string conf_addressing = Get(conf_section, "s3.addressing_style");
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

Result<S3Config> ResolveS3Config(const S3Options& options, const EnvLookup& env) {
  S3Config config;
  const bool profile_flag = !options.profile.empty();
  config.profile = profile_flag ? options.profile : EnvOr(env, "AWS_PROFILE");
  if (config.profile.empty()) config.profile = "default";

  std::string home = EnvOr(env, "HOME");
  Profile p{config.profile, EnvOr(env, "AWS_SHARED_CREDENTIALS_FILE"),
            EnvOr(env, "AWS_CONFIG_FILE"), nullptr, nullptr};
  if (p.credentials_path.empty()) p.credentials_path = home + "/.aws/credentials";
  if (p.config_path.empty()) p.config_path = home + "/.aws/config";
  auto credentials_file = ReadIni(p.credentials_path);
  auto config_file = ReadIni(p.config_path);
  p.cred = Find(credentials_file, config.profile);
  p.conf =
      Find(config_file, config.profile == "default" ? "default" : "profile " + config.profile);
  if (p.conf == nullptr && config.profile == "default") {
    p.conf = Find(config_file, "profile default");
  }
  if (profile_flag && p.cred == nullptr && p.conf == nullptr) {
    return Status::InvalidArgument("AWS profile \"" + config.profile + "\" not found in " +
                                   p.credentials_path + " or " + p.config_path);
  }
  LD_RETURN_IF_ERROR(ResolveCredentials(options, env, p, profile_flag, &config.credentials));
  LD_RETURN_IF_ERROR(ResolveEndpoint(options, env, p, &config));
  return config;
}

}  // namespace lakedump
