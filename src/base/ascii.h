// ASCII helpers shared by the layers (option values, environment switches, identifiers that
// fold like PostgreSQL's unquoted names). Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace lakedump {

// `s` with A-Z turned into a-z; every other byte (UTF-8 included) as it is.
inline std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace lakedump
