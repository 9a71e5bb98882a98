#include "store/s3/credentials/process_provider.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/byte_sink.h"
#include "base/redact_credentials.h"
#include "base/subprocess.h"

namespace lakedump {
namespace {

constexpr size_t kMaxOutput = 1 << 20;  // credentials are a few KiB
constexpr size_t kMaxStderrLine = 200;

// Keeps at most kMaxOutput bytes; more is an error (a command that is not a credential helper).
class BoundedSink final : public ByteSink {
 public:
  Status Append(std::string_view data) override {
    if (buffer_.size() + data.size() > kMaxOutput) {
      return Status::InvalidArgument("printed more than 1 MiB");
    }
    buffer_.append(data);
    return Status::OK();
  }
  uint64_t bytes_written() const override { return buffer_.size(); }
  std::string& str() { return buffer_; }

 private:
  std::string buffer_;
};

// A non-empty string member, or "" (absent, or not a string).
std::string StringMember(const nlohmann::json& doc, const char* name) {
  auto it = doc.find(name);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : "";
}

class ProcessProvider final : public CredentialProvider {
 public:
  ProcessProvider(std::string profile, std::string command, std::chrono::milliseconds timeout)
      : profile_(std::move(profile)), command_(std::move(command)), timeout_(timeout) {}

  std::string Describe() const override { return "profile " + profile_ + " (credential_process)"; }

  Result<ExpiringCredentials> Fetch(std::stop_token stop) override {
    Result<std::vector<std::string>> argv = SplitCommandLine(command_);
    if (!argv.ok()) return argv.status().WithContext("profile " + profile_);
    program_ = argv->front();
    SubprocessSpec spec;
    spec.argv = std::move(*argv);
    spec.timeout = timeout_;
    spec.stop = stop;
    BoundedSink out;
    Result<SubprocessOutcome> ran = RunSubprocess(spec, &out);
    // Wiped however the parse ends: the output holds the secret.
    struct Wipe {
      std::string* s;
      ~Wipe() { std::fill(s->begin(), s->end(), '\0'); }
    } wipe{&out.str()};
    if (!ran.ok()) {
      if (ran.status().code() == Code::kCancelled) return ran.status();
      return Fail(ran.status().code() == Code::kInvalidArgument ? Code::kInvalidArgument
                                                                  : Code::kIOError,
                  ran.status().code() == Code::kNotFound ? "cannot be started"
                                                         : ran.status().message());
    }
    if (ran->timed_out) {
      return Fail(Code::kIOError,
                  fmt::format("did not finish within {} ms and was killed", timeout_.count()));
    }
    if (ran->exit_code != 0) {
      std::string why = RedactSecretsInText(FirstErrorLine(ran->stderr_tail));
      if (why.size() > kMaxStderrLine) why = why.substr(0, kMaxStderrLine) + "...";
      return Fail(Code::kIOError, fmt::format("exited with status {}{}", ran->exit_code,
                                              why.empty() ? "" : ": " + why));
    }
    return Parse(out.str());
  }

 private:
  Status Fail(Code code, const std::string& what) const {
    return Status(code, fmt::format("profile {}: credential_process ({}) {}", profile_, program_,
                                    what));
  }

  Result<ExpiringCredentials> Parse(const std::string& text) const {
    const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    const char* hidden = " (its output is not shown: it holds secrets)";
    if (doc.is_discarded() || !doc.is_object()) {
      return Fail(Code::kInvalidArgument, std::string("printed no JSON object") + hidden);
    }
    auto version = doc.find("Version");
    if (version == doc.end() || !version->is_number_integer() || version->get<int64_t>() != 1) {
      return Fail(Code::kInvalidArgument,
                  "printed a JSON object without \"Version\": 1 (the only version awscli "
                  "documents)");
    }
    ExpiringCredentials c;
    c.credentials = {StringMember(doc, "AccessKeyId"), StringMember(doc, "SecretAccessKey"),
                     StringMember(doc, "SessionToken"), Describe()};
    if (c.credentials.access_key_id.empty() || c.credentials.secret_access_key.empty()) {
      return Fail(Code::kInvalidArgument,
                  "printed no AccessKeyId or no SecretAccessKey (strings)");
    }
    auto expiration = doc.find("Expiration");
    if (expiration != doc.end() && !expiration->is_null()) {
      if (expiration->is_string()) {
        c.expiration = ParseCredentialExpiration(expiration->get<std::string>());
      }
      if (!c.expiration) {
        return Fail(Code::kInvalidArgument,
                    "printed an Expiration that is not an RFC 3339 time "
                    "(2026-12-01T01:00:00Z)");
      }
    }
    return c;
  }

  const std::string profile_;
  const std::string command_;
  const std::chrono::milliseconds timeout_;
  std::string program_;  // argv[0], for messages
};

}  // namespace

Result<std::vector<std::string>> SplitCommandLine(std::string_view command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;  // '\'' or '"' while inside quotes
  for (size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (quote == '\'') {
      if (c == '\'') {
        quote = 0;
      } else {
        word += c;
      }
    } else if (quote == '"') {
      // shlex: inside double quotes a backslash escapes only '"' and '\'.
      if (c == '\\' && i + 1 < command.size() &&
          (command[i + 1] == '"' || command[i + 1] == '\\')) {
        word += command[++i];
      } else if (c == '"') {
        quote = 0;
      } else {
        word += c;
      }
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      in_word = true;
      if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '\\') {
        if (i + 1 == command.size()) {
          return Status::InvalidArgument("credential_process ends with a backslash");
        }
        word += command[++i];
      } else {
        word += c;
      }
    }
  }
  if (quote != 0) return Status::InvalidArgument("credential_process has an unterminated quote");
  if (in_word) words.push_back(std::move(word));
  if (words.empty()) return Status::InvalidArgument("credential_process is empty");
  return words;
}

std::unique_ptr<CredentialProvider> NewProcessProvider(std::string profile, std::string command,
                                                       std::chrono::milliseconds timeout) {
  return std::make_unique<ProcessProvider>(std::move(profile), std::move(command), timeout);
}

}  // namespace lakedump
