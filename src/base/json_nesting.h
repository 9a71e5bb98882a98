// The deepest nesting of arrays and objects in JSON text, counted before parsing it.
// nlohmann's parser is iterative, but copying, comparing and dumping a value recurse once per
// level: a document nested tens of thousands deep would overflow the stack (found by
// tests/fuzz/manifest_fuzz). Pure function; thread-safe.
#pragma once

#include <cstddef>
#include <string_view>

namespace lakedump {

// Deepest nesting of [ and { in `text`, outside strings.
size_t JsonNestingDepth(std::string_view text);

}  // namespace lakedump
