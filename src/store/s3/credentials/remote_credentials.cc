#include "store/s3/credentials/remote_credentials.h"

#include <fstream>

#include <nlohmann/json.hpp>


namespace lakedump {

std::unique_ptr<HttpTransport> RemoteCredentialContext::NewTransport(
    CurlTransportOptions options) const {
  if (options.ca_bundle.empty()) options.ca_bundle = ca_bundle;
  return new_transport ? new_transport(options) : NewCurlTransport(options);
}

std::string RemoteCredentialContext::Env(const std::string& name) const {
  if (!env) return "";
  auto v = env(name);
  return v ? *v : "";
}

Result<ExpiringCredentials> ParseCredentialDocument(std::string_view body,
                                                    std::string_view what) {
  const auto j = nlohmann::json::parse(body.begin(), body.end(), nullptr, false);
  const std::string where(what);
  if (j.is_discarded() || !j.is_object()) {
    return Status::Corruption("the reply of " + where + " is not a JSON credential document");
  }
  auto text = [&](const char* key) -> std::string {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : "";
  };
  if (j.contains("Code") && text("Code") != "Success") {
    return Status::IOError(where + " answered Code \"" + OneLine(text("Code")) + "\": " +
                           OneLine(text("Message")));
  }
  ExpiringCredentials out;
  out.credentials.access_key_id = text("AccessKeyId");
  out.credentials.secret_access_key = text("SecretAccessKey");
  out.credentials.session_token = text("Token");
  if (out.credentials.access_key_id.empty() || out.credentials.secret_access_key.empty()) {
    return Status::Corruption("the reply of " + where +
                              " has no AccessKeyId or SecretAccessKey");
  }
  const std::string expiration = text("Expiration");
  if (!expiration.empty()) {
    out.expiration = ParseCredentialExpiration(expiration);
    if (!out.expiration) {
      return Status::Corruption("the reply of " + where + " has a malformed Expiration \"" +
                                OneLine(expiration) + "\"");
    }
  }
  return out;
}

Result<std::string> ReadTokenFile(const std::string& path, std::string_view variable) {
  const std::string where = std::string(variable) + " (" + path + ")";
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::InvalidArgument("cannot read the token file " + where);
  std::string text(kMaxTokenFile + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxTokenFile) {
    return Status::InvalidArgument("the token file " + where + " is larger than " +
                                   std::to_string(kMaxTokenFile) + " bytes");
  }
  const size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return Status::InvalidArgument("the token file " + where +
                                                                 " is empty");
  text = text.substr(begin, text.find_last_not_of(" \t\r\n") - begin + 1);
  if (text.find_first_of("\r\n") != std::string::npos || text.find('\0') != std::string::npos) {
    return Status::InvalidArgument("the token file " + where + " holds more than one line");
  }
  return text;
}

std::string OneLine(std::string_view text, std::initializer_list<std::string_view> secrets) {
  std::string out(text);
  for (std::string_view secret : secrets) {
    if (secret.size() < kMinScrubbed) continue;  // a word, not a secret: "t" is in "the"
    for (size_t at = out.find(secret); at != std::string::npos; at = out.find(secret, at + 3)) {
      out.replace(at, secret.size(), "***");
    }
  }
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  if (out.size() > 200) out = out.substr(0, 197) + "...";
  return out;
}

std::string UrlForMessages(std::string_view url) {
  std::string out(url.substr(0, url.find_first_of("?#")));
  const size_t host = out.find("://") == std::string::npos ? 0 : out.find("://") + 3;
  const size_t at = out.find('@', host);
  if (at != std::string::npos && at < out.find('/', host)) out.erase(host, at + 1 - host);
  return OneLine(out);
}

}  // namespace lakedump
