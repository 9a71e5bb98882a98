// The AWS shared config and credentials files (~/.aws/config, ~/.aws/credentials, or
// AWS_CONFIG_FILE / AWS_SHARED_CREDENTIALS_FILE), parsed once in the INI dialect awscli reads:
// "[name]" sections ("[profile name]" in config), "key = value", '#'/';' comments, and nested
// blocks ("s3 =" followed by indented "endpoint_url = ...") stored as "s3.endpoint_url".
// A value; thread-safe to read.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "store/s3/credentials.h"

namespace lakedump {

using IniSection = std::map<std::string, std::string>;
using IniFile = std::map<std::string, IniSection>;

// Parses `path`; nullopt when it cannot be read.
std::optional<IniFile> ReadIniFile(const std::string& path);

// `key` of `section`, "" when the section is null or has no such key.
std::string IniGet(const IniSection* section, const std::string& key);

struct AwsConfigFiles {
  std::string credentials_path;
  std::string config_path;
  std::optional<IniFile> credentials;
  std::optional<IniFile> config;

  // Profile `name`'s section in each file (nullptr: none). In config it is "[profile name]",
  // and "[default]" or "[profile default]" for the default profile.
  const IniSection* CredentialsSection(const std::string& name) const;
  const IniSection* ConfigSection(const std::string& name) const;
  // `key` of profile `name`: from the credentials file, else from the config file.
  std::string Get(const std::string& name, const std::string& key) const;
};

// Reads both files from where the environment says (HOME, AWS_CONFIG_FILE,
// AWS_SHARED_CREDENTIALS_FILE). A missing file is not an error: its member stays nullopt.
AwsConfigFiles LoadAwsConfigFiles(const EnvLookup& env);

// The value of an environment variable, or "".
std::string EnvOr(const EnvLookup& env, const std::string& name);

}  // namespace lakedump
