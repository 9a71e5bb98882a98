// Large objects and a dump (issue 31, "Silent loss"): a PostgreSQL dump records how many large
// objects the source held at its snapshot (the manifest's schema "large_objects",
// docs/dump-format.md) but does not hold them yet; dump and load each say so in one warning
// line, so that an `oid` column pointing at them is not found dangling without a word.
// Pure functions; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace lakedump {

// The dump's warning (the load's with `at_load`) for the manifest's schema object `schema`;
// empty when it records none.
std::string LargeObjectsWarning(const nlohmann::json& schema, bool at_load);

}  // namespace lakedump
