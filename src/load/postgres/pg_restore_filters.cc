#include "load/postgres/pg_restore_filters.h"

#include <algorithm>
#include <string>

namespace lakedump {
namespace {

constexpr std::string_view kPrefix = "lakedump_";

bool AllOf(std::string_view s, bool (*pred)(char)) { return std::all_of(s.begin(), s.end(), pred); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLowerHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f'); }

}  // namespace

bool IsLakedumpPublicationName(std::string_view name) {
  if (!name.starts_with(kPrefix)) return false;
  const std::string_view id = name.substr(kPrefix.size());
  if (id.size() == 16) return AllOf(id, IsLowerHex);  // before dump-id names
  // A run id "YYYYMMDDTHHMMSSZ-xxxxxxxx" as IncrementalSlotName writes it:
  // "yyyymmddthhmmssz_xxxxxxxx".
  return id.size() == 25 && AllOf(id.substr(0, 8), IsDigit) && id[8] == 't' &&
         AllOf(id.substr(9, 6), IsDigit) && id[15] == 'z' && id[16] == '_' &&
         AllOf(id.substr(17), IsLowerHex);
}

bool IsLakedumpPublicationEntry(const PgTocEntry& entry) {
  const std::string_view name = entry.name;
  if (entry.type == "PUBLICATION") return IsLakedumpPublicationName(name);
  if (entry.type == "PUBLICATION TABLE" || entry.type == "PUBLICATION TABLES IN SCHEMA") {
    return IsLakedumpPublicationName(name.substr(0, name.find(' ')));
  }
  if (entry.type == "COMMENT" || entry.type == "SECURITY LABEL") {
    return name.starts_with("PUBLICATION ") &&
           IsLakedumpPublicationName(name.substr(std::string_view("PUBLICATION ").size()));
  }
  return false;
}

bool IsUnpopulatedMatview(const nlohmann::json& schema, std::string_view schema_name,
                          std::string_view name) {
  if (!schema.is_object() || !schema.contains("unpopulated_matviews")) return false;
  const nlohmann::json& list = schema["unpopulated_matviews"];
  if (!list.is_array()) return false;
  return std::any_of(list.begin(), list.end(), [&](const nlohmann::json& m) {
    return m.is_object() && m.contains("schema") && m.contains("name") &&
           m["schema"].is_string() && m["name"].is_string() &&
           m["schema"].get_ref<const std::string&>() == schema_name &&
           m["name"].get_ref<const std::string&>() == name;
  });
}

}  // namespace lakedump
