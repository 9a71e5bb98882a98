#include "store/s3/credentials/aws_config_files.h"

#include <fstream>
#include <string_view>

namespace lakedump {
namespace {

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

const IniSection* Find(const std::optional<IniFile>& file, const std::string& name) {
  if (!file) return nullptr;
  auto it = file->find(name);
  return it == file->end() ? nullptr : &it->second;
}

}  // namespace

std::optional<IniFile> ReadIniFile(const std::string& path) {
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

std::string IniGet(const IniSection* section, const std::string& key) {
  if (section == nullptr) return "";
  auto it = section->find(key);
  return it == section->end() ? "" : it->second;
}

const IniSection* AwsConfigFiles::CredentialsSection(const std::string& name) const {
  return Find(credentials, name);
}

const IniSection* AwsConfigFiles::ConfigSection(const std::string& name) const {
  const IniSection* s = Find(config, name == "default" ? "default" : "profile " + name);
  if (s == nullptr && name == "default") s = Find(config, "profile default");
  return s;
}

std::string AwsConfigFiles::Get(const std::string& name, const std::string& key) const {
  std::string v = IniGet(CredentialsSection(name), key);
  return v.empty() ? IniGet(ConfigSection(name), key) : v;
}

AwsConfigFiles LoadAwsConfigFiles(const EnvLookup& env) {
  AwsConfigFiles f;
  const std::string home = EnvOr(env, "HOME");
  f.credentials_path = EnvOr(env, "AWS_SHARED_CREDENTIALS_FILE");
  f.config_path = EnvOr(env, "AWS_CONFIG_FILE");
  if (f.credentials_path.empty()) f.credentials_path = home + "/.aws/credentials";
  if (f.config_path.empty()) f.config_path = home + "/.aws/config";
  f.credentials = ReadIniFile(f.credentials_path);
  f.config = ReadIniFile(f.config_path);
  return f;
}

std::string EnvOr(const EnvLookup& env, const std::string& name) {
  auto v = env(name);
  return v ? *v : "";
}

}  // namespace lakedump
