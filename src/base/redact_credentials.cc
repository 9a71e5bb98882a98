#include "base/redact_credentials.h"

#include <algorithm>
#include <array>

namespace lakedump {
namespace {

// The ASCII classes of the two patterns (no locale: a byte >= 0x80 is in none of them).
bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}
bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsSchemeChar(char c) {
  return IsLetter(c) || (c >= '0' && c <= '9') || c == '+' || c == '.' || c == '-';
}
char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Every `[A-Za-z][A-Za-z0-9+.-]*://USER:PASSWORD@` (USER without / : @ or blanks, PASSWORD
// without @ / or blanks) loses its ":PASSWORD".
std::string DropUrlPasswords(std::string_view s) {
  std::string out;
  size_t copied = 0;  // s[0, copied) is in `out`; no match starts before it
  for (size_t pos = s.find("://"); pos != std::string_view::npos; pos = s.find("://", pos + 1)) {
    if (pos < copied) continue;
    // A scheme right before "://": a run of scheme characters holding a letter (the match
    // starts at its first letter).
    bool scheme = false;
    for (size_t b = pos; b > copied && IsSchemeChar(s[b - 1]); --b) scheme |= IsLetter(s[b - 1]);
    if (!scheme) continue;
    size_t user_end = pos + 3;
    while (user_end < s.size() && s[user_end] != '/' && s[user_end] != ':' && s[user_end] != '@' &&
           !IsBlank(s[user_end])) {
      ++user_end;
    }
    if (user_end == s.size() || s[user_end] != ':') continue;
    size_t at = user_end + 1;
    while (at < s.size() && s[at] != '@' && s[at] != '/' && !IsBlank(s[at])) ++at;
    if (at == s.size() || s[at] != '@') continue;
    out.append(s.substr(copied, user_end - copied));  // through the user
    copied = at;                                      // from the '@'
  }
  out.append(s.substr(copied));
  return out;
}

// The end of `(password|secret|sslpassword)\s*=\s*('[^']*'|\S+)` matched at s[i] (keyword in
// any case), with the keyword's length in *keyword_size; 0 when there is no match at i.
size_t MatchKeywordAssignment(std::string_view s, size_t i, size_t* keyword_size) {
  static constexpr std::array<std::string_view, 3> kKeywords = {"password", "secret",
                                                                "sslpassword"};
  for (std::string_view k : kKeywords) {
    if (s.size() - i < k.size()) continue;
    bool same = true;
    for (size_t j = 0; j < k.size() && same; ++j) same = Lower(s[i + j]) == k[j];
    if (!same) continue;
    size_t j = i + k.size();
    while (j < s.size() && IsBlank(s[j])) ++j;
    if (j == s.size() || s[j] != '=') continue;
    ++j;
    while (j < s.size() && IsBlank(s[j])) ++j;
    if (j == s.size()) continue;
    if (s[j] == '\'') {
      const size_t close = s.find('\'', j + 1);
      if (close != std::string_view::npos) {
        *keyword_size = k.size();
        return close + 1;
      }
    }
    size_t end = j;
    while (end < s.size() && !IsBlank(s[end])) ++end;
    *keyword_size = k.size();
    return end;  // > j: s[j] is not blank
  }
  return 0;
}

std::string MaskKeywordAssignments(std::string_view s) {
  std::string out;
  size_t copied = 0;
  for (size_t i = 0; i < s.size();) {
    size_t keyword_size = 0;
    const size_t end = MatchKeywordAssignment(s, i, &keyword_size);
    if (end == 0) {
      ++i;
      continue;
    }
    out.append(s.substr(copied, i + keyword_size - copied));  // the keyword as written
    out.append("=***");
    copied = i = end;
  }
  out.append(s.substr(copied));
  return out;
}

}  // namespace

std::string RedactSecretsInText(std::string_view text) {
  return MaskKeywordAssignments(DropUrlPasswords(text));
}

nlohmann::json RedactCredentials(const nlohmann::json& value) {
  if (value.is_string()) return RedactSecretsInText(value.get_ref<const std::string&>());
  if (value.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = value.begin(); it != value.end(); ++it) {
      std::string k = it.key();
      std::transform(k.begin(), k.end(), k.begin(), Lower);
      if (k.find("password") != std::string::npos || k.find("secret") != std::string::npos ||
          k == "token" || k == "session_token") {
        continue;
      }
      out[it.key()] = RedactCredentials(it.value());
    }
    return out;
  }
  if (value.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : value) out.push_back(RedactCredentials(v));
    return out;
  }
  return value;
}

}  // namespace lakedump
