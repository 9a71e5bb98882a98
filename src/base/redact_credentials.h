// What the manifest records of a source's description (Database::Describe()) must carry no
// credential: URL passwords, conninfo passwords and keys named like secrets are taken out.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace lakedump {

// Removes the password from URLs ("scheme://user:secret@host" -> "scheme://user@host")
// and drops keys named like secrets, recursively. For what goes into the manifest.
nlohmann::json RedactCredentials(const nlohmann::json& value);

// The text with every "scheme://user:password@" made "scheme://user@", then every
// `password = value`, `secret=value` or `sslpassword='quoted value'` (keyword in any case,
// blanks around '=') made `password=***`. What RedactCredentials does to each string.
std::string RedactSecretsInText(std::string_view text);

}  // namespace lakedump
