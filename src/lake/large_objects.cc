#include "lake/large_objects.h"

#include <fmt/format.h>

namespace lakedump {

std::string LargeObjectsWarning(const nlohmann::json& schema, bool at_load) {
  if (!schema.is_object() || !schema.contains("large_objects")) return "";
  const nlohmann::json& count = schema["large_objects"];
  const uint64_t n = count.is_number_unsigned() ? count.get<uint64_t>() : 0;
  if (n == 0) return "";
  if (at_load) {
    return fmt::format(
        "the dump's source held {} large object(s), which the dump does not hold: they are not "
        "restored (an oid column that names one points at nothing)",
        n);
  }
  return fmt::format(
      "the source holds {} large object(s) (pg_largeobject): lakedump does not dump large "
      "objects, so they are not in this dump (pg_dump -b dumps them)",
      n);
}

}  // namespace lakedump
